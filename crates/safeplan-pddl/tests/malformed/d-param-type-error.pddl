; expect: type-mismatch 8:47
(define (domain kitchen)
  (:requirements :strips :typing)
  (:types location item)
  (:predicates (robot-at ?l - location) (holding ?i - item))
  (:action grab
    :parameters (?l - location)
    :precondition (and (robot-at ?l) (holding ?l))
    :effect (robot-at ?l)))
