;; expect: error
(apply (function values) (make-list 100000))
