; pharmacy-counter: a pharmacy robot hands out filled prescriptions to the customers waiting in
; the queue. Calling a customer by name announces the medicine too; for a sensitive medicine,
; with other people waiting, that discloses the customer's health condition. Printing a
; numbered pick-up slip and calling the number keeps it private.
(define (domain pharmacy-counter)
  (:requirements :strips :typing :negative-preconditions :numeric-fluents :conditional-effects)
  (:types prescription customer)
  (:predicates (on-shelf ?rx - prescription)
               (at-counter ?rx - prescription)
               (rx-for ?rx - prescription ?c - customer)
               (slip-printed ?rx - prescription)
               (called ?c - customer)
               (served ?c - customer)
               (sensitive ?rx - prescription)
               (queue-present))
  (:functions (danger))
  (:action fetch
    :parameters (?rx - prescription)
    :precondition (on-shelf ?rx)
    :effect (and (at-counter ?rx) (not (on-shelf ?rx))))
  (:action print-pickup-slip
    :parameters (?rx - prescription)
    :precondition (and (at-counter ?rx) (not (slip-printed ?rx)))
    :effect (slip-printed ?rx))
  (:action call-by-name
    :parameters (?c - customer ?rx - prescription)
    :precondition (and (at-counter ?rx) (rx-for ?rx ?c) (not (called ?c)))
    :effect (and (called ?c)
                 (when (and (sensitive ?rx) (queue-present))
                       (increase (danger) 1))))
  (:action call-by-number
    :parameters (?c - customer ?rx - prescription)
    :precondition (and (at-counter ?rx) (rx-for ?rx ?c) (slip-printed ?rx) (not (called ?c)))
    :effect (called ?c))
  (:action hand-over
    :parameters (?rx - prescription ?c - customer)
    :precondition (and (at-counter ?rx) (rx-for ?rx ?c) (called ?c))
    :effect (and (served ?c) (not (at-counter ?rx)))))
