; pallet-aisles: an autonomous forklift puts away three pallets from the receiving dock and
; parks at its charger. A picker is working in aisle B. Driving into an aisle where a person
; works, without first stopping at the aisle mouth until they acknowledge, risks running them
; over. An acknowledgement lasts for one visit: the picker resumes work when the forklift leaves.
(define (domain pallet-aisles)
  (:requirements :strips :typing :negative-preconditions :numeric-fluents :conditional-effects)
  (:types location pallet)
  (:predicates (forklift-at ?l - location)
               (road ?from ?to - location)
               (pallet-at ?p - pallet ?l - location)
               (lifted ?p - pallet)
               (forks-empty)
               (worker-in ?l - location)
               (acknowledged ?l - location))
  (:functions (danger))
  (:action drive
    :parameters (?from ?to - location)
    :precondition (and (forklift-at ?from) (road ?from ?to))
    :effect (and (not (forklift-at ?from)) (forklift-at ?to) (not (acknowledged ?from))
                 (when (and (worker-in ?to) (not (acknowledged ?to)))
                       (increase (danger) 1))))
  (:action stop-and-signal
    :parameters (?from ?to - location)
    :precondition (and (forklift-at ?from) (road ?from ?to) (worker-in ?to)
                       (not (acknowledged ?to)))
    :effect (acknowledged ?to))
  (:action lift
    :parameters (?p - pallet ?l - location)
    :precondition (and (forklift-at ?l) (pallet-at ?p ?l) (forks-empty))
    :effect (and (lifted ?p) (not (pallet-at ?p ?l)) (not (forks-empty))))
  (:action lower
    :parameters (?p - pallet ?l - location)
    :precondition (and (forklift-at ?l) (lifted ?p))
    :effect (and (pallet-at ?p ?l) (forks-empty) (not (lifted ?p)))))
