; expect: duplicate-name 8:12
(define (domain kitchen)
  (:requirements :strips)
  (:predicates (p))
  (:action go
    :parameters ()
    :effect (p))
  (:action go
    :parameters ()
    :effect (not (p))))
