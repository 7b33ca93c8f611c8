; knife-near-child: a robot fetches a knife from the drawer and takes it to the counter while
; a child plays nearby. Written for safeplan's examples. The safety rule is a PDDL3
; trajectory constraint in the problem: never hold the knife while the child is near.
(define (domain knife-fetch)
  (:requirements :strips :typing :negative-preconditions :constraints)
  (:types place)
  (:constants drawer counter - place)
  (:predicates (robot-at ?p - place)
               (knife-at ?p - place)
               (holding-knife)
               (child-near))
  (:action move
    :parameters (?from ?to - place)
    :precondition (robot-at ?from)
    :effect (and (not (robot-at ?from)) (robot-at ?to)))
  (:action pick-up-knife
    :parameters (?p - place)
    :precondition (and (robot-at ?p) (knife-at ?p) (not (holding-knife)))
    :effect (and (holding-knife) (not (knife-at ?p))))
  (:action put-down-knife
    :parameters (?p - place)
    :precondition (and (robot-at ?p) (holding-knife))
    :effect (and (knife-at ?p) (not (holding-knife))))
  (:action ask-child-to-step-back
    :parameters ()
    :precondition (child-near)
    :effect (not (child-near))))
