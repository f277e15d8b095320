(defpackage :fix-util
  (:use :cl)
  (:export #:double #:triple #:*util-loads*))
