;; expect: error STORAGE-CONDITION|TIMEOUT
(let ((x nil)) (dotimes (i 1200000) (setq x (list x))) (length (prin1-to-string x)))
