;; expect: error TINYCL-THREADS:JOIN-THREAD-ERROR
(tinycl-threads:join-thread (tinycl-threads:make-thread (lambda () (labels ((f (n) (1+ (f n)))) (f 1)))))
