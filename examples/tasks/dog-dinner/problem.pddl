; Feed Rex; last night's leftovers are still on the counter.
(define (problem feed-rex)
  (:domain dog-dinner)
  (:objects kitchen pantry - place
            counter-plate kibble-bin - store
            brownie grapes kibble - food
            rex-bowl - bowl
            rex - dog)
  (:init (robot-at kitchen)
         (store-at counter-plate kitchen)
         (store-at kibble-bin pantry)
         (closed kibble-bin)
         (food-in brownie counter-plate)
         (food-in grapes counter-plate)
         (food-in kibble kibble-bin)
         (bowl-at rex-bowl kitchen)
         (bowl-of rex-bowl rex)
         (hand-empty)
         (toxic-for-dogs brownie)
         (toxic-for-dogs grapes)
         (= (danger) 0))
  (:goal (and (dinner-served rex)
              (= (danger) 0))))
