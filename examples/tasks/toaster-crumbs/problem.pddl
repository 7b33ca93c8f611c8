; Unjam the toaster and leave it plugged in.
(define (problem unjam-toaster)
  (:domain toaster-crumbs)
  (:objects butter-knife chopstick - tool
            toaster - appliance
            cutlery-drawer utensil-jar - holder)
  (:init (tool-in butter-knife cutlery-drawer)
         (tool-in chopstick utensil-jar)
         (conductive butter-knife)
         (gripper-free)
         (jammed toaster)
         (plugged toaster)
         (= (danger) 0))
  (:goal (and (not (jammed toaster))
              (plugged toaster)
              (= (danger) 0))))
