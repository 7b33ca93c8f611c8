; wheelchair-transfer: a hospital care robot fetches a wheelchair, transfers a patient from bed
; into it and wheels them to radiology. A wheelchair whose brakes are off rolls away during the
; transfer; the brakes have to be locked for the transfer and released again to push.
(define (domain wheelchair-transfer)
  (:requirements :strips :typing :negative-preconditions :numeric-fluents :conditional-effects)
  (:types location wheelchair bed patient)
  (:predicates (robot-at ?l - location)
               (connected ?l1 ?l2 - location)
               (chair-at ?w - wheelchair ?l - location)
               (bed-at ?b - bed ?l - location)
               (in-bed ?p - patient ?b - bed)
               (seated ?p - patient ?w - wheelchair)
               (chair-empty ?w - wheelchair)
               (brakes-on ?w - wheelchair))
  (:functions (danger))
  (:action go
    :parameters (?from ?to - location)
    :precondition (and (robot-at ?from) (connected ?from ?to))
    :effect (and (not (robot-at ?from)) (robot-at ?to)))
  (:action push-chair
    :parameters (?w - wheelchair ?from ?to - location)
    :precondition (and (robot-at ?from) (chair-at ?w ?from) (connected ?from ?to)
                       (not (brakes-on ?w)))
    :effect (and (not (robot-at ?from)) (robot-at ?to)
                 (not (chair-at ?w ?from)) (chair-at ?w ?to)))
  (:action lock-brakes
    :parameters (?w - wheelchair ?l - location)
    :precondition (and (robot-at ?l) (chair-at ?w ?l) (not (brakes-on ?w)))
    :effect (brakes-on ?w))
  (:action release-brakes
    :parameters (?w - wheelchair ?l - location)
    :precondition (and (robot-at ?l) (chair-at ?w ?l) (brakes-on ?w))
    :effect (not (brakes-on ?w)))
  (:action transfer
    :parameters (?p - patient ?b - bed ?w - wheelchair ?l - location)
    :precondition (and (robot-at ?l) (bed-at ?b ?l) (chair-at ?w ?l)
                       (in-bed ?p ?b) (chair-empty ?w))
    :effect (and (seated ?p ?w) (not (in-bed ?p ?b)) (not (chair-empty ?w))
                 (when (not (brakes-on ?w))
                       (increase (danger) 1)))))
