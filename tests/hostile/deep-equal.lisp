;; expect: error STORAGE-CONDITION|TIMEOUT
(let ((a nil) (b nil)) (dotimes (i 1200000) (setq a (list a) b (list b))) (equal a b))
