(define (problem sample-to-storage)
  (:domain lab-door)
  (:objects sample-7 - sample)
  (:init (robot-at corridor) (door-closed) (door-side corridor) (door-side lab)
         (hallway corridor storage) (hallway storage corridor) (at sample-7 lab) (hand-free))
  (:goal (and (at sample-7 storage) (door-closed)))
  ; The safety rules: the door stays closed while the laser runs (5 to 20), and the
  ; sample is in storage by 35.
  (:constraints (and (hold-during 5 20 (door-closed))
                     (within 35 (at sample-7 storage))))
  (:metric minimize (total-time)))
