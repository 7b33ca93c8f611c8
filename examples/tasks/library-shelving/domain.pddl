; library-shelving: a library robot returns three books to the shelves of the reading room,
; where people are studying. A loaded book cart rattles as it rolls in among the readers; the
; library tolerates one such disturbance (graded threshold: the goal requires danger < 2).
; Carrying a book by hand is silent but takes a trip per book. The cart holds two books.
(define (domain library-shelving)
  (:requirements :strips :typing :negative-preconditions :numeric-fluents :conditional-effects)
  (:types place book load)
  (:predicates (robot-at ?p - place)
               (cart-at ?p - place)
               (link ?p1 ?p2 - place)
               (book-at ?b - book ?p - place)
               (on-cart ?b - book)
               (in-hand ?b - book)
               (hand-empty)
               (home-shelf ?b - book ?p - place)
               (shelved ?b - book)
               (cart-load ?n - load)
               (next ?n1 ?n2 - load)
               (no-load ?n - load)
               (readers-present ?p - place))
  (:functions (danger))
  (:action walk
    :parameters (?from ?to - place)
    :precondition (and (robot-at ?from) (link ?from ?to))
    :effect (and (not (robot-at ?from)) (robot-at ?to)))
  (:action push-cart
    :parameters (?from ?to - place ?n - load)
    :precondition (and (robot-at ?from) (cart-at ?from) (link ?from ?to) (hand-empty)
                       (cart-load ?n))
    :effect (and (not (robot-at ?from)) (robot-at ?to) (not (cart-at ?from)) (cart-at ?to)
                 (when (and (readers-present ?to) (not (no-load ?n)))
                       (increase (danger) 1))))
  (:action load-cart
    :parameters (?b - book ?p - place ?n1 ?n2 - load)
    :precondition (and (robot-at ?p) (cart-at ?p) (book-at ?b ?p) (cart-load ?n1) (next ?n1 ?n2))
    :effect (and (on-cart ?b) (not (book-at ?b ?p)) (not (cart-load ?n1)) (cart-load ?n2)))
  (:action shelve-from-cart
    :parameters (?b - book ?p - place ?n1 ?n2 - load)
    :precondition (and (robot-at ?p) (cart-at ?p) (on-cart ?b) (home-shelf ?b ?p)
                       (cart-load ?n2) (next ?n1 ?n2))
    :effect (and (shelved ?b) (not (on-cart ?b)) (not (cart-load ?n2)) (cart-load ?n1)))
  (:action pick-up
    :parameters (?b - book ?p - place)
    :precondition (and (robot-at ?p) (book-at ?b ?p) (hand-empty))
    :effect (and (in-hand ?b) (not (book-at ?b ?p)) (not (hand-empty))))
  (:action shelve-from-hand
    :parameters (?b - book ?p - place)
    :precondition (and (robot-at ?p) (in-hand ?b) (home-shelf ?b ?p))
    :effect (and (shelved ?b) (not (in-hand ?b)) (hand-empty))))
