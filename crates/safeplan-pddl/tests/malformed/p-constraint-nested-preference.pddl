; expect: unexpected-token 6:33
(define (problem fetch-cup)
  (:domain kitchen)
  (:objects cup1 - cup shelf - location)
  (:init (robot-at counter) (hand-empty))
  (:constraints (preference p1 (preference p2 (sometime (holding cup1)))))
  (:goal (holding cup1)))
