; Press the shirt that is on the ironing board and fold the towel waiting in the bedroom.
(define (problem shirt-and-towel)
  (:domain iron-shirt)
  (:objects laundry-room bedroom - room
            shirt bath-towel - garment)
  (:init (robot-at laundry-room)
         (ironing-room laundry-room)
         (on-board shirt)
         (in-basket bath-towel bedroom)
         (= (danger) 0))
  (:goal (and (pressed shirt)
              (folded bath-towel)
              (= (danger) 0))))
