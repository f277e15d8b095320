;; expect: error SIMPLE-ERROR
(progn (defclass hm-scr () ((a :initform 1))) (defmethod reinitialize-instance :before ((c standard-class) &rest initargs) (declare (ignore initargs)) (when (eq (class-name c) 'hm-scr) (error "No redefinition of ~S." c))) (defclass hm-scr () ((b :initform 2))) (slot-value (make-instance 'hm-scr) 'b))
