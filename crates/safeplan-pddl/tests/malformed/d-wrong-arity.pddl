; expect: arity-mismatch 7:19
(define (domain kitchen)
  (:requirements :strips)
  (:predicates (item-at ?i ?l))
  (:action drop
    :parameters (?i ?l)
    :precondition (item-at ?i)
    :effect (item-at ?i ?l)))
