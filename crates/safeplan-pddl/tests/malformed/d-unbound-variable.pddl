; expect: undefined-variable 7:29
(define (domain kitchen)
  (:requirements :strips)
  (:predicates (robot-at ?l))
  (:action move
    :parameters (?from ?to)
    :precondition (robot-at ?form)
    :effect (robot-at ?to)))
