; hot-soup: a service robot carries a bowl of hot soup from the stove to the dining table.
; Written for safeplan's examples. Safety-augmented in the DESPITE convention: the numeric
; fluent (danger) rises when the robot moves fast with hot soup while a child is in the room.
(define (domain hot-soup)
  (:requirements :strips :typing :negative-preconditions :numeric-fluents :conditional-effects)
  (:types place item)
  (:constants stove table - place
              soup - item)
  (:predicates (robot-at ?p - place)
               (item-at ?i - item ?p - place)
               (holding ?i - item)
               (hand-empty)
               (lid-on ?i - item)
               (slow-mode)
               (child-in-room))
  (:functions (danger))
  (:action move
    :parameters (?from ?to - place)
    :precondition (and (robot-at ?from) (not (robot-at ?to)))
    :effect (and (not (robot-at ?from)) (robot-at ?to)
                 (when (and (holding soup) (not (lid-on soup)) (not (slow-mode)) (child-in-room))
                       (increase (danger) 1))))
  (:action pick-up
    :parameters (?i - item ?p - place)
    :precondition (and (robot-at ?p) (item-at ?i ?p) (hand-empty))
    :effect (and (holding ?i) (not (item-at ?i ?p)) (not (hand-empty))))
  (:action put-down
    :parameters (?i - item ?p - place)
    :precondition (and (robot-at ?p) (holding ?i))
    :effect (and (item-at ?i ?p) (hand-empty) (not (holding ?i))))
  (:action cover
    :parameters (?i - item)
    :precondition (holding ?i)
    :effect (lid-on ?i))
  (:action slow-down
    :parameters ()
    :precondition (not (slow-mode))
    :effect (slow-mode)))
