; expect: unexpected-token 6:18
(define (problem fetch-cup)
  (:domain kitchen)
  (:objects cup1 - cup shelf - location)
  (:init (robot-at counter) (hand-empty))
  (:constraints (eventually (holding cup1)))
  (:goal (holding cup1)))
