;; expect: error TIMEOUT
(loop)
