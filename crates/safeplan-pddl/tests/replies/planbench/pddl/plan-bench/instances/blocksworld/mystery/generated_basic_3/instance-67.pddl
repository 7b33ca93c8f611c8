

(define (problem MY-rand-3)
(:domain mystery-4ops)
(:objects a b c )
(:init
(harmony)
(craves a c)
(planet b)
(planet c)
(province a)
(province b)
)
(:goal
(and
(craves b c))
)
)


