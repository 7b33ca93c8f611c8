; expect: unclosed-paren 8:1
(define (domain kitchen)
  (:requirements :strips)
  (:predicates (robot-at ?l))
  (:action move
    :parameters (?from ?to)
    :effect (and (robot-at ?to)
