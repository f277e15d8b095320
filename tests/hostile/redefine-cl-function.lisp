;; expect: error PACKAGE-ERROR
(defun car (x) x)
