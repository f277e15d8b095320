;; expect: error TIMEOUT
(let ((a (tinycl-threads:make-mutex)) (b (tinycl-threads:make-mutex)))
  (tinycl-threads:grab-mutex a)
  (let ((th (tinycl-threads:make-thread (lambda () (tinycl-threads:with-mutex (b) (sleep 0.1) (tinycl-threads:grab-mutex a))))))
    (sleep 0.05)
    (tinycl-threads:grab-mutex b)
    (tinycl-threads:join-thread th)))
