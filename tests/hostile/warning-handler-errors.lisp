;; expect: error SIMPLE-ERROR
(handler-bind ((warning (lambda (c) (error "a handler failed on: ~A" c)))) (eval '(defun hostile-w1 (x) (car 1 2) (undefined-hostile))))
