;; expect: error TIMEOUT
(sleep 1000000)
