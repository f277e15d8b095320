;; expect: ok
(let ((s (with-output-to-string (o) (dotimes (i 5000) (write-string "(when t " o)) (dotimes (i 5000) (write-string ")" o))))) (sys::%tool-macroexpand s nil t) (length (car sys::*tool-report*)))
