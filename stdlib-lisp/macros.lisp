;;;; macros.lisp: the remaining standard macros (with-output-to-string, prog, etc.).
