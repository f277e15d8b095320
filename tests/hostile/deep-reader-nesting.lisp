;; expect: error READER-ERROR
(read-from-string (make-string 200000 :initial-element #\())
