

(define (problem MY-rand-3)
(:domain mystery-4ops)
(:objects a b c )
(:init
(harmony)
(planet a)
(craves b a)
(planet c)
(province b)
(province c)
)
(:goal
(and
(craves b a)
(craves c b))
)
)


