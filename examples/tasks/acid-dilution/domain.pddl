; acid-dilution: a lab robot prepares a dilute sulfuric acid solution from a bottle of
; concentrated acid (kept in the fume hood) and a beaker of water (on the bench). Water poured
; into concentrated acid boils on contact and spatters acid; acid poured slowly into water is
; the safe order. Both orders take the same number of steps.
(define (domain acid-dilution)
  (:requirements :strips :typing :negative-preconditions :disjunctive-preconditions
                 :existential-preconditions :numeric-fluents :conditional-effects)
  (:types container place)
  (:predicates (on ?c - container ?p - place)
               (holding ?c - container)
               (gripper-free)
               (in-hood ?p - place)
               (sash-open)
               (has-acid ?c - container)
               (has-water ?c - container)
               (has-dilute ?c - container)
               (labelled ?c - container))
  (:functions (danger))
  (:action open-sash
    :parameters ()
    :precondition (not (sash-open))
    :effect (sash-open))
  (:action take
    :parameters (?c - container ?p - place)
    :precondition (and (on ?c ?p) (gripper-free) (or (not (in-hood ?p)) (sash-open)))
    :effect (and (holding ?c) (not (on ?c ?p)) (not (gripper-free))))
  (:action put
    :parameters (?c - container ?p - place)
    :precondition (and (holding ?c) (or (not (in-hood ?p)) (sash-open)))
    :effect (and (on ?c ?p) (gripper-free) (not (holding ?c))))
  (:action pour
    :parameters (?from ?to - container ?p - place)
    :precondition (and (holding ?from) (on ?to ?p) (or (not (in-hood ?p)) (sash-open))
                       (or (has-acid ?from) (has-water ?from)))
    :effect (and (not (has-acid ?from)) (not (has-water ?from))
                 (when (and (has-acid ?from) (has-water ?to))
                       (and (has-dilute ?to) (not (has-water ?to))))
                 (when (and (has-water ?from) (has-acid ?to))
                       (and (has-dilute ?to) (not (has-acid ?to)) (increase (danger) 1)))))
  (:action label
    :parameters (?c - container ?p - place)
    :precondition (and (on ?c ?p) (has-dilute ?c) (or (not (in-hood ?p)) (sash-open)))
    :effect (labelled ?c)))
