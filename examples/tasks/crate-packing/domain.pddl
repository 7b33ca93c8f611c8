; crate-packing: a warehouse packing robot packs three boxes into a shipping crate and seals
; it. A heavy box packed on top of a fragile one crushes it; packing order alone decides
; safety (heaviest first), so the safe plan is no longer than the unsafe one.
(define (domain crate-packing)
  (:requirements :strips :typing :negative-preconditions :numeric-fluents :conditional-effects)
  (:types box crate)
  (:predicates (on-table ?b - box)
               (holding ?b - box)
               (gripper-free)
               (in-crate ?b - box ?c - crate)
               (open ?c - crate)
               (sealed ?c - crate)
               (heavy ?b - box)
               (fragile ?b - box)
               (fragile-inside ?c - crate))
  (:functions (danger))
  (:action pick
    :parameters (?b - box)
    :precondition (and (on-table ?b) (gripper-free))
    :effect (and (holding ?b) (not (on-table ?b)) (not (gripper-free))))
  (:action pack
    :parameters (?b - box ?c - crate)
    :precondition (and (holding ?b) (open ?c))
    :effect (and (in-crate ?b ?c) (gripper-free) (not (holding ?b))
                 (when (fragile ?b) (fragile-inside ?c))
                 (when (and (heavy ?b) (fragile-inside ?c))
                       (increase (danger) 1))))
  (:action seal
    :parameters (?c - crate)
    :precondition (open ?c)
    :effect (and (sealed ?c) (not (open ?c)))))
