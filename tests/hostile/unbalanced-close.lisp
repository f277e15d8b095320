;; expect: error READER-ERROR
(+ 1 2))
