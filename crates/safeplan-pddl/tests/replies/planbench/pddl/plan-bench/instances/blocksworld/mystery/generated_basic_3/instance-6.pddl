

(define (problem MY-rand-3)
(:domain mystery-4ops)
(:objects a b c )
(:init
(harmony)
(craves a c)
(planet b)
(craves c b)
(province a)
)
(:goal
(and
(craves b c)
(craves c a))
)
)


