;; expect: error TYPE-ERROR
(progn (sb-mop:add-direct-subclass (find-class 't) 42) (class-name (find-class 't)))
