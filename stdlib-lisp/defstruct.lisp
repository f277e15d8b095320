;;;; defstruct.lisp: DEFSTRUCT (CLHS 8).
