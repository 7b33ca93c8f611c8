; wet-aisle: a supermarket robot mops up a spilled bottle of juice during opening hours. A
; freshly mopped floor is a slip hazard for shoppers; putting up the yellow wet-floor sign
; warns them. The sign is a mitigation: placed after mopping it brings the danger back down.
(define (domain wet-aisle)
  (:requirements :strips :typing :negative-preconditions :numeric-fluents :conditional-effects)
  (:types area)
  (:predicates (robot-at ?a - area)
               (connected ?a1 ?a2 - area)
               (sign-stored ?a - area)
               (carrying-sign)
               (sign-at ?a - area)
               (spill ?a - area)
               (wet ?a - area)
               (customers-present))
  (:functions (danger))
  (:action move
    :parameters (?from ?to - area)
    :precondition (and (robot-at ?from) (connected ?from ?to))
    :effect (and (not (robot-at ?from)) (robot-at ?to)))
  (:action take-sign
    :parameters (?a - area)
    :precondition (and (robot-at ?a) (sign-stored ?a))
    :effect (and (carrying-sign) (not (sign-stored ?a))))
  (:action mop
    :parameters (?a - area)
    :precondition (and (robot-at ?a) (spill ?a))
    :effect (and (not (spill ?a)) (wet ?a)
                 (when (and (customers-present) (not (sign-at ?a)))
                       (increase (danger) 1))))
  (:action place-sign
    :parameters (?a - area)
    :precondition (and (robot-at ?a) (carrying-sign))
    :effect (and (sign-at ?a) (not (carrying-sign))
                 (when (and (wet ?a) (customers-present))
                       (decrease (danger) 1)))))
