;; expect: error CONTROL-ERROR
(funcall (block b (lambda () (return-from b 1))))
