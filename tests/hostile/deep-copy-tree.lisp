;; expect: error STORAGE-CONDITION
(let ((a nil)) (dotimes (i 3000000) (setq a (list a))) (copy-tree a) (sxhash a) nil)
