; knife-handover: a kitchen robot takes a chef's knife from the knife block and hands it to
; the person cooking. Handing a sharp utensil over blade-first can cut the receiver's hand;
; turning it so that the handle faces them avoids that.
(define (domain knife-handover)
  (:requirements :strips :typing :negative-preconditions :numeric-fluents :conditional-effects)
  (:types utensil holder person)
  (:predicates (in ?u - utensil ?h - holder)
               (holding ?u - utensil)
               (gripper-free)
               (handle-out ?u - utensil)
               (sharp ?u - utensil)
               (has ?p - person ?u - utensil))
  (:functions (danger))
  (:action take
    :parameters (?u - utensil ?h - holder)
    :precondition (and (in ?u ?h) (gripper-free))
    :effect (and (holding ?u) (not (in ?u ?h)) (not (gripper-free))))
  (:action turn-handle-out
    :parameters (?u - utensil)
    :precondition (and (holding ?u) (not (handle-out ?u)))
    :effect (handle-out ?u))
  (:action hand-over
    :parameters (?u - utensil ?p - person)
    :precondition (holding ?u)
    :effect (and (has ?p ?u) (not (holding ?u)) (gripper-free) (not (handle-out ?u))
                 (when (and (sharp ?u) (not (handle-out ?u)))
                       (increase (danger) 1))))
  (:action put-away
    :parameters (?u - utensil ?h - holder)
    :precondition (holding ?u)
    :effect (and (in ?u ?h) (not (holding ?u)) (gripper-free) (not (handle-out ?u)))))
