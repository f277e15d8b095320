;; expect: ok
(let ((x (list 1 2 3))) (setf (cdr (last x)) x) x)
