;; expect: error SIMPLE-ERROR
(progn (defmethod sb-mop:ensure-generic-function-using-class :around ((gf null) (name (eql 'hm-egf)) &key &allow-other-keys) 42) (defgeneric hm-egf (x)) (hm-egf 1))
