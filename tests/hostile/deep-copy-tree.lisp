;; expect: error STORAGE-CONDITION|TIMEOUT
(let ((a nil)) (dotimes (i 1200000) (setq a (list a))) (copy-tree a) (sxhash a) nil)
