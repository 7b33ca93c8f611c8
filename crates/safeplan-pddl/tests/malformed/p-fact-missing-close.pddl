; expect: unclosed-paren 6:10
(define (problem fetch-cup)
  (:domain kitchen)
  (:objects cup1 - cup)
  (:init (robot-at counter
         (item-at cup1 sink) (hand-empty))
  (:goal (holding cup1)))
