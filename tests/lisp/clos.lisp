;;;; clos.lisp: tests of CLOS (CLHS chapter 7): classes, instances, generic functions, method
;;;; combination, redefinition, PRINT-OBJECT, DESCRIBE, conditions and structures as classes.
;;;; Expected values from SBCL.

;;; ------------------------------------------------------------------
;;; Classes and instances

(defclass point ()
  ((x :initarg :x :accessor point-x)
   (y :initarg :y :initform 0 :reader point-y :writer set-point-y)))

(defclass point3 (point)
  ((z :initarg :z :initform 0 :accessor point-z)
   (y :initform 100)))

(deftest defclass-returns-class
  (let ((c (defclass tmp-class-1 () ())))
    (list (eq c (find-class 'tmp-class-1)) (class-name c)))
  (t tmp-class-1))

(deftest find-class-missing
  (list (find-class 'no-such-class-at-all nil)
        (signals-error (find-class 'no-such-class-at-all) error))
  (nil t))

(deftest find-class-missing-is-cell-error
  (handler-case (find-class 'no-such-class-at-all)
    (cell-error (e) (cell-error-name e)))
  no-such-class-at-all)

(deftest make-instance-initargs
  (let ((p (make-instance 'point :x 1 :y 2)))
    (list (point-x p) (point-y p)))
  (1 2))

(deftest make-instance-initform
  (point-y (make-instance 'point :x 1))
  0)

(deftest make-instance-class-object
  (point-x (make-instance (find-class 'point) :x 7))
  7)

(deftest inherited-slots-and-initform-override
  (let ((p (make-instance 'point3 :x 1)))
    (list (point-x p) (point-y p) (point-z p)))
  (1 100 0))

(deftest accessor-setf
  (let ((p (make-instance 'point :x 1)))
    (setf (point-x p) 5)
    (incf (point-x p) 2)
    (point-x p))
  7)

(deftest writer-option
  (let ((p (make-instance 'point :x 1)))
    (list (set-point-y 9 p) (point-y p)))
  (9 9))

(deftest slot-value-and-setf
  (let ((p (make-instance 'point :x 1)))
    (setf (slot-value p 'y) 3)
    (list (slot-value p 'x) (slot-value p 'y)))
  (1 3))

(deftest slot-boundp-makunbound
  (let ((p (make-instance 'point)))
    (list (slot-boundp p 'x) (slot-boundp p 'y)
          (progn (slot-makunbound p 'y) (slot-boundp p 'y))))
  (nil t nil))

(deftest slot-makunbound-returns-instance
  (let ((p (make-instance 'point :x 1)))
    (eq (slot-makunbound p 'x) p))
  t)

(deftest slot-exists-p
  (let ((p (make-instance 'point3)))
    (list (slot-exists-p p 'x) (slot-exists-p p 'z) (slot-exists-p p 'w) (slot-exists-p 3 'x)))
  (t t nil nil))

(deftest unbound-slot-error
  (handler-case (point-x (make-instance 'point))
    (unbound-slot (e) (list (cell-error-name e) (class-name (class-of (unbound-slot-instance e))))))
  (x point))

(deftest unbound-slot-via-slot-value
  (signals-error (slot-value (make-instance 'point) 'x) unbound-slot)
  t)

(deftest missing-slot-error
  (list (signals-error (slot-value (make-instance 'point) 'nope) error)
        (signals-error (setf (slot-value (make-instance 'point) 'nope) 1) error)
        (signals-error (slot-boundp (make-instance 'point) 'nope) error)
        (signals-error (slot-value 3 'x) error))
  (t t t t))

(defclass lenient () ((a :initarg :a)))
(defmethod slot-unbound (class (instance lenient) slot-name)
  (list :unbound slot-name))
(defmethod slot-missing (class (instance lenient) slot-name operation &optional new-value)
  (list :missing slot-name operation new-value))

(deftest slot-unbound-method
  (slot-value (make-instance 'lenient) 'a)
  (:unbound a))

(deftest slot-missing-method
  (list (slot-value (make-instance 'lenient) 'b)
        (setf (slot-value (make-instance 'lenient) 'b) 5))
  ((:missing b slot-value nil) 5))

(deftest invalid-initarg
  (list (signals-error (make-instance 'point :nope 1) error)
        (signals-error (make-instance 'point :nope 1) program-error))
  (t t))

(deftest allow-other-keys-initarg
  (point-x (make-instance 'point :x 4 :nope 1 :allow-other-keys t))
  4)

(deftest odd-initargs
  (signals-error (make-instance 'point :x) program-error)
  t)

(deftest make-instance-unknown-class
  (signals-error (make-instance 'no-such-class-at-all) error)
  t)

(defclass counter ()
  ((count :allocation :class :initform 0 :accessor counter-count)
   (id :initarg :id :reader counter-id)))
(defclass sub-counter (counter) ())

(deftest class-allocated-slot-is-shared
  (let ((a (make-instance 'counter :id 1)) (b (make-instance 'sub-counter :id 2)))
    (setf (counter-count a) 10)
    (incf (counter-count b))
    (list (counter-count a) (counter-count b) (counter-count (make-instance 'counter))))
  (11 11 11))

(defclass defaults ()
  ((a :initarg :a :reader defaults-a)
   (b :initarg :b :reader defaults-b :initform :slot-initform))
  (:default-initargs :a (list 1 2) :b :default-initarg))

(deftest default-initargs
  (let ((d (make-instance 'defaults)))
    (list (defaults-a d) (defaults-b d) (defaults-a (make-instance 'defaults :a 3))))
  ((1 2) :default-initarg 3))

(deftest default-initargs-fresh-each-time
  (eq (defaults-a (make-instance 'defaults)) (defaults-a (make-instance 'defaults)))
  nil)

(defclass two-initargs () ((s :initarg :s :initarg :other-s :reader two-s)))

(deftest several-initargs-for-a-slot
  (list (two-s (make-instance 'two-initargs :other-s 2))
        (two-s (make-instance 'two-initargs :other-s 2 :s 1))
        (two-s (make-instance 'two-initargs :s 1 :s 2)))
  (2 2 1))

(deftest type-of-and-class-of-instance
  (let ((p (make-instance 'point3)))
    (list (type-of p) (class-name (class-of p)) (eq (class-of p) (find-class 'point3))))
  (point3 point3 t))

(deftest typep-on-classes
  (let ((p (make-instance 'point3)))
    (list (typep p 'point) (typep p 'point3) (typep p 'standard-object) (typep p t)
          (typep (make-instance 'point) 'point3) (typep 3 'point)
          (typep p (find-class 'point)) (typep 3 (find-class 'integer))))
  (t t t t nil nil t t))

(deftest subtypep-on-classes
  (list (multiple-value-list (subtypep 'point3 'point))
        (multiple-value-list (subtypep 'point 'point3))
        (multiple-value-list (subtypep 'point 'standard-object))
        (multiple-value-list (subtypep (find-class 'point3) (find-class 'point))))
  ((t t) (nil t) (t t) (t t)))

(deftest class-of-built-ins
  (list (class-name (class-of 1)) (class-name (class-of (expt 2 100))) (class-name (class-of 1/2))
        (class-name (class-of 1.5)) (class-name (class-of 1.5d0)) (class-name (class-of #\a))
        (class-name (class-of 'a)) (class-name (class-of nil)) (class-name (class-of '(1)))
        (class-name (class-of (make-hash-table))) (class-name (class-of #c(1 2)))
        (class-name (class-of (vector 1 2))))
  (fixnum bignum ratio single-float double-float character symbol null cons hash-table complex simple-vector))

(deftest class-of-classes
  (list (class-name (class-of (find-class 'point)))
        (class-name (class-of (find-class 'integer)))
        (class-name (class-of (find-class 'standard-object)))
        (class-name (class-of (make-instance 'standard-class-test-dummy-holder))))
  (standard-class built-in-class standard-class standard-class-test-dummy-holder))
(defclass standard-class-test-dummy-holder () ())

(deftest built-in-class-names
  (let ((r nil))
    (dolist (n '(t number real rational integer fixnum bignum ratio float single-float double-float
                 complex character symbol null list cons sequence array vector string bit-vector
                 simple-vector hash-table function package stream pathname readtable random-state
                 standard-object structure-object standard-class built-in-class structure-class
                 generic-function standard-generic-function method standard-method class)
             (nreverse r))
      (push (class-name (find-class n)) r)))
  (t number real rational integer fixnum bignum ratio float single-float double-float
   complex character symbol null list cons sequence array vector string bit-vector
   simple-vector hash-table function package stream pathname readtable random-state
   standard-object structure-object standard-class built-in-class structure-class
   generic-function standard-generic-function method standard-method class))

(deftest setf-find-class
  (progn
    (defclass aliased-class () ())
    (setf (find-class 'alias-name) (find-class 'aliased-class))
    (list (class-name (find-class 'alias-name))
          (progn (setf (find-class 'alias-name) nil) (find-class 'alias-name nil))))
  (aliased-class nil))

(deftest setf-class-name
  (let ((c (defclass renamed-class () ())))
    (setf (class-name c) 'new-class-name)
    (prog1 (class-name c) (setf (class-name c) 'renamed-class)))
  new-class-name)

;;; Class precedence lists, seen through CALL-NEXT-METHOD

(defclass cpl-a () ())
(defclass cpl-b () ())
(defclass cpl-c (cpl-a cpl-b) ())
(defclass cpl-d (cpl-b) ())
(defclass cpl-e (cpl-c cpl-d) ())
(defgeneric cpl-walk (x))
(defmethod cpl-walk ((x t)) (list t))
(defmethod cpl-walk ((x standard-object)) (cons 'standard-object (call-next-method)))
(defmethod cpl-walk ((x cpl-a)) (cons 'cpl-a (call-next-method)))
(defmethod cpl-walk ((x cpl-b)) (cons 'cpl-b (call-next-method)))
(defmethod cpl-walk ((x cpl-c)) (cons 'cpl-c (call-next-method)))
(defmethod cpl-walk ((x cpl-d)) (cons 'cpl-d (call-next-method)))
(defmethod cpl-walk ((x cpl-e)) (cons 'cpl-e (call-next-method)))

(deftest class-precedence-multiple-inheritance
  (list (cpl-walk (make-instance 'cpl-c)) (cpl-walk (make-instance 'cpl-e)))
  ((cpl-c cpl-a cpl-b standard-object t)
   (cpl-e cpl-c cpl-a cpl-d cpl-b standard-object t)))

(defclass pie-apple () ())
(defclass pie-cinnamon () ())
(defclass pie-fruit (pie-apple) ())
(defclass pie-spice (pie-cinnamon) ())
(defclass pie (pie-fruit pie-spice) ())
(defmethod cpl-walk ((x pie-apple)) (cons 'apple (call-next-method)))
(defmethod cpl-walk ((x pie-cinnamon)) (cons 'cinnamon (call-next-method)))
(defmethod cpl-walk ((x pie-fruit)) (cons 'fruit (call-next-method)))
(defmethod cpl-walk ((x pie-spice)) (cons 'spice (call-next-method)))
(defmethod cpl-walk ((x pie)) (cons 'pie (call-next-method)))

(deftest class-precedence-clhs-pie
  (cpl-walk (make-instance 'pie))
  (pie fruit apple spice cinnamon standard-object t))

(deftest inconsistent-precedence
  (signals-error (progn (defclass incon-a () ()) (defclass incon-b (incon-a) ())
                        (defclass incon-c (incon-a incon-b) ()))
                 error)
  t)

;;; ------------------------------------------------------------------
;;; Initialization protocol

(defclass logged ()
  ((log :initform nil :accessor logged-log)
   (size :initarg :size :accessor logged-size)))

(defmethod initialize-instance :after ((o logged) &key (extra 0))
  (push (list :init extra) (logged-log o)))

(defmethod shared-initialize :before ((o logged) slot-names &rest initargs)
  (declare (ignore initargs))
  (setf (slot-value o 'log) (list (list :shared slot-names))))

(deftest initialize-instance-after-and-key
  (logged-log (make-instance 'logged :extra 5))
  ((:init 5) (:shared t)))

(deftest initialize-method-keyword-is-valid-initarg
  (list (signals-error (make-instance 'logged :extra 1) error)
        (signals-error (make-instance 'logged :extra2 1) error))
  (:no-error t))

(deftest reinitialize-instance
  (let ((o (make-instance 'logged :size 1)))
    (reinitialize-instance o :size 2)
    (list (logged-size o) (logged-log o)))
  (2 ((:shared nil))))

(deftest reinitialize-instance-bad-initarg
  (signals-error (reinitialize-instance (make-instance 'point) :nope 1) error)
  t)

(deftest reinitialize-keeps-other-slots
  (let ((p (make-instance 'point :x 1 :y 2)))
    (reinitialize-instance p :x 10)
    (list (point-x p) (point-y p)))
  (10 2))

(deftest shared-initialize-slot-names
  (let ((p (make-instance 'point3 :x 1)))
    (slot-makunbound p 'z)
    (slot-makunbound p 'y)
    (shared-initialize p '(z))
    (list (slot-boundp p 'y) (point-z p)))
  (nil 0))

(deftest allocate-instance-unbound
  (let ((p (allocate-instance (find-class 'point))))
    (list (slot-boundp p 'x) (slot-boundp p 'y)))
  (nil nil))

(defclass made-by-method () ((v :initarg :v :reader made-v)))
(defmethod make-instance ((class (eql (find-class 'made-by-method))) &rest initargs)
  (declare (ignore initargs))
  (let ((o (call-next-method class :v 42))) o))

(deftest make-instance-method-on-class
  (made-v (make-instance 'made-by-method :v 1))
  42)

;;; ------------------------------------------------------------------
;;; WITH-SLOTS, WITH-ACCESSORS

(deftest with-slots-read-and-write
  (let ((p (make-instance 'point :x 1 :y 2)))
    (with-slots (x (why y)) p
      (setf x (+ x why))
      (incf why 10))
    (list (point-x p) (point-y p)))
  (3 12))

(deftest with-accessors-read-and-write
  (let ((p (make-instance 'point3 :x 1 :z 5)))
    (with-accessors ((px point-x) (pz point-z)) p
      (setf px (* px 10))
      (list px pz)))
  (10 5))

;;; ------------------------------------------------------------------
;;; Generic functions and methods

(defgeneric describe-thing (x)
  (:documentation "Says what a thing is.")
  (:method ((x integer)) (list :integer x))
  (:method ((x string)) (list :string x)))

(defmethod describe-thing ((x (eql 42))) (list :the-answer (call-next-method)))
(defmethod describe-thing ((x symbol)) :symbol)
(defmethod describe-thing ((x null)) (list :null (call-next-method)))
(defmethod describe-thing ((x list)) :list)
(defmethod describe-thing ((x t)) :other)

(deftest defgeneric-method-options-and-dispatch
  (list (describe-thing 1) (describe-thing "s") (describe-thing 42) (describe-thing 'a)
        (describe-thing nil) (describe-thing '(1)) (describe-thing 1.5) (describe-thing #\a))
  ((:integer 1) (:string "s") (:the-answer (:integer 42)) :symbol (:null :symbol) :list :other :other))

(deftest defgeneric-returns-generic-function
  (let ((g (defgeneric returned-gf (x))))
    (list (typep g 'generic-function) (typep g 'standard-generic-function) (functionp g)
          (eq g (fdefinition 'returned-gf))))
  (t t t t))

(deftest defmethod-returns-method
  (let ((m (defmethod returned-method-gf ((x integer)) x)))
    (list (typep m 'method) (typep m 'standard-method) (method-qualifiers m)))
  (t t nil))

(defgeneric combine (x))
(defvar *combine-log* nil)
(defmethod combine ((x number)) (push :number-primary *combine-log*) :number)
(defmethod combine ((x integer)) (push :integer-primary *combine-log*) (list :integer (call-next-method)))
(defmethod combine :before ((x number)) (push :number-before *combine-log*))
(defmethod combine :before ((x integer)) (push :integer-before *combine-log*))
(defmethod combine :after ((x number)) (push :number-after *combine-log*))
(defmethod combine :after ((x integer)) (push :integer-after *combine-log*))
(defmethod combine :around ((x number)) (push :number-around *combine-log*) (list :around-number (call-next-method)))
(defmethod combine :around ((x integer)) (push :integer-around *combine-log*) (list :around-integer (call-next-method)))

(deftest standard-method-combination-order
  (let ((*combine-log* nil))
    (list (combine 1) (reverse *combine-log*)))
  ((:around-integer (:around-number (:integer :number)))
   (:integer-around :number-around :integer-before :number-before :integer-primary :number-primary
    :number-after :integer-after)))

(deftest before-after-values-ignored
  (let ((*combine-log* nil))
    (combine 1.5))
  (:around-number :number))

(defgeneric mv-gf (x))
(defmethod mv-gf ((x t)) (values 1 2 3))
(defmethod mv-gf :after ((x t)) (values :ignored))

(deftest multiple-values-through-after-methods
  (multiple-value-list (mv-gf 0))
  (1 2 3))

(defgeneric cnm-args (x &optional y))
(defmethod cnm-args ((x t) &optional y) (list :t x y))
(defmethod cnm-args ((x integer) &optional y)
  (list :integer (call-next-method) (call-next-method (* x 10) :changed) (next-method-p) y))

(deftest call-next-method-with-and-without-arguments
  (cnm-args 1 :y)
  (:integer (:t 1 :y) (:t 10 :changed) t :y))

(deftest call-next-method-original-arguments-after-setq
  (progn
    (defmethod cnm-setq ((x t)) x)
    (defmethod cnm-setq ((x integer)) (setq x 99) (call-next-method))
    (cnm-setq 1))
  1)

(deftest next-method-p-without-next
  (progn (defmethod nmp-test ((x t)) (next-method-p))
         (nmp-test 1))
  nil)

(deftest call-next-method-in-closure
  (progn
    (defmethod cnm-closure ((x t)) (list :t x))
    (defmethod cnm-closure ((x integer)) (let ((f (lambda () (call-next-method)))) f))
    (funcall (cnm-closure 5)))
  (:t 5))

(deftest no-applicable-method-error
  (list (signals-error (describe-thing-only-int "x") error)
        (handler-case (describe-thing-only-int "x") (error () :caught)))
  (t :caught))
(defgeneric describe-thing-only-int (x) (:method ((x integer)) x))

(defgeneric nam-custom (x) (:method ((x integer)) x))
(defmethod no-applicable-method ((gf (eql #'nam-custom)) &rest args)
  (list :no-method args))

(deftest no-applicable-method-method
  (nam-custom "s")
  (:no-method ("s")))

(deftest no-next-method-error
  (progn (defmethod nnm-test ((x integer)) (call-next-method))
         (signals-error (nnm-test 1) error))
  t)

(deftest no-primary-method-error
  (progn (defgeneric only-before (x))
         (defmethod only-before :before ((x t)) nil)
         (signals-error (only-before 1) error))
  t)

(deftest too-few-arguments-to-generic-function
  (signals-error (funcall #'describe-thing) program-error)
  t)

(defgeneric two-args (a b))
(defmethod two-args ((a integer) (b integer)) :int-int)
(defmethod two-args ((a integer) (b t)) :int-t)
(defmethod two-args ((a t) (b integer)) :t-int)
(defmethod two-args ((a t) (b t)) :t-t)
(defmethod two-args ((a (eql 0)) (b t)) :zero-t)

(deftest multiple-dispatch
  (list (two-args 1 2) (two-args 1 "x") (two-args "x" 2) (two-args "x" "y") (two-args 0 2))
  (:int-int :int-t :t-int :t-t :zero-t))

(defgeneric apo-test (a b) (:argument-precedence-order b a))
(defmethod apo-test ((a integer) (b t)) :a-specific)
(defmethod apo-test ((a t) (b integer)) :b-specific)

(deftest argument-precedence-order
  (apo-test 1 2)
  :b-specific)

(deftest method-redefinition-replaces
  (progn
    (defmethod redef-gf ((x integer)) :first)
    (defmethod redef-gf ((x integer)) :second)
    (list (redef-gf 1) (length (compute-applicable-methods #'redef-gf (list 1)))))
  (:second 1))

(deftest find-method-and-remove-method
  (progn
    (defgeneric fm-gf (x))
    (defmethod fm-gf ((x integer)) :int)
    (defmethod fm-gf ((x t)) :t)
    (let ((m (find-method #'fm-gf nil (list (find-class 'integer)))))
      (list (fm-gf 1)
            (eq m (find-method #'fm-gf '() '(integer)))
            (find-method #'fm-gf '(:before) (list (find-class 'integer)) nil)
            (progn (remove-method #'fm-gf m) (fm-gf 1))
            (progn (add-method #'fm-gf m) (fm-gf 1)))))
  (:int t nil :t :int))

(deftest find-method-missing-errors
  (signals-error (find-method #'describe-thing nil (list (find-class 'float))) error)
  t)

(deftest find-method-eql-specializer
  (let ((m (find-method #'describe-thing nil '((eql 42)))))
    (method-qualifiers m))
  nil)

(deftest method-qualifiers-of-methods
  (let ((m (defmethod qualified-gf :around ((x t)) (call-next-method))))
    (defmethod qualified-gf ((x t)) :primary)
    (list (method-qualifiers m) (qualified-gf 1)))
  ((:around) :primary))

(deftest compute-applicable-methods-count
  (list (length (compute-applicable-methods #'two-args (list 1 2)))
        (length (compute-applicable-methods #'two-args (list 0 "s")))
        (length (compute-applicable-methods #'combine (list 1))))
  (4 3 8))

(deftest ensure-generic-function-creates
  (let ((g (ensure-generic-function 'egf-made :lambda-list '(a b))))
    (list (typep g 'generic-function) (not (null (fboundp 'egf-made)))))
  (t t))

(deftest defmethod-on-ordinary-function
  (progn (defun plain-function-not-generic (x) x)
         (list (signals-error (eval '(defmethod plain-function-not-generic ((x t)) x)) error)
               (plain-function-not-generic 5)))
  (t 5))

(deftest defgeneric-on-ordinary-function
  (progn (defun plain-function-kept (x) x)
         (list (signals-error (handler-bind ((warning #'muffle-warning))
                                (eval '(defgeneric plain-function-kept (x))))
                              error)
               (plain-function-kept 3)))
  (t 3))

(deftest congruence-required-count
  (progn (defgeneric cong-gf (a b))
         (list (signals-error (eval '(defmethod cong-gf ((a t)) a)) error)
               (signals-error (eval '(defmethod cong-gf ((a t) b c) a)) error)
               (signals-error (handler-bind ((warning #'muffle-warning))
                                (eval '(defmethod cong-gf ((a t) b &optional c) a)))
                              error)))
  (t t t))

(deftest defgeneric-incompatible-with-methods
  (progn (defgeneric incompatible-gf (x))
         (defmethod incompatible-gf ((x t)) x)
         (signals-error (handler-bind ((warning #'muffle-warning))
                          (eval '(defgeneric incompatible-gf (x y))))
                        error))
  t)

(defgeneric keyed (x &key))
(defmethod keyed ((x t) &key a) (list :t a))
(defmethod keyed ((x integer) &key b) (list :int b (call-next-method)))

(deftest keyword-arguments-union-of-methods
  (list (keyed 1 :a 1 :b 2) (keyed "s" :a 1))
  ((:int 2 (:t 1)) (:t 1)))

(deftest keyword-arguments-checked
  (list (signals-error (keyed "s" :b 2) program-error)
        (signals-error (keyed 1 :c 2) program-error)
        (signals-error (keyed 1 :a) program-error)
        (keyed "s" :b 2 :allow-other-keys t))
  (t t t (:t nil)))

(deftest function-keywords-of-method
  (multiple-value-list (function-keywords (find-method #'keyed nil (list (find-class 'integer)))))
  ((:b) nil))

(deftest setf-generic-function
  (progn
    (defgeneric (setf thing-prop) (new thing))
    (defmethod (setf thing-prop) (new (thing cons)) (setf (car thing) new))
    (let ((c (list 1 2)))
      (list (setf (thing-prop c) 10) c)))
  (10 (10 2)))

(deftest method-body-block-named-after-function
  (progn (defmethod block-gf ((x t)) (return-from block-gf :early) :late)
         (defmethod (setf block-gf) (v (x t)) (return-from block-gf (list :setf v)))
         (list (block-gf 1) (setf (block-gf 1) 2)))
  (:early (:setf 2)))

(deftest docstrings-and-declarations-in-methods
  (progn (defmethod doc-decl-gf ((x integer)) "A docstring." (declare (ignorable x)) (* x 2))
         (doc-decl-gf 4))
  8)

(deftest method-lambda-list-optional-rest-aux
  (progn (defmethod opt-rest-gf ((x t) &optional (y 2) &rest r &aux (z (+ y 1))) (list x y r z))
         (list (opt-rest-gf 1) (opt-rest-gf 1 5 6 7)))
  ((1 2 nil 3) (1 5 (6 7) 6)))

;;; Short-form method combinations

(defgeneric comb-plus (x) (:method-combination +))
(defmethod comb-plus + ((x integer)) 1)
(defmethod comb-plus + ((x number)) 10)
(defmethod comb-plus + ((x t)) 100)
(defgeneric comb-list (x) (:method-combination list :most-specific-last))
(defmethod comb-list list ((x integer)) :integer)
(defmethod comb-list list ((x number)) :number)
(defgeneric comb-and (x) (:method-combination and))
(defmethod comb-and and ((x integer)) (> x 0))
(defmethod comb-and and ((x number)) :number-ok)
(defgeneric comb-append (x) (:method-combination append))
(defmethod comb-append append ((x integer)) (list :i))
(defmethod comb-append append ((x t)) (list :t))
(defmethod comb-append :around ((x integer)) (cons :around (call-next-method)))

(deftest short-method-combinations
  (list (comb-plus 1) (comb-plus 1.5) (comb-plus "s") (comb-list 1) (comb-and 1) (comb-and -1)
        (comb-append 1) (comb-append "s"))
  (111 110 100 (:number :integer) :number-ok nil (:around :i :t) (:t)))

(deftest short-method-combination-needs-qualifier
  (progn (defmethod comb-plus ((x string)) 5)
         (signals-error (comb-plus "s") error))
  t)

;;; DEFINE-METHOD-COMBINATION, short form

(deftest define-method-combination-short-form
  (list (define-method-combination dmc-mul :operator * :identity-with-one-argument t
          :documentation "Product of the methods")
        (progn
          (defgeneric dmc-mul-gf (x) (:method-combination dmc-mul))
          (defmethod dmc-mul-gf dmc-mul ((x integer)) 2)
          (defmethod dmc-mul-gf dmc-mul ((x rational)) 3)
          (defmethod dmc-mul-gf dmc-mul ((x number)) 5)
          (defmethod dmc-mul-gf :around ((x (eql 7))) (list :around (call-next-method)))
          (list (dmc-mul-gf 1) (dmc-mul-gf 1/2) (dmc-mul-gf 1.0) (dmc-mul-gf 7)))
        (documentation 'dmc-mul 'method-combination)
        (signals-error (dmc-mul-gf 'x) error))
  (dmc-mul (30 15 5 (:around 30)) "Product of the methods" t))

;; the operator defaults to the name, and may be a macro
(defmacro dmc-both (&rest forms) `(list ,@forms))
(deftest define-method-combination-short-form-macro-operator
  (progn
    (define-method-combination dmc-both)
    (defgeneric dmc-both-gf (x) (:method-combination dmc-both :most-specific-last))
    (defmethod dmc-both-gf dmc-both ((x integer)) :integer)
    (defmethod dmc-both-gf dmc-both ((x t)) :t)
    (list (dmc-both-gf 1) (dmc-both-gf "s")
          (signals-error (progn (defmethod dmc-both-gf ((x string)) :none) (dmc-both-gf "s")) error)))
  ((:t :integer) (:t) t))

(deftest define-method-combination-unknown-is-an-error
  (signals-error (defgeneric dmc-unknown-gf (x) (:method-combination no-such-combination-at-all))
                 program-error)
  t)

;;; DEFINE-METHOD-COMBINATION, long form

(define-method-combination dmc-long (tag &optional (extra :none))
  ((befores (:before))
   (primaries () :required t)
   (others (:other *) :order :most-specific-last))
  (:arguments first-arg)
  (:generic-function gf)
  "Befores, the primaries as a chain, and the others"
  `(list ',tag ',extra (functionp ,gf) ,first-arg
         (list ,@(mapcar #'(lambda (m) `(call-method ,m)) befores))
         (call-method ,(first primaries) ,(rest primaries))
         (list ,@(mapcar #'(lambda (m) `(call-method ,m)) others))
         (call-method (make-method (list :made ,first-arg)))))

(defgeneric dmc-long-gf (x y) (:method-combination dmc-long :tag1))
(defmethod dmc-long-gf ((x integer) y) (list :integer (call-next-method)))
(defmethod dmc-long-gf ((x number) y) (list :number (next-method-p)))
(defmethod dmc-long-gf :before ((x integer) y) :before)
(defmethod dmc-long-gf :other 1 ((x integer) y) :other-integer)
(defmethod dmc-long-gf :other 2 ((x number) y) :other-number)

(deftest define-method-combination-long-form
  (list (dmc-long-gf 1 2) (dmc-long-gf 1.5 2)
        (signals-error (dmc-long-gf 'a 2) error)
        (documentation 'dmc-long 'method-combination))
  ((:tag1 :none t 1 (:before) (:integer (:number nil)) (:other-number :other-integer) (:made 1))
   (:tag1 :none t 1.5 () (:number nil) (:other-number) (:made 1.5))
   t "Befores, the primaries as a chain, and the others"))

(deftest define-method-combination-long-form-invalid-method
  (progn
    (defgeneric dmc-long-gf-2 (x) (:method-combination dmc-long :tag2 :x))
    (defmethod dmc-long-gf-2 ((x t)) :t)
    (list (cadr (dmc-long-gf-2 1))
          (signals-error (progn (defmethod dmc-long-gf-2 :after ((x t)) :after) (dmc-long-gf-2 1)) error)))
  (:x t))

(defun dmc-positive-qualifier-p (qualifiers) (typep qualifiers '(cons (integer 1) null)))
(define-method-combination dmc-weighted () ((ms dmc-positive-qualifier-p))
  `(list ,@(mapcar #'(lambda (m) `(list ',(car (method-qualifiers m)) (call-method ,m))) ms)))

(deftest define-method-combination-long-form-predicate
  (progn
    (defgeneric dmc-weighted-gf (x) (:method-combination dmc-weighted))
    (defmethod dmc-weighted-gf 3 ((x t)) :t)
    (defmethod dmc-weighted-gf 1 ((x integer)) :integer)
    (list (dmc-weighted-gf 1) (dmc-weighted-gf 'a)))
  (((1 :integer) (3 :t)) ((3 :t))))

;; the :ORDER form is evaluated in the lexical environment of the definition
(deftest define-method-combination-long-form-order-evaluated
  (let ((order :most-specific-last))
    (define-method-combination dmc-ordered () ((ms * :order order))
      `(list ,@(mapcar #'(lambda (m) `(call-method ,m)) ms)))
    (defgeneric dmc-ordered-gf (x) (:method-combination dmc-ordered))
    (defmethod dmc-ordered-gf ((x t)) :t)
    (defmethod dmc-ordered-gf ((x integer)) :integer)
    (list (dmc-ordered-gf 1) (dmc-ordered-gf 'a)))
  ((:t :integer) (:t)))

(deftest invalid-qualifier
  (progn (defmethod bad-qualifier-gf :sideways ((x t)) x)
         (signals-error (bad-qualifier-gf 1) error))
  t)

;;; ------------------------------------------------------------------
;;; Redefinition

(defclass redef-a () ((x :initarg :x :accessor redef-x)))

(deftest class-redefinition-adds-and-removes-slots
  (let ((o (make-instance 'redef-a :x 1)))
    (eval '(defclass redef-a () ((w :initform :new-w :accessor redef-w) (x :initarg :x :accessor redef-x))))
    (let ((r1 (list (redef-x o) (redef-w o))))
      (eval '(defclass redef-a () ((w :initform :new-w :accessor redef-w))))
      (list r1 (slot-exists-p o 'x) (redef-w o) (signals-error (redef-x o) error))))
  ((1 :new-w) nil :new-w t))

(defclass redef-b () ((a :initarg :a :initform 1) (b :initarg :b :initform 2)))
(defvar *redef-b-log* nil)
(defmethod update-instance-for-redefined-class :after ((o redef-b) added discarded plist &rest initargs)
  (declare (ignore initargs))
  (push (list added discarded plist) *redef-b-log*))

(deftest update-instance-for-redefined-class-arguments
  (let ((o (make-instance 'redef-b :a 10 :b 20)))
    (setq *redef-b-log* nil)
    (eval '(defclass redef-b () ((b :initarg :b :initform 2) (c :initform 3))))
    (list (slot-value o 'b) (slot-value o 'c) *redef-b-log*))
  (20 3 ((( c) (a) (a 10)))))

(defclass redef-super () ())
(defclass redef-sub (redef-super) ((s :initform :s :reader redef-s)))

(deftest superclass-redefinition-updates-subclass-instances
  (let ((o (make-instance 'redef-sub)))
    (eval '(defclass redef-super () ((p :initform :p :reader redef-p))))
    (list (redef-s o) (redef-p o) (redef-p (make-instance 'redef-sub))))
  (:s :p :p))

(defclass cache-test () ((a :initarg :a :reader cache-a) (b :initarg :b :reader cache-b)))

(deftest accessor-cache-survives-redefinition
  (let ((o (make-instance 'cache-test :a 1 :b 2)) (r nil))
    (dotimes (i 3) (push (list (cache-a o) (cache-b o)) r))
    (eval '(defclass cache-test () ((z :initform 0) (b :initarg :b :reader cache-b)
                                    (a :initarg :a :reader cache-a))))
    (dotimes (i 3) (push (list (cache-a o) (cache-b o)) r))
    (push (list (cache-a (make-instance 'cache-test :a 5 :b 6)) (slot-value o 'z)) r)
    (reverse r))
  ((1 2) (1 2) (1 2) (1 2) (1 2) (1 2) (5 0)))

(deftest method-added-after-calls
  (progn
    (defgeneric late-method (x))
    (defmethod late-method ((x t)) :t)
    (let ((before (list (late-method 1) (late-method 2))))
      (defmethod late-method ((x integer)) :int)
      (defmethod late-method ((x (eql 2))) :two)
      (list before (late-method 1) (late-method 2) (late-method "s"))))
  ((:t :t) :int :two :t))

(deftest class-redefinition-changes-dispatch
  (progn
    (defclass dispatch-a () ())
    (defclass dispatch-b () ())
    (defclass dispatch-c (dispatch-a) ())
    (defgeneric which-parent (x))
    (defmethod which-parent ((x dispatch-a)) :a)
    (defmethod which-parent ((x dispatch-b)) :b)
    (let ((o (make-instance 'dispatch-c)))
      (list (which-parent o)
            (progn (eval '(defclass dispatch-c (dispatch-b) ())) (which-parent o)))))
  (:a :b))

(deftest make-instances-obsolete-runs-update
  (progn
    (defclass obsolete-me () ((a :initform 1 :accessor obsolete-a)))
    (let ((o (make-instance 'obsolete-me)) (seen nil))
      (eval '(defmethod update-instance-for-redefined-class :before ((o obsolete-me) added discarded plist &rest r)
               (declare (ignore added discarded plist r))
               (setf (slot-value o 'a) :updated)))
      (setq seen (obsolete-a o))
      (make-instances-obsolete 'obsolete-me)
      (list seen (obsolete-a o))))
  (1 :updated))

(deftest forward-referenced-superclass
  (progn
    (defclass fwd-sub (fwd-super-later) ((a :initform 1 :reader fwd-a)))
    (let ((early (signals-error (make-instance 'fwd-sub) error)))
      (defclass fwd-super-later () ((b :initform 2 :reader fwd-b)))
      (let ((o (make-instance 'fwd-sub)))
        (list early (fwd-a o) (fwd-b o)))))
  (t 1 2))

;;; ------------------------------------------------------------------
;;; CHANGE-CLASS

(defclass shape () ((name :initarg :name :accessor shape-name)))
(defclass circle (shape) ((radius :initarg :radius :initform 1 :accessor circle-radius)))
(defclass square (shape) ((side :initarg :side :accessor square-side)))
(defmethod update-instance-for-different-class :after ((old circle) (new square) &key)
  (setf (square-side new) (* 2 (circle-radius old))))

(deftest change-class-keeps-common-slots
  (let ((s (make-instance 'circle :name "c" :radius 3)))
    (change-class s 'square)
    (list (class-name (class-of s)) (shape-name s) (square-side s) (slot-exists-p s 'radius)))
  (square "c" 6 nil))

(deftest change-class-initializes-new-slots
  (let ((s (make-instance 'shape :name "s")))
    (change-class s 'circle)
    (list (shape-name s) (circle-radius s)))
  ("s" 1))

(deftest change-class-initargs
  (let ((s (make-instance 'shape :name "s")))
    (change-class s 'circle :radius 9)
    (circle-radius s))
  9)

(deftest change-class-dispatch
  (progn
    (defgeneric shape-kind (s))
    (defmethod shape-kind ((s shape)) :shape)
    (defmethod shape-kind ((s circle)) :circle)
    (let ((s (make-instance 'circle)))
      (list (shape-kind s) (progn (change-class s 'shape) (shape-kind s)))))
  (:circle :shape))

;;; ------------------------------------------------------------------
;;; PRINT-OBJECT, DESCRIBE

(defclass printed () ((v :initarg :v)))
(defmethod print-object ((o printed) stream)
  (format stream "#<printed ~A>" (slot-value o 'v)))

(deftest print-object-method-used-by-printer
  (list (prin1-to-string (make-instance 'printed :v 1))
        (format nil "~A" (list (make-instance 'printed :v 2)))
        (princ-to-string (make-instance 'printed :v 3)))
  ("#<printed 1>" "(#<printed 2>)" "#<printed 3>"))

(defclass unreadable-printed () ())
(defmethod print-object ((o unreadable-printed) stream)
  (print-unreadable-object (o stream :type t) (write-string "inside" stream)))

(deftest print-unreadable-object-type
  (prin1-to-string (make-instance 'unreadable-printed))
  "#<UNREADABLE-PRINTED inside>")

(deftest default-print-object
  (let ((s (prin1-to-string (make-instance 'point))))
    (list (subseq s 0 8) (char s (1- (length s)))))
  ("#<POINT " #\>))

(deftest print-classes-and-functions
  (list (prin1-to-string (find-class 'point))
        (prin1-to-string (find-class 'integer))
        (prin1-to-string #'describe-thing)
        (princ-to-string (find-class 'point)))
  ("#<STANDARD-CLASS COMMON-LISP-USER::POINT>" "#<BUILT-IN-CLASS COMMON-LISP:INTEGER>"
   "#<STANDARD-GENERIC-FUNCTION COMMON-LISP-USER::DESCRIBE-THING (7)>"
   "#<STANDARD-CLASS COMMON-LISP-USER::POINT>"))

(deftest print-method-object
  (let ((s (prin1-to-string (find-method #'combine '(:before) (list (find-class 'integer))))))
    (subseq s 0 55))
  "#<STANDARD-METHOD COMMON-LISP-USER::COMBINE :BEFORE (IN")

(deftest print-readably-standard-object
  (handler-case (let ((*print-readably* t)) (prin1-to-string (make-instance 'point)))
    (error (e) (type-of e)))
  print-not-readable)

(defclass described () ((a :initform 1) (b) (c :allocation :class :initform :shared)))
(defmethod print-object ((o described) stream) (write-string "#<DESCRIBED>" stream))

(deftest describe-standard-object
  (with-output-to-string (s) (describe (make-instance 'described) s))
  "#<DESCRIBED>
  [standard-object]

Slots with :CLASS allocation:
  C                              = :SHARED
Slots with :INSTANCE allocation:
  A                              = 1
  B                              = #<unbound slot>
")

(defmethod describe-object ((o printed) stream)
  (format stream "printed with ~A" (slot-value o 'v)))

(deftest describe-object-method
  (with-output-to-string (s) (describe (make-instance 'printed :v 7) s))
  "printed with 7")

;;; ------------------------------------------------------------------
;;; Conditions are classes

(define-condition clos-test-error (error) ((code :initarg :code :reader clos-test-code)))
(defgeneric condition-kind (c))
(defmethod condition-kind ((c error)) :error)
(defmethod condition-kind ((c warning)) :warning)
(defmethod condition-kind ((c type-error)) (list :type-error (call-next-method)))
(defmethod condition-kind ((c clos-test-error)) (list :mine (clos-test-code c) (call-next-method)))

(deftest methods-on-condition-classes
  (list (condition-kind (make-condition 'simple-error :format-control "x"))
        (condition-kind (make-condition 'simple-warning :format-control "x"))
        (handler-case (car 1) (error (e) (condition-kind e)))
        (condition-kind (make-condition 'clos-test-error :code 3)))
  (:error :warning (:type-error :error) (:mine 3 :error)))

(deftest find-class-condition
  (list (class-name (find-class 'error)) (class-name (class-of (make-condition 'clos-test-error)))
        (typep (find-class 'clos-test-error) 'class)
        (multiple-value-list (subtypep 'clos-test-error 'error))
        (multiple-value-list (subtypep (find-class 'type-error) (find-class 'error))))
  (error clos-test-error t (t t) (t t)))

(define-condition printed-condition (error) ())
(defmethod print-object ((c printed-condition) stream)
  (if *print-escape* (call-next-method) (write-string "custom report" stream)))

(deftest print-object-on-condition
  (list (princ-to-string (make-condition 'printed-condition))
        (handler-case (error 'printed-condition) (error (e) (format nil "~A" e))))
  ("custom report" "custom report"))

;;; ------------------------------------------------------------------
;;; Structures are classes

(defstruct clos-struct a (b 2))
(defstruct (clos-sub-struct (:include clos-struct)) c)
(defgeneric struct-kind (s))
(defmethod struct-kind ((s structure-object)) :structure)
(defmethod struct-kind ((s clos-struct)) (list :clos-struct (call-next-method)))
(defmethod struct-kind ((s clos-sub-struct)) (list :sub (call-next-method)))

(deftest methods-on-structure-classes
  (list (struct-kind (make-clos-struct)) (struct-kind (make-clos-sub-struct)))
  ((:clos-struct :structure) (:sub (:clos-struct :structure))))

(deftest structure-class-objects
  (list (class-name (class-of (make-clos-struct)))
        (class-name (class-of (find-class 'clos-struct)))
        (typep (make-clos-sub-struct) 'clos-struct)
        (typep (make-clos-struct) 'structure-object)
        (multiple-value-list (subtypep 'clos-sub-struct 'clos-struct)))
  (clos-struct structure-class t t (t t)))

(deftest slot-value-on-structures
  (let ((s (make-clos-struct :a 1)))
    (setf (slot-value s 'b) 20)
    (list (slot-value s 'a) (clos-struct-b s) (slot-exists-p s 'a) (slot-exists-p s 'zz)))
  (1 20 t nil))

;;; ------------------------------------------------------------------
;;; Dispatch on built-in classes

(defgeneric classify (x))
(defmethod classify ((x t)) :t)
(defmethod classify ((x number)) :number)
(defmethod classify ((x integer)) :integer)
(defmethod classify ((x float)) :float)
(defmethod classify ((x ratio)) :ratio)
(defmethod classify ((x complex)) :complex)
(defmethod classify ((x sequence)) :sequence)
(defmethod classify ((x list)) :list)
(defmethod classify ((x vector)) :vector)
(defmethod classify ((x string)) :string)
(defmethod classify ((x symbol)) :symbol)
(defmethod classify ((x character)) :character)
(defmethod classify ((x function)) :function)
(defmethod classify ((x hash-table)) :hash-table)
(defmethod classify ((x array)) :array)
(defmethod classify ((x package)) :package)
(defmethod classify ((x stream)) :stream)

(deftest dispatch-on-built-in-classes
  (list (classify 1) (classify (expt 2 80)) (classify 1.0) (classify 1d0) (classify 1/3) (classify #c(1 1))
        (classify '(1)) (classify nil) (classify 'a) (classify "s") (classify (vector 1))
        (classify (make-array '(2 2))) (classify #\x) (classify #'car) (classify (lambda () 1))
        (classify (make-hash-table)) (classify *package*) (classify (make-string-output-stream))
        (classify #*101) (classify (make-array 3 :fill-pointer 0)))
  (:integer :integer :float :float :ratio :complex :list :symbol :symbol :string :vector :array :character
   :function :function :hash-table :package :stream :vector :vector))

(deftest generic-function-is-a-function
  (list (functionp #'classify) (mapcar #'classify '(1 "a")) (apply #'classify '(#\a)))
  (t (:integer :string) :character))

;; DEFINE-CONDITION's readers and writers are methods on generic functions (as in SBCL), so a
;; class and a condition can share an accessor name and a library can add methods (fiveam does)
(deftest condition-accessors-are-generic
  (progn
    (defclass cag-result () ((reason :accessor cag-reason :initarg :reason)))
    (define-condition cag-failure (error) ((reason :accessor cag-reason :initarg :reason)))
    (defmethod cag-reason ((x string)) (list :string x))
    (let ((c (make-condition 'cag-failure :reason 2)))
      (setf (cag-reason c) 3)
      (list (cag-reason (make-instance 'cag-result :reason 1)) (cag-reason c) (cag-reason "s")
            (typep #'cag-reason 'generic-function)
            (not (null (find-method #'cag-reason '() (list (find-class 'cag-failure))))))))
  (1 3 (:string "s") t t))

;;; DOCUMENTATION of methods and classes; DOCUMENTATION is a generic function

(defclass doc-class () () (:documentation "class doc"))
(defgeneric doc-gf (x) (:method ((x symbol)) "symbol method" x))
(defmethod doc-gf ((x integer)) x)

(deftest documentation-of-classes
  (let ((c (find-class 'doc-class)))
    (list (documentation c t) (documentation c 'type)
          (setf (documentation c t) "new doc") (documentation c t) (documentation c 'type)
          (setf (documentation c 'type) "newer") (documentation c t)))
  ("class doc" "class doc" "new doc" "new doc" "new doc" "newer" "newer"))

(deftest documentation-of-methods
  (let ((ms (find-method #'doc-gf nil (list (find-class 'symbol))))
        (mi (find-method #'doc-gf nil (list (find-class 'integer)))))
    (list (documentation ms t) (documentation mi t)
          (setf (documentation mi t) "integer method") (documentation mi t)))
  ("symbol method" nil "integer method" "integer method"))

(defclass doc-holder () ((doc :initform nil :accessor doc-holder-doc)))
(defmethod documentation ((x doc-holder) (doc-type (eql t))) (doc-holder-doc x))
(defmethod (setf documentation) ((new string) (x doc-holder) (doc-type (eql t)))
  (setf (doc-holder-doc x) new))

(deftest documentation-is-generic
  (let ((h (make-instance 'doc-holder)))
    (list (typep #'documentation 'generic-function)
          (documentation h t) (setf (documentation h t) "held") (documentation h t)
          (documentation 'doc-gf 'function)))
  (t nil "held" "held" nil))

;;; DEFCLASS after the class lost its name makes a new class
(deftest defclass-after-class-name-changed
  (progn
    (setf (find-class 'renamed-class) nil)
    (let* ((c1 (defclass renamed-class () ((a))))
           (o1 (make-instance 'renamed-class)))
      (setf (class-name c1) nil)
      (let ((c2 (defclass renamed-class () ((a)))))
        (list (eq (class-of o1) c1) (eq c1 c2) (typep o1 c2) (class-name c2)))))
  (t nil nil renamed-class))

;;; the first :ALLOW-OTHER-KEYS of a call counts
(defmethod first-aok-gf ((x t) &key) x)
(deftest generic-function-first-allow-other-keys-counts
  (list (signals-error (first-aok-gf 1 :allow-other-keys nil :allow-other-keys t :bogus t) program-error)
        (first-aok-gf 2 :allow-other-keys t :allow-other-keys nil :bogus t))
  (t 2))

;;; ALLOCATE-INSTANCE and MAKE-LOAD-FORM-SAVING-SLOTS of structures
(defstruct mlfss-struct a (b 2))
(deftest make-load-form-saving-slots-structure
  (let* ((obj (make-mlfss-struct :a 17))
         (forms (multiple-value-list (make-load-form-saving-slots obj)))
         (new (eval (first forms))))
    (eval (subst new obj (second forms)))
    (list (length forms) (eq (class-of new) (class-of obj)) (mlfss-struct-a new) (mlfss-struct-b new)
          (eq new obj)))
  (2 t 17 2 nil))

(deftest allocate-instance-structure-class
  (let ((s (allocate-instance (find-class 'mlfss-struct))))
    (setf (mlfss-struct-a s) 'x)
    (list (typep s 'mlfss-struct) (mlfss-struct-a s)))
  (t x))

;;; DEFGENERIC checks its :ARGUMENT-PRECEDENCE-ORDER and repeated options
(deftest defgeneric-option-errors
  (list (signals-error (defgeneric apo-err-1 (x y) (:argument-precedence-order x y x)) program-error)
        (signals-error (defgeneric apo-err-2 (x y) (:argument-precedence-order x)) program-error)
        (signals-error (eval (quote (defgeneric apo-err-3 (x) (:documentation "a") (:documentation "b")))) program-error)
        (functionp (defgeneric apo-ok (x y) (:argument-precedence-order y x))))
  (t t t t))

;;; TYPE-OF an instance whose class no longer has a proper name is the class
(deftest type-of-instance-of-unnamed-class
  (let ((c1 (defclass type-of-unnamed-1 () ()))
        (c2 (defclass type-of-unnamed-2 () ())))
    (setf (class-name c1) nil)
    (setf (find-class 'type-of-unnamed-2) nil)
    (list (eq (type-of (make-instance c1)) c1) (eq (type-of (make-instance c2)) c2)
          (type-of (make-instance 'point :x 1))))
  (t t point))

;;; TRACE of a generic function before its methods are defined
(deftest trace-generic-function-then-defmethod
  (progn
    (defgeneric traced-gf (x y))
    (trace traced-gf)
    (defmethod traced-gf ((x t) (y t)) (list x y))
    (prog1 (list (trace)
                 (let ((out (with-output-to-string (*trace-output*)
                              (assert (equal (traced-gf 1 2) '(1 2))))))
                   (> (length out) 0))
                 (typep (defgeneric traced-gf (x y)) 'generic-function))
      (untrace traced-gf)))
  ((traced-gf) t t))

(defmacro cl-cnm-or (value)
  ;; a macro whose expansion calls the next method, as trivial-gray-streams' OR-FALLBACK
  `(let ((v ,value)) (if (eq v :fallback) (call-next-method) v)))
(defgeneric cl-cnm-macro (x))
(defmethod cl-cnm-macro ((x t)) (list :default x))
(defmethod cl-cnm-macro ((x integer)) (cl-cnm-or (if (evenp x) :fallback x)))
(defmacro cl-next-method-p-wrapper () '(next-method-p))
(defmethod cl-cnm-macro ((x string)) (cl-cnm-or (if (cl-next-method-p-wrapper) :fallback x)))
(deftest call-next-method-from-a-macro
  (list (cl-cnm-macro 3) (cl-cnm-macro 4) (cl-cnm-macro "s") (cl-cnm-macro :k))
  (3 (:default 4) (:default "s") (:default :k)))
