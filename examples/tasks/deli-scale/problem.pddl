; Mrs Lee ordered green olives.
(define (problem olives-for-mrs-lee)
  (:domain deli-scale)
  (:objects small-tub - tub
            counter-scale backroom-scale - scale
            green-olives feta - product
            mrs-lee - customer)
  (:init (tub-on-shelf small-tub)
         (empty small-tub)
         (scale-free counter-scale)
         (scale-free backroom-scale)
         (certified counter-scale)
         (ordered mrs-lee green-olives)
         (= (danger) 0))
  (:goal (and (served mrs-lee)
              (= (danger) 0))))
