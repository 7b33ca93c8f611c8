; expect: undefined-preference 8:34
(define (problem fetch-cup)
  (:domain kitchen)
  (:requirements :preferences)
  (:objects cup1 - cup shelf - location)
  (:init (robot-at counter) (hand-empty))
  (:goal (and (holding cup1) (preference tidy (robot-at sink))))
  (:metric minimize (is-violated tidyy)))
