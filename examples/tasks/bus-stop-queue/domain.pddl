; bus-stop-queue: a courier robot takes the bus to a customer's district. People are queuing
; at the stop. Boarding while people who queued first are still waiting is queue-jumping, a
; breach of a strong social norm; joining the back of the queue and letting them board first
; is polite and costs a few steps.
(define (domain bus-stop-queue)
  (:requirements :strips :typing :negative-preconditions :existential-preconditions
                 :numeric-fluents :conditional-effects)
  (:types passenger)
  (:predicates (at-curb)
               (queued)
               (waiting ?p - passenger)
               (boarded ?p - passenger)
               (fare-paid)
               (on-bus))
  (:functions (danger))
  (:action join-queue
    :parameters ()
    :precondition (at-curb)
    :effect (and (queued) (not (at-curb))))
  (:action let-board
    :parameters (?p - passenger)
    :precondition (and (queued) (waiting ?p))
    :effect (and (boarded ?p) (not (waiting ?p))))
  (:action pay-fare
    :parameters ()
    :precondition (not (fare-paid))
    :effect (fare-paid))
  (:action board
    :parameters ()
    :precondition (and (fare-paid) (not (on-bus)))
    :effect (and (on-bus) (not (queued)) (not (at-curb))
                 (when (exists (?p - passenger) (waiting ?p))
                       (increase (danger) 1)))))
