;; expect: any
(dotimes (i 3) (integer-length (* (expt 7 1500000) (expt 3 2000000))))
