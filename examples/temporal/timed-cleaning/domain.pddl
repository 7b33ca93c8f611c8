; A robot mops a lobby floor. A wet floor is a slip hazard: mopping without a wet-floor sign
; up raises danger, and so does taking the sign down while the floor is still wet. The floor
; needs at least (dry-time ?r) to dry after mopping: `let-dry` has a duration inequality.
(define (domain timed-cleaning)
  (:requirements :typing :durative-actions :numeric-fluents :conditional-effects
                 :negative-preconditions :duration-inequalities)
  (:types room)
  (:predicates (robot-at ?r - room) (dirty ?r - room) (clean ?r - room) (wet ?r - room)
               (sign-up ?r - room) (has-sign))
  (:functions (mop-time ?r - room) (dry-time ?r - room) (danger))

  (:durative-action place-sign
    :parameters (?r - room)
    :duration (= ?duration 1)
    :condition (and (at start (robot-at ?r)) (at start (has-sign)))
    :effect (and (at start (not (has-sign))) (at end (sign-up ?r))))

  (:durative-action mop
    :parameters (?r - room)
    :duration (= ?duration (mop-time ?r))
    :condition (and (at start (robot-at ?r)) (at start (dirty ?r)) (over all (robot-at ?r)))
    :effect (and (at start (wet ?r)) (at end (not (dirty ?r))) (at end (clean ?r))
                 (at start (when (not (sign-up ?r)) (increase (danger) 1)))))

  (:durative-action let-dry
    :parameters (?r - room)
    :duration (>= ?duration (dry-time ?r))
    :condition (and (at start (wet ?r)) (at start (clean ?r)))
    :effect (at end (not (wet ?r))))

  (:durative-action remove-sign
    :parameters (?r - room)
    :duration (= ?duration 1)
    :condition (and (at start (robot-at ?r)) (at start (sign-up ?r)))
    :effect (and (at start (not (sign-up ?r))) (at end (has-sign))
                 (at start (when (wet ?r) (increase (danger) 1))))))
