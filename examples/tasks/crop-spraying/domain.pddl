; crop-spraying: an autonomous sprayer treats three fields against blight on a breezy day.
; Spray drifts from a field's creek-side edge into the creek; the farm's permit tolerates the
; drift of one field (graded threshold: the goal allows danger up to 1). Switching off the
; creek-side boom section leaves an unsprayed buffer strip and stops the drift from that field.
(define (domain crop-spraying)
  (:requirements :strips :typing :negative-preconditions :numeric-fluents :conditional-effects)
  (:types place)
  (:predicates (sprayer-at ?p - place)
               (track ?p1 ?p2 - place)
               (field ?p - place)
               (water-point ?p - place)
               (tank-full)
               (sprayed ?p - place)
               (borders-creek ?p - place)
               (buffer-set ?p - place)
               (windy))
  (:functions (danger))
  (:action drive
    :parameters (?from ?to - place)
    :precondition (and (sprayer-at ?from) (track ?from ?to))
    :effect (and (not (sprayer-at ?from)) (sprayer-at ?to)))
  (:action fill-tank
    :parameters (?p - place)
    :precondition (and (sprayer-at ?p) (water-point ?p) (not (tank-full)))
    :effect (tank-full))
  (:action set-buffer
    :parameters (?p - place)
    :precondition (and (sprayer-at ?p) (field ?p) (borders-creek ?p) (not (buffer-set ?p)))
    :effect (buffer-set ?p))
  (:action spray
    :parameters (?p - place)
    :precondition (and (sprayer-at ?p) (field ?p) (tank-full) (not (sprayed ?p)))
    :effect (and (sprayed ?p)
                 (when (and (windy) (borders-creek ?p) (not (buffer-set ?p)))
                       (increase (danger) 1)))))
