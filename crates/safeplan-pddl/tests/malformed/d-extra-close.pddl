; expect: unexpected-close-paren 5:1
(define (domain kitchen)
  (:requirements :strips)
  (:predicates (robot-at ?l)))
)
