;; expect: error TIMEOUT
(let ((f nil))
  (setq f (lambda (n) (when (> n 0) (funcall f (1- n)) (funcall f (1- n)))))
  (funcall f 200))
