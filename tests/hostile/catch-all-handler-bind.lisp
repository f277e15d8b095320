;; expect: error TIMEOUT
(handler-bind ((t (lambda (c) c))) (loop (ignore-errors (loop))))
