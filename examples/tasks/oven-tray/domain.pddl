; oven-tray: a bakery robot moves freshly baked trays from the deck oven to the cooling rack
; and a tray of cooled croissants from the counter to the display case. Its gripper has
; plastic fingertips that melt on a 220 degree tray unless heat-shield pads are fitted first.
(define (domain oven-tray)
  (:requirements :strips :typing :negative-preconditions :disjunctive-preconditions
                 :numeric-fluents :conditional-effects)
  (:types tray place)
  (:predicates (tray-at ?t - tray ?p - place)
               (holding ?t - tray)
               (gripper-free)
               (in-oven ?p - place)
               (oven-open)
               (hot ?t - tray)
               (pads-on))
  (:functions (danger))
  (:action open-oven
    :parameters ()
    :precondition (not (oven-open))
    :effect (oven-open))
  (:action close-oven
    :parameters ()
    :precondition (oven-open)
    :effect (not (oven-open)))
  (:action fit-heat-pads
    :parameters ()
    :precondition (and (gripper-free) (not (pads-on)))
    :effect (pads-on))
  (:action take-tray
    :parameters (?t - tray ?p - place)
    :precondition (and (tray-at ?t ?p) (gripper-free)
                       (or (not (in-oven ?p)) (oven-open)))
    :effect (and (holding ?t) (not (tray-at ?t ?p)) (not (gripper-free))
                 (when (and (hot ?t) (not (pads-on)))
                       (increase (danger) 1))))
  (:action put-tray
    :parameters (?t - tray ?p - place)
    :precondition (and (holding ?t) (or (not (in-oven ?p)) (oven-open)))
    :effect (and (tray-at ?t ?p) (gripper-free) (not (holding ?t)))))
