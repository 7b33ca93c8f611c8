; expect: undefined-predicate 7:42
(define (domain kitchen)
  (:requirements :strips)
  (:predicates (robot-at ?l) (connected ?a ?b))
  (:action move
    :parameters (?from ?to)
    :precondition (and (robot-at ?from) (conected ?from ?to))
    :effect (and (not (robot-at ?from)) (robot-at ?to))))
