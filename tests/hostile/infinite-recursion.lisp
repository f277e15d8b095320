;; expect: error STORAGE-CONDITION
(defun inf (n) (+ 1 (inf n))) (inf 0)
