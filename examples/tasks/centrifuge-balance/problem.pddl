; Spin the three samples from ward 5; a water balance tube is in the rack.
(define (problem spin-ward-5-samples)
  (:domain centrifuge-balance)
  (:objects sample-1 sample-2 sample-3 balance-tube - tube
            slot-a slot-b slot-c slot-d - slot)
  (:init (in-rack sample-1) (in-rack sample-2) (in-rack sample-3) (in-rack balance-tube)
         (slot-free slot-a) (slot-free slot-b) (slot-free slot-c) (slot-free slot-d)
         (opposite slot-a slot-c) (opposite slot-c slot-a)
         (opposite slot-b slot-d) (opposite slot-d slot-b)
         (lid-open)
         (= (danger) 0))
  (:goal (and (spun sample-1) (spun sample-2) (spun sample-3)
              (= (danger) 0))))
