;;;; lists.lisp: list and sequence functions written in Lisp (CLHS chapters 14 and 17).
