;; expect: error TIMEOUT
(catch :x (unwind-protect (loop) (handler-case (loop) (t () (throw :x 1)))))
