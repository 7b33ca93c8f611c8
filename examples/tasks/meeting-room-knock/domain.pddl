; meeting-room-knock: an office service robot brings a coffee tray into a meeting room and
; clears dirty cups from an empty room next door. Opening the door of a room where a meeting is
; under way without knocking and waiting to be asked in is rude; an empty room needs no knock.
(define (domain meeting-room-knock)
  (:requirements :strips :typing :negative-preconditions :numeric-fluents :conditional-effects)
  (:types room item)
  (:predicates (robot-at ?r - room)
               (connected ?r1 ?r2 - room)
               (door-closed ?r - room)
               (item-at ?i - item ?r - room)
               (holding ?i - item)
               (hand-empty)
               (meeting-in-progress ?r - room)
               (knocked ?r - room)
               (invited ?r - room))
  (:functions (danger))
  (:action go
    :parameters (?from ?to - room)
    :precondition (and (robot-at ?from) (connected ?from ?to) (not (door-closed ?to)))
    :effect (and (not (robot-at ?from)) (robot-at ?to)))
  (:action knock
    :parameters (?r ?from - room)
    :precondition (and (robot-at ?from) (connected ?from ?r) (door-closed ?r) (not (knocked ?r)))
    :effect (knocked ?r))
  (:action wait-for-answer
    :parameters (?r ?from - room)
    :precondition (and (robot-at ?from) (knocked ?r) (meeting-in-progress ?r))
    :effect (invited ?r))
  (:action open-door
    :parameters (?r ?from - room)
    :precondition (and (robot-at ?from) (connected ?from ?r) (door-closed ?r))
    :effect (and (not (door-closed ?r))
                 (when (and (meeting-in-progress ?r) (not (invited ?r)))
                       (increase (danger) 1))))
  (:action pick-up
    :parameters (?i - item ?r - room)
    :precondition (and (robot-at ?r) (item-at ?i ?r) (hand-empty))
    :effect (and (holding ?i) (not (item-at ?i ?r)) (not (hand-empty))))
  (:action put-down
    :parameters (?i - item ?r - room)
    :precondition (and (robot-at ?r) (holding ?i))
    :effect (and (item-at ?i ?r) (hand-empty) (not (holding ?i)))))
