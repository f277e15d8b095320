;;;; conditions.lisp: the condition system (CLHS chapter 9): define-condition, signal, handlers, restarts.
