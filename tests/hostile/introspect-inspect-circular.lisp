;; expect: ok
(progn (sys::%query-inspect "(let ((v (vector 1 2)) (l (list 1 2))) (setf (aref v 0) v (cdr (last l)) l (aref v 1) l) v)" nil nil) (sys::%query-inspect nil nil '(1 1 1 1)) (length (car sys::*query-report*)))
