;;;; compile-file-definers.lisp: the defining macros say with EVAL-WHEN what COMPILE-FILE does at
;;;; compile time (CLHS 3.2.3.1.1 and each macro's dictionary entry; SBCL's expansions do the same),
;;;; so a later form of the same file can use what they define while the file is compiled (through
;;;; #. or a macro), and nothing else is evaluated then: a DEFUN's body, DEFVAR's and DEFPARAMETER's
;;;; values, a DEFMETHOD wait for LOAD. The files live in a temporary directory under /tmp.

(defvar *cfd-dir* (format nil "/tmp/tinycl-cf-definers-~D-~D/" (get-universal-time) (random 1000000 (make-random-state t))))
(defvar *cfd-log* nil)

(defun cfd-write (name &rest lines)
  (let ((path (concatenate 'string *cfd-dir* name)))
    (ensure-directories-exist path)
    (with-open-file (s path :direction :output :if-exists :supersede)
      (dolist (l lines) (write-line l s)))
    path))

(defun cfd-compile (path)
  ;; -> (truename warnings-p failure-p), output discarded, warnings counted but not shown
  (let ((*standard-output* (make-broadcast-stream))
        (*error-output* (make-broadcast-stream)))
    (handler-bind ((warning #'muffle-warning))
      (multiple-value-list (compile-file path)))))

(defun cfd-situations (form)
  ;; the situations of the EVAL-WHEN FORM's expansion is, or of the first one in its PROGN
  (let ((x (macroexpand form)))
    (cond ((and (consp x) (eq (car x) 'eval-when)) (cadr x))
          ((and (consp x) (eq (car x) 'progn))
           (dolist (f (cdr x) :none)
             (let ((e (macroexpand f)))
               (when (and (consp e) (eq (car e) 'eval-when)) (return (cadr e))))))
          (t :none))))

(deftest definers-expand-with-eval-when
  ;; the defining macros carry their compile-time part in their expansion, as SBCL's do
  (mapcar #'(lambda (form) (list (car form) (cfd-situations form)))
          '((defmacro cfd-m (x) x)
            (defun cfd-f (x) x)
            (defmethod cfd-g ((x integer)) x)
            (defvar *cfd-v* 1)
            (defparameter *cfd-p* 2)
            (defconstant +cfd-k+ 3)
            (defstruct cfd-s a)
            (defclass cfd-c () ())
            (defgeneric cfd-g (x))
            (define-condition cfd-e (error) ())
            (deftype cfd-t () 'integer)
            (defpackage :cfd-p (:use :cl))
            (in-package :cfd-p)
            (define-compiler-macro cfd-f (x) x)
            (define-setf-expander cfd-get (x) x)
            (defsetf cfd-get cfd-set)
            (define-symbol-macro cfd-sm 1)
            (define-modify-macro cfd-mm () +)
            (declaim (special *cfd-z*))
            (define-method-combination cfd-mc :operator +)
            (define-method-combination cfd-mc2 () ((a *)) `(progn ,@a))))
  ((defmacro (:compile-toplevel :load-toplevel :execute))
   (defun (:compile-toplevel))
   (defmethod (:compile-toplevel))
   (defvar (:compile-toplevel))
   (defparameter (:compile-toplevel))
   (defconstant (:compile-toplevel :load-toplevel :execute))
   (defstruct (:compile-toplevel :load-toplevel :execute))
   (defclass (:compile-toplevel :load-toplevel :execute))
   (defgeneric (:compile-toplevel :load-toplevel :execute))
   (define-condition (:compile-toplevel :load-toplevel :execute))
   (deftype (:compile-toplevel :load-toplevel :execute))
   (defpackage (:compile-toplevel :load-toplevel :execute))
   (in-package (:compile-toplevel :load-toplevel :execute))
   (define-compiler-macro (:compile-toplevel :load-toplevel :execute))
   (define-setf-expander (:compile-toplevel :load-toplevel :execute))
   (defsetf (:compile-toplevel :load-toplevel :execute))
   (define-symbol-macro (:compile-toplevel :load-toplevel :execute))
   (define-modify-macro (:compile-toplevel :load-toplevel :execute))
   (declaim (:compile-toplevel :load-toplevel :execute))
   (define-method-combination (:compile-toplevel :load-toplevel :execute))
   (define-method-combination (:compile-toplevel :load-toplevel :execute))))

(deftest definers-compile-time-noting-is-inert-outside-compile-file
  ;; evaluated or loaded from source, the compile-time notes do nothing
  (progn
    (eval '(defun cfd-plain () :plain))
    (eval '(defvar *cfd-plain* :v))
    (list (funcall 'cfd-plain) (symbol-value '*cfd-plain*)
          (funcall (compile nil '(lambda () (defun cfd-inner () :inner) (cfd-inner))))))
  (:plain :v :inner))

(deftest definers-seen-at-compile-time
  ;; each definition is used by a later form of the same file while it is compiled: #. reads
  ;; its value then, and a macro's expander calls it then
  (progn
    (setq *cfd-log* nil)
    (let ((r (cfd-compile
              (cfd-write "uses.lisp"
                         "(in-package :cl-user)"
                         "(defconstant +cfd-width+ 21)"
                         "(deftype cfd-small () '(integer 0 9))"
                         "(defstruct cfd-point x y)"
                         "(defstruct (cfd-point3 (:include cfd-point)) z)"
                         "(defclass cfd-shape () ((sides :initarg :sides :reader cfd-sides)))"
                         "(defclass cfd-square (cfd-shape) () (:default-initargs :sides 4))"
                         "(define-condition cfd-oops (error) ())"
                         "(define-condition cfd-big-oops (cfd-oops) ())"
                         "(defgeneric cfd-area (shape))"
                         "(define-method-combination cfd-sum :operator +)"
                         "(defgeneric cfd-total (x) (:method-combination cfd-sum))"
                         "(define-symbol-macro cfd-answer 42)"
                         "(defun cfd-twice-fn (x) (* 2 x))"
                         "(define-compiler-macro cfd-twice-fn (x) `(+ ,x ,x))"
                         "(defun cfd-get (x) (car x))"
                         "(defsetf cfd-get cfd-set)"
                         "(define-setf-expander cfd-first (x) (let ((s (gensym))) (values nil nil (list s) `(rplaca ,x ,s) `(car ,x))))"
                         "(define-modify-macro cfd-append-to (&rest lists) append)"
                         "(defmacro cfd-at-compile-time () `',(list (cfd-point-y (make-cfd-point :x 1 :y 2)) (cfd-point3-z (make-cfd-point3 :z 3))))"
                         "(defparameter *cfd-seen* (list (cfd-at-compile-time)"
                         "  #.(* 2 +cfd-width+)"
                         "  #.(typep 5 'cfd-small) #.(typep 50 'cfd-small)"
                         "  #.(subtypep 'cfd-point3 'cfd-point)"
                         "  #.(cfd-sides (make-instance 'cfd-square))"
                         "  #.(subtypep 'cfd-big-oops 'error)"
                         "  #.(typep (fdefinition 'cfd-area) 'generic-function)"
                         "  #.(typep (fdefinition 'cfd-total) 'generic-function)"
                         "  #.(macroexpand-1 'cfd-answer)"
                         "  #.(not (null (compiler-macro-function 'cfd-twice-fn)))"
                         "  '#.(car (fourth (multiple-value-list (get-setf-expansion '(cfd-get x)))))"
                         "  '#.(car (fourth (multiple-value-list (get-setf-expansion '(cfd-first x)))))"
                         "  #.(not (null (macro-function 'cfd-append-to)))))"))))
      (list (second r) (third r)
            (progn (load (first r)) (symbol-value '*cfd-seen*)))))
  (nil nil
   ((2 3) 42 t nil t 4 t t t 42 t cfd-set rplaca t)))

(deftest definers-nothing-else-at-compile-time
  ;; a DEFUN's body does not run and defines nothing; DEFVAR's and DEFPARAMETER's values are not
  ;; evaluated, though their names are special for the rest of the file; a DEFMETHOD adds no
  ;; method: all of that happens when the file is loaded
  (progn
    (setq *cfd-log* nil)
    (let* ((r (cfd-compile
               (cfd-write "inert.lisp"
                          "(in-package :cl-user)"
                          "(defun cfd-run-me () (push :defun-body *cfd-log*) :ran)"
                          "(defvar *cfd-var* (progn (push :defvar-value *cfd-log*) 1))"
                          "(defparameter *cfd-param* (progn (push :defparameter-value *cfd-log*) 2))"
                          "(defun cfd-var-binder () (let ((*cfd-var* 10)) (cfd-var-reader)))"
                          "(defun cfd-var-reader () *cfd-var*)"
                          "(defmethod cfd-only-method ((x integer)) (push :method-body *cfd-log*) (* x 3))"
                          "(defmacro cfd-log-at-expansion () (push :macro-expanded *cfd-log*) nil)"
                          "(defun cfd-uses-macro () (cfd-log-at-expansion) (cfd-run-me))")))
           (at-compile (list (reverse *cfd-log*) (fboundp 'cfd-run-me) (boundp '*cfd-var*)
                             (boundp '*cfd-param*) (fboundp 'cfd-only-method))))
      (setq *cfd-log* nil)
      (load (first r))
      (list at-compile (second r) (third r)
            (reverse *cfd-log*)
            (list (funcall 'cfd-uses-macro) (funcall 'cfd-var-binder) (symbol-value '*cfd-param*)
                  (funcall 'cfd-only-method 2)))))
  (((:macro-expanded) nil nil nil nil)
   nil nil
   (:defvar-value :defparameter-value)
   (:ran 10 2 6)))

(deftest definers-defmethod-names-a-function-of-the-file
  ;; a generic function made only by DEFMETHOD is no undefined function for the file's callers
  (let ((r (cfd-compile
            (cfd-write "methods.lisp"
                       "(in-package :cl-user)"
                       "(defun cfd-call-gm () (cfd-gm 4))"
                       "(defmethod cfd-gm ((x integer)) (1+ x))"))))
    (list (second r) (third r) (progn (load (first r)) (funcall 'cfd-call-gm))))
  (nil nil 5))

(deftest definers-inside-eval-when-compile
  ;; inside (EVAL-WHEN (:COMPILE-TOPLEVEL ...)) a DEFUN is defined at compile time (compile-time-too
  ;; mode), and a plain one is not
  (let ((r (cfd-compile
            (cfd-write "ct.lisp"
                       "(in-package :cl-user)"
                       "(eval-when (:compile-toplevel :load-toplevel :execute) (defun cfd-ct-helper (x) (* x 10)))"
                       "(defun cfd-lt-only () 1)"
                       "(defmacro cfd-ct-use () (cfd-ct-helper 7))"
                       "(defun cfd-ct-result () (cfd-ct-use))"))))
    (list (second r) (fboundp 'cfd-lt-only)
          (progn (load (first r)) (funcall 'cfd-ct-result))))
  (nil nil 70))

(deftest definers-cleanup
  (progn
    (dolist (f (directory (concatenate 'string *cfd-dir* "*.*"))) (delete-file f))
    t)
  t)
