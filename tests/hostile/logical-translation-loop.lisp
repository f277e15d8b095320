;; expect: error
(progn (setf (logical-pathname-translations "LOOPHOST") '(("**;*.*.*" "LOOPHOST:X;**;*.*.*")))
       (translate-logical-pathname "LOOPHOST:A;B.C"))
