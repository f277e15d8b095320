;; expect: error TIMEOUT
(defmacro m (x) (list (quote m) x)) (m 1)
