;;;; format.lisp: FORMAT helpers written in Lisp (CLHS 22.3).
