;; expect: error PACKAGE-ERROR
(defmacro when (&rest x) x)
