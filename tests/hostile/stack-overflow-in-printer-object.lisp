;; expect: error STORAGE-CONDITION
(let ((x (make-array 1))) (dotimes (i 3000000) (setq x (vector x))) (write-to-string x :level nil :length nil :circle nil))
