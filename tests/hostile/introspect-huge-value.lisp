;; expect: ok
(progn (defvar *huge* (make-array 3000000 :initial-element (make-string 1000 :initial-element #\x))) (sys::%tool-describe-symbol "*huge*" nil) (< (length (car sys::*tool-report*)) 2000))
