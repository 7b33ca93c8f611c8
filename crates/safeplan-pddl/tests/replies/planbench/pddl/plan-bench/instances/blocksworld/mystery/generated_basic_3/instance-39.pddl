

(define (problem MY-rand-3)
(:domain mystery-4ops)
(:objects a b c )
(:init
(harmony)
(planet a)
(craves b c)
(craves c a)
(province b)
)
(:goal
(and
(craves a b)
(craves c a))
)
)


