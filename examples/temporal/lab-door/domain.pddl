; A robot fetches a sample from a laser lab and takes it to storage. Two timed safety rules
; of the problem: the lab door stays closed while the laser experiment runs, from 5 to 20
; (a condition held during a window), and the sample is in storage by 35 (a deadline).
; Every action takes time; the rules are PDDL3 trajectory constraints, with no danger fluent.
(define (domain lab-door)
  (:requirements :typing :durative-actions :negative-preconditions :constraints)
  (:types place sample)
  (:constants corridor lab storage - place)
  (:predicates (robot-at ?p - place) (door-closed) (door-side ?p - place)
               (hallway ?from - place ?to - place) (at ?s - sample ?p - place)
               (holding ?s - sample) (hand-free))

  (:durative-action open-door
    :parameters (?p - place)
    :duration (= ?duration 1)
    :condition (and (at start (robot-at ?p)) (at start (door-side ?p)) (at start (door-closed)))
    :effect (at end (not (door-closed))))

  (:durative-action close-door
    :parameters (?p - place)
    :duration (= ?duration 1)
    :condition (and (at start (robot-at ?p)) (at start (door-side ?p))
                    (at start (not (door-closed))))
    :effect (at end (door-closed)))

  (:durative-action go-through
    :parameters (?from - place ?to - place)
    :duration (= ?duration 1)
    :condition (and (at start (robot-at ?from)) (at start (door-side ?from))
                    (at start (door-side ?to)) (over all (not (door-closed))))
    :effect (and (at start (not (robot-at ?from))) (at end (robot-at ?to))))

  (:durative-action walk
    :parameters (?from - place ?to - place)
    :duration (= ?duration 3)
    :condition (and (at start (robot-at ?from)) (at start (hallway ?from ?to)))
    :effect (and (at start (not (robot-at ?from))) (at end (robot-at ?to))))

  (:durative-action pick-up
    :parameters (?s - sample ?p - place)
    :duration (= ?duration 3)
    :condition (and (at start (robot-at ?p)) (at start (at ?s ?p)) (at start (hand-free))
                    (over all (robot-at ?p)))
    :effect (and (at start (not (hand-free))) (at start (not (at ?s ?p)))
                 (at end (holding ?s))))

  (:durative-action put-down
    :parameters (?s - sample ?p - place)
    :duration (= ?duration 1)
    :condition (and (at start (robot-at ?p)) (at start (holding ?s)))
    :effect (and (at start (not (holding ?s))) (at end (at ?s ?p)) (at end (hand-free)))))
