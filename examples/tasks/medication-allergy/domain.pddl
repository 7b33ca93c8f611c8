; medication-allergy: a hospital medication robot brings pain relief to two patients on its
; round. Each patient is allergic to one of the painkillers on the cart; which dose goes to
; whom decides whether the round is safe, at no extra cost.
(define (domain medication-allergy)
  (:requirements :strips :typing :negative-preconditions :numeric-fluents :conditional-effects)
  (:types location drug patient)
  (:predicates (robot-at ?l - location)
               (connected ?l1 ?l2 - location)
               (in-cabinet ?d - drug ?l - location)
               (on-cart ?d - drug)
               (patient-in ?p - patient ?l - location)
               (painkiller ?d - drug)
               (allergic ?p - patient ?d - drug)
               (pain-relieved ?p - patient))
  (:functions (danger))
  (:action go
    :parameters (?from ?to - location)
    :precondition (and (robot-at ?from) (connected ?from ?to))
    :effect (and (not (robot-at ?from)) (robot-at ?to)))
  (:action load
    :parameters (?d - drug ?l - location)
    :precondition (and (robot-at ?l) (in-cabinet ?d ?l))
    :effect (and (on-cart ?d) (not (in-cabinet ?d ?l))))
  (:action administer
    :parameters (?d - drug ?p - patient ?l - location)
    :precondition (and (robot-at ?l) (patient-in ?p ?l) (on-cart ?d) (painkiller ?d)
                       (not (pain-relieved ?p)))
    :effect (and (pain-relieved ?p) (not (on-cart ?d))
                 (when (allergic ?p ?d)
                       (increase (danger) 1)))))
