(in-package :fix-broken)
(defun second-fn () :second)
(error "fix-broken: failing halfway through second.lisp")
(defun never-defined () :never)
