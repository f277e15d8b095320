;; expect: error SIMPLE-ERROR
(progn (defclass hm-fin-meta (standard-class) ()) (defmethod sb-mop:validate-superclass ((c hm-fin-meta) (s standard-class)) t) (defmethod sb-mop:finalize-inheritance :before ((c hm-fin-meta)) (error "No finalization for ~S." c)) (defclass hm-fin () ((a :initform 1)) (:metaclass hm-fin-meta)) (make-instance 'hm-fin))
