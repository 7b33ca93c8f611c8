; expect: type-mismatch 5:20
(define (problem fetch-cup)
  (:domain kitchen)
  (:objects cup1 - cup)
  (:init (robot-at cup1) (item-at cup1 sink) (hand-empty))
  (:goal (holding cup1)))
