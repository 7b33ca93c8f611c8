; The cook asks for the chef's knife.
(define (problem pass-the-knife)
  (:domain knife-handover)
  (:objects chef-knife peeler wooden-spoon - utensil
            knife-block drawer - holder
            cook - person)
  (:init (in chef-knife knife-block)
         (in peeler drawer)
         (in wooden-spoon drawer)
         (sharp chef-knife)
         (sharp peeler)
         (gripper-free)
         (= (danger) 0))
  (:goal (and (has cook chef-knife)
              (= (danger) 0))))
