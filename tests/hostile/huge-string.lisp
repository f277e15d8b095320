;; expect: error STORAGE-CONDITION
(make-string 10000000000)
