;; expect: error SIMPLE-ERROR
(progn (defclass hm-gf (standard-generic-function) () (:metaclass sb-mop:funcallable-standard-class)) (defmethod sb-mop:compute-discriminating-function ((gf hm-gf)) 42) (defgeneric hm-f (x) (:generic-function-class hm-gf)))
