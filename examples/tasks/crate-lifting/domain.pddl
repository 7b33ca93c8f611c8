; crate-lifting: a warehouse robot loads four crates onto a truck. Lifting a heavy crate by
; hand overloads its shoulder joint; the maintenance budget tolerates two such lifts per shift
; (a graded threshold: the goal allows danger up to 2). The ceiling hoist spares the joint but
; has to be fetched, and every hoisted crate takes more steps.
(define (domain crate-lifting)
  (:requirements :strips :typing :negative-preconditions :numeric-fluents :conditional-effects)
  (:types crate)
  (:predicates (at-dock ?c - crate)
               (on-truck ?c - crate)
               (holding ?c - crate)
               (gripper-free)
               (heavy ?c - crate)
               (hoist-parked)
               (hoist-free)
               (hooked ?c - crate)
               (airborne ?c - crate))
  (:functions (danger))
  (:action lift
    :parameters (?c - crate)
    :precondition (and (at-dock ?c) (gripper-free))
    :effect (and (holding ?c) (not (at-dock ?c)) (not (gripper-free))
                 (when (heavy ?c) (increase (danger) 1))))
  (:action load
    :parameters (?c - crate)
    :precondition (holding ?c)
    :effect (and (on-truck ?c) (gripper-free) (not (holding ?c))))
  (:action fetch-hoist
    :parameters ()
    :precondition (hoist-parked)
    :effect (and (hoist-free) (not (hoist-parked))))
  (:action hook
    :parameters (?c - crate)
    :precondition (and (hoist-free) (at-dock ?c))
    :effect (and (hooked ?c) (not (hoist-free))))
  (:action winch-up
    :parameters (?c - crate)
    :precondition (and (hooked ?c) (at-dock ?c))
    :effect (and (airborne ?c) (not (at-dock ?c))))
  (:action lower-onto-truck
    :parameters (?c - crate)
    :precondition (airborne ?c)
    :effect (and (on-truck ?c) (hoist-free) (not (airborne ?c)) (not (hooked ?c)))))
