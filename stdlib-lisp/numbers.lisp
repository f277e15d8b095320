;;;; numbers.lisp: number functions written in Lisp (CLHS chapter 12).
