;; expect: error SIMPLE-ERROR
(progn (defmethod initialize-instance :after ((c standard-class) &key name &allow-other-keys) (when (eq name 'hm-sci) (error "No class ~S." name))) (defclass hm-sci () ((a :initform 1))) (make-instance 'hm-sci))
