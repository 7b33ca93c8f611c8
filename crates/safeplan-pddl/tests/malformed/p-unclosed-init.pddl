; expect: unclosed-paren 6:1
(define (problem fetch-cup)
  (:domain kitchen)
  (:objects cup1 - cup)
  (:init (robot-at counter) (hand-empty)
