; Bake both trays; the door of the preheated oven is opened at most once. The first tray is
; already in the oven.
(define (problem two-trays)
  (:domain bakery)
  (:objects first second - tray)
  (:init (in-oven first)
         (on-counter second))
  (:goal (and (baked first) (baked second)))
  (:constraints (at-most-once (door-open))))
