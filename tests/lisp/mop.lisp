;;;; mop.lisp: tests of the metaobject protocol package on its own (TINYCL-MOP, read here
;;;; through its nickname SB-MOP so that the file also runs in SBCL with framework.lisp, where
;;;; the expected values come from): the class, slot-definition, generic-function, method and
;;;; specializer readers on real metaobjects, and the protocol's functions.

(defclass mop-a () ((x :initarg :x :accessor mop-a-x :initform 1 :type integer :documentation "x")))
(defclass mop-b (mop-a) ((y :initarg :y :reader mop-b-y :allocation :class)) (:default-initargs :x 5))
(defgeneric mop-f (p q) (:argument-precedence-order q p))
(defmethod mop-f ((p mop-a) q) (list :a q))
(defmethod mop-f ((p mop-b) (q integer)) (list :b-int (call-next-method)))
(defmethod mop-f :before ((p mop-b) (q (eql 3))) nil)
(sb-mop:finalize-inheritance (find-class 'mop-b))

(deftest mop-package-names
  (list (eq (find-symbol "CLASS-SLOTS" "SB-MOP") 'sb-mop:class-slots)
        (nth-value 1 (find-symbol "VALIDATE-SUPERCLASS" "SB-MOP"))
        (nth-value 1 (find-symbol "ENSURE-GENERIC-FUNCTION" "SB-MOP"))
        (eq 'sb-mop:ensure-generic-function 'cl:ensure-generic-function))
  (t :external :external t))

(deftest mop-class-readers
  (let ((b (find-class 'mop-b)) (a (find-class 'mop-a)))
    (list (let ((cpl (mapcar #'class-name (sb-mop:class-precedence-list b))))
            ;; SBCL has SB-PCL::SLOT-OBJECT between STANDARD-OBJECT and T
            (list (subseq cpl 0 3) (car (last cpl))))
          (mapcar #'class-name (sb-mop:class-direct-superclasses b))
          (and (member b (sb-mop:class-direct-subclasses a)) t)
          (mapcar #'sb-mop:slot-definition-name (sb-mop:class-direct-slots b))
          (mapcar #'sb-mop:slot-definition-name (sb-mop:class-slots b))
          (sb-mop:class-finalized-p b)
          (mapcar #'car (sb-mop:class-default-initargs b))
          (mapcar #'car (sb-mop:class-direct-default-initargs b))
          (typep (sb-mop:class-prototype b) 'mop-b)))
  (((mop-b mop-a standard-object) t) (mop-a) t (y) (x y) t (:x) (:x) t))

(deftest mop-slot-definition-readers
  (let ((x (find 'x (sb-mop:class-slots (find-class 'mop-b)) :key #'sb-mop:slot-definition-name))
        (dx (first (sb-mop:class-direct-slots (find-class 'mop-a))))
        (y (find 'y (sb-mop:class-slots (find-class 'mop-b)) :key #'sb-mop:slot-definition-name)))
    (list (sb-mop:slot-definition-initargs x) (sb-mop:slot-definition-initform x)
          (funcall (sb-mop:slot-definition-initfunction x)) (sb-mop:slot-definition-type x)
          (sb-mop:slot-definition-allocation x) (sb-mop:slot-definition-allocation y)
          (sb-mop:slot-definition-readers dx) (sb-mop:slot-definition-writers dx)
          (integerp (sb-mop:slot-definition-location x))
          (typep x 'sb-mop:standard-effective-slot-definition)
          (typep dx 'sb-mop:standard-direct-slot-definition)))
  ((:x) 1 1 integer :instance :class (mop-a-x) ((setf mop-a-x)) t t t))

(deftest mop-generic-function-readers
  (let ((gf #'mop-f))
    (list (sb-mop:generic-function-name gf) (sb-mop:generic-function-lambda-list gf)
          (length (sb-mop:generic-function-methods gf))
          (sb-mop:generic-function-argument-precedence-order gf)
          (class-name (sb-mop:generic-function-method-class gf))
          (typep (sb-mop:generic-function-method-combination gf) 'method-combination)
          (sb-mop:generic-function-declarations gf)))
  (mop-f (p q) 3 (q p) standard-method t nil))

(deftest mop-method-readers
  (let ((m (find-method #'mop-f nil (list (find-class 'mop-b) (find-class 'integer)))))
    (list (eq (sb-mop:method-generic-function m) #'mop-f)
          (mapcar #'class-name (sb-mop:method-specializers m))
          (sb-mop:method-lambda-list m)
          (functionp (sb-mop:method-function m))
          (and (member m (sb-mop:specializer-direct-methods (find-class 'mop-b))) t)
          (and (member #'mop-f (sb-mop:specializer-direct-generic-functions (find-class 'mop-b))) t)))
  (t (mop-b integer) (p q) t t t))

(deftest mop-eql-specializer
  (let* ((s (sb-mop:intern-eql-specializer 3))
         (m (find-method #'mop-f '(:before) (list (find-class 'mop-b) s))))
    (list (eq s (sb-mop:intern-eql-specializer 3)) (sb-mop:eql-specializer-object s)
          (typep s 'sb-mop:eql-specializer) (typep s 'sb-mop:specializer)
          (eq (second (sb-mop:method-specializers m)) s)
          (and (member m (sb-mop:specializer-direct-methods s)) t)))
  (t 3 t t t t))

(deftest mop-accessor-methods
  (let ((r (find-method #'mop-a-x nil (list (find-class 'mop-a))))
        (w (find-method #'(setf mop-a-x) nil (list (find-class 't) (find-class 'mop-a)))))
    (list (typep r 'sb-mop:standard-reader-method) (typep w 'sb-mop:standard-writer-method)
          (typep r 'sb-mop:standard-accessor-method)
          (sb-mop:slot-definition-name (sb-mop:accessor-method-slot-definition r))
          (sb-mop:slot-definition-name (sb-mop:accessor-method-slot-definition w))))
  (t t t x x))

(deftest mop-compute-applicable-methods-using-classes
  (list (multiple-value-bind (ms ok)
            (sb-mop:compute-applicable-methods-using-classes
             #'mop-f (list (find-class 'mop-b) (find-class 'string)))
          (list (mapcar #'(lambda (m) (mapcar #'class-name (sb-mop:method-specializers m))) ms) ok))
        ;; an EQL specializer on a fixnum: the classes cannot decide
        (nth-value 1 (sb-mop:compute-applicable-methods-using-classes
                      #'mop-f (list (find-class 'mop-b) (find-class 'fixnum)))))
  ((((mop-a t)) t) nil))

(deftest mop-slot-value-using-class
  (let* ((class (find-class 'mop-b))
         (o (make-instance 'mop-b))
         (x (find 'x (sb-mop:class-slots class) :key #'sb-mop:slot-definition-name)))
    (list (sb-mop:slot-value-using-class class o x)
          (setf (sb-mop:slot-value-using-class class o x) 7)
          (mop-a-x o)
          (sb-mop:slot-boundp-using-class class o x)
          (progn (sb-mop:slot-makunbound-using-class class o x)
                 (sb-mop:slot-boundp-using-class class o x))
          (progn (setf (mop-a-x o) 9)
                 (sb-mop:standard-instance-access o (sb-mop:slot-definition-location x)))))
  (5 7 7 t nil 9))

(defclass mop-fn () ((n :initarg :n)) (:metaclass sb-mop:funcallable-standard-class))

(deftest mop-funcallable-instance
  (let ((f (make-instance 'mop-fn :n 10)))
    (sb-mop:set-funcallable-instance-function f #'(lambda (x) (+ x (slot-value f 'n))))
    (list (funcall f 5) (functionp f) (typep f 'sb-mop:funcallable-standard-object)
          (class-name (class-of (class-of f)))))
  (15 t t sb-mop:funcallable-standard-class))

(deftest mop-ensure-class
  (let ((c (sb-mop:ensure-class 'mop-c :direct-superclasses (list (find-class 'mop-a))
                                       :direct-slots '((:name z :initargs (:z) :readers (mop-c-z))))))
    (list (class-name c) (eq c (find-class 'mop-c))
          (funcall 'mop-c-z (make-instance 'mop-c :z 4))
          (mapcar #'sb-mop:slot-definition-name (sb-mop:class-slots (find-class 'mop-c)))))
  (mop-c t 4 (x z)))

(deftest mop-ensure-generic-function
  (let ((gf (sb-mop:ensure-generic-function 'mop-g :lambda-list '(a &optional b))))
    (list (sb-mop:generic-function-name gf) (sb-mop:generic-function-lambda-list gf)
          (eq gf (fdefinition 'mop-g)) (sb-mop:generic-function-methods gf)))
  (mop-g (a &optional b) t nil))

(deftest mop-validate-superclass
  (list (sb-mop:validate-superclass (find-class 'mop-b) (find-class 'mop-a))
        (sb-mop:validate-superclass (find-class 'mop-fn) (find-class 'standard-object))
        (sb-mop:validate-superclass (find-class 'mop-b) (find-class 't))
        (sb-mop:validate-superclass (find-class 'mop-b) (find-class 'integer)))
  (t t t nil))

(deftest mop-compute-effective-method
  (let* ((gf #'mop-f)
         (methods (compute-applicable-methods gf (list (make-instance 'mop-b) 3)))
         (form (sb-mop:compute-effective-method gf (sb-mop:generic-function-method-combination gf)
                                                methods)))
    (list (length methods) (and (consp form) t)))
  (3 t))

(deftest mop-lambda-list-helpers
  (list (sb-mop:extract-lambda-list '((p mop-b) (q (eql 3)) &optional r &key s))
        (sb-mop:extract-specializer-names '((p mop-b) q (r (eql 3)) &rest more)))
  ((p q &optional r &key s) (mop-b t (eql 3))))

(deftest mop-class-errors
  (list (signals-error (sb-mop:class-slots 42) error)
        (signals-error (sb-mop:generic-function-methods 42) error))
  (t t))

(deftest mop-bad-arguments
  ;; wrong arguments get a clear error and change nothing
  (list (signals-error (sb-mop:ensure-class nil) error)
        (signals-error (sb-mop:ensure-class 'mop-bad :direct-superclasses '(42)) error)
        (signals-error (sb-mop:ensure-class 'mop-bad :direct-slots '((:name))) error)
        (signals-error (sb-mop:add-direct-subclass (find-class 'mop-a) 42) error)
        (signals-error (sb-mop:compute-applicable-methods-using-classes #'mop-f '(1 2)) error)
        (find-class 'mop-bad nil)
        (every #'(lambda (c) (typep c 'class)) (sb-mop:class-direct-subclasses (find-class 'mop-a))))
  (t t t t t nil t))

;;; a metaclass of the program's: accepted once VALIDATE-SUPERCLASS agrees, with its own slots
;;; filled from its initforms and from class options
(defclass mop-meta (standard-class) ((note :initarg :note :initform :none :accessor mop-meta-note)))

;; before any VALIDATE-SUPERCLASS method: STANDARD-OBJECT is refused as a superclass (tried
;; while the file loads, since the tests run after the method below is defined)
(defparameter *mop-m0-refused* (signals-error (eval '(defclass mop-m0 () () (:metaclass mop-meta))) error))
(deftest mop-metaclass-needs-validate-superclass
  (list *mop-m0-refused* (find-class 'mop-m0 nil))
  (t nil))

(defmethod sb-mop:validate-superclass ((c mop-meta) (s standard-class)) t)
(defclass mop-m1 () ((x :initarg :x :accessor mop-m1-x)) (:metaclass mop-meta))
(defclass mop-m2 (mop-m1) ((y :initform 2 :reader mop-m2-y)) (:metaclass mop-meta) (:note 1 2))

(deftest mop-metaclass-instances
  (list (class-name (class-of (find-class 'mop-m1))) (mop-meta-note (find-class 'mop-m1))
        (mop-meta-note (find-class 'mop-m2)) (mop-m1-x (make-instance 'mop-m1 :x 4))
        (mop-m2-y (make-instance 'mop-m2)) (typep (find-class 'mop-m2) 'standard-class)
        (mapcar #'sb-mop:slot-definition-name (sb-mop:class-slots (find-class 'mop-m2)))
        (signals-error (eval '(defclass mop-m3 () () (:metaclass mop-meta) (:bogus 1))) error)
        (signals-error (eval '(defclass mop-m4 () () (:bogus 1))) error))
  (mop-meta :none (1 2) 4 2 t (x y) t t))

(deftest mop-metaclass-ensure-class-initargs
  (mop-meta-note (sb-mop:ensure-class 'mop-m5 :metaclass 'mop-meta :note :given))
  :given)

;;; dependents (AMOP 5.5): told of a generic function's ADD-METHOD and REMOVE-METHOD, of a class's
;;; redefinition and of REINITIALIZE-INSTANCE, with the initargs of the change
(defclass mop-watcher () ((log :initform nil :accessor mop-watcher-log)))
(defmethod sb-mop:update-dependent (mo (d mop-watcher) &rest initargs)
  (push (list (if (typep mo 'class) (class-name mo) (sb-mop:generic-function-name mo))
              (first initargs)
              (if (typep (second initargs) 'method) :method (second initargs)))
        (mop-watcher-log d)))
(defgeneric mop-dep-gf (x))
(defclass mop-dep-c () ())

(deftest mop-dependents-notified
  (let ((w (make-instance 'mop-watcher)) (other (make-instance 'mop-watcher)))
    (sb-mop:add-dependent #'mop-dep-gf w)
    (sb-mop:add-dependent (find-class 'mop-dep-c) w)
    (eval '(defmethod mop-dep-gf ((x integer)) x))
    (remove-method #'mop-dep-gf (find-method #'mop-dep-gf nil (list (find-class 'integer))))
    (eval '(defclass mop-dep-c () ((a :initarg :a))))
    (reinitialize-instance (find-class 'mop-dep-c))
    (sb-mop:remove-dependent #'mop-dep-gf w)
    (eval '(defmethod mop-dep-gf ((x string)) x))
    (let ((seen nil))
      (sb-mop:map-dependents (find-class 'mop-dep-c) (lambda (d) (push (eq d w) seen)))
      (list (reverse (mop-watcher-log w)) (mop-watcher-log other) seen)))
  (((mop-dep-gf add-method :method) (mop-dep-gf remove-method :method)
    (mop-dep-c :direct-superclasses (#.(find-class 'standard-object)))
    (mop-dep-c nil nil))
   nil (t)))
