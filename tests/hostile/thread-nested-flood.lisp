;; expect: error TINYCL-THREADS:JOIN-THREAD-ERROR|TIMEOUT
(labels ((spawn (depth)
           (tinycl-threads:make-thread
            (lambda ()
              (let ((children (list (spawn (1+ depth)) (spawn (1+ depth)))))
                (mapc #'tinycl-threads:join-thread children))))))
  (tinycl-threads:join-thread (spawn 0)))
