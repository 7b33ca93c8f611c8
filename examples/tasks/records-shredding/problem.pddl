; The ward office desk holds last month's discharge summaries and old cafeteria menus.
(define (problem clear-the-desk)
  (:domain records-shredding)
  (:objects ward-office corridor records-room - location
            discharge-summaries cafeteria-menus - document
            paper-recycling - bin)
  (:init (robot-at ward-office)
         (connected ward-office corridor) (connected corridor ward-office)
         (connected corridor records-room) (connected records-room corridor)
         (doc-at discharge-summaries ward-office)
         (doc-at cafeteria-menus ward-office)
         (bin-at paper-recycling ward-office)
         (shredder-at records-room)
         (confidential discharge-summaries)
         (= (danger) 0))
  (:goal (and (disposed discharge-summaries)
              (disposed cafeteria-menus)
              (= (danger) 0))))
