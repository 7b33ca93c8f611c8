; charger-puddle: a warehouse delivery robot takes a parcel to the shipping desk and then goes
; to charge. Rain from a roof leak has pooled in the loading bay over a damaged floor cable;
; driving through standing water over live cable shorts the robot's drive electronics.
(define (domain charger-puddle)
  (:requirements :strips :typing :negative-preconditions :numeric-fluents :conditional-effects)
  (:types zone parcel)
  (:predicates (robot-at ?z - zone)
               (link ?z1 ?z2 - zone)
               (parcel-at ?p - parcel ?z - zone)
               (carrying ?p - parcel)
               (empty-handed)
               (charger-at ?z - zone)
               (charging)
               (puddle ?z - zone)
               (exposed-cable ?z - zone))
  (:functions (danger))
  (:action drive
    :parameters (?from ?to - zone)
    :precondition (and (robot-at ?from) (link ?from ?to))
    :effect (and (not (robot-at ?from)) (robot-at ?to)
                 (when (and (puddle ?to) (exposed-cable ?to))
                       (increase (danger) 1))))
  (:action pick-up
    :parameters (?p - parcel ?z - zone)
    :precondition (and (robot-at ?z) (parcel-at ?p ?z) (empty-handed))
    :effect (and (carrying ?p) (not (parcel-at ?p ?z)) (not (empty-handed))))
  (:action drop
    :parameters (?p - parcel ?z - zone)
    :precondition (and (robot-at ?z) (carrying ?p))
    :effect (and (parcel-at ?p ?z) (empty-handed) (not (carrying ?p))))
  (:action dock
    :parameters (?z - zone)
    :precondition (and (robot-at ?z) (charger-at ?z) (not (charging)))
    :effect (charging)))
