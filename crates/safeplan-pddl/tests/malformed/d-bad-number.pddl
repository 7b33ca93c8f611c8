; expect: invalid-number 7:30
(define (domain kitchen)
  (:requirements :strips :numeric-fluents)
  (:functions (fuel))
  (:action refuel
    :parameters ()
    :effect (increase (fuel) 1.2.3)))
