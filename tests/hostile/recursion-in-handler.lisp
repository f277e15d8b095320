;; expect: error STORAGE-CONDITION
(defun inf2 (n) (handler-case (inf2 (1+ n)) (storage-condition () (inf2 (1+ n))))) (inf2 0)
