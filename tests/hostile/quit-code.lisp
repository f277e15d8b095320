;; expect: exit 3
(quit :code 3)
