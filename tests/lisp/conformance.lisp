;;;; conformance.lisp: single-cause fixes found through the ANSI test suite (issue 16), each
;;;; checked here with our own forms; expected values from SBCL and the HyperSpec.

;;; INCF/DECF evaluate the delta before reading the place (CLHS 5.1.3)
(deftest incf-delta-before-read
  (let ((x 10)) (incf x (setf x 1)) x)
  2)

(deftest decf-delta-before-read
  (let ((v (vector 5 6))) (decf (aref v 1) (progn (setf (aref v 1) 100) 1)) (aref v 1))
  99)

(deftest incf-place-subforms-once
  (let ((i 0) (v (vector 0 0))) (incf (aref v (incf i)) 5) (list i v))
  (1 #(0 5)))

;;; an escaped empty name after a package marker
(deftest read-empty-symbol-after-marker
  (let ((s (read-from-string "cl-user::||")))
    (list (symbol-name s) (eq (symbol-package s) (find-package "CL-USER"))))
  ("" t))

(deftest read-terminating-colon-still-an-error
  (signals-error (read-from-string "cl-user::") reader-error)
  t)

;;; COERCE needs one element type to make a vector of
(deftest coerce-to-ambiguous-vector-type
  (signals-error (coerce '(1 2) '(or (vector character) (vector t))) type-error)
  t)

(deftest coerce-to-vector-t-still-works
  (coerce '(1 2) '(and (vector t) (satisfies vectorp)))
  #(1 2))

;;; DOLIST: a SPECIAL declaration of the body covers the result form too
(deftest dolist-special-covers-result
  (let ((y :outer))
    (declare (special y))
    (let ((y :lexical))
      (declare (ignorable y))
      (dolist (e '(1 2) y) (declare (special y)) e)))
  :outer)

;;; DEFSTRUCT :TYPE checks
(deftest defstruct-unnamed-typed-predicate
  (signals-error (eval '(defstruct (conf-s1 (:type list) (:predicate conf-s1-p)) a)) simple-error)
  t)

(deftest defstruct-named-type-cannot-hold-name
  (signals-error (eval '(defstruct (conf-s2 (:type (vector fixnum)) :named) a)) simple-error)
  t)

(deftest defstruct-named-vector-t-works
  (progn (eval '(defstruct (conf-s3 (:type (vector t)) :named) a))
         (funcall 'make-conf-s3 :a 1))
  #(conf-s3 1))

;;; DELETE-PACKAGE of a missing package is a correctable error
(deftest delete-package-missing-continue
  (handler-bind ((package-error #'(lambda (c) (invoke-restart (find-restart 'continue c)))))
    (delete-package "CONF-NO-SUCH-PACKAGE"))
  nil)

;;; LOAD :VERBOSE of a stream prints a comment line
(deftest load-stream-verbose-comment
  (let ((out (with-output-to-string (*standard-output*)
               (with-input-from-string (s "(+ 1 2)") (load s :verbose t)))))
    (and (plusp (length out)) (char= (char out 0) #\;)))
  t)

;;; Declaration names and type names exclude each other (CLHS TYPE, DECLARATION)
(deftest unknown-declaration-warns
  (block done
    (handler-bind ((warning #'(lambda (c) (declare (ignore c)) (return-from done :warned))))
      (eval '(let () (declare (conf-no-such-declaration 1)) nil))))
  :warned)

(deftest proclaimed-declaration-does-not-warn
  (progn (proclaim '(declaration conf-my-decl))
         (block done
           (handler-bind ((warning #'(lambda (c) (declare (ignore c)) (return-from done :warned))))
             (eval '(let ((x 1)) (declare (conf-my-decl x) (fixnum x)) x)))))
  1)

(deftest declaration-name-cannot-become-type
  (progn (proclaim '(declaration conf-decl-2))
         (list (signals-error (eval '(deftype conf-decl-2 () 'integer)) error)
               (signals-error (eval '(defstruct conf-decl-2 a)) error)
               (signals-error (eval '(defclass conf-decl-2 () ())) error)
               (signals-error (eval '(define-condition conf-decl-2 (error) ())) error)))
  (t t t t))

(deftest type-name-cannot-become-declaration
  (progn (eval '(deftype conf-type-1 () 'integer))
         (eval '(defstruct conf-type-2 a))
         (list (signals-error (proclaim '(declaration conf-type-1)) error)
               (signals-error (proclaim '(declaration conf-type-2)) error)
               (signals-error (proclaim '(declaration integer)) error)))
  (t t t))

;;; a class cannot be its own direct superclass
(deftest defclass-own-superclass
  (signals-error (eval '(defclass conf-c1 (conf-c1) ())) error)
  t)

;;; SUBTYPEP: signed zeros. A range bound of zero holds both zeros, (member 0.0) only +0.0.
(deftest subtypep-float-range-zero-not-member
  (list (multiple-value-list (subtypep '(single-float 0.0) '(or (single-float (0.0)) (member 0.0))))
        (multiple-value-list (subtypep '(double-float 0d0) '(or (double-float (0d0)) (member -0d0))))
        (multiple-value-list (subtypep '(single-float 0.0) '(or (single-float (0.0)) (member 0.0 -0.0))))
        (multiple-value-list (subtypep '(single-float -0.0 *) '(single-float 0.0 *)))
        (multiple-value-list (subtypep '(single-float 0.0 0.0) '(member 0.0))))
  ((nil t) (nil t) (t t) (t t) (nil t)))

;;; SUBTYPEP: unknown rather than a wrong "certainly not" for classes and function types
(defclass conf-ta () ())
(defclass conf-tb () ())
(defclass conf-tab (conf-ta conf-tb) ())
(defstruct conf-sa x)
(defstruct (conf-sb (:include conf-sa)))
(defstruct (conf-sc (:include conf-sa)))

(deftest subtypep-standard-classes-unknown
  (list (multiple-value-list (subtypep '(and conf-ta conf-tb) 'conf-tab))
        (multiple-value-list (subtypep 'conf-ta '(not conf-tb)))
        (multiple-value-list (subtypep 'function '(not conf-ta)))
        (multiple-value-list (subtypep 'conf-tab 'conf-ta))
        (multiple-value-list (subtypep 'conf-ta 'conf-tb)))
  ((nil nil) (nil nil) (nil nil) (t t) (nil t)))

(deftest subtypep-disjoint-class-families
  (list (multiple-value-list (subtypep 'conf-sb '(not conf-sc)))
        (multiple-value-list (subtypep 'function '(not conf-sa)))
        (multiple-value-list (subtypep 'conf-ta '(not conf-sa)))
        (multiple-value-list (subtypep 'function '(not stream)))
        (multiple-value-list (subtypep 'stream '(not condition))))
  ((t t) (t t) (t t) (t t) (t t)))

(deftest subtypep-function-types-unknown
  (list (multiple-value-list (subtypep '(function (t) integer) '(function (t) real)))
        (multiple-value-list (subtypep '(function (t) integer) 'function)))
  ((nil nil) (t t)))

(deftest coerce-to-vector-class
  (coerce '(1 0) (find-class 'vector))
  #(1 0))

;;; CLOS: the standard generic functions are generic functions
(deftest standard-functions-are-generic
  (mapcar #'(lambda (f) (typep (symbol-function f) 'standard-generic-function))
          '(add-method remove-method find-method compute-applicable-methods method-qualifiers
            function-keywords))
  (t t t t t t))

(defgeneric conf-gf-qual (x))
(defmethod conf-gf-qual :before ((x integer)) nil)
(defmethod conf-gf-qual ((x integer)) x)

(deftest standard-generic-functions-still-work
  (list (mapcar #'method-qualifiers (compute-applicable-methods #'conf-gf-qual '(1)))
        (method-qualifiers (find-method #'conf-gf-qual '(:before) '(integer)))
        (find-method #'conf-gf-qual '(:after) '(integer) nil)
        (signals-error (find-method #'conf-gf-qual '(:after) '(integer)) error))
  ((nil (:before)) (:before) nil t))

;;; CALL-NEXT-METHOD with arguments that change the applicable methods is an error
(defgeneric conf-cnm (x))
(defmethod conf-cnm ((x (eql 0))) (call-next-method 1))
(defmethod conf-cnm ((x integer)) (if (> x 10) (call-next-method (- x 1)) (list :int x)))
(defmethod conf-cnm ((x t)) (list :t x))

(deftest call-next-method-args-must-keep-methods
  (list (signals-error (conf-cnm 0) error)
        (conf-cnm 20)
        (conf-cnm 5))
  (t (:t 19) (:int 5)))

;;; SHARED-INITIALIZE checks its initargs
(defclass conf-si () ((a :initarg :a)))

(deftest shared-initialize-initarg-checks
  (list (signals-error (shared-initialize (allocate-instance (find-class 'conf-si)) nil :a) program-error)
        (signals-error (shared-initialize (allocate-instance (find-class 'conf-si)) nil '(a b) nil) program-error)
        (slot-value (shared-initialize (allocate-instance (find-class 'conf-si)) nil :a 3) 'a))
  (t t 3))

;;; CHANGE-CLASS: a slot shared by the old class keeps its value as a local slot of the new one
(defclass conf-shared () ((a :allocation :class) (b :allocation :class)))
(defclass conf-local () ((a) (b)))

(deftest change-class-keeps-shared-slot-values
  (let ((o (make-instance 'conf-shared)))
    (setf (slot-value o 'a) 'foo)
    (slot-makunbound o 'b)
    (change-class o 'conf-local)
    (list (slot-value o 'a) (slot-boundp o 'b) (slot-value (make-instance 'conf-shared) 'a)))
  (foo nil foo))

;;; SUBTYPEP: EQL and MEMBER types of two different (if EQUAL) objects are different types
(deftest subtypep-eql-distinct-objects
  (let ((s1 (copy-seq "abc")) (s2 (copy-seq "abc")) (l1 (list 1)))
    (list (multiple-value-list (subtypep `(eql ,s1) `(eql ,s2)))
          (multiple-value-list (subtypep `(member ,(list 1)) `(member ,(list 1))))
          (multiple-value-list (subtypep `(eql ,s1) `(eql ,s1)))
          (multiple-value-list (subtypep `(member ,l1) `(member ,l1)))))
  ((nil t) (nil t) (t t) (t t)))
