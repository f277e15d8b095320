(defpackage :fix-broken (:use :cl) (:export #:first-fn))
(in-package :fix-broken)
(defun first-fn () :first)
