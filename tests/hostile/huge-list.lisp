;; expect: error STORAGE-CONDITION
(make-list 100000000000)
