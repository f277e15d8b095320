;;;; callpath.lisp: the call paths of the evaluator compute what the general paths compute: calls
;;;; specialised by argument count up to six (global and local functions), FUNCALL of a function
;;;; object straight into its frame, the three-word call record of a direct call (backtraces,
;;;; their arguments and locals), one-variable LET, assignments, and multiple values through them.

(in-package :cl-user)

(defmacro cp-count-error (form) `(signals-error ,form program-error))

(defun cp-error-text (thunk)
  "The printed error THUNK signals, or :NO-ERROR."
  (handler-case (progn (funcall thunk) :no-error)
    (error (c) (princ-to-string c))))

;;; ---- four to six arguments, specialised ----

(defun cp-f4 (a b c d) (list a b c d))
(defun cp-f5 (a b c d e) (list a b c d e))
(defun cp-f6 (a b c d e f) (list a b c d e f))
(defun cp-f7 (a b c d e f g) (list a b c d e f g))

(deftest specialised-calls-four-to-seven
  (list (cp-f4 1 2 3 4) (cp-f5 1 2 3 4 5) (cp-f6 1 2 3 4 5 6) (cp-f7 1 2 3 4 5 6 7))
  ((1 2 3 4) (1 2 3 4 5) (1 2 3 4 5 6) (1 2 3 4 5 6 7)))

(deftest specialised-calls-four-to-six-wrong-counts
  (list (cp-count-error (cp-f4 1 2 3)) (cp-count-error (cp-f4 1 2 3 4 5))
        (cp-count-error (cp-f5 1 2 3 4)) (cp-count-error (cp-f5 1 2 3 4 5 6))
        (cp-count-error (cp-f6 1 2 3 4 5)) (cp-count-error (cp-f6 1 2 3 4 5 6 7)))
  (t t t t t t))

(deftest specialised-calls-wrong-count-message
  (list (cp-error-text (lambda () (cp-f5 1 2 3 4)))
        (cp-error-text (lambda () (cp-f6 1 2 3 4 5 6 7))))
  ("invalid number of arguments to CP-F5: 4" "invalid number of arguments to CP-F6: 7"))

(defun cp-opt5 (a b c d &optional (e :e)) (list a b c d e))
(defun cp-rest5 (a b c d &rest r) (list a b c d r))
(defun cp-key5 (a b c d &key k) (list a b c d k))

(deftest five-argument-calls-of-other-lambda-lists
  (list (cp-opt5 1 2 3 4) (cp-opt5 1 2 3 4 5) (cp-count-error (cp-opt5 1 2 3 4 5 6))
        (cp-rest5 1 2 3 4 5) (cp-rest5 1 2 3 4 5 6) (cp-key5 1 2 3 4 :k 5)
        (signals-error (cp-key5 1 2 3 4 5) program-error))
  ((1 2 3 4 :e) (1 2 3 4 5) t (1 2 3 4 (5)) (1 2 3 4 (5 6)) (1 2 3 4 5) t))

;; arguments are evaluated left to right, each once
(deftest six-arguments-evaluated-in-order
  (let ((log '()))
    (flet ((note (x) (push x log) x))
      (list (cp-f6 (note 1) (note 2) (note 3) (note 4) (note 5) (note 6)) (reverse log))))
  ((1 2 3 4 5 6) (1 2 3 4 5 6)))

;; an argument that redefines the function: the new definition is called
(defun cp-redef5 (a b c d e) (list :old a b c d e))
(deftest five-arguments-redefined-by-an-argument
  (cp-redef5 1 2 3 4 (progn (defun cp-redef5 (&rest r) (cons :new r)) 5))
  (:new 1 2 3 4 5))

(deftest local-calls-four-to-six
  (labels ((l4 (a b c d) (list a b c d)) (l5 (a b c d e) (list e d c b a))
           (l6 (a b c d e f) (+ a b c d e f))
           (sum-down (n a b c d) (if (zerop n) (list a b c d) (sum-down (1- n) b c d (+ a b c d)))))
    (list (l4 1 2 3 4) (l5 1 2 3 4 5) (l6 1 2 3 4 5 6) (sum-down 5 1 1 1 1)
          ((lambda (a b c d e) (list e a)) 1 2 3 4 5)))
  ((1 2 3 4) (5 4 3 2 1) 21 (7 13 25 49) (5 1)))

(deftest local-calls-four-to-six-wrong-counts
  (flet ((l4 (a b c d) (list a b c d)) (l6 (a b c d e f) (list a b c d e f)))
    (list (cp-count-error (l4 1 2 3)) (cp-count-error (l4 1 2 3 4 5))
          (cp-count-error (l6 1 2 3 4 5)) (cp-count-error (l6 1 2 3 4 5 6 7))
          (cp-count-error ((lambda (a b c d) (list a b c d)) 1 2 3))))
  (t t t t t))

(deftest local-calls-five-closing-over
  (let ((k 100))
    (flet ((l5 (a b c d e) (+ a b c d e k)))
      (list (l5 1 2 3 4 5) (progn (setq k 0) (l5 1 2 3 4 5)))))
  (115 15))

;;; ---- FUNCALL of a function object ----

(deftest funcall-direct-arities
  (list (funcall (lambda () :zero)) (funcall (lambda (a) a) 1) (funcall #'cp-f4 1 2 3 4)
        (funcall #'cp-f6 1 2 3 4 5 6) (funcall #'cp-f7 1 2 3 4 5 6 7)
        (funcall 'cp-f4 1 2 3 4) (funcall #'+ 1 2 3 4 5 6))
  (:zero 1 (1 2 3 4) (1 2 3 4 5 6) (1 2 3 4 5 6 7) (1 2 3 4) 21))

(deftest funcall-lambda-lists
  (list (funcall (lambda (&rest r) r)) (funcall (lambda (&rest r) r) 1 2 3)
        (funcall (lambda (a &optional (b :b b-p)) (list a b b-p)) 1)
        (funcall (lambda (a &optional (b :b b-p)) (list a b b-p)) 1 2)
        (funcall (lambda (&key x (y :y)) (list x y)) :y 2 :x 1)
        (funcall (lambda (a &rest r &key x &allow-other-keys) (list a r x)) 0 :z 1 :x 2))
  (nil (1 2 3) (1 :b nil) (1 2 t) (1 2) (0 (:z 1 :x 2) 2)))

(deftest funcall-wrong-counts
  (list (cp-count-error (funcall (lambda (a) a)))
        (cp-count-error (funcall (lambda (a) a) 1 2))
        (cp-count-error (funcall #'cp-f4 1 2 3))
        (cp-count-error (funcall (lambda (a &optional b) (list a b)) 1 2 3))
        (cp-count-error (funcall (lambda (&key x) x) :x))
        (cp-error-text (lambda () (funcall #'cp-f5 1 2))))
  (t t t t t "invalid number of arguments to CP-F5: 2"))

(deftest funcall-of-non-functions
  (list (signals-error (funcall 5 1 2) type-error)
        (signals-error (funcall "f" 1) type-error)
        (signals-error (funcall 'cp-no-such-function 1) undefined-function)
        (signals-error (funcall 'when t) undefined-function))
  (t t t t))

(deftest funcall-arguments-in-order
  (let ((log '()))
    (flet ((note (x) (push x log) x))
      (list (funcall (progn (note :f) #'list) (note 1) (note 2) (note 3)) (reverse log))))
  ((1 2 3) (:f 1 2 3)))

(deftest funcall-closures-and-recursion
  (let ((k 1))
    (labels ((fact (n) (if (<= n 1) k (* n (funcall #'fact (1- n))))))
      (list (funcall #'fact 5) (progn (setq k 2) (funcall #'fact 5))
            (funcall (let ((m 3)) (lambda (x) (* x m))) 7))))
  (120 240 21))

(deftest funcall-generic-function
  (progn (defgeneric cp-gf (a b))
         (defmethod cp-gf ((a integer) b) (list :int a b))
         (defmethod cp-gf (a b) (list :t a b))
         (list (funcall #'cp-gf 1 2) (funcall #'cp-gf "x" 2) (cp-count-error (funcall #'cp-gf 1))))
  ((:int 1 2) (:t "x" 2) t))

(deftest apply-spread-lists
  (list (apply #'cp-f4 1 2 '(3 4)) (apply #'cp-f6 '(1 2 3 4 5 6)) (apply (lambda (&rest r) r) 1 2 nil)
        (apply #'+ 1 2 '(3)) (cp-count-error (apply #'cp-f4 '(1 2 3)))
        (signals-error (apply #'list 1 2) type-error)
        (apply (lambda (a &key b) (list a b)) 1 '(:b 2)))
  ((1 2 3 4) (1 2 3 4 5 6) (1 2) 6 t t (1 2)))

;;; ---- multiple values through the changed paths ----

(defun cp-vals4 (a b c d) (values a b c d))
(deftest multiple-values-through-calls
  (list (multiple-value-list (cp-vals4 1 2 3 4))
        (multiple-value-list (funcall #'cp-vals4 1 2 3 4))
        (multiple-value-list (funcall (lambda (a) (values a (1+ a))) 1))
        (multiple-value-list (funcall (lambda () (values))))
        (multiple-value-call #'list (funcall #'cp-vals4 1 2 3 4) (values 5 6))
        (multiple-value-bind (a b) (flet ((two (a b c d) (values (+ a b) (+ c d)))) (two 1 2 3 4))
          (list a b))
        (multiple-value-list (multiple-value-prog1 (funcall #'cp-vals4 1 2 3 4) (cp-f4 5 6 7 8)))
        (multiple-value-list (let ((x 1)) (values x (setq x 2) x)))
        (multiple-value-list (let ((x (floor 7 2))) x))
        (multiple-value-list (let ((x 3)) (floor x 2))))
  ((1 2 3 4) (1 2 3 4) (1 2) () (1 2 3 4 5 6) (3 7) (1 2 3 4) (1 2 2) (3) (1 1)))

(deftest single-value-of-arguments
  ;; a multiple-valued argument passes its first value only
  (list (cp-f4 (floor 7 2) (values) (values 1 2) (cp-vals4 :a :b :c :d))
        (funcall #'cp-f4 (floor 7 2) (values) (values 1 2) (cp-vals4 :a :b :c :d)))
  ((3 nil 1 :a) (3 nil 1 :a)))

;;; ---- assignments and one-variable LET ----

(deftest assignments-in-frame-and-outer
  (let ((a 1))
    (let ((f (lambda (x) (setq a (+ a x)))))
      (let ((b 10))
        (setq b (+ b 1))
        (list (funcall f 5) a b (setq b (funcall f 1)) b))))
  (6 6 11 7 7))

(deftest one-variable-let
  (list (let ((x 1)) (let ((x (+ x 1))) (list x)))
        (let ((x)) x)
        (let* ((y 2)) (* y y))
        (let ((n 0)) (dolist (e '(1 2 3) n) (let ((sq (* e e))) (setq n (+ n sq))))))
  ((2) nil 4 14))

(defun cp-let1-error (x) (let ((y (* x 2))) (car y)))
(deftest one-variable-let-locals-in-backtrace
  (let ((frames (block nil
                  (handler-bind ((error (lambda (c) (declare (ignore c))
                                          (return (sys::%backtrace-locals 40)))))
                    (cp-let1-error 4)))))
    (cdr (find 'cp-let1-error frames :key #'caar)))
  ((x . 4) (y . 8)))

;;; ---- backtraces through the direct call records ----

(defun cp-bt-inner (a b c d e) (declare (ignore a b c d)) (car e))
(defun cp-bt-middle (x) (let ((k (1+ x))) (cp-bt-inner x k :c :d x)))
(defun cp-bt-outer (n) (funcall #'cp-bt-middle n))

(defun cp-backtrace-of (thunk)
  "The frames of the backtrace when THUNK signals an error, from the erring CAR out."
  (block nil
    (handler-bind ((error (lambda (c) (declare (ignore c))
                            (let ((frames (sys::%backtrace 40)))
                              (return (subseq frames (position 'car frames :key #'car)))))))
      (funcall thunk))))

(deftest backtrace-through-five-arguments-and-funcall
  (subseq (cp-backtrace-of (lambda () (cp-bt-outer 3))) 0 4)
  ((car 3) (cp-bt-inner 3 4 :c :d 3) (cp-bt-middle 3) (cp-bt-outer 3)))

(deftest backtrace-locals-through-direct-calls
  (let ((frames (block nil
                  (handler-bind ((error (lambda (c) (declare (ignore c))
                                          (return (sys::%backtrace-locals 40)))))
                    (cp-bt-outer 3)))))
    (list (cdr (find 'cp-bt-middle frames :key #'caar))
          (car (find 'cp-bt-inner frames :key #'caar))))
  (((x . 3) (k . 4)) (cp-bt-inner 3 4 :c :d 3)))

(deftest backtrace-through-local-five-argument-call
  (flet ((inner (a b c d e) (declare (ignore a b c d)) (car e)))
    (flet ((outer (x) (list (funcall #'inner 1 2 3 4 x))))
      (subseq (cp-backtrace-of (lambda () (outer 7))) 0 3)))
  ((car 7) (inner 1 2 3 4 7) (outer 7)))

;; the record chain is intact after non-local exits out of direct calls
(defun cp-thrower (a b c d) (declare (ignore a b c)) (throw :cp d))
(deftest backtrace-after-non-local-exits
  (progn (dotimes (i 3) (catch :cp (funcall #'cp-thrower 1 2 3 i)))
         (block out (flet ((f (a b c d e) (declare (ignore a b c d)) (return-from out e))) (f 1 2 3 4 5)))
         (subseq (cp-backtrace-of (lambda () (cp-bt-outer 2))) 0 4))
  ((car 2) (cp-bt-inner 2 3 :c :d 2) (cp-bt-middle 2) (cp-bt-outer 2)))

;;; ---- tests and CAR/CDR of a variable of the current frame, read in place ----

(defun cp-var-tests (x)
  (list (if (null x) :null :not-null) (if (consp x) :cons :not-cons) (if (atom x) :atom :not-atom)
        (if (not (consp x)) :not-cons :cons) (if x :true :false)
        (handler-case (if (endp x) :end :not-end) (type-error () :type-error))
        (handler-case (car x) (type-error () :type-error))
        (handler-case (cdr x) (type-error () :type-error))))

(deftest variable-tests-in-place
  (list (cp-var-tests nil) (cp-var-tests '(1 . 2)) (cp-var-tests 5))
  ((:null :not-cons :atom :not-cons :false :end nil nil)
   (:not-null :cons :not-atom :cons :true :not-end 1 2)
   (:not-null :not-cons :atom :not-cons :true :type-error :type-error :type-error)))

(deftest variable-tests-of-let-and-closed-over-variables
  (list (let ((y '(a b))) (list (if (null y) :n :nn) (car y) (cdr y)))
        (let ((z nil)) (funcall (lambda () (list (if (null z) :n :nn) (car z) (if (consp z) :c :nc)))))
        (let ((w '(1))) (setq w (cdr w)) (if (endp w) :end :more)))
  ((:nn a (b)) (:n nil :nc) :end))

(defun cp-bt-car-var (x) (car x))
(deftest backtrace-of-car-of-a-variable
  (subseq (cp-backtrace-of (lambda () (cp-bt-car-var 9))) 0 2)
  ((car 9) (cp-bt-car-var 9)))
