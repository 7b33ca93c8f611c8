; expect: undefined-object 6:19
(define (problem fetch-cup)
  (:domain kitchen)
  (:objects cup1 - cup)
  (:init (robot-at counter) (item-at cup1 sink) (hand-empty)
         (item-at cup2 sink))
  (:goal (holding cup1)))
