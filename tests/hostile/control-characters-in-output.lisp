;; expect: ok
(progn (format t "~C~C~C" (code-char 0) (code-char 27) (code-char 7)) (princ (coerce (list (code-char 1) (code-char 127)) (quote string))) nil)
