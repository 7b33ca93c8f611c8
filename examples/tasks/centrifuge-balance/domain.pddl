; centrifuge-balance: a lab robot spins three blood sample tubes in a four-slot centrifuge.
; A slot whose opposite slot is empty leaves the rotor unbalanced; at speed the imbalance
; shakes the centrifuge apart. A water-filled balance tube opposite the odd sample fixes it.
(define (domain centrifuge-balance)
  (:requirements :strips :typing :negative-preconditions :existential-preconditions
                 :numeric-fluents :conditional-effects)
  (:types tube slot)
  (:predicates (in-rack ?t - tube)
               (in-rotor ?t - tube)
               (slot-free ?s - slot)
               (opposite ?s1 ?s2 - slot)
               (lid-open)
               (spun ?t - tube))
  (:functions (danger))
  (:action load
    :parameters (?t - tube ?s - slot)
    :precondition (and (in-rack ?t) (slot-free ?s) (lid-open))
    :effect (and (in-rotor ?t) (not (in-rack ?t)) (not (slot-free ?s))))
  (:action close-lid
    :parameters ()
    :precondition (lid-open)
    :effect (not (lid-open)))
  (:action run
    :parameters ()
    :precondition (not (lid-open))
    :effect (and (forall (?t - tube) (when (in-rotor ?t) (spun ?t)))
                 (when (exists (?s1 ?s2 - slot)
                               (and (opposite ?s1 ?s2) (not (slot-free ?s1)) (slot-free ?s2)))
                       (increase (danger) 1)))))
