; expect: duplicate-name 4:30
(define (problem fetch-cup)
  (:domain kitchen)
  (:objects cup1 - cup shelf cup1 - location)
  (:init (robot-at counter) (hand-empty))
  (:goal (holding cup1)))
