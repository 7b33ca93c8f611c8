; expect: unexpected-token 2:10
(define (problem p1) (:domain kitchen) (:objects a) (:init) (:goal (and)))
