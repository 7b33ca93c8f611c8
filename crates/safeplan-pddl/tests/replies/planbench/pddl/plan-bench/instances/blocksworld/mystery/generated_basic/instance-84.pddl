

(define (problem MY-rand-4)
(:domain mystery-4ops)
(:objects a b c d )
(:init
(harmony)
(craves a b)
(craves b d)
(planet c)
(craves d c)
(province a)
)
(:goal
(and
(craves a b)
(craves c a)
(craves d c))
)
)


