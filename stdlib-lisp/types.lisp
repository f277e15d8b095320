;;;; types.lisp: types (CLHS chapter 4): typecase, deftype, check-type, and type helpers written in Lisp.
