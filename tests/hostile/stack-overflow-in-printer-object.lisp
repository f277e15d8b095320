;; expect: error STORAGE-CONDITION|TIMEOUT
(let ((x (make-array 1))) (dotimes (i 1200000) (setq x (vector x))) (write-to-string x :level nil :length nil :circle nil))
