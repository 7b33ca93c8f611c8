; expect: missing-section 2:18
(define (problem fetch-cup)
  (:domain kitchen)
  (:objects cup1 - cup)
  (:init (robot-at counter)))
