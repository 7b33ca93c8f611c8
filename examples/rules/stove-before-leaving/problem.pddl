; Serve the egg; the stove was switched on to fry it and must be off before the robot
; leaves the kitchen (an unattended stove is a fire hazard).
(define (problem serve-egg)
  (:domain kitchen-run)
  (:init (robot-at kitchen)
         (stove-on)
         (door kitchen hall) (door hall kitchen)
         (door hall dining) (door dining hall))
  (:goal (plate-served))
  (:constraints (sometime-before (robot-at hall) (not (stove-on)))))
