; Top up the guppy display tank and the new quarantine tank with the one bucket.
(define (problem weekly-top-up)
  (:domain aquarium-top-up)
  (:objects blue-bucket - bucket
            guppy-tank quarantine-tank - tank)
  (:init (bucket-empty blue-bucket)
         (has-fish guppy-tank)
         (= (danger) 0))
  (:goal (and (topped-up guppy-tank)
              (topped-up quarantine-tank)
              (= (danger) 0))))
