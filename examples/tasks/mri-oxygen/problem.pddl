; Mrs Novak is in the scanner and needs supplemental oxygen; a steel cylinder stands in the
; corridor, the aluminium one is in the equipment store.
(define (problem oxygen-for-mrs-novak)
  (:domain mri-oxygen)
  (:objects corridor equipment-store control-room scanner-room - room
            steel-cylinder aluminium-cylinder - cylinder
            mrs-novak - patient)
  (:init (robot-at corridor)
         (door corridor equipment-store) (door equipment-store corridor)
         (door corridor control-room) (door control-room corridor)
         (door control-room scanner-room) (door scanner-room control-room)
         (cylinder-at steel-cylinder corridor)
         (cylinder-at aluminium-cylinder equipment-store)
         (ferromagnetic steel-cylinder)
         (magnet-on scanner-room)
         (patient-in mrs-novak scanner-room)
         (hand-empty)
         (= (danger) 0))
  (:goal (and (on-oxygen mrs-novak)
              (= (danger) 0))))
