;; expect: error PROGRAM-ERROR
(let ((a (list 'progn 2))) (setf (cddr a) a) (compile nil (list 'lambda () a)))
