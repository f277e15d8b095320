;; expect: error TIMEOUT
(loop (handler-case (loop) (t () nil)))
