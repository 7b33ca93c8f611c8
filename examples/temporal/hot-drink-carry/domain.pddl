; A robot carries a hot drink from the kitchen to an office through a hallway that people
; may walk into. Carrying the drink without a lid into a room where a person may step in
; front of the robot raises danger (a scald). Fitting the lid takes three seconds and must
; be finished before the carry starts: a lid that goes on at the very instant the robot
; sets off is too late (conditions read the state before the happening).
(define (domain hot-drink-carry)
  (:requirements :typing :durative-actions :numeric-fluents :conditional-effects
                 :negative-preconditions)
  (:types room item)
  (:predicates
    (robot-at ?r - room) (at ?i - item ?r - room) (holding ?i - item) (hand-free)
    (hot ?i - item) (lidded ?i - item) (connected ?a - room ?b - room)
    (person-may-enter ?r - room))
  (:functions (distance ?a - room ?b - room) (danger))

  (:durative-action pick-up
    :parameters (?i - item ?r - room)
    :duration (= ?duration 2)
    :condition (and (at start (robot-at ?r)) (at start (at ?i ?r)) (at start (hand-free))
                    (over all (robot-at ?r)))
    :effect (and (at start (not (hand-free))) (at start (not (at ?i ?r)))
                 (at end (holding ?i))))

  (:durative-action fit-lid
    :parameters (?i - item)
    :duration (= ?duration 3)
    :condition (over all (holding ?i))
    :effect (at end (lidded ?i)))

  (:durative-action carry
    :parameters (?i - item ?from - room ?to - room)
    :duration (= ?duration (distance ?from ?to))
    :condition (and (at start (robot-at ?from)) (at start (holding ?i))
                    (at start (connected ?from ?to)) (over all (holding ?i)))
    :effect (and (at start (not (robot-at ?from))) (at end (robot-at ?to))
                 (at start (when (and (hot ?i) (not (lidded ?i)) (person-may-enter ?to))
                                 (increase (danger) 1)))))

  (:durative-action put-down
    :parameters (?i - item ?r - room)
    :duration (= ?duration 1)
    :condition (and (at start (robot-at ?r)) (at start (holding ?i)) (over all (robot-at ?r)))
    :effect (and (at start (not (holding ?i))) (at end (at ?i ?r)) (at end (hand-free)))))
