;; expect: error STORAGE-CONDITION
(progn (defclass hm-meta2 (standard-class) ()) (defmethod sb-mop:validate-superclass ((c hm-meta2) (s standard-class)) t) (defmethod sb-mop:slot-value-using-class ((c hm-meta2) o s) (slot-value o (sb-mop:slot-definition-name s))) (defclass hm-r () ((a :initform 1)) (:metaclass hm-meta2)) (slot-value (make-instance 'hm-r) 'a))
