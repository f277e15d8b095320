;;;; packages.lisp: DEFPACKAGE and the package macros (CLHS chapter 11).
