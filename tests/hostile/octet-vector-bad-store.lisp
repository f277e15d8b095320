;; expect: error TYPE-ERROR
(let ((v (make-array 3 :element-type '(unsigned-byte 8)))) (setf (aref v 0) 256) v)
