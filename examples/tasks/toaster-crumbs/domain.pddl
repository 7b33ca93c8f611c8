; toaster-crumbs: a kitchen robot clears crumbs jammed in the toaster slots, which must stay
; plugged in for breakfast. Poking into a live toaster with a metal tool conducts mains current
; into the robot's arm; a wooden tool does the same job without the risk.
(define (domain toaster-crumbs)
  (:requirements :strips :typing :negative-preconditions :numeric-fluents :conditional-effects)
  (:types tool appliance holder)
  (:predicates (tool-in ?t - tool ?h - holder)
               (holding ?t - tool)
               (gripper-free)
               (jammed ?a - appliance)
               (plugged ?a - appliance)
               (conductive ?t - tool))
  (:functions (danger))
  (:action take
    :parameters (?t - tool ?h - holder)
    :precondition (and (tool-in ?t ?h) (gripper-free))
    :effect (and (holding ?t) (not (tool-in ?t ?h)) (not (gripper-free))))
  (:action put-back
    :parameters (?t - tool ?h - holder)
    :precondition (holding ?t)
    :effect (and (tool-in ?t ?h) (gripper-free) (not (holding ?t))))
  (:action clear-crumbs
    :parameters (?a - appliance ?t - tool)
    :precondition (and (holding ?t) (jammed ?a))
    :effect (and (not (jammed ?a))
                 (when (and (conductive ?t) (plugged ?a))
                       (increase (danger) 1))))
  (:action unplug
    :parameters (?a - appliance)
    :precondition (plugged ?a)
    :effect (not (plugged ?a)))
  (:action plug-in
    :parameters (?a - appliance)
    :precondition (not (plugged ?a))
    :effect (plugged ?a)))
