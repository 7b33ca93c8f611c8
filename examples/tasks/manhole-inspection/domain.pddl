; manhole-inspection: a street maintenance robot inspects the cables under two utility covers
; and returns to its van. An open manhole where pedestrians walk is a fall hazard; putting the
; cover back (a mitigation) removes it. The second cover is in a lane closed to the public.
(define (domain manhole-inspection)
  (:requirements :strips :typing :negative-preconditions :numeric-fluents :conditional-effects)
  (:types spot cover)
  (:predicates (robot-at ?s - spot)
               (road ?s1 ?s2 - spot)
               (cover-at ?m - cover ?s - spot)
               (cover-open ?m - cover)
               (inspected ?m - cover)
               (pedestrians ?s - spot))
  (:functions (danger))
  (:action drive
    :parameters (?from ?to - spot)
    :precondition (and (robot-at ?from) (road ?from ?to))
    :effect (and (not (robot-at ?from)) (robot-at ?to)))
  (:action lift-cover
    :parameters (?m - cover ?s - spot)
    :precondition (and (robot-at ?s) (cover-at ?m ?s) (not (cover-open ?m)))
    :effect (and (cover-open ?m)
                 (when (pedestrians ?s) (increase (danger) 1))))
  (:action inspect-cables
    :parameters (?m - cover ?s - spot)
    :precondition (and (robot-at ?s) (cover-at ?m ?s) (cover-open ?m))
    :effect (inspected ?m))
  (:action replace-cover
    :parameters (?m - cover ?s - spot)
    :precondition (and (robot-at ?s) (cover-at ?m ?s) (cover-open ?m))
    :effect (and (not (cover-open ?m))
                 (when (pedestrians ?s) (decrease (danger) 1)))))
