; storm-drain: a street-cleaning robot cleans an engine-oil spill in a parking lane and dust at
; a bus stop. Hosing oil away sends it into the storm drain, which empties straight into the
; river. Spreading absorbent and sweeping it up keeps the oil out; the full hopper is emptied
; into the hazardous-waste skip at the depot.
(define (domain storm-drain)
  (:requirements :strips :typing :negative-preconditions :numeric-fluents :conditional-effects)
  (:types spot)
  (:predicates (robot-at ?s - spot)
               (street ?s1 ?s2 - spot)
               (dirty ?s - spot)
               (oily ?s - spot)
               (drain-near ?s - spot)
               (absorbed ?s - spot)
               (hopper-full)
               (skip-at ?s - spot))
  (:functions (danger))
  (:action drive
    :parameters (?from ?to - spot)
    :precondition (and (robot-at ?from) (street ?from ?to))
    :effect (and (not (robot-at ?from)) (robot-at ?to)))
  (:action hose-down
    :parameters (?s - spot)
    :precondition (and (robot-at ?s) (dirty ?s))
    :effect (and (not (dirty ?s))
                 (when (and (oily ?s) (drain-near ?s))
                       (increase (danger) 1))))
  (:action spread-absorbent
    :parameters (?s - spot)
    :precondition (and (robot-at ?s) (oily ?s) (not (absorbed ?s)))
    :effect (absorbed ?s))
  (:action sweep-up
    :parameters (?s - spot)
    :precondition (and (robot-at ?s) (absorbed ?s) (dirty ?s) (not (hopper-full)))
    :effect (and (not (dirty ?s)) (not (oily ?s)) (hopper-full)))
  (:action empty-hopper
    :parameters (?s - spot)
    :precondition (and (robot-at ?s) (skip-at ?s) (hopper-full))
    :effect (not (hopper-full))))
