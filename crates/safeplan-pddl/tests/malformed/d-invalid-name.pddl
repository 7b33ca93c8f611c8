; expect: invalid-name 4:17
(define (domain kitchen)
  (:requirements :strips)
  (:predicates (robot#at ?l)))
