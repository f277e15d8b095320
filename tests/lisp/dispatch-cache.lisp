;;;; dispatch-cache.lisp: generic functions called after their dispatch was cached, then changed.
;;;; A generic function keyed on one argument without EQL specializers is looked up by that
;;;; argument's class alone (runtime/clos.c, clos_dispatch); every change to methods, classes or the
;;;; lambda list must reach the next call, and arguments of every kind must find their methods.
;;;; Expected values by hand (and from SBCL).

(in-package :cl-user)

(defclass dc-shape () ())
(defclass dc-circle (dc-shape) ((r :initarg :r :accessor dc-r)))
(defclass dc-square (dc-shape) ((s :initarg :s :accessor dc-s)))
(defstruct dc-point x y)

(defun dc-warm (f &rest args)
  ;; call F enough times that its cache holds the entry
  (dotimes (i 3) (apply f args))
  (apply f args))

(defgeneric dc-name (x))
(defmethod dc-name ((x dc-shape)) :shape)

(deftest dispatch-cache.new-specific-method-after-warm
  (let ((c (make-instance 'dc-circle :r 1)))
    (list (dc-warm #'dc-name c)
          (progn (defmethod dc-name ((x dc-circle)) :circle) (dc-name c))
          (dc-name (make-instance 'dc-square :s 2))))
  (:shape :circle :shape))

(defgeneric dc-redef (x))
(defmethod dc-redef ((x dc-circle)) 1)

(deftest dispatch-cache.method-redefined-and-removed
  (let ((c (make-instance 'dc-circle :r 1)))
    (list (dc-warm #'dc-redef c)
          (progn (defmethod dc-redef ((x dc-circle)) 2) (dc-redef c))
          (progn (defmethod dc-redef ((x dc-shape)) 3)
                 (remove-method #'dc-redef (find-method #'dc-redef nil (list (find-class 'dc-circle))))
                 (dc-redef c))))
  (1 2 3))

(defclass dc-a () ())
(defclass dc-b () ())
(defclass dc-moving (dc-a) ())
(defgeneric dc-parent (x))
(defmethod dc-parent ((x dc-a)) :a)
(defmethod dc-parent ((x dc-b)) :b)

(deftest dispatch-cache.class-redefined-with-another-superclass
  (let ((m (make-instance 'dc-moving)))
    (list (dc-warm #'dc-parent m)
          (progn (defclass dc-moving (dc-b) ()) (dc-parent m))
          (dc-parent (make-instance 'dc-moving))))
  (:a :b :b))

(defgeneric dc-num (x))
(defmethod dc-num ((x integer)) :integer)
(defmethod dc-num ((x t)) :other)

(deftest dispatch-cache.eql-specializer-added-after-warm
  (list (dc-warm #'dc-num 5) (dc-num 6)
        (progn (defmethod dc-num ((x (eql 5))) :five) (dc-num 5))
        (dc-num 6) (dc-num 'five))
  (:integer :integer :five :integer :other))

(defgeneric dc-kind (x))
(defmethod dc-kind ((x integer)) :integer)
(defmethod dc-kind ((x list)) :list)
(defmethod dc-kind ((x string)) :string)
(defmethod dc-kind ((x symbol)) :symbol)
(defmethod dc-kind ((x dc-point)) :structure)
(defmethod dc-kind ((x dc-shape)) :shape)
(defmethod dc-kind ((x generic-function)) :generic)
(defmethod dc-kind ((x t)) :t)

(deftest dispatch-cache.arguments-of-every-kind
  ;; twice over: the first round fills the cache, the second reads it
  (let ((args (list 1 (expt 10 30) nil '(1) "s" 'sym (make-dc-point) (make-instance 'dc-circle)
                    #'dc-kind 1.5 #\c (make-hash-table))))
    (list (mapcar #'dc-kind args) (mapcar #'dc-kind args)))
  ;; NIL's class NULL has SYMBOL before LIST among its superclasses
  ((:integer :integer :symbol :list :string :symbol :structure :shape :generic :t :t :t)
   (:integer :integer :symbol :list :string :symbol :structure :shape :generic :t :t :t)))

(defgeneric dc-second (a b &optional c))
(defmethod dc-second (a (b dc-circle) &optional c) (list a :circle c))
(defmethod dc-second (a (b dc-square) &optional c) (list a :square c))

(deftest dispatch-cache.keyed-on-the-second-argument
  (let ((c (make-instance 'dc-circle)) (s (make-instance 'dc-square)))
    (list (dc-warm #'dc-second 1 c) (dc-second 2 s 3) (dc-second 3 c)
          (handler-case (funcall #'dc-second 1) (program-error () :too-few))))
  ((1 :circle nil) (2 :square 3) (3 :circle nil) :too-few))

(deftest dispatch-cache.too-few-arguments-after-warm
  (progn (dc-warm #'dc-name (make-instance 'dc-circle))
         (handler-case (funcall #'dc-name) (program-error () :too-few)))
  :too-few)

;; many classes through one generic function: the cache grows and is rehashed while in use
(defgeneric dc-many (x))
(defmethod dc-many ((x t)) nil)
(defvar *dc-classes*
  (loop for i below 40
        collect (let ((name (intern (format nil "DC-MANY-~D" i))))
                  (eval `(defclass ,name () ()))
                  (eval `(defmethod dc-many ((x ,name)) ,i))
                  name)))

(deftest dispatch-cache.many-classes
  (let ((objects (mapcar #'make-instance *dc-classes*)))
    (list (loop for o in objects sum (dc-many o))
          (loop for o in (reverse objects) for i downfrom 39 always (eql (dc-many o) i))))
  (780 t))

;; the standard method combination after the cache was filled, and CALL-NEXT-METHOD with other
;; arguments
(defvar *dc-log* nil)
(defgeneric dc-comb (x n))
(defmethod dc-comb ((x dc-shape) n) (push (list :shape n) *dc-log*) n)
(defmethod dc-comb ((x dc-circle) n) (push (list :circle n) *dc-log*) (+ 10 (call-next-method x (* n 2))))

(deftest dispatch-cache.combination-changes-after-warm
  (let ((c (make-instance 'dc-circle)))
    (list (progn (setq *dc-log* nil) (dc-warm #'dc-comb c 1))
          (progn (defmethod dc-comb :before ((x dc-circle) n) (push (list :before n) *dc-log*))
                 (defmethod dc-comb :after ((x dc-shape) n) (push (list :after n) *dc-log*))
                 (defmethod dc-comb :around ((x dc-circle) n) (list :around (call-next-method x (1+ n))))
                 (setq *dc-log* nil)
                 (dc-comb c 1))
          (reverse *dc-log*)))
  (12 (:around 14) ((:before 2) (:circle 2) (:shape 4) (:after 2))))

;; CALL-NEXT-METHOD copies its argument list for the next method: short lists in one walk, long
;; ones (over 16 arguments) the general way
(defgeneric dc-rest (x &rest more))
(defmethod dc-rest ((x dc-shape) &rest more) (list* :shape (length more) (last more)))
(defmethod dc-rest ((x dc-circle) &rest more)
  (if (eql (car more) :grow)
      (apply #'call-next-method x (make-list 25 :initial-element 7))
      (call-next-method)))

(deftest dispatch-cache.call-next-method-long-and-short-argument-lists
  (let ((c (make-instance 'dc-circle)))
    (list (dc-rest c 1 2) (dc-rest c :grow) (dc-rest c)
          (apply #'dc-rest c (make-list 20 :initial-element 3))))
  ((:shape 2 2) (:shape 25 7) (:shape 0) (:shape 20 3)))

;; (setf (slot-value ...)) expands to a call of SYS::%SET-SLOT-VALUE: the value it returns, the
;; order its subforms are evaluated in, read-modify-write forms, and the errors it signals
(defclass dc-box () ((v :initarg :v) (w)))

(deftest dispatch-cache.setf-slot-value
  (let* ((b (make-instance 'dc-box :v 1)) (log nil)
         (r (setf (slot-value (progn (push :object log) b) (progn (push :name log) 'v))
                  (progn (push :value log) 5))))
    (list r (slot-value b 'v) (reverse log)
          (incf (slot-value b 'v) 10) (slot-value b 'v)
          (progn (setf (slot-value b 'w) :set) (slot-value b 'w))
          (handler-case (setf (slot-value b 'nope) 1) (error () :missing))
          (handler-case (setf (slot-value 5 'v) 1) (error () :not-an-instance))
          (handler-case (setf (slot-value b "v") 1) (type-error () :type-error))))
  (5 5 (:object :name :value) 15 15 :set :missing :not-an-instance :type-error))

;; A class defined for the first time leaves every cached dispatch in place (no instance of it
;; exists, no entry is keyed on it): its instances still find the inherited methods, a method on
;; it is used at once, and an accessor it adds to an existing generic function reaches that
;; function's next call. A class that was forward-referenced, or is redefined, empties them all.
(defgeneric dc-sort (x))
(defmethod dc-sort ((x dc-shape)) :shape)
(defmethod dc-sort ((x t)) :other)

(deftest dispatch-cache.new-class-keeps-caches
  (let ((c (make-instance 'dc-circle :r 3)))
    (dc-warm #'dc-sort c) (dc-warm #'dc-sort 1) (dc-warm #'dc-r c)
    (let ((before (sys::%gf-cache-count #'dc-sort)))
      (eval '(defclass dc-hexagon (dc-shape) ((r :initarg :r :accessor dc-r))))
      (let ((h (make-instance 'dc-hexagon :r 6)))
        (list (= before (sys::%gf-cache-count #'dc-sort))
              (dc-sort h) (dc-sort c) (dc-sort 1)
              (dc-r h) (dc-r c)
              (progn (eval '(defmethod dc-sort ((x dc-hexagon)) :hexagon)) (dc-sort h))
              (dc-sort c)))))
  (t :shape :shape :other 6 3 :hexagon :shape))

(defgeneric dc-late (x))
(defmethod dc-late ((x standard-object)) :object)

(deftest dispatch-cache.forward-referenced-class-defined
  (progn
    (eval '(defclass dc-late-sub (dc-late-base) ()))
    (dc-warm #'dc-late (make-instance 'dc-circle))
    (let ((warm (sys::%gf-cache-count #'dc-late)))
      (eval '(defclass dc-late-base () ((v :initform :v))))
      (let ((s (make-instance 'dc-late-sub)))
        (list (plusp warm) (sys::%gf-cache-count #'dc-late)
              (dc-late s) (slot-value s (quote v))
              (progn (eval '(defmethod dc-late ((x dc-late-base)) :base)) (dc-late s))
              (dc-late (make-instance 'dc-circle))))))
  (t 0 :object :v :base :object))

(deftest dispatch-cache.class-redefined-after-warm
  (progn
    (eval '(defclass dc-redefined () ((a :initform 1))))
    (let ((o (make-instance 'dc-redefined)))
      (dc-warm #'dc-sort o)
      (eval '(defclass dc-redefined (dc-shape) ((a :initform 1))))
      (list (sys::%gf-cache-count #'dc-sort) (dc-sort o) (dc-sort (make-instance 'dc-redefined)))))
  (0 :shape :shape))

;; the same for a structure: a new one keeps the caches, one defined again empties them
(deftest dispatch-cache.new-structure-keeps-caches
  (progn
    (dc-warm #'dc-sort 1)
    (dc-warm #'dc-sort (make-dc-point))
    (let ((before (sys::%gf-cache-count #'dc-sort)))
      (eval '(defstruct (dc-point3 (:include dc-point)) z))
      (let ((kept (sys::%gf-cache-count #'dc-sort))
            (p (funcall 'make-dc-point3 :z 1)))
        (list (plusp before) (= before kept) (dc-sort p)
              (progn (eval '(defmethod dc-sort ((x dc-point)) :point)) (dc-sort p))
              (progn (dc-warm #'dc-sort p)
                     (eval '(defstruct (dc-point3 (:include dc-point)) z))
                     (sys::%gf-cache-count #'dc-sort))
              (dc-sort (funcall 'make-dc-point3))))))
  (t t :other :point 0 :point))
