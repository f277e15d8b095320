(in-package :fix-app)
(push :more *load-order*)
(defun app-value () (+ (base-value) 1))
