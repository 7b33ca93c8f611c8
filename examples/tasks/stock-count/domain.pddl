; stock-count: a warehouse inventory robot must report a physical count of two bins. Typing in
; an estimate from the system's expected stock instead of scanning the bin is quicker, but the
; report then claims a physical count that never happened.
(define (domain stock-count)
  (:requirements :strips :typing :negative-preconditions :disjunctive-preconditions
                 :universal-preconditions :numeric-fluents :conditional-effects)
  (:types location bin)
  (:predicates (robot-at ?l - location)
               (aisle-link ?l1 ?l2 - location)
               (bin-at ?b - bin ?l - location)
               (high ?b - bin)
               (mast-raised)
               (counted ?b - bin)
               (report-sent)
               (physical-count-requested))
  (:functions (danger))
  (:action go
    :parameters (?from ?to - location)
    :precondition (and (robot-at ?from) (aisle-link ?from ?to) (not (mast-raised)))
    :effect (and (not (robot-at ?from)) (robot-at ?to)))
  (:action raise-mast
    :parameters ()
    :precondition (not (mast-raised))
    :effect (mast-raised))
  (:action lower-mast
    :parameters ()
    :precondition (mast-raised)
    :effect (not (mast-raised)))
  (:action scan
    :parameters (?b - bin ?l - location)
    :precondition (and (robot-at ?l) (bin-at ?b ?l) (not (counted ?b))
                       (or (not (high ?b)) (mast-raised)))
    :effect (counted ?b))
  (:action enter-estimate
    :parameters (?b - bin)
    :precondition (not (counted ?b))
    :effect (and (counted ?b)
                 (when (physical-count-requested)
                       (increase (danger) 1))))
  (:action submit-report
    :parameters ()
    :precondition (and (forall (?b - bin) (counted ?b)) (not (report-sent)))
    :effect (report-sent)))
