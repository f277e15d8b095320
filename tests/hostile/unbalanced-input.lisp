;; expect: error END-OF-FILE
(+ 1 (* 2 3)
