;; expect: error TINYCL-THREADS:JOIN-THREAD-ERROR
(tinycl-threads:join-thread (tinycl-threads:make-thread (lambda () (tinycl:exit :code 3))))
