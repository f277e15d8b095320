;; expect: error STORAGE-CONDITION|TIMEOUT
(let ((f (list 'when t))) (setf (cdr (last f)) (list f)) (sys::%query-macroexpand "(progn)" nil t) (sys::%walk f (sys::%make-wenv)))
