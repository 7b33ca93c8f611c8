; stove-before-leaving: a kitchen robot fries an egg and brings it to the dining room through
; the hall. Written for safeplan's examples. The safety rule is a PDDL3 trajectory
; constraint in the problem: the stove must be off before the robot is in the hall.
(define (domain kitchen-run)
  (:requirements :strips :typing :negative-preconditions :constraints)
  (:types room)
  (:constants kitchen hall dining - room)
  (:predicates (robot-at ?r - room)
               (door ?a ?b - room)
               (stove-on)
               (egg-cooked)
               (holding-plate)
               (plate-served))
  (:action cook
    :parameters ()
    :precondition (and (robot-at kitchen) (stove-on) (not (egg-cooked)))
    :effect (egg-cooked))
  (:action switch-off-stove
    :parameters ()
    :precondition (and (robot-at kitchen) (stove-on))
    :effect (not (stove-on)))
  (:action take-plate
    :parameters ()
    :precondition (and (robot-at kitchen) (egg-cooked) (not (holding-plate)))
    :effect (holding-plate))
  (:action move
    :parameters (?from ?to - room)
    :precondition (and (robot-at ?from) (door ?from ?to))
    :effect (and (not (robot-at ?from)) (robot-at ?to)))
  (:action serve
    :parameters ()
    :precondition (and (robot-at dining) (holding-plate))
    :effect (and (plate-served) (not (holding-plate)))))
