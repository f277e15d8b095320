;; expect: error TIMEOUT
(labels ((burn (a b c d n) (when (> n 0) (burn b c d a (1- n)) (burn a b c d (1- n)))))
  (burn 1 2 3 4 200))
