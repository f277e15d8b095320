;; expect: error TIMEOUT
(progn (defclass loops-when-printed () ()) (defmethod print-object ((x loops-when-printed) s) (loop)) (make-instance 'loops-when-printed))
