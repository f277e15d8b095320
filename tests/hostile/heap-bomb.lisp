;; expect: error STORAGE-CONDITION
(let ((l nil)) (loop (push (make-array 100000) l)))
