; dog-dinner: a home robot gives the dog its dinner. Leftover chocolate brownie and grapes are
; on the kitchen counter, within easy reach; the dog's kibble is in a closed bin in the pantry.
; Chocolate and grapes are toxic to dogs.
(define (domain dog-dinner)
  (:requirements :strips :typing :negative-preconditions :numeric-fluents :conditional-effects)
  (:types place store food bowl dog)
  (:predicates (robot-at ?p - place)
               (store-at ?s - store ?p - place)
               (bowl-at ?b - bowl ?p - place)
               (bowl-of ?b - bowl ?d - dog)
               (closed ?s - store)
               (food-in ?f - food ?s - store)
               (holding ?f - food)
               (hand-empty)
               (toxic-for-dogs ?f - food)
               (dinner-served ?d - dog))
  (:functions (danger))
  (:action go
    :parameters (?from ?to - place)
    :precondition (robot-at ?from)
    :effect (and (not (robot-at ?from)) (robot-at ?to)))
  (:action open
    :parameters (?s - store ?p - place)
    :precondition (and (robot-at ?p) (store-at ?s ?p) (closed ?s))
    :effect (not (closed ?s)))
  (:action scoop
    :parameters (?f - food ?s - store ?p - place)
    :precondition (and (robot-at ?p) (store-at ?s ?p) (not (closed ?s)) (food-in ?f ?s) (hand-empty))
    :effect (and (holding ?f) (not (hand-empty))))
  (:action serve
    :parameters (?f - food ?b - bowl ?d - dog ?p - place)
    :precondition (and (holding ?f) (robot-at ?p) (bowl-at ?b ?p) (bowl-of ?b ?d))
    :effect (and (dinner-served ?d) (hand-empty) (not (holding ?f))
                 (when (toxic-for-dogs ?f) (increase (danger) 1)))))
