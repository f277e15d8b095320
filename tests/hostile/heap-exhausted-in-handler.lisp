;; expect: error STORAGE-CONDITION|TIMEOUT
(let ((l nil)) (handler-bind ((storage-condition (lambda (c) (declare (ignore c)) (loop (push (make-string 1000) l))))) (loop (push (make-string 1000) l))))
