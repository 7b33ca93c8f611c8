; An HR envelope, code 3B-07, waits in the mailroom. It is for Dana in office 3B.
(define (problem hr-envelope)
  (:domain office-mail)
  (:objects mailroom reception-desk office-3b - place
            hr-envelope - letter
            dana omar - person)
  (:init (robot-at mailroom)
         (hallway mailroom reception-desk) (hallway reception-desk mailroom)
         (hallway reception-desk office-3b) (hallway office-3b reception-desk)
         (reception reception-desk)
         (letter-at hr-envelope mailroom)
         (addressed-to hr-envelope dana)
         (works-at dana office-3b)
         (works-at omar office-3b)
         (confidential hr-envelope)
         (= (danger) 0))
  (:goal (and (delivered hr-envelope)
              (= (danger) 0))))
