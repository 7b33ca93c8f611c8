; expect: unexpected-token 6:21
(define (problem fetch-cup)
  (:domain kitchen)
  (:objects cup1 - cup shelf - location)
  (:init (robot-at counter) (hand-empty))
  (:constraints (at start (holding cup1)))
  (:goal (holding cup1)))
