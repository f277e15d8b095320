;;;; session.lisp: how a session evaluates one top-level form: an ABORT restart, warnings collected.

(in-package "SYSTEM")

(defvar *session-collect-warnings* nil
  "True when the session reports warnings in its results instead of printing them.")

(defun %session-eval (form)
  ;; every top-level form runs with its own ABORT restart; an unhandled error ends this form only
  (restart-case
      (if *session-collect-warnings*
          (handler-bind ((warning #'(lambda (c)
                                      (%session-note-warning (%condition-display-type c) (princ-to-string c))
                                      (muffle-warning c))))
            (eval form))
          (eval form))
    (abort ()
      :report "Return to top level."
      (%session-abort))))
