;;;; files.lisp: streams, files and LOAD in Lisp (CLHS chapters 19-21).
