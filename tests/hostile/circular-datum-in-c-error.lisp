;; expect: error TYPE-ERROR
(let ((x (list 1 2))) (setf (cddr x) x) (+ x 1))
