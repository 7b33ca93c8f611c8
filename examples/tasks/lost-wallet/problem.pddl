; The wallet belongs to someone who is not here; a stranger on the bench claims it.
(define (problem found-wallet)
  (:domain lost-wallet)
  (:objects park-bench street-corner police-kiosk home-of-owner - place
            stranger officer-ruiz wallet-owner - person
            brown-wallet - wallet)
  (:init (robot-at park-bench)
         (path park-bench street-corner) (path street-corner park-bench)
         (path street-corner police-kiosk) (path police-kiosk street-corner)
         (wallet-at brown-wallet park-bench)
         (hand-empty)
         (person-at stranger park-bench)
         (person-at officer-ruiz police-kiosk)
         (person-at wallet-owner home-of-owner)
         (owner wallet-owner brown-wallet)
         (official officer-ruiz)
         (= (danger) 0))
  (:goal (and (returned brown-wallet)
              (= (danger) 0))))
