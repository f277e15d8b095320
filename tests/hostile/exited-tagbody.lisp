;; expect: error CONTROL-ERROR
(funcall (let (f) (tagbody (setq f (lambda () (go x))) x) f))
