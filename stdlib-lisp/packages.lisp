;;;; packages.lisp: DEFPACKAGE and the package macros (CLHS chapter 11), the package condition
;;;; types. The package operations themselves are C primitives (runtime/package.c); this file only
;;;; uses boot macros and primitives, so it does not depend on the list and string libraries.

(in-package "SYSTEM")

;;; ------------------------------------------------------------------
;;; Conditions. C signals them with a ready-made message (:format-control) plus their slots.

(define-condition simple-package-error (simple-condition package-error) ())
(setf (gethash 'package-error *simple-variants*) 'simple-package-error)

(define-condition package-does-not-exist (simple-package-error) ())

(define-condition name-conflict (simple-condition package-error)
  ((function :initarg :function :reader tinycl::name-conflict-function)
   (datum :initarg :datum :reader tinycl::name-conflict-datum)
   (symbols :initarg :symbols :reader tinycl::name-conflict-symbols)))

(define-condition package-lock-violation (simple-condition package-error) ())
(define-condition package-locked-error (package-lock-violation) ())
(define-condition symbol-package-locked-error (package-lock-violation)
  ((symbol :initarg :symbol :reader tinycl::package-locked-error-symbol)))

(define-condition package-at-variance (simple-warning) ())

(import 'package-lock-violation "TINYCL")
(export '(package-lock-violation tinycl::package-locked-error-symbol
          tinycl::name-conflict-function tinycl::name-conflict-datum tinycl::name-conflict-symbols
          tinycl::without-package-locks)
        "TINYCL")

(defmacro tinycl::without-package-locks (&body body)
  `(let ((*ignore-package-locks* t)) ,@body))

;;; ------------------------------------------------------------------
;;; DEFPACKAGE

(defun %pk-member-string (s list)
  (dolist (x list nil) (if (equal x s) (return t))))

(defun %pk-intersection (a b)
  (let ((r nil))
    (dolist (x a) (if (and (%pk-member-string x b) (not (%pk-member-string x r))) (setq r (cons x r))))
    (nreverse-boot r)))

(defun %pk-names (list)
  (let ((r nil))
    (dolist (x list) (setq r (cons (%string-designator x) r)))
    (nreverse-boot r)))

(defun %pk-program-error (control &rest args)
  (error 'simple-program-error :format-control control :format-arguments args))

(defun %pk-check-disjoint (&rest groups)
  ;; each group is (option-keyword . names); signal for the first overlapping pair
  (let ((g groups))
    (tagbody
     top
       (if (null g) (go end))
       (dolist (other (cdr g))
         (let ((common (%pk-intersection (cdar g) (cdr other))))
           (if common
               (%pk-program-error "Parameters ~S and ~S must be disjoint but have common elements ~%   ~S"
                                  (caar g) (car other) common))))
       (setq g (cdr g))
       (go top)
     end)))

(defun %expand-defpackage (name options)
  (let ((pname (%string-designator name))
        (nicknames nil) (doc nil) (doc-seen nil) (size-seen nil) (use nil)
        (shadows nil) (shadowing-imports nil) (imports nil) (interns nil) (exports nil)
        (local-nicknames nil) (lock nil))
    (dolist (option options)
      (if (not (and (consp option) (listp (cdr option))))
          (%pk-program-error "bogus DEFPACKAGE option: ~S" option))
      (let ((key (car option)) (args (cdr option)))
        (cond ((eq key :nicknames) (setq nicknames (append nicknames (%pk-names args))))
              ((eq key :documentation)
               (if doc-seen (%pk-program-error "can't specify ~S more than once." :documentation))
               (if (not (and (consp args) (stringp (car args)) (null (cdr args))))
                   (%pk-program-error "bogus DEFPACKAGE option: ~S" option))
               (setq doc-seen t doc (car args)))
              ((eq key :size)
               (if size-seen (%pk-program-error "can't specify ~S more than once." :size))
               (if (not (and (consp args) (integerp (car args)) (null (cdr args))))
                   (%pk-program-error "bogus DEFPACKAGE option: ~S" option))
               (setq size-seen t))
              ((eq key :use) (setq use (append use (%pk-names args))))
              ((eq key :shadow) (setq shadows (append shadows (%pk-names args))))
              ((eq key :shadowing-import-from)
               (if (null args) (%pk-program-error "bogus DEFPACKAGE option: ~S" option))
               (setq shadowing-imports
                     (append shadowing-imports
                             (list (cons (%string-designator (car args)) (%pk-names (cdr args)))))))
              ((eq key :import-from)
               (if (null args) (%pk-program-error "bogus DEFPACKAGE option: ~S" option))
               (setq imports (append imports
                                     (list (cons (%string-designator (car args)) (%pk-names (cdr args)))))))
              ((eq key :intern) (setq interns (append interns (%pk-names args))))
              ((eq key :export) (setq exports (append exports (%pk-names args))))
              ((eq key :local-nicknames)
               (dolist (spec args)
                 (if (not (and (consp spec) (consp (cdr spec)) (null (cddr spec))))
                     (%pk-program-error "bogus DEFPACKAGE :LOCAL-NICKNAMES entry: ~S" spec))
                 (setq local-nicknames
                       (append local-nicknames
                               (list (cons (%string-designator (car spec)) (%string-designator (cadr spec))))))))
              ((eq key :lock) (setq lock (car args)))
              (t (%pk-program-error "bogus DEFPACKAGE option: ~S" option)))))
    (let ((all-imports nil) (all-shadowing-imports nil))
      (dolist (i imports) (setq all-imports (append all-imports (cdr i))))
      (dolist (i shadowing-imports) (setq all-shadowing-imports (append all-shadowing-imports (cdr i))))
      (%pk-check-disjoint (cons :intern interns) (cons :export exports))
      (%pk-check-disjoint (cons :intern interns) (cons :import-from all-imports)
                          (cons :shadow shadows) (cons :shadowing-import-from all-shadowing-imports)))
    (let ((form `(%defpackage ,pname ',nicknames ,doc ',use ',shadows ',shadowing-imports
                              ',imports ',interns ',exports ',local-nicknames)))
      `(eval-when (:compile-toplevel :load-toplevel :execute)
         ,(if lock
              (let ((p (gensym "PACKAGE")))
                `(let ((,p ,form)) (tinycl:lock-package ,p) ,p))
              form)))))

(defmacro defpackage (name &rest options)
  "Defines (or updates) the package NAME with OPTIONS such as (:use ...), (:export ...), (:import-from ...), (:shadow ...), (:nicknames ...) and (:local-nicknames ...); returns the package."
  (%expand-defpackage name options))

(defmacro in-package (name)
  "Makes the package named NAME the current package, *PACKAGE*, also at compile time."
  `(eval-when (:compile-toplevel :load-toplevel :execute)
     (setq *package* (%find-package-or-lose ,(%string-designator name)))))

;;; ------------------------------------------------------------------
;;; Iteration

(defun %do-symbols-expand (var list-form key result body)
  (multiple-value-bind (decls forms) (%split-declarations body)
    (let ((l (gensym "SYMBOLS")) (top (gensym "TOP")) (end (gensym "END")))
      `(block nil
         (let ((,l ,list-form))
           (tagbody
            ,top
              (if (null ,l) (go ,end))
              (let ((,var ,(if key `(car (car ,l)) `(car ,l))))
                ,@decls
                (tagbody ,@forms))
              (setq ,l (cdr ,l))
              (go ,top)
            ,end))
         (let ((,var nil))
           (declare (ignorable ,var))
           ,@decls   ; the body's declarations cover the result form too (as SBCL)
           ,result)))))

(defmacro do-symbols ((var &optional (package '*package*) result) &body body)
  "Evaluates BODY with VAR bound to each symbol accessible in PACKAGE (present or inherited), then returns RESULT."
  (%do-symbols-expand var `(%package-symbols ,package t t t) t result body))

(defmacro do-external-symbols ((var &optional (package '*package*) result) &body body)
  "Evaluates BODY with VAR bound to each external symbol of PACKAGE, then returns RESULT."
  (%do-symbols-expand var `(%package-symbols ,package nil t nil) t result body))

(defmacro do-all-symbols ((var &optional result) &body body)
  "Evaluates BODY with VAR bound to each symbol of every registered package, then returns RESULT."
  (%do-symbols-expand var '(%all-present-symbols) nil result body))

(defun %package-iterator-entries (packages internal external inherited)
  (let ((r nil))
    (dolist (p (if (and (listp packages) packages) packages (list packages)))
      (setq r (append r (%package-symbols p internal external inherited))))
    r))

(defmacro with-package-iterator ((name package-list-form &rest symbol-types) &body body)
  "Evaluates BODY with NAME defined as a local macro that returns the next symbol of PACKAGE-LIST-FORM of the kinds SYMBOL-TYPES (:internal, :external, :inherited) on each call: true, the symbol, its status and its package, or NIL when done."
  (if (null symbol-types)
      (%pk-program-error "At least one of :INTERNAL, :EXTERNAL, or :INHERITED must be supplied."))
  (dolist (type symbol-types)
    (if (not (%memq type '(:internal :external :inherited)))
        (%pk-program-error "~S is not one of :INTERNAL, :EXTERNAL, or :INHERITED." type)))
  (let ((entries (gensym "ENTRIES")) (e (gensym "ENTRY")) (fn (gensym "NEXT")))
    `(let ((,entries (%package-iterator-entries ,package-list-form
                                                ,(if (%memq :internal symbol-types) t nil)
                                                ,(if (%memq :external symbol-types) t nil)
                                                ,(if (%memq :inherited symbol-types) t nil))))
       (flet ((,fn ()
                (if ,entries
                    (let ((,e (car ,entries)))
                      (setq ,entries (cdr ,entries))
                      (values t (car ,e) (cadr ,e) (cddr ,e)))
                    nil)))
         ;; NAME is a local macro (CLHS WITH-PACKAGE-ITERATOR)
         (macrolet ((,name () '(,fn)))
           ,@body)))))

;;; ------------------------------------------------------------------
;;; Correctable errors signalled from C (err_continuable): the error with a CONTINUE restart

(defun %signal-cerror (continue-control type initargs)
  (with-simple-restart (continue "~?" continue-control nil)
    (%signal-error type initargs))
  nil)
