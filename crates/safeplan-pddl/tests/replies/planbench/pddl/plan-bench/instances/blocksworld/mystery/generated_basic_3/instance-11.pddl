

(define (problem MY-rand-3)
(:domain mystery-4ops)
(:objects a b c )
(:init
(harmony)
(craves a b)
(planet b)
(craves c a)
(province c)
)
(:goal
(and
(craves b a)
(craves c b))
)
)


