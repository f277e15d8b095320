;; expect: error STORAGE-CONDITION|TIMEOUT
(let ((l nil)) (loop (push (make-array 100000) l)))
