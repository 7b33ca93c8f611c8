; expect: unexpected-token 2:2
(domain kitchen
  (:requirements :strips))
