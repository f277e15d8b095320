;; expect: error PROGRAM-ERROR
(let ((a (list 'list 2))) (setf (cddr a) a) (eval a))
