;;;; strings.lisp: string and character functions written in Lisp (CLHS chapters 13 and 16).
