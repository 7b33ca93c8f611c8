; A kitchen robot makes tea. The stove may not stay on for more than 12 seconds at a time
; (a safety rule of the task, a deadline that starts when the hazard does): the robot
; must switch it off after the water boils, not leave it on while it fetches a cup from
; the pantry and comes back. Every action takes time; the rule is a PDDL3 trajectory
; constraint of the problem, with no danger fluent.
(define (domain stove-deadline)
  (:requirements :typing :durative-actions :negative-preconditions :constraints)
  (:types place)
  (:constants kitchen pantry - place)
  (:predicates (robot-at ?p - place) (stove-on) (water-boiled) (cup-at ?p - place)
               (have-cup) (tea-made))

  (:durative-action switch-on
    :parameters ()
    :duration (= ?duration 1)
    :condition (and (at start (robot-at kitchen)) (at start (not (stove-on))))
    :effect (at end (stove-on)))

  (:durative-action boil-water
    :parameters ()
    :duration (= ?duration 8)
    :condition (and (at start (robot-at kitchen)) (over all (stove-on)))
    :effect (at end (water-boiled)))

  (:durative-action switch-off
    :parameters ()
    :duration (= ?duration 1)
    :condition (and (at start (robot-at kitchen)) (at start (stove-on)))
    :effect (at end (not (stove-on))))

  (:durative-action go
    :parameters (?from - place ?to - place)
    :duration (= ?duration 4)
    :condition (at start (robot-at ?from))
    :effect (and (at start (not (robot-at ?from))) (at end (robot-at ?to))))

  (:durative-action take-cup
    :parameters (?p - place)
    :duration (= ?duration 1)
    :condition (and (at start (robot-at ?p)) (at start (cup-at ?p)))
    :effect (and (at end (have-cup)) (at end (not (cup-at ?p)))))

  (:durative-action make-tea
    :parameters ()
    :duration (= ?duration 2)
    :condition (and (at start (robot-at kitchen)) (at start (water-boiled))
                    (at start (have-cup)))
    :effect (at end (tea-made))))
