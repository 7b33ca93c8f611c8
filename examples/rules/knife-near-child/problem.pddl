; Bring the knife to the counter; the child next to the robot must never be near a knife in
; the robot's hand.
(define (problem knife-to-counter)
  (:domain knife-fetch)
  (:init (robot-at drawer)
         (knife-at drawer)
         (child-near))
  (:goal (knife-at counter))
  (:constraints (always (not (and (holding-knife) (child-near))))))
