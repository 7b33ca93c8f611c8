; office-plants: an office robot waters the plants and puts the watering can back. The pothos
; stands on a shelf directly above a power strip feeding two workstations; water running out
; of its pot drips into the sockets. Moving it to the windowsill before watering avoids that.
(define (domain office-plants)
  (:requirements :strips :typing :negative-preconditions :numeric-fluents :conditional-effects)
  (:types area spot plant)
  (:predicates (robot-at ?a - area)
               (corridor ?a1 ?a2 - area)
               (spot-in ?s - spot ?a - area)
               (plant-at ?p - plant ?s - spot)
               (spot-free ?s - spot)
               (over-electrics ?s - spot)
               (sink-at ?a - area)
               (can-stored)
               (can-in-hand)
               (can-full)
               (watered ?p - plant))
  (:functions (danger))
  (:action go
    :parameters (?from ?to - area)
    :precondition (and (robot-at ?from) (corridor ?from ?to))
    :effect (and (not (robot-at ?from)) (robot-at ?to)))
  (:action take-can
    :parameters (?a - area)
    :precondition (and (robot-at ?a) (sink-at ?a) (can-stored))
    :effect (and (can-in-hand) (not (can-stored))))
  (:action fill-can
    :parameters (?a - area)
    :precondition (and (robot-at ?a) (sink-at ?a) (can-in-hand) (not (can-full)))
    :effect (can-full))
  (:action store-can
    :parameters (?a - area)
    :precondition (and (robot-at ?a) (sink-at ?a) (can-in-hand))
    :effect (and (can-stored) (not (can-in-hand))))
  (:action move-plant
    :parameters (?p - plant ?from ?to - spot ?a - area)
    :precondition (and (robot-at ?a) (spot-in ?from ?a) (spot-in ?to ?a)
                       (plant-at ?p ?from) (spot-free ?to))
    :effect (and (plant-at ?p ?to) (spot-free ?from) (not (plant-at ?p ?from)) (not (spot-free ?to))))
  (:action water
    :parameters (?p - plant ?s - spot ?a - area)
    :precondition (and (robot-at ?a) (spot-in ?s ?a) (plant-at ?p ?s) (can-in-hand) (can-full)
                       (not (watered ?p)))
    :effect (and (watered ?p)
                 (when (over-electrics ?s) (increase (danger) 1)))))
