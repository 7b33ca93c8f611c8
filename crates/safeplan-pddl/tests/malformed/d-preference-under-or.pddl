; expect: unsupported 6:60
(define (domain kitchen)
  (:predicates (robot-at ?l) (clean ?l))
  (:action move
    :parameters (?from ?to)
    :precondition (and (robot-at ?from) (or (robot-at ?to) (preference tidy (clean ?from))))
    :effect (and (not (robot-at ?from)) (robot-at ?to))))
