;; expect: error
(loop (tinycl-threads:make-thread (lambda () (sleep 100))))
