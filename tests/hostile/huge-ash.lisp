;; expect: error STORAGE-CONDITION
(ash 1 (expt 10 15))
