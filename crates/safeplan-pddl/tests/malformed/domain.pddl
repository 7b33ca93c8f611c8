; A small, valid domain of our own: the base that the malformed problems are checked against.
(define (domain kitchen)
  (:requirements :strips :typing :negative-preconditions)
  (:types location item - object
          cup - item)
  (:constants counter sink - location)
  (:predicates (robot-at ?l - location)
               (item-at ?i - item ?l - location)
               (holding ?i - item)
               (hand-empty))
  (:action move
    :parameters (?from ?to - location)
    :precondition (and (robot-at ?from) (not (robot-at ?to)))
    :effect (and (not (robot-at ?from)) (robot-at ?to)))
  (:action pick
    :parameters (?i - item ?l - location)
    :precondition (and (robot-at ?l) (item-at ?i ?l) (hand-empty))
    :effect (and (holding ?i) (not (item-at ?i ?l)) (not (hand-empty)))))
