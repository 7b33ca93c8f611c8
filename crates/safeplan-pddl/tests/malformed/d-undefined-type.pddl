; expect: undefined-type 5:31
(define (domain kitchen)
  (:requirements :strips :typing)
  (:types location item)
  (:predicates (robot-at ?l - locaton)))
