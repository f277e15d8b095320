(defpackage :fix-app
  (:use :cl :fix-util)
  (:export #:app-value #:*load-order* #:extra-value))
(in-package :fix-app)
(defvar *load-order* nil)
(push :package *load-order*)
