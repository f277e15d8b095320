;; expect: error STORAGE-CONDITION
(make-array 2000000000)
