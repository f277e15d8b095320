;; expect: error PROGRAM-ERROR
(let ((x (list 1 2))) (setf (cddr x) x) (destructuring-bind (&key a) x a))
