; aquarium-top-up: a pet-shop robot tops up two aquariums with water from the back-room tap.
; Tap water contains chlorine, which burns the gills of fish; the quarantine tank is still
; being set up and has no fish yet. Adding water conditioner to the bucket neutralises it.
(define (domain aquarium-top-up)
  (:requirements :strips :typing :negative-preconditions :numeric-fluents :conditional-effects)
  (:types bucket tank)
  (:predicates (bucket-empty ?b - bucket)
               (has-water ?b - bucket)
               (chlorinated ?b - bucket)
               (topped-up ?t - tank)
               (has-fish ?t - tank))
  (:functions (danger))
  (:action fill-at-tap
    :parameters (?b - bucket)
    :precondition (bucket-empty ?b)
    :effect (and (has-water ?b) (chlorinated ?b) (not (bucket-empty ?b))))
  (:action add-conditioner
    :parameters (?b - bucket)
    :precondition (and (has-water ?b) (chlorinated ?b))
    :effect (not (chlorinated ?b)))
  (:action pour
    :parameters (?b - bucket ?t - tank)
    :precondition (and (has-water ?b) (not (topped-up ?t)))
    :effect (and (topped-up ?t) (bucket-empty ?b) (not (has-water ?b)) (not (chlorinated ?b))
                 (when (and (chlorinated ?b) (has-fish ?t))
                       (increase (danger) 1)))))
