;; expect: none
(catch 'out (handler-bind ((warning (lambda (c) (throw 'out c)))) (with-compilation-unit () (eval '(defun hostile-w2 () (undefined-hostile-2))))))
