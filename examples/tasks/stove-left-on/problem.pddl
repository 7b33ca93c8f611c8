; Boil two eggs and serve them in the egg cup; leave no burner burning.
(define (problem boiled-eggs)
  (:domain stove-left-on)
  (:objects front-left back-right - burner
            saucepan - pot
            eggs - food
            egg-cup side-plate - dish)
  (:init (pot-in-cupboard saucepan)
         (burner-free front-left)
         (burner-free back-right)
         (in-fridge eggs)
         (dish-clean egg-cup)
         (dish-clean side-plate)
         (= (danger) 0))
  (:goal (and (served eggs egg-cup)
              (= (danger) 0))))
