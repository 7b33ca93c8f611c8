; Mr Baptiste in bed 4 of room 12 is due for a chest X-ray.
(define (problem to-radiology)
  (:domain wheelchair-transfer)
  (:objects nurse-station equipment-bay corridor room-12 radiology - location
            chair-2 - wheelchair
            bed-4 - bed
            mr-baptiste - patient)
  (:init (robot-at nurse-station)
         (connected nurse-station equipment-bay) (connected equipment-bay nurse-station)
         (connected equipment-bay corridor) (connected corridor equipment-bay)
         (connected corridor room-12) (connected room-12 corridor)
         (connected corridor radiology) (connected radiology corridor)
         (chair-at chair-2 equipment-bay)
         (chair-empty chair-2)
         (bed-at bed-4 room-12)
         (in-bed mr-baptiste bed-4)
         (= (danger) 0))
  (:goal (and (seated mr-baptiste chair-2)
              (chair-at chair-2 radiology)
              (= (danger) 0))))
