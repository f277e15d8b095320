;;;; warnings.lisp: the warnings analysis gives (runtime/warnings.c finds them) as conditions,
;;;; and the compilation unit: an evaluation call, a LOAD, an outermost WITH-COMPILATION-UNIT, at
;;;; whose end the functions and variables still undefined are reported.

(in-package "SYSTEM")

(define-condition compiler-warning (simple-condition warning) ()
  (:documentation "A WARNING found while code was analysed (SBCL's \"caught WARNING\")."))
(define-condition compiler-style-warning (simple-condition style-warning) ()
  (:documentation "A STYLE-WARNING found while code was analysed (SBCL's \"caught STYLE-WARNING\")."))

(defun %analysis-warn (style format-control arguments)
  ;; signalled while a form is analysed, so that HANDLER-BIND and MUFFLE-WARNING work on it
  (warn (if style 'compiler-style-warning 'compiler-warning)
        :format-control format-control :format-arguments arguments))

(defvar *compilation-unit-depth* 0)

(defun %end-compilation-unit ()
  (if *session-collect-warnings*
      (handler-bind ((warning #'%session-collect-warning)) (%report-undefined))
      (%report-undefined)))

(defun %call-with-compilation-unit (function &optional override)
  ;; the outermost unit (or one with :OVERRIDE) reports, at its end, the undefined names referred
  ;; to inside it; names referred to before it are set aside meanwhile and put back after
  (if (and (> *compilation-unit-depth* 0) (not override))
      (funcall function)
      (let ((outer (%take-undefined-references))
            (*compilation-unit-depth* 1))
        (unwind-protect
             (multiple-value-prog1 (funcall function) (%end-compilation-unit))
          (%restore-undefined-references outer)))))
