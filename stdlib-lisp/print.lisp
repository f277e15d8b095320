;;;; print.lisp: printer functions written in Lisp (CLHS 22).
