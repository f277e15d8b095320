;;;; callpath4.lisp: the call path's fourth round (nodes.c, nodes-test.c): self tail calls whose
;;;; arguments are read in place (variables, constants, CAR and CDR of variables:
;;;; ev_call_self_tail_simpleN), their fallback to the general path on every argument that cannot
;;;; be read so, calls that must stay calls (special bindings, UNWIND-PROTECT, HANDLER-CASE), the
;;;; backtrace, and multiple values through them.

(in-package :cl-user)

(defun cp4-error (thunk)
  "The type and datum of the error THUNK signals, or :NO-ERROR."
  (handler-case (progn (funcall thunk) :no-error)
    (type-error (c) (list 'type-error (type-error-datum c)))
    (error (c) (list (type-of c)))))

;;; ---- answers ----

;; LIST-SHORTER-P of bench/takl.lisp: both arguments CDR of a variable
(defun cp4-shorter (a b)
  (cond ((null b) nil)
        ((null a) t)
        (t (cp4-shorter (cdr a) (cdr b)))))
;; CAR, CDR, a variable and a constant as arguments
(defun cp4-mix (tree acc k n)
  (if (or (atom tree) (= n 0)) (list tree acc k n) (cp4-mix (car tree) tree :k (1- n))))
(defun cp4-walk (l acc) (if (null l) acc (cp4-walk (cdr l) (car l))))
;; every argument read from the old parameters before any is replaced
(defun cp4-swap (a b n) (if (zerop n) (list a b) (cp4-swap b a (1- n))))
(defun cp4-pairs (a b) (if (atom a) (list a b) (cp4-pairs (cdr a) (car a))))

(deftest self-tail-calls-of-simple-arguments
  (list (cp4-shorter '(1 2) '(1 2 3)) (cp4-shorter '(1 2 3) '(1 2 3)) (cp4-shorter nil '(1))
        (cp4-shorter nil nil)
        (cp4-mix '(((x) y) z) nil :start 10)
        (cp4-mix '(((x) y) z) nil :start 1)
        (cp4-walk '(1 2 3) :none) (cp4-walk nil :none)
        (cp4-swap 1 2 3) (cp4-swap 1 2 4)
        (cp4-pairs '(1 2 3 . 4) nil))
  (t nil t nil (x (x) :k 7) (((x) y) (((x) y) z) :k 0) 3 :none (2 1) (1 2) (4 3)))

;; a million rounds: as calls these would exhaust the stack
(deftest self-tail-calls-of-simple-arguments-run-in-constant-stack
  (let ((long (make-list 1000000 :initial-element 0)))
    (list (cp4-shorter long (cons 1 long)) (cp4-walk long :none) (cp4-swap :a :b 1000001)))
  (t 0 (:b :a)))

;;; ---- arguments that cannot be read in place: the general path signals what CAR/CDR signal ----

(defun cp4-cdr-all (a b) (if (null b) a (cp4-cdr-all (cdr a) (cdr b))))
(defun cp4-car-down (x n) (if (= n 0) x (cp4-car-down (car x) (1- n))))
(deftest self-tail-calls-of-simple-arguments-on-non-lists
  (list (cp4-error (lambda () (cp4-cdr-all '(1 . 5) '(1 2 3))))
        (cp4-error (lambda () (cp4-cdr-all 7 '(1))))
        (cp4-cdr-all '(1 2 . 3) '(a b))
        (cp4-error (lambda () (cp4-car-down '((1)) 3)))
        (cp4-car-down '(((1))) 3)
        (cp4-car-down nil 5))
  ((type-error 5) (type-error 7) 3 (type-error 1) 1 nil))

;; the error's backtrace names the primitive and the looping function with its last arguments
(defun cp4-bt (x n) (if (= n 0) (error "cp4 at ~S" x) (cp4-bt (cdr x) (1- n))))
(deftest backtrace-through-simple-self-tail-calls
  (block nil
    (handler-bind ((error (lambda (c) (declare (ignore c))
                            (let ((frames (sys::%backtrace 40)))
                              (return (list (find 'cdr frames :key #'car)
                                            (find 'cp4-bt frames :key #'car)))))))
      (cp4-bt '(1 2 . 3) 5)))
  ((cdr 3) (cp4-bt 3 3)))

;; redefined by the body between rounds: the next round calls the new definition
(defun cp4-redef (l n)
  (when (= n 2) (defun cp4-redef (l n) (list :new l n)))
  (if (null l) :old (cp4-redef (cdr l) (1+ n))))
(deftest simple-self-tail-call-after-a-redefinition-in-the-body
  (cp4-redef '(a b c d) 0)
  (:new (d) 3))

;; a wrong argument count is never a loop
(defun cp4-wrong (a b) (if (null a) b (cp4-wrong (cdr a))))
(deftest simple-self-tail-call-with-a-wrong-count
  (list (cp4-wrong nil 1) (handler-case (cp4-wrong '(1) 1) (program-error () :program-error)))
  (1 :program-error))

;;; ---- calls that are not tail calls stay calls ----

(defvar *cp4-depth* 0)
(defun cp4-special (l)
  (if (null l) *cp4-depth* (let ((*cp4-depth* (1+ *cp4-depth*))) (cp4-special (cdr l)))))
(defvar *cp4-cleanups* nil)
(defun cp4-protected (l)
  (if (null l) (copy-list *cp4-cleanups*)
      (unwind-protect (cp4-protected (cdr l)) (push (car l) *cp4-cleanups*))))
(defun cp4-handled (l)
  (if (null l) (error "bottom")
      (handler-case (cp4-handled (cdr l)) (error () (length l)))))
(defun cp4-catching (l)
  (if (null l) (throw :cp4 0)
      (1+ (catch :cp4 (cp4-catching (cdr l))))))
(deftest simple-arguments-inside-bindings-and-handlers-are-calls
  (list (cp4-special '(1 2 3))
        (progn (setq *cp4-cleanups* nil) (list (cp4-protected '(1 2 3)) *cp4-cleanups*))
        (cp4-handled '(a b c))
        (cp4-catching '(a b c)))
  (3 (() (1 2 3)) 1 3))

;;; ---- multiple values out of the loop ----

(defun cp4-values (l) (if (null l) (values 1 2 3) (cp4-values (cdr l))))
(defun cp4-none (l) (if (null (cdr l)) (values) (cp4-none (cdr l))))
(deftest simple-self-tail-calls-return-multiple-values
  (list (multiple-value-list (cp4-values '(a b c))) (multiple-value-list (cp4-none '(a b)))
        (multiple-value-list (funcall #'cp4-values '(x))) (multiple-value-list (apply #'cp4-values '((y z)))))
  ((1 2 3) () (1 2 3) (1 2 3)))

;;; ---- two-argument inline calls and tests of two variables (_ll) or a variable and a constant
;;; (_lc), their slots kept in the node: every shape agrees with calling the function ----

(defparameter *cp4-values*
  (list 0 1 -1 2 7 most-positive-fixnum most-negative-fixnum (1+ most-positive-fixnum) 1/2 1.5 :k nil
        (list 1) #\a))
(defparameter *cp4-inline* '(+ - * mod < > <= >= = eq eql cons))
(defparameter *cp4-tests* '(eq eql < > <= >= = /=))

(defun cp4-outcome (thunk)
  (handler-case (multiple-value-list (funcall thunk))
    (error (c) (list :error (type-of c)))))

(defun cp4-shapes (op constant)
  "Functions of X and Y computing (OP X Y) as a variable pair, with CONSTANT second or first."
  (list (eval `(lambda (x y) (,op x y)))
        (eval `(lambda (x y) (declare (ignore y)) (,op x ',constant)))
        (eval `(lambda (x y) (declare (ignore y)) (,op ',constant x)))))

(defun cp4-disagreements (op test-p)
  (let ((bad '()))
    (dolist (k *cp4-values* bad)
      (let* ((shapes (cp4-shapes op k))
             (tests (and test-p
                         (list (eval `(lambda (x y) (if (,op x y) :yes :no)))
                               (eval `(lambda (x y) (if (not (,op x y)) :no :yes)))
                               (eval `(lambda (x y) (declare (ignore y)) (if (,op x ',k) :yes :no)))
                               (eval `(lambda (x y) (declare (ignore y)) (if (not (,op x ',k)) :no :yes)))))))
        (dolist (x *cp4-values*)
          (let ((want (cp4-outcome (lambda () (funcall op x k)))))
            (unless (equal (cp4-outcome (lambda () (funcall (first shapes) x k))) want)
              (push (list op :ll x k) bad))
            (unless (equal (cp4-outcome (lambda () (funcall (second shapes) x nil))) want)
              (push (list op :lc x k) bad))
            (unless (equal (cp4-outcome (lambda () (funcall (third shapes) x nil)))
                           (cp4-outcome (lambda () (funcall op k x))))
              (push (list op :cl k x) bad))
            (when test-p
              (let ((want-test (cp4-outcome (lambda () (if (funcall op x k) :yes :no)))))
                (loop for f in tests for shape in '(:if-ll :if-not-ll :if-lc :if-not-lc)
                      unless (equal (cp4-outcome (lambda () (funcall f x k))) want-test)
                        do (push (list op shape x k) bad))))))))))

(deftest inline-calls-of-variables-and-constants-agree
  (loop for op in *cp4-inline* append (cp4-disagreements op nil))
  ())

(deftest fused-tests-of-variables-and-constants-agree
  (loop for op in *cp4-tests* append (cp4-disagreements op t))
  ())

;; the same variable twice, and a parameter assigned before the test
(defun cp4-same (x) (list (+ x x) (- x x) (if (< x x) :lt :not-lt) (if (= x x) :eq :ne)))
(defun cp4-assigned (x y) (setq x (+ x y)) (if (> x y) (list :gt x) (list :le x)))
(deftest in-place-reads-see-the-current-values
  (list (cp4-same 5) (cp4-same most-positive-fixnum) (cp4-assigned 1 2) (cp4-assigned -5 2))
  ((10 0 :not-lt :eq) (#.(* 2 most-positive-fixnum) 0 :not-lt :eq) (:gt 3) (:le -3)))

;;; ---- calls of closures from C (apply_direct): FUNCALL, APPLY, MAPCAR, the sequence functions ----

(defun cp4-mapper (l) (mapcar (lambda (x) (car x)) l))
(deftest closures-called-from-c-straight-into-their-frame
  (list (mapcar (lambda (x) (* x 2)) '(1 2 3))
        (delete-if (lambda (x) (= 0 (mod x 3))) (list 1 2 3 4 5 6))
        (apply (lambda (a b c d e f g) (list a d g)) '(1 2 3 4 5 6 7))
        (funcall (lambda (a b c d e f g h) (list a h (+ b c d e f g))) 1 2 3 4 5 6 7 8)
        (apply (lambda () :none) '())
        (let ((k 10)) (mapcar (lambda (x) (+ x k)) '(1 2)))
        (multiple-value-list (apply (lambda (a b) (values b a)) '(1 2)))
        (multiple-value-list (funcall (lambda (a) (values)) 1))
        (sort (list 3 1 2) (lambda (a b) (< a b))))
  ((2 4 6) (1 2 4 5) (1 4 7) (1 8 27) :none (11 12) (2 1) () (1 2 3)))

(deftest closures-called-from-c-with-wrong-counts
  (list (handler-case (apply (lambda (a b) (list a b)) '(1)) (program-error () :too-few))
        (handler-case (funcall (lambda (a) a) 1 2) (program-error () :too-many))
        (handler-case (mapcar (lambda (a b) (list a b)) '(1 2)) (program-error () :mapcar))
        (apply (lambda (a &optional (b :default)) (list a b)) '(1))
        (apply (lambda (&rest r) r) '(1 2 3)))
  (:too-few :too-many :mapcar (1 :default) (1 2 3)))

(deftest backtrace-through-a-closure-called-from-c
  (block nil
    (handler-bind ((error (lambda (c) (declare (ignore c))
                            (let* ((frames (sys::%backtrace 40))
                                   (from (position 'car frames :key #'car))
                                   (to (position 'cp4-mapper frames :key #'car)))
                              (return (mapcar (lambda (f)
                                                (if (consp (car f))
                                                    (cons :lambda (cdr f))
                                                    (mapcar (lambda (x) (if (functionp x) :fn x)) f)))
                                              (subseq frames from (1+ to))))))))
      (cp4-mapper (list '(a) 1))))
  ((car 1) (:lambda 1) (mapcar :fn ((a) 1)) (cp4-mapper ((a) 1))))

;;; ---- (+ *x* k), (- *x* k): a special variable and a constant read in place ----

(defvar *cp4-count* 0)
(defun cp4-incr () (setq *cp4-count* (+ *cp4-count* 1)))
(defun cp4-decr () (- *cp4-count* 3))
(defun cp4-both () (list (+ *cp4-count* 1) (- *cp4-count* 1) (+ *cp4-count* 1/2) (- *cp4-count* 'a)))
(defun cp4-unbound () (+ cp4-no-such-variable 1))
(deftest special-variable-and-constant-arithmetic
  (list (progn (setq *cp4-count* 0) (cp4-incr) (cp4-incr) *cp4-count*)
        (cp4-decr)
        (let ((*cp4-count* 10)) (list (cp4-incr) (cp4-decr)))
        *cp4-count*
        (let ((*cp4-count* most-positive-fixnum)) (list (cp4-incr) (- (cp4-decr) most-positive-fixnum)))
        (let ((*cp4-count* 1.5)) (cp4-decr))
        (let ((*cp4-count* (expt 2 70))) (- (cp4-incr) (expt 2 70)))
        (let ((*cp4-count* 4)) (cp4-error (lambda () (cp4-both))))
        (let ((*cp4-count* :k)) (cp4-error (lambda () (cp4-incr))))
        (handler-case (cp4-unbound) (unbound-variable (c) (cell-error-name c))))
  (2 -1 (11 8) 2 (#.(1+ most-positive-fixnum) -2) -1.5 1 (type-error a) (type-error :k)
   cp4-no-such-variable))
