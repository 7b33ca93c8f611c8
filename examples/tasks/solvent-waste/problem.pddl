; Flask 1 holds used acetone, flask 2 saline buffer. Leave both empty and the carboy closed.
(define (problem clean-up-after-extraction)
  (:domain solvent-waste)
  (:objects bench-area hood-area - area
            flask-1 flask-2 - flask
            acetone saline - liquid
            solvent-carboy - carboy)
  (:init (robot-at bench-area)
         (adjacent bench-area hood-area) (adjacent hood-area bench-area)
         (flask-at flask-1 bench-area)
         (flask-at flask-2 bench-area)
         (gripper-free)
         (contains flask-1 acetone)
         (contains flask-2 saline)
         (hazardous acetone)
         (sink-at bench-area)
         (carboy-at solvent-carboy hood-area)
         (= (danger) 0))
  (:goal (and (empty flask-1)
              (empty flask-2)
              (not (carboy-open solvent-carboy))
              (= (danger) 0))))
