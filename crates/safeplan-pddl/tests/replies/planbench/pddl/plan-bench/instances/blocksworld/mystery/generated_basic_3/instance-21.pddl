

(define (problem MY-rand-3)
(:domain mystery-4ops)
(:objects a b c )
(:init
(harmony)
(planet a)
(planet b)
(craves c b)
(province a)
(province c)
)
(:goal
(and
(craves a c)
(craves b a))
)
)


