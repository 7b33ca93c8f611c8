; expect: unknown-section 4:4
(define (domain kitchen)
  (:requirements :strips)
  (:predicate (robot-at ?l)))
