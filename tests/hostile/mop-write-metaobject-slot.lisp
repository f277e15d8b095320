;; expect: error SIMPLE-ERROR
(progn (setf (sb-mop:standard-instance-access (find-class 'standard-object) 0) 5)
       (setf (sb-mop:standard-instance-access #'print-object 2) 42))
