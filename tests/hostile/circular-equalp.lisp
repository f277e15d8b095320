;; expect: error TIMEOUT
(let ((a (list 1 2)) (b (list 1 2))) (setf (cddr a) a (cddr b) b) (equalp a b))
