; bleach-bathroom: a cleaning robot disinfects the toilet with bleach and cleans the mirror with
; an ammonia-based glass cleaner. Bleach applied where ammonia cleaner is still present releases
; toxic chloramine gas; rinsing the surface first, or ventilating the room, avoids the harm.
(define (domain bleach-bathroom)
  (:requirements :strips :typing :negative-preconditions :existential-preconditions
                 :numeric-fluents :conditional-effects)
  (:types cleaner surface)
  (:predicates (in-caddy ?c - cleaner)
               (holding ?c - cleaner)
               (hand-empty)
               (dirty ?s - surface)
               (rinsable ?s - surface)
               (suits ?c - cleaner ?s - surface)
               (residue ?c - cleaner ?s - surface)
               (reacts ?c1 ?c2 - cleaner)
               (window-open))
  (:functions (danger))
  (:action take
    :parameters (?c - cleaner)
    :precondition (and (in-caddy ?c) (hand-empty))
    :effect (and (holding ?c) (not (in-caddy ?c)) (not (hand-empty))))
  (:action put-back
    :parameters (?c - cleaner)
    :precondition (holding ?c)
    :effect (and (in-caddy ?c) (hand-empty) (not (holding ?c))))
  (:action scrub
    :parameters (?s - surface ?c - cleaner)
    :precondition (and (holding ?c) (dirty ?s) (suits ?c ?s))
    :effect (and (not (dirty ?s)) (residue ?c ?s)
                 (when (and (not (window-open))
                            (exists (?o - cleaner) (and (residue ?o ?s) (reacts ?c ?o))))
                       (increase (danger) 1))))
  (:action rinse
    :parameters (?s - surface ?c - cleaner)
    :precondition (and (rinsable ?s) (residue ?c ?s))
    :effect (not (residue ?c ?s)))
  (:action open-window
    :parameters ()
    :precondition (not (window-open))
    :effect (window-open)))
