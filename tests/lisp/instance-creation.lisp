;;;; instance-creation.lisp: tests that would catch a wrong answer from the fast paths of instance
;;;; creation (MAKE-INSTANCE's standard path, runtime/clos.c, chosen by SYS::%STANDARD-PATH-P) and
;;;; of structure slot type checks (TYPEP's cache of DEFTYPE expansions, runtime/types.c). Each
;;;; creation is repeated (THRICE) so that the later ones run from the plan the first one cached;
;;;; methods, classes and types are changed after a plan was cached. Expected values from SBCL.

(defmacro thrice (form)
  `(list ,form ,form ,form))

;;; ------------------------------------------------------------------
;;; Initargs, initforms, default initargs

(defclass ic-point ()
  ((x :initarg :x :initarg :x-coord :initform 0 :reader ic-x)
   (y :initarg :y :initform (list 'fresh) :reader ic-y)
   (z :reader ic-z)))

(deftest ic-initargs
  (thrice (let ((p (make-instance 'ic-point :x 1 :y 2)))
            (list (ic-x p) (ic-y p) (slot-boundp p 'z))))
  ((1 2 nil) (1 2 nil) (1 2 nil)))

(deftest ic-initforms
  (thrice (let ((p (make-instance 'ic-point)))
            (list (ic-x p) (ic-y p))))
  ((0 (fresh)) (0 (fresh)) (0 (fresh))))

(deftest ic-initform-fresh-each-time
  (let ((a (make-instance 'ic-point)) (b (make-instance 'ic-point)) (c (make-instance 'ic-point)))
    (list (eq (ic-y a) (ic-y b)) (eq (ic-y b) (ic-y c))))
  (nil nil))

(deftest ic-second-initarg-name
  (thrice (ic-x (make-instance 'ic-point :x-coord 7)))
  (7 7 7))

(deftest ic-first-occurrence-wins
  (thrice (ic-x (make-instance 'ic-point :x 1 :x 2 :x-coord 3)))
  (1 1 1))

(deftest ic-class-object-and-name
  (list (ic-x (make-instance (find-class 'ic-point) :x 4))
        (ic-x (make-instance (find-class 'ic-point) :x 5))
        (ic-x (make-instance 'ic-point :x 6)))
  (4 5 6))

(defvar *ic-counter* 0)

(defclass ic-defaults ()
  ((a :initarg :a :reader ic-a)
   (b :initarg :b :initform :b-initform :reader ic-b))
  (:default-initargs :a (incf *ic-counter*) :b :b-default))

(deftest ic-default-initargs-each-time
  (progn (setq *ic-counter* 0)
         (thrice (let ((o (make-instance 'ic-defaults))) (list (ic-a o) (ic-b o)))))
  ((1 :b-default) (2 :b-default) (3 :b-default)))

(deftest ic-default-initarg-not-evaluated-when-supplied
  (progn (setq *ic-counter* 0)
         (list (thrice (ic-a (make-instance 'ic-defaults :a :given))) *ic-counter*))
  ((:given :given :given) 0))

(defclass ic-defaults-sub (ic-defaults) ()
  (:default-initargs :b :sub-default))

(deftest ic-default-initargs-inherited-and-overridden
  (progn (setq *ic-counter* 10)
         (thrice (let ((o (make-instance 'ic-defaults-sub))) (list (ic-a o) (ic-b o)))))
  ((11 :sub-default) (12 :sub-default) (13 :sub-default)))

;;; initforms are closures over the lexical environment of DEFCLASS
(let ((made 0))
  (defclass ic-counted ()
    ((n :initform (incf made) :reader ic-n)))
  (defun ic-counted-made () made))

(deftest ic-initform-lexical-environment
  (let ((before (ic-counted-made)))
    (list (mapcar (lambda (o) (- (ic-n o) before))
                  (thrice (make-instance 'ic-counted)))
          (- (ic-counted-made) before)))
  ((1 2 3) 3))

;;; ------------------------------------------------------------------
;;; :ALLOCATION :CLASS

(defclass ic-shared ()
  ((count :initarg :count :initform 0 :allocation :class :accessor ic-count)
   (own :initarg :own :initform :own :reader ic-own)))

(deftest ic-class-slot
  (let* ((a (make-instance 'ic-shared))
         (b (make-instance 'ic-shared :count 5))
         (c (make-instance 'ic-shared)))
    (list (ic-count a) (ic-count b) (ic-count c) (ic-own c)))
  (5 5 5 :own))

(deftest ic-class-slot-initform-not-reapplied
  (progn (make-instance 'ic-shared :count 9)
         (setf (ic-count (make-instance 'ic-shared)) 42)
         (thrice (ic-count (make-instance 'ic-shared))))
  (42 42 42))

;;; ------------------------------------------------------------------
;;; Invalid initargs, :ALLOW-OTHER-KEYS, odd initargs

(deftest ic-invalid-initarg
  (thrice (signals-error (make-instance 'ic-point :no-such-initarg 1) program-error))
  (t t t))

(deftest ic-invalid-initarg-by-class-object
  (thrice (signals-error (make-instance (find-class 'ic-point) :x 1 :bogus 2) program-error))
  (t t t))

(deftest ic-allow-other-keys
  (thrice (ic-x (make-instance 'ic-point :bogus 1 :allow-other-keys t :x 3)))
  (3 3 3))

(deftest ic-allow-other-keys-nil
  (thrice (signals-error (make-instance 'ic-point :bogus 1 :allow-other-keys nil) program-error))
  (t t t))

(deftest ic-first-allow-other-keys-counts
  (thrice (ic-x (make-instance 'ic-point :allow-other-keys t :allow-other-keys nil :bogus 1)))
  (0 0 0))

(deftest ic-odd-initargs
  (thrice (signals-error (make-instance 'ic-point :x) program-error))
  (t t t))

(deftest ic-initarg-not-a-symbol
  (thrice (signals-error (make-instance 'ic-point 1 2) program-error))
  (t t t))

;;; ------------------------------------------------------------------
;;; Methods added after the plan was cached

(defclass ic-late () ((a :initarg :a :initform 1 :accessor ic-late-a)))

(defvar *ic-log* nil)

(deftest ic-after-method-added-later
  (progn
    (thrice (make-instance 'ic-late))     ; the plan is cached
    (defmethod initialize-instance :after ((o ic-late) &key)
      (push :after *ic-log*)
      (setf (ic-late-a o) (* 10 (ic-late-a o))))
    (setq *ic-log* nil)
    (list (thrice (ic-late-a (make-instance 'ic-late :a 2))) *ic-log*))
  ((20 20 20) (:after :after :after)))

(deftest ic-around-method-added-later
  (progn
    (defmethod initialize-instance :around ((o ic-late) &key)
      (push :around *ic-log*)
      (call-next-method))
    (setq *ic-log* nil)
    (list (thrice (ic-late-a (make-instance 'ic-late))) (reverse *ic-log*)))
  ((10 10 10) (:around :after :around :after :around :after)))

(deftest ic-methods-removed-again
  (progn
    (remove-method #'initialize-instance
                   (find-method #'initialize-instance '(:around) (list (find-class 'ic-late))))
    (remove-method #'initialize-instance
                   (find-method #'initialize-instance '(:after) (list (find-class 'ic-late))))
    (setq *ic-log* nil)
    (list (thrice (ic-late-a (make-instance 'ic-late :a 3))) *ic-log*))
  ((3 3 3) nil))

(defclass ic-keyed () ((a :initform nil :accessor ic-keyed-a)))

(deftest ic-initialize-instance-key-becomes-valid
  (list (signals-error (make-instance 'ic-keyed :extra 1) program-error)
        (progn
          (defmethod initialize-instance :after ((o ic-keyed) &key extra)
            (setf (ic-keyed-a o) extra))
          (thrice (ic-keyed-a (make-instance 'ic-keyed :extra 5)))))
  (t (5 5 5)))

(deftest ic-initialize-instance-key-invalid-again
  (progn
    (remove-method #'initialize-instance
                   (find-method #'initialize-instance '(:after) (list (find-class 'ic-keyed))))
    (thrice (signals-error (make-instance 'ic-keyed :extra 1) program-error)))
  (t t t))

(defclass ic-shared-init () ((a :initarg :a :initform 0 :accessor ic-si-a)))

(deftest ic-shared-initialize-method-added-later
  (progn
    (thrice (make-instance 'ic-shared-init))
    (defmethod shared-initialize :after ((o ic-shared-init) slot-names &key)
      (push slot-names *ic-log*)
      (setf (ic-si-a o) (1+ (ic-si-a o))))
    (setq *ic-log* nil)
    (list (thrice (ic-si-a (make-instance 'ic-shared-init :a 1))) *ic-log*))
  ((2 2 2) (t t t)))

(defclass ic-alloc () ((a :initform :a :reader ic-alloc-a)))

(deftest ic-allocate-instance-method-added-later
  (progn
    (thrice (make-instance 'ic-alloc))
    (defmethod allocate-instance :before ((c (eql (find-class 'ic-alloc))) &rest initargs)
      (declare (ignore initargs))
      (push :allocate *ic-log*))
    (setq *ic-log* nil)
    (list (thrice (ic-alloc-a (make-instance 'ic-alloc))) *ic-log*))
  ((:a :a :a) (:allocate :allocate :allocate)))

(defclass ic-made () ((a :initarg :a :initform 0 :reader ic-made-a)))

(deftest ic-make-instance-method-added-later
  (progn
    (thrice (make-instance 'ic-made))
    (defmethod make-instance :around ((c (eql (find-class 'ic-made))) &rest initargs)
      (declare (ignore initargs))
      (push :make *ic-log*)
      (call-next-method c :a 99))
    (setq *ic-log* nil)
    (list (thrice (ic-made-a (make-instance 'ic-made)))
          (ic-made-a (make-instance (find-class 'ic-made) :a 1))
          *ic-log*))
  ((99 99 99) 99 (:make :make :make :make)))

;;; a program's INITIALIZE-INSTANCE methods from the start: allocated in C, then initialized by
;;; the generic function (the :CALL path)
(defclass ic-called ()
  ((a :initarg :a :reader ic-called-a)
   (b :initarg :b :initform :b0 :reader ic-called-b)
   (seen :initform nil :accessor ic-called-seen))
  (:default-initargs :a (incf *ic-counter*)))

(defmethod initialize-instance :after ((o ic-called) &key a b extra)
  (setf (ic-called-seen o) (list a b extra)))

(deftest ic-call-path
  (progn (setq *ic-counter* 0)
         (thrice (let ((o (make-instance 'ic-called :extra 1)))
                   (list (ic-called-a o) (ic-called-b o) (ic-called-seen o)))))
  ((1 :b0 (1 nil 1)) (2 :b0 (2 nil 1)) (3 :b0 (3 nil 1))))

(deftest ic-call-path-invalid-initarg
  (thrice (signals-error (make-instance 'ic-called :bogus 1) program-error))
  (t t t))

(defclass ic-skipped () ((a :initarg :a :initform :a0)))
(defmethod initialize-instance :around ((o ic-skipped) &key) o)

(deftest ic-call-path-around-without-next-method
  (thrice (slot-boundp (make-instance 'ic-skipped :a 1) 'a))
  (nil nil nil))

;;; ------------------------------------------------------------------
;;; Classes redefined after instances and plans were made

(defclass ic-redef () ((a :initarg :a :initform 1)))

(deftest ic-redefined-class-slots
  (let* ((old (progn (thrice (make-instance 'ic-redef)) (make-instance 'ic-redef :a 5))))
    (defclass ic-redef () ((b :initarg :b :initform 2) (c :initform 3)))
    (let ((new (make-instance 'ic-redef :b 20)))
      (list (slot-exists-p old 'a) (slot-value old 'b) (slot-value old 'c)
            (slot-value new 'b) (slot-value new 'c)
            (signals-error (make-instance 'ic-redef :a 1) program-error)
            (thrice (slot-value (make-instance 'ic-redef) 'b)))))
  (nil 2 3 20 3 t (2 2 2)))

(defclass ic-base () ((a :initarg :a :initform :base)))
(defclass ic-derived (ic-base) ())

(deftest ic-superclass-redefined
  (progn
    (thrice (make-instance 'ic-derived))
    (defclass ic-base () ((a :initarg :a :initform :new-base) (b :initarg :b :initform :b)))
    (thrice (let ((o (make-instance 'ic-derived :b 1)))
              (list (slot-value o 'a) (slot-value o 'b)))))
  ((:new-base 1) (:new-base 1) (:new-base 1)))

(defclass ic-alias-1 () ((v :initform 1 :reader ic-v)))
(defclass ic-alias-2 () ((v :initform 2 :reader ic-v)))

(deftest ic-find-class-changed
  (progn
    (thrice (make-instance 'ic-alias-1))
    (setf (find-class 'ic-alias-1) (find-class 'ic-alias-2))
    (thrice (ic-v (make-instance 'ic-alias-1))))
  (2 2 2))

;;; a program's metaclass: its classes do not take the standard path, and still work
(defclass ic-meta (standard-class) ())
(defmethod sb-mop:validate-superclass ((c ic-meta) (s standard-class)) t)
(defclass ic-with-meta () ((a :initarg :a :initform :m :reader ic-meta-a)) (:metaclass ic-meta))

(deftest ic-program-metaclass
  (list (thrice (ic-meta-a (make-instance 'ic-with-meta)))
        (ic-meta-a (make-instance 'ic-with-meta :a 1))
        (signals-error (make-instance 'ic-with-meta :b 1) program-error))
  ((:m :m :m) 1 t))

;;; ------------------------------------------------------------------
;;; REINITIALIZE-INSTANCE and CHANGE-CLASS (the standard SHARED-INITIALIZE)

(deftest ic-reinitialize-instance
  (let ((p (make-instance 'ic-point :x 1)))
    (reinitialize-instance p :y 9)
    (list (ic-x p) (ic-y p) (signals-error (reinitialize-instance p :bogus 1) program-error)))
  (1 9 t))

(defclass ic-from () ((a :initarg :a :initform :a0) (shared :initform :s0)))
(defclass ic-to () ((a :initform :a-to) (b :initarg :b :initform :b0) (c :initform (list :c0))))

(deftest ic-change-class
  (let ((o (make-instance 'ic-from :a 1)))
    (change-class o 'ic-to :b 2)
    (list (slot-value o 'a) (slot-value o 'b) (slot-value o 'c) (slot-exists-p o 'shared)
          (signals-error (change-class (make-instance 'ic-from) 'ic-to :bogus 1) program-error)))
  (1 2 (:c0) nil t))

;;; ------------------------------------------------------------------
;;; Structure slot types: DEFTYPE expansions kept by TYPEP

(deftype ic-small () '(integer 0 9))
(deftype ic-indirect () 'ic-small)
(defstruct ic-box (n 0 :type ic-indirect) (tag nil :type (or null symbol structure-object)))

(deftest ic-struct-typed-slots
  (list (thrice (ic-box-n (make-ic-box :n 5)))
        (signals-error (make-ic-box :n 50) type-error)
        (signals-error (make-ic-box :tag "no") type-error)
        (ic-box-n (ic-box-tag (make-ic-box :tag (make-ic-box :n 1)))))
  ((5 5 5) t t 1))

;; the type is looked up at run time (a constant one may be resolved when SBCL compiles the test)
(defvar *ic-type* 'ic-indirect)

(deftest ic-deftype-redefined
  (progn
    (thrice (typep 50 *ic-type*))
    (deftype ic-small () '(integer 0 99))
    (list (typep 50 *ic-type*) (typep 500 *ic-type*)))
  (t nil))

(deftest ic-deftype-redefined-head
  (progn
    (deftype ic-indirect () 'string)
    (list (thrice (typep "s" *ic-type*)) (typep 5 *ic-type*)))
  ((t t t) nil))

(defstruct ic-plain a)
(defclass ic-typed-class () ())
(defclass ic-typed-sub (ic-typed-class) ())

(deftest ic-typep-class-names
  (let ((o (make-instance 'ic-typed-sub)))
    (list (typep o 'ic-typed-class) (typep o 'standard-object) (typep o 'structure-object)
          (typep (make-ic-plain) 'structure-object) (typep o (find-class 'ic-typed-class))
          (progn (setf (find-class 'ic-typed-alias) (find-class 'ic-typed-sub))
                 (typep (make-instance 'ic-typed-class) 'ic-typed-alias))))
  (t t nil t t nil))
