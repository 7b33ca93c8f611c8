; oven-door-once: a robot bakes two trays of bread in one oven. Written for safeplan's
; examples. The safety rule is a PDDL3 trajectory constraint in the problem: the hot oven's
; door is opened at most once (each opening lets out a blast of heat next to the user).
(define (domain bakery)
  (:requirements :strips :typing :negative-preconditions :constraints)
  (:types tray)
  (:predicates (door-open)
               (in-oven ?t - tray)
               (baked ?t - tray)
               (on-counter ?t - tray))
  (:action open-door
    :parameters ()
    :precondition (not (door-open))
    :effect (door-open))
  (:action close-door
    :parameters ()
    :precondition (door-open)
    :effect (not (door-open)))
  (:action insert
    :parameters (?t - tray)
    :precondition (and (door-open) (on-counter ?t) (not (baked ?t)))
    :effect (and (in-oven ?t) (not (on-counter ?t))))
  (:action bake
    :parameters (?t - tray)
    :precondition (and (in-oven ?t) (not (door-open)))
    :effect (baked ?t))
  (:action take-out
    :parameters (?t - tray)
    :precondition (and (door-open) (in-oven ?t))
    :effect (and (on-counter ?t) (not (in-oven ?t)))))
