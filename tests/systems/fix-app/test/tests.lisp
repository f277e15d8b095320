(defpackage :fix-app-test (:use :cl :fix-app))
(in-package :fix-app-test)
(defvar *ran* nil)
(defun run () (setq *ran* t) (assert (= (app-value) 21)) (assert (= (extra-value) 63)) :passed)
