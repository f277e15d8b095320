;; expect: ok
(let ((s (with-output-to-string (o) (dotimes (i 5000) (write-string "(when t " o)) (dotimes (i 5000) (write-string ")" o))))) (sys::%query-macroexpand s nil t) (length (car sys::*query-report*)))
