;; expect: error STORAGE-CONDITION
(let ((x nil)) (dotimes (i 3000000) (setq x (list x))) (length (prin1-to-string x)))
