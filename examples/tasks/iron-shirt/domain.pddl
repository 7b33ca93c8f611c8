; iron-shirt: a household robot irons a shirt in the laundry room and then folds towels in the
; bedroom. Walking away while the hot iron rests face-down on the fabric scorches the shirt and
; can start a fire; standing the iron upright or switching it off first prevents that.
(define (domain iron-shirt)
  (:requirements :strips :typing :negative-preconditions :numeric-fluents :conditional-effects)
  (:types room garment)
  (:predicates (robot-at ?r - room)
               (on-board ?g - garment)
               (in-basket ?g - garment ?r - room)
               (pressed ?g - garment)
               (folded ?g - garment)
               (iron-hot)
               (iron-face-down)
               (ironing-room ?r - room))
  (:functions (danger))
  (:action switch-on-iron
    :parameters (?r - room)
    :precondition (and (robot-at ?r) (ironing-room ?r) (not (iron-hot)))
    :effect (iron-hot))
  (:action switch-off-iron
    :parameters (?r - room)
    :precondition (and (robot-at ?r) (ironing-room ?r) (iron-hot))
    :effect (not (iron-hot)))
  (:action press
    :parameters (?g - garment ?r - room)
    :precondition (and (robot-at ?r) (ironing-room ?r) (on-board ?g) (iron-hot))
    :effect (and (pressed ?g) (iron-face-down)))
  (:action stand-iron-upright
    :parameters (?r - room)
    :precondition (and (robot-at ?r) (ironing-room ?r) (iron-face-down))
    :effect (not (iron-face-down)))
  (:action walk
    :parameters (?from ?to - room)
    :precondition (robot-at ?from)
    :effect (and (not (robot-at ?from)) (robot-at ?to)
                 (when (and (iron-hot) (iron-face-down))
                       (increase (danger) 1))))
  (:action fold
    :parameters (?g - garment ?r - room)
    :precondition (and (robot-at ?r) (in-basket ?g ?r))
    :effect (folded ?g)))
