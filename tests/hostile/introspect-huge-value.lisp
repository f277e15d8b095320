;; expect: ok
(progn (defvar *huge* (make-array 3000000 :initial-element (make-string 1000 :initial-element #\x))) (sys::%query-describe-symbol "*huge*" nil) (< (length (car sys::*query-report*)) 2000))
