(define (problem tea-for-one)
  (:domain stove-deadline)
  (:init (robot-at kitchen) (cup-at pantry))
  (:goal (tea-made))
  ; The safety rule: once the stove is on, it is off again within 12 seconds.
  (:constraints (always-within 12 (stove-on) (not (stove-on))))
  (:metric minimize (total-time)))
