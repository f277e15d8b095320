;; expect: error STORAGE-CONDITION
(expt 2 (expt 2 40))
