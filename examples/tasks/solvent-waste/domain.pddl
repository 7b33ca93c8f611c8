; solvent-waste: a lab robot empties two flasks after an experiment. One holds waste acetone,
; the other saline buffer. Saline can go down the sink; acetone poured down the drain reaches
; the wastewater system. Hazardous solvent belongs in the waste carboy in the fume hood, which
; must be closed again afterwards.
(define (domain solvent-waste)
  (:requirements :strips :typing :negative-preconditions :numeric-fluents :conditional-effects)
  (:types area flask liquid carboy)
  (:predicates (robot-at ?a - area)
               (adjacent ?a1 ?a2 - area)
               (flask-at ?f - flask ?a - area)
               (holding ?f - flask)
               (gripper-free)
               (contains ?f - flask ?l - liquid)
               (empty ?f - flask)
               (hazardous ?l - liquid)
               (sink-at ?a - area)
               (carboy-at ?w - carboy ?a - area)
               (carboy-open ?w - carboy))
  (:functions (danger))
  (:action go
    :parameters (?from ?to - area)
    :precondition (and (robot-at ?from) (adjacent ?from ?to))
    :effect (and (not (robot-at ?from)) (robot-at ?to)))
  (:action take
    :parameters (?f - flask ?a - area)
    :precondition (and (robot-at ?a) (flask-at ?f ?a) (gripper-free))
    :effect (and (holding ?f) (not (flask-at ?f ?a)) (not (gripper-free))))
  (:action put-down
    :parameters (?f - flask ?a - area)
    :precondition (and (robot-at ?a) (holding ?f))
    :effect (and (flask-at ?f ?a) (gripper-free) (not (holding ?f))))
  (:action pour-down-sink
    :parameters (?f - flask ?l - liquid ?a - area)
    :precondition (and (robot-at ?a) (sink-at ?a) (holding ?f) (contains ?f ?l))
    :effect (and (empty ?f) (not (contains ?f ?l))
                 (when (hazardous ?l) (increase (danger) 1))))
  (:action open-carboy
    :parameters (?w - carboy ?a - area)
    :precondition (and (robot-at ?a) (carboy-at ?w ?a) (not (carboy-open ?w)))
    :effect (carboy-open ?w))
  (:action close-carboy
    :parameters (?w - carboy ?a - area)
    :precondition (and (robot-at ?a) (carboy-at ?w ?a) (carboy-open ?w))
    :effect (not (carboy-open ?w)))
  (:action pour-into-carboy
    :parameters (?f - flask ?l - liquid ?w - carboy ?a - area)
    :precondition (and (robot-at ?a) (carboy-at ?w ?a) (carboy-open ?w)
                       (holding ?f) (contains ?f ?l))
    :effect (and (empty ?f) (not (contains ?f ?l)))))
