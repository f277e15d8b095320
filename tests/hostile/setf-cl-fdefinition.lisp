;; expect: error PACKAGE-ERROR
(setf (symbol-function (quote car)) (lambda (x) x))
