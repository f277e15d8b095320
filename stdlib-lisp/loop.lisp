;;;; loop.lisp: the LOOP macro (CLHS 6.1), simple and extended forms.
