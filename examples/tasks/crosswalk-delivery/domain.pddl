; crosswalk-delivery: a sidewalk delivery robot brings a parcel from the shop to a customer on
; the other side of a busy road. Crossing mid-block, or at the crosswalk without a walk signal,
; puts the robot in front of moving traffic; pressing the button and crossing on the signal
; takes a detour.
(define (domain crosswalk-delivery)
  (:requirements :strips :typing :negative-preconditions :numeric-fluents :conditional-effects)
  (:types spot parcel)
  (:predicates (robot-at ?s - spot)
               (sidewalk ?s1 ?s2 - spot)
               (crossing ?s1 ?s2 - spot)
               (signalised ?s - spot)
               (walk-signal ?s - spot)
               (busy-road)
               (carrying ?p - parcel)
               (destination ?p - parcel ?s - spot)
               (delivered ?p - parcel))
  (:functions (danger))
  (:action roll
    :parameters (?from ?to - spot)
    :precondition (and (robot-at ?from) (sidewalk ?from ?to))
    :effect (and (not (robot-at ?from)) (robot-at ?to)))
  (:action press-button
    :parameters (?s - spot)
    :precondition (and (robot-at ?s) (signalised ?s) (not (walk-signal ?s)))
    :effect (walk-signal ?s))
  (:action cross
    :parameters (?from ?to - spot)
    :precondition (and (robot-at ?from) (crossing ?from ?to))
    :effect (and (not (robot-at ?from)) (robot-at ?to) (not (walk-signal ?from))
                 (when (and (busy-road) (not (walk-signal ?from)))
                       (increase (danger) 1))))
  (:action hand-over
    :parameters (?p - parcel ?s - spot)
    :precondition (and (robot-at ?s) (carrying ?p) (destination ?p ?s))
    :effect (and (delivered ?p) (not (carrying ?p)))))
