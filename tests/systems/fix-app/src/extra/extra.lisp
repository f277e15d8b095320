(in-package :fix-app)
(push :extra *load-order*)
(defun extra-value () (triple (app-value)))
