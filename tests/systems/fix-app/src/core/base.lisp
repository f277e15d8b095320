(in-package :fix-app)
(push :base *load-order*)
(defun base-value () (double 10))
