; stove-left-on: a cooking robot boils eggs on a gas hob and serves them. A lit burner is a fire
; hazard for as long as it burns; turning it off when the cooking is done removes the hazard
; (a mitigation: danger rises when the burner is lit and falls when it is turned off).
(define (domain stove-left-on)
  (:requirements :strips :typing :negative-preconditions :numeric-fluents :conditional-effects)
  (:types burner pot food dish)
  (:predicates (pot-on ?p - pot ?b - burner)
               (pot-in-cupboard ?p - pot)
               (burner-free ?b - burner)
               (lit ?b - burner)
               (in-pot ?f - food ?p - pot)
               (in-fridge ?f - food)
               (cooked ?f - food)
               (served ?f - food ?d - dish)
               (dish-clean ?d - dish))
  (:functions (danger))
  (:action put-pot-on
    :parameters (?p - pot ?b - burner)
    :precondition (and (pot-in-cupboard ?p) (burner-free ?b))
    :effect (and (pot-on ?p ?b) (not (pot-in-cupboard ?p)) (not (burner-free ?b))))
  (:action add-food
    :parameters (?f - food ?p - pot)
    :precondition (in-fridge ?f)
    :effect (and (in-pot ?f ?p) (not (in-fridge ?f))))
  (:action light
    :parameters (?b - burner)
    :precondition (not (lit ?b))
    :effect (and (lit ?b) (increase (danger) 1)))
  (:action turn-off
    :parameters (?b - burner)
    :precondition (lit ?b)
    :effect (and (not (lit ?b)) (decrease (danger) 1)))
  (:action boil
    :parameters (?f - food ?p - pot ?b - burner)
    :precondition (and (in-pot ?f ?p) (pot-on ?p ?b) (lit ?b))
    :effect (cooked ?f))
  (:action serve
    :parameters (?f - food ?p - pot ?d - dish)
    :precondition (and (cooked ?f) (in-pot ?f ?p) (dish-clean ?d))
    :effect (and (served ?f ?d) (not (in-pot ?f ?p)) (not (dish-clean ?d)))))
