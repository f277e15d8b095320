;; expect: error TINYCL-THREADS:JOIN-THREAD-ERROR
(let ((th (tinycl-threads:make-thread (lambda () (loop (sleep 0.01))))))
  (tinycl-threads:interrupt-thread th (lambda () (throw 'no-such-tag 1)))
  (tinycl-threads:join-thread th :timeout 2))
