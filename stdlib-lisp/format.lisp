;;;; format.lisp: FORMAT helpers written in Lisp (CLHS 22.3): the FORMAT-ERROR condition and FORMATTER.
;;;; FORMAT itself is the C directive interpreter in runtime/format.c.

(in-package "SYSTEM")

;;; Errors in control strings. The report is the message FORMAT builds (as SBCL shows it):
;;;   error in FORMAT: <complaint>
;;;     <control string>
;;;     <caret under the offending position>
(define-condition format-error (simple-error)
  ((complaint :initarg :complaint :reader format-error-complaint :initform nil)
   (control-string :initarg :control-string :reader format-error-control-string :initform nil)
   (offset :initarg :offset :reader format-error-offset :initform nil)))

;;; (FORMATTER control-string) => a function of (stream &rest args) that formats to STREAM
;;; and returns the arguments it did not use.
(defmacro formatter (control-string)
  "A function that does what FORMAT does with CONTROL-STRING: it takes a stream and the arguments, and returns the arguments left unused."
  (unless (stringp control-string)
    (error 'type-error :datum control-string :expected-type 'string))
  (let ((stream (gensym "STREAM")) (args (gensym "ARGS")))
    `(function (lambda (,stream &rest ,args)
       (%format ,stream ,control-string ,args)))))
