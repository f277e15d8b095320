;;;; fastpath.lisp: the evaluator's fast paths compute what the general paths compute: fused
;;;; tests (an IF deciding from a predicate's C boolean), inline primitives, calls specialised by
;;;; argument count (wrong counts, lambda-list boundaries, redefinition while running,
;;;; backtraces after errors in them).

(in-package :cl-user)

;;; ---- fused tests ----

(defun fp-outcome (thunk)
  "What calling THUNK gives: its values as a list, or (:error TYPE)."
  (handler-case (multiple-value-list (funcall thunk))
    (error (c) (list :error (type-of c)))))

(defparameter *fp-values*
  (list 0 1 -1 7 most-positive-fixnum most-negative-fixnum (1+ most-positive-fixnum)
        (1- most-negative-fixnum) 1/2 -3/4 0.0 1.5 -2.5d0 #c(1 2) nil t :k 'sym "str" #\a
        (list 1 2) (cons 1 2) (vector 1)))

(defparameter *fp-predicates-1* '(null not consp atom listp symbolp numberp endp zerop plusp minusp))
(defparameter *fp-predicates-2* '(eq eql < > <= >= = /=))

(defun fp-disagreements-1 (pred)
  "Each value on which the fused forms of (PRED X) decide otherwise than calling PRED."
  (let ((fused (eval `(lambda (x) (if (,pred x) :yes :no))))
        (negated (eval `(lambda (x) (if (not (,pred x)) :no :yes))))
        (in-cond (eval `(lambda (x) (cond ((,pred x) :yes) (t :no)))))
        (constant-args (lambda (x) (eval `(if (,pred ',x) :yes :no))))
        (bad '()))
    (dolist (x *fp-values* bad)
      (let ((want (fp-outcome (lambda () (if (funcall pred x) :yes :no)))))
        (dolist (f (list fused negated in-cond constant-args))
          (unless (equal (fp-outcome (lambda () (funcall f x))) want)
            (push (list pred x want (fp-outcome (lambda () (funcall f x)))) bad)))))))

(defun fp-disagreements-2 (pred)
  (let ((fused (eval `(lambda (x y) (if (,pred x y) :yes :no))))
        (negated (eval `(lambda (x y) (if (not (,pred x y)) :no :yes))))
        (in-when (eval `(lambda (x y) (or (when (,pred x y) :yes) :no))))
        (in-unless (eval `(lambda (x y) (or (unless (,pred x y) :no) :yes))))
        (bad '()))
    (dolist (x *fp-values* bad)
      (dolist (y *fp-values*)
        (let ((want (fp-outcome (lambda () (if (funcall pred x y) :yes :no)))))
          (dolist (f (list fused negated in-when in-unless))
            (unless (equal (fp-outcome (lambda () (funcall f x y))) want)
              (push (list pred x y want (fp-outcome (lambda () (funcall f x y)))) bad))))))))

(deftest fused-one-argument-predicates
  (mapcan #'fp-disagreements-1 *fp-predicates-1*) nil)
(deftest fused-two-argument-predicates
  (mapcan #'fp-disagreements-2 *fp-predicates-2*) nil)

;; the errors the general call signals, from the fused forms
(deftest fused-lt-type-error (signals-error (if (< 1 'a) :yes :no) type-error) t)
(deftest fused-gt-type-error (let ((x "s")) (signals-error (if (> x 1) :yes :no) type-error)) t)
(deftest fused-endp-type-error (let ((x 5)) (signals-error (if (endp x) :yes :no) type-error)) t)
(deftest fused-zerop-type-error (let ((x 'a)) (signals-error (if (zerop x) :yes :no) type-error)) t)
(deftest fused-not-of-lt-type-error (let ((x 'a)) (signals-error (if (not (< x 1)) :yes :no) type-error)) t)
(deftest fused-numbers-beyond-fixnums
  (let ((big (1+ most-positive-fixnum)) (r 1/3) (f 0.5))
    (list (if (< most-positive-fixnum big) :yes :no) (if (= r 1/3) :yes :no) (if (< f 1) :yes :no)
          (if (= 1 1.0) :yes :no) (if (eql 1 1.0) :yes :no) (if (eql big (1+ most-positive-fixnum)) :yes :no)
          (if (zerop 0.0) :yes :no) (if (plusp r) :yes :no) (if (minusp (- big)) :yes :no)))
  (:yes :yes :yes :yes :no :yes :yes :yes :yes))

;; the test's arguments are evaluated once each, left to right
(deftest fused-argument-order
  (let ((log '()))
    (if (< (progn (push 1 log) 1) (progn (push 2 log) 2)) (push :then log) (push :else log))
    (if (not (eq (progn (push 3 log) 'a) (progn (push 4 log) 'b))) (push :then log) (push :else log))
    (reverse log))
  (1 2 :then 3 4 :then))

;; a non-boolean value as the test
(deftest if-on-a-variable
  (mapcar (lambda (x) (if x :yes :no)) (list nil t 0 "" '() (list nil) #\a))
  (:no :yes :yes :yes :no :yes :yes))

;; multiple values pass through a fused IF from either branch, and none or one from the test
(deftest fused-multiple-values
  (let ((a 1) (b 2))
    (list (multiple-value-list (if (< a b) (values 1 2 3) 4))
          (multiple-value-list (if (> a b) 4 (values)))
          (multiple-value-list (if (not (< a b)) (values 5 6) (floor 7 2)))
          (multiple-value-list (if (null a) (values 1 2)))
          (multiple-value-list (if a (truncate 9 4) 0))
          (multiple-value-list (values (if (eq a 1) (floor 7 2) 0)))))
  ((1 2 3) () (3 1) (nil) (2 1) (3)))

;; a test that transfers control
(deftest fused-test-exits
  (list (block b (if (< (return-from b :out) 2) :yes :no))
        (catch 'c (if (null (throw 'c :thrown)) :yes :no))
        (block b (if (not (consp (return-from b :out2))) :yes :no)))
  (:out :thrown :out2))

;;; ---- inline primitives ----

(defun fp-agrees (fn-name &rest args)
  "The inline form of (FN-NAME . ARGS), with the arguments in variables, gives what calling it does."
  (let* ((vars (loop for nil in args collect (gensym)))
         (inline (eval `(lambda ,vars (,fn-name ,@vars)))))
    (equal (fp-outcome (lambda () (apply inline args)))
           (fp-outcome (lambda () (apply fn-name args))))))

(deftest inline-arithmetic
  (let ((bad '()))
    (dolist (x *fp-values* bad)
      (dolist (f '(1+ 1- car cdr cadr cddr caar cdar first second rest))
        (unless (fp-agrees f x) (push (list f x) bad)))
      (dolist (y *fp-values*)
        (dolist (f '(+ - * mod))
          (unless (fp-agrees f x y) (push (list f x y) bad)))
        (unless (fp-agrees '+ x y 1) (push (list '+ x y 1) bad))
        (unless (fp-agrees '+ 1 x y) (push (list '+ 1 x y) bad)))))
  nil)

(deftest inline-overflow
  (let ((m most-positive-fixnum) (n most-negative-fixnum) (big (expt 2 40)))
    (list (= (1+ m) (+ m 1)) (integerp (1+ m)) (= (1- n) (- n 1)) (typep (1- n) 'bignum)
          (= (* big big) (expt 2 80)) (= (* m 2) (+ m m)) (= (* n -1) (- n)) (= (* m m) (expt m 2))
          (= (+ m m m) (* 3 m)) (= (+ n n 1) (1+ (* 2 n)))
          (mod -7 3) (mod 7 -3) (mod 6 3) (mod -6 3) (mod 7.5 2) (mod n 7) (mod (* 3 m) m)))
  (t t t t t t t t t t 2 -2 0 0 1.5 #.(mod most-negative-fixnum 7) 0))

(deftest inline-errors
  (let ((five 5) (s "x"))
    (list (signals-error (car five) type-error) (signals-error (cadr (list* 1 2)) type-error)
          (signals-error (1+ s) type-error) (signals-error (* s 2) type-error)
          (signals-error (mod 5 0) division-by-zero) (signals-error (mod five s) type-error)
          (signals-error (+ 1 2 s) type-error)))
  (t t t t t t t))

;;; ---- calls specialised by argument count ----

(defun fp-f0 () :zero)
(defun fp-f1 (a) (list a))
(defun fp-f2 (a b) (list a b))
(defun fp-f3 (a b c) (list a b c))
(defun fp-f4 (a b c d) (list a b c d))

(defmacro fp-count-error (form) `(signals-error ,form program-error))

(deftest specialised-calls-right-counts
  (list (fp-f0) (fp-f1 1) (fp-f2 1 2) (fp-f3 1 2 3) (fp-f4 1 2 3 4))
  (:zero (1) (1 2) (1 2 3) (1 2 3 4)))

(deftest specialised-calls-wrong-counts
  (list (fp-count-error (fp-f0 1)) (fp-count-error (fp-f1)) (fp-count-error (fp-f1 1 2))
        (fp-count-error (fp-f2 1)) (fp-count-error (fp-f2 1 2 3)) (fp-count-error (fp-f3))
        (fp-count-error (fp-f3 1 2)) (fp-count-error (fp-f3 1 2 3 4)) (fp-count-error (fp-f4 1 2 3)))
  (t t t t t t t t t))

(defun fp-opt (a &optional (b :b b-p)) (list a b b-p))
(defun fp-rest (a b &rest r) (list a b r))
(defun fp-key (a &key (x :x) y) (list a x y))
(defun fp-opt-key (&optional a &key b) (list a b))

(deftest specialised-calls-lambda-list-boundaries
  (list (fp-opt 1) (fp-opt 1 2) (fp-count-error (fp-opt)) (fp-count-error (fp-opt 1 2 3))
        (fp-rest 1 2) (fp-rest 1 2 3) (fp-count-error (fp-rest 1)) (fp-count-error (fp-rest))
        (fp-key 1) (fp-key 1 :x 2) (fp-key 1 :y 3 :x 2) (fp-count-error (fp-key))
        (signals-error (fp-key 1 :x) program-error) (signals-error (fp-key 1 :z 2) program-error)
        (fp-opt-key) (fp-opt-key 1) (fp-opt-key 1 :b 2))
  ((1 :b nil) (1 2 t) t t (1 2 nil) (1 2 (3)) t t (1 :x nil) (1 2 nil) (1 2 3) t t t
   (nil nil) (1 nil) (1 2)))

;; more local variables than a specialised call's fixed frame holds
(defun fp-many-locals (a b)
  (let ((c (+ a b)) (d (* a b)) (e (- a b)) (f (1+ a)) (g (1+ b)) (h 8) (i 9) (j 10))
    (list a b c d e f g h i j)))
(deftest specialised-call-large-frame (fp-many-locals 3 2) (3 2 5 6 1 4 3 8 9 10))

;; parameters captured by a closure (a heap frame)
(defun fp-capture (a b) (lambda () (list a b)))
(deftest specialised-call-heap-frame (funcall (fp-capture 1 2)) (1 2))

;; a function redefined while a call of it is being made or running
(defun fp-redef (x) (list :old x))
(deftest redefined-by-an-argument
  (fp-redef (progn (defun fp-redef (x) (list :new x)) 1))
  (:new 1))

(defun fp-redef2 (x) (list :old x))
(deftest redefined-by-an-argument-to-other-arity
  (list (fp-count-error (fp-redef2 (progn (defun fp-redef2 (x y) (list x y)) 1)))
        (progn (defun fp-redef2 (x &optional y) (list :opt x y))
               (fp-redef2 (progn 1))))
  (t (:opt 1 nil)))

(defun fp-self-redef (n)
  (if (= n 0)
      (progn (defun fp-self-redef (n) (list :replaced n)) :bottom)
      (list n (fp-self-redef (1- n)))))
(deftest redefined-while-running
  (list (fp-self-redef 2) (fp-self-redef 5))
  ((2 (1 :bottom)) (:replaced 5)))

(defun fp-to-macro (x) x)
(defun fp-calls-to-macro () (fp-to-macro 1))
(deftest call-of-a-function-become-macro
  (progn (setf (macro-function 'fp-to-macro) (lambda (form env) (declare (ignore env)) `(quote ,form)))
         (prog1 (signals-error (fp-calls-to-macro) undefined-function)
           (fmakunbound 'fp-to-macro)))
  t)

(defun fp-undefined-later (x) x)
(defun fp-calls-undefined () (fp-undefined-later 1))
(deftest call-of-a-function-made-unbound
  (progn (fmakunbound 'fp-undefined-later) (signals-error (fp-calls-undefined) undefined-function))
  t)

;; backtraces after an error in a specialised call show its frames and arguments
(defun fp-bt-inner (a b) (declare (ignore b)) (car a))
(defun fp-bt-middle (x) (list (fp-bt-inner x 2)))
(defun fp-bt-outer () (fp-bt-middle 5))
(defun fp-bt-3 (a b c) (+ a b c))

(defun fp-backtrace-of (thunk)
  "The frames of the backtrace when THUNK signals an error, from the erring call out."
  (block nil
    (handler-bind ((error (lambda (c) (declare (ignore c))
                            (let ((frames (sys::%backtrace 40)))
                              (return (subseq frames (position-if (lambda (f) (member (car f) '(car +)))
                                                                  frames)))))))
      (funcall thunk))))

(deftest backtrace-through-specialised-calls
  (let ((frames (fp-backtrace-of (lambda () (fp-bt-outer)))))
    (subseq frames 0 4))
  ((car 5) (fp-bt-inner 5 2) (fp-bt-middle 5) (fp-bt-outer)))

(deftest backtrace-three-arguments
  (let ((frames (fp-backtrace-of (lambda () (fp-bt-3 1 2 'x)))))
    (subseq frames 0 2))
  ((+ 1 2 x) (fp-bt-3 1 2 x)))

(deftest backtrace-locals-of-specialised-call
  (let ((frames (block nil
                  (handler-bind ((error (lambda (c) (declare (ignore c))
                                          (return (sys::%backtrace-locals 40)))))
                    (fp-many-locals 1 'x)))))
    (cdr (find 'fp-many-locals frames :key #'caar)))
  ((a . 1) (b . x)))

;;; ---- local functions and lambda forms, specialised the same way ----

(deftest local-calls-right-counts
  (labels ((l0 () :zero) (l1 (a) (list a)) (l2 (a b) (list a b)) (l3 (a b c) (list a b c))
           (count-down (n) (if (zerop n) '() (cons n (count-down (1- n))))))
    (list (l0) (l1 1) (l2 1 2) (l3 1 2 3) (count-down 3) ((lambda (a b) (+ a b)) 1 2)))
  (:zero (1) (1 2) (1 2 3) (3 2 1) 3))

(deftest local-calls-wrong-counts
  (flet ((l1 (a) a) (l2 (a b) (list a b)) (l3 (a b c) (list a b c)) (lo (a &optional b) (list a b)))
    (list (fp-count-error (l1)) (fp-count-error (l1 1 2)) (fp-count-error (l2 1))
          (fp-count-error (l3 1 2 3 4)) (fp-count-error (lo)) (fp-count-error (lo 1 2 3))
          (fp-count-error ((lambda (a) a))) (fp-count-error ((lambda (a) a) 1 2)) (lo 1)))
  (t t t t t t t t (1 nil)))

(deftest local-calls-closures
  (let ((k 10))
    (labels ((add (a) (+ a k)) (adder (a) (lambda (b) (+ a b k))))
      (list (add 1) (funcall (adder 1) 2) (progn (setq k 20) (add 1)))))
  (11 13 21))

(deftest backtrace-through-local-calls
  (flet ((inner (a b) (declare (ignore b)) (car a)))
    (flet ((outer (x) (list (inner x :b))))
      (subseq (fp-backtrace-of (lambda () (outer 7))) 0 3)))
  ((car 7) (inner 7 :b) (outer 7)))
