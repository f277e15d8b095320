(in-package :fix-broken)
(defun third-fn () :third)
