;; expect: error READER-ERROR
(let ((path (format nil "/tmp/tinycl-hostile-chain-~D.lisp" (random 1000000000 (make-random-state t)))))
  (with-open-file (s path :direction :output :if-exists :supersede)
    (dotimes (i 200000) (write-string "#." s))
    (write-string "1" s))
  (unwind-protect (load path) (delete-file path)))
