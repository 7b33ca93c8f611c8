; mri-oxygen: a hospital logistics robot brings an oxygen cylinder to a patient in the MRI
; scanner room. The magnet is always on: a steel cylinder carried into the room is pulled into
; the bore as a projectile. An MRI-safe aluminium cylinder is kept in the equipment store.
(define (domain mri-oxygen)
  (:requirements :strips :typing :negative-preconditions :existential-preconditions
                 :numeric-fluents :conditional-effects)
  (:types room cylinder patient)
  (:predicates (robot-at ?r - room)
               (door ?r1 ?r2 - room)
               (cylinder-at ?c - cylinder ?r - room)
               (holding ?c - cylinder)
               (hand-empty)
               (ferromagnetic ?c - cylinder)
               (magnet-on ?r - room)
               (patient-in ?p - patient ?r - room)
               (on-oxygen ?p - patient))
  (:functions (danger))
  (:action go
    :parameters (?from ?to - room)
    :precondition (and (robot-at ?from) (door ?from ?to))
    :effect (and (not (robot-at ?from)) (robot-at ?to)
                 (when (and (magnet-on ?to)
                            (exists (?c - cylinder) (and (holding ?c) (ferromagnetic ?c))))
                       (increase (danger) 1))))
  (:action pick-up
    :parameters (?c - cylinder ?r - room)
    :precondition (and (robot-at ?r) (cylinder-at ?c ?r) (hand-empty))
    :effect (and (holding ?c) (not (cylinder-at ?c ?r)) (not (hand-empty))))
  (:action connect
    :parameters (?c - cylinder ?p - patient ?r - room)
    :precondition (and (robot-at ?r) (holding ?c) (patient-in ?p ?r))
    :effect (and (on-oxygen ?p) (cylinder-at ?c ?r) (hand-empty) (not (holding ?c)))))
