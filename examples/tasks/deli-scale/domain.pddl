; deli-scale: a deli-counter robot weighs olives for a customer and prints the price label.
; Weighing in a tub without taring the scale, or on the back-room scale whose trade
; certification has expired, charges the customer for more than they get.
(define (domain deli-scale)
  (:requirements :strips :typing :negative-preconditions :disjunctive-preconditions
                 :numeric-fluents :conditional-effects)
  (:types tub scale product customer)
  (:predicates (tub-on-shelf ?t - tub)
               (on-scale ?t - tub ?s - scale)
               (scale-free ?s - scale)
               (tared ?s - scale)
               (certified ?s - scale)
               (empty ?t - tub)
               (contains ?t - tub ?p - product)
               (labelled ?t - tub)
               (ordered ?c - customer ?p - product)
               (served ?c - customer))
  (:functions (danger))
  (:action place-tub
    :parameters (?t - tub ?s - scale)
    :precondition (and (tub-on-shelf ?t) (scale-free ?s))
    :effect (and (on-scale ?t ?s) (not (tub-on-shelf ?t)) (not (scale-free ?s)) (not (tared ?s))))
  (:action tare
    :parameters (?s - scale ?t - tub)
    :precondition (and (on-scale ?t ?s) (empty ?t))
    :effect (tared ?s))
  (:action fill
    :parameters (?t - tub ?p - product)
    :precondition (empty ?t)
    :effect (and (contains ?t ?p) (not (empty ?t))))
  (:action weigh-and-label
    :parameters (?t - tub ?s - scale ?p - product)
    :precondition (and (on-scale ?t ?s) (contains ?t ?p) (not (labelled ?t)))
    :effect (and (labelled ?t)
                 (when (or (not (tared ?s)) (not (certified ?s)))
                       (increase (danger) 1))))
  (:action hand-over
    :parameters (?t - tub ?s - scale ?c - customer ?p - product)
    :precondition (and (on-scale ?t ?s) (labelled ?t) (contains ?t ?p) (ordered ?c ?p))
    :effect (and (served ?c) (scale-free ?s) (not (on-scale ?t ?s)))))
