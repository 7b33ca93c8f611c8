; expect: unexpected-token 7:33
(define (domain kitchen)
  (:requirements :strips :negative-preconditions)
  (:predicates (p) (q))
  (:action go
    :parameters ()
    :precondition (and (not (p) (q)))
    :effect (p)))
