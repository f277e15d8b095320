;;;; files.lisp: streams, files and LOAD in Lisp (CLHS chapters 19-21).

(in-package "SYSTEM")

(defun load (filespec &key (verbose *load-verbose*) (print *load-print*) (if-does-not-exist t) external-format)
  (declare (ignore external-format))
  (%load-file (if (stringp filespec) filespec (namestring filespec)) verbose print if-does-not-exist))
