;; expect: error TIMEOUT
(unwind-protect (loop) (loop))
