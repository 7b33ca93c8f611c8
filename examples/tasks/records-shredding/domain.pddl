; records-shredding: a hospital office robot clears a desk of old paperwork. Discharge
; summaries name patients and their diagnoses; dropped in the paper recycling bin they can be
; read by anyone handling the waste. Confidential papers belong in the records-room shredder.
(define (domain records-shredding)
  (:requirements :strips :typing :numeric-fluents :conditional-effects)
  (:types location document bin)
  (:predicates (robot-at ?l - location)
               (connected ?l1 ?l2 - location)
               (doc-at ?d - document ?l - location)
               (carrying ?d - document)
               (bin-at ?b - bin ?l - location)
               (shredder-at ?l - location)
               (confidential ?d - document)
               (disposed ?d - document))
  (:functions (danger))
  (:action go
    :parameters (?from ?to - location)
    :precondition (and (robot-at ?from) (connected ?from ?to))
    :effect (and (not (robot-at ?from)) (robot-at ?to)))
  (:action pick-up
    :parameters (?d - document ?l - location)
    :precondition (and (robot-at ?l) (doc-at ?d ?l))
    :effect (and (carrying ?d) (not (doc-at ?d ?l))))
  (:action recycle
    :parameters (?d - document ?b - bin ?l - location)
    :precondition (and (robot-at ?l) (bin-at ?b ?l) (carrying ?d))
    :effect (and (disposed ?d) (not (carrying ?d))
                 (when (confidential ?d)
                       (increase (danger) 1))))
  (:action shred
    :parameters (?d - document ?l - location)
    :precondition (and (robot-at ?l) (shredder-at ?l) (carrying ?d))
    :effect (and (disposed ?d) (not (carrying ?d)))))
