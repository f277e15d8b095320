;; expect: error TINYCL-THREADS:JOIN-THREAD-ERROR
(tinycl-threads:join-thread (tinycl-threads:make-thread (lambda () (let ((l nil)) (loop (push (make-array 100000) l))))))
