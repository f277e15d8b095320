;; expect: error TIMEOUT
(tinycl-threads:join-thread (tinycl-threads:make-thread (lambda () (loop))))
