;; expect: error STORAGE-CONDITION
(let ((a nil) (b nil)) (dotimes (i 3000000) (setq a (list a) b (list b))) (equal a b))
