;; expect: error SIMPLE-ERROR
(progn (defclass hm-meta (standard-class) ()) (defmethod sb-mop:validate-superclass ((c hm-meta) (s standard-class)) t) (defmethod sb-mop:compute-slots ((c hm-meta)) 42) (defclass hm-c () ((a)) (:metaclass hm-meta)))
