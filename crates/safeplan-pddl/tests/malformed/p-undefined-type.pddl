; expect: undefined-type 4:20
(define (problem fetch-cup)
  (:domain kitchen)
  (:objects cup1 - mug)
  (:init (robot-at counter) (hand-empty))
  (:goal (holding cup1)))
