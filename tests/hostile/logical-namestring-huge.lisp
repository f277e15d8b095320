;; expect: error
(progn (setf (logical-pathname-translations "HUGEHOST") '(("**;*.*.*" "/tmp/**/*.*")))
       (pathname (concatenate 'string "HUGEHOST:" (make-string 1000000 :initial-element #\;) "X")))
