;; expect: error READER-ERROR
(read-from-string (with-output-to-string (s) (dotimes (i 200000) (write-string "#-sbcl " s)) (write-string "1" s)))
