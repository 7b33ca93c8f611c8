; lawn-hedgehog: a robot lawn mower mows the garden at dusk and returns to its dock. Wild
; animals shelter in the long grass at that hour; mowing over them injures them. The mower
; can pause and chirp, which makes an animal walk off into a nearby refuge (hedge, pond edge).
(define (domain lawn-hedgehog)
  (:requirements :strips :typing :negative-preconditions :existential-preconditions
                 :numeric-fluents :conditional-effects)
  (:types zone animal)
  (:predicates (mower-at ?z - zone)
               (path ?from ?to - zone)
               (lawn ?z - zone)
               (refuge ?z - zone)
               (mowed ?z - zone)
               (animal-in ?a - animal ?z - zone))
  (:functions (danger))
  (:action drive
    :parameters (?from ?to - zone)
    :precondition (and (mower-at ?from) (path ?from ?to))
    :effect (and (not (mower-at ?from)) (mower-at ?to)))
  (:action mow
    :parameters (?z - zone)
    :precondition (and (mower-at ?z) (lawn ?z) (not (mowed ?z)))
    :effect (and (mowed ?z)
                 (when (exists (?a - animal) (animal-in ?a ?z))
                       (increase (danger) 1))))
  (:action chirp
    :parameters (?a - animal ?z ?r - zone)
    :precondition (and (mower-at ?z) (animal-in ?a ?z) (refuge ?r) (path ?z ?r))
    :effect (and (not (animal-in ?a ?z)) (animal-in ?a ?r))))
