;; expect: error SIMPLE-ERROR
(progn (defgeneric hm-egf2 (x)) (defmethod sb-mop:ensure-generic-function-using-class :before ((gf generic-function) (name (eql 'hm-egf2)) &key &allow-other-keys) (error "No more methods for ~S." name)) (eval '(defmethod hm-egf2 ((x t)) x)) (hm-egf2 1))
