;;;; tailcalls.lisp: a global function's call of itself in tail position runs as a loop in its
;;;; own frame (nodes.c, ev_call_self_tailN): the same answers as a call, no stack growth, the
;;;; general path whenever the name no longer names the running function, TRACE and the
;;;; backtrace as SBCL shows them; specialised global calls after redefinitions; calls of seven
;;;; and more arguments.

(in-package :cl-user)

(defun tc-error-text (thunk)
  "The printed error THUNK signals, or :NO-ERROR."
  (handler-case (progn (funcall thunk) :no-error)
    (error (c) (princ-to-string c))))

;;; ---- answers and depth ----

(defun tc-count1 (n) (if (= n 0) :done (tc-count1 (1- n))))
(defun tc-sum2 (n acc) (if (= n 0) acc (tc-sum2 (1- n) (+ acc n))))
(defun tc-walk3 (a b n) (cond ((null a) (list :a n)) ((null b) (list :b n)) (t (tc-walk3 (cdr a) (cdr b) (1+ n)))))
(defun tc-six (a b c d e n) (if (= n 0) (list a b c d e) (tc-six b c d e a (1- n))))

;; a million calls deep: as calls these would exhaust the stack
(deftest self-tail-calls-run-in-constant-stack
  (list (tc-count1 1000000) (tc-sum2 1000000 0) (tc-six 1 2 3 4 5 1000001))
  (:done 500000500000 (2 3 4 5 1)))

(deftest self-tail-calls-through-cond-and-null
  (list (tc-walk3 '(1 2 3) '(1 2 3 4 5) 0) (tc-walk3 '(1 2 3 4) '(1 2) 0) (tc-walk3 nil nil 7))
  ((:a 3) (:b 2) (:a 7)))

;; every argument is evaluated from the old parameters before any is replaced
(defun tc-swap (a b n) (if (= n 0) (list a b) (tc-swap b a (1- n))))
(defun tc-order (a b n log)
  (if (= n 0)
      (reverse log)
      (tc-order (progn (push (list :a a) log) b) (progn (push (list :b b) log) a) (1- n) log)))
(deftest self-tail-call-arguments-read-the-old-parameters
  (list (tc-swap 1 2 3) (tc-swap 1 2 4) (tc-order :x :y 2 nil))
  ((2 1) (1 2) ((:a :x) (:b :y) (:a :y) (:b :x))))

;; the body's LET variables start unbound again on each round (a backtrace's locals must not show
;; the previous round's)
(defun tc-let (n acc)
  (let ((sq (* n n)))
    (setq acc (cons sq acc)))
  (if (= n 0) acc (tc-let (1- n) acc)))
(deftest self-tail-calls-with-let-in-the-body
  (tc-let 3 nil)
  (0 1 4 9))

;; multiple values of the last round come out of the loop
(defun tc-values (n) (if (= n 0) (values 1 2 3) (tc-values (1- n))))
(defun tc-no-values (n) (if (= n 0) (values) (tc-no-values (1- n))))
(deftest self-tail-calls-return-multiple-values
  (list (multiple-value-list (tc-values 5)) (multiple-value-list (tc-no-values 5))
        (multiple-value-list (funcall #'tc-values 3)) (multiple-value-list (apply #'tc-values '(2))))
  ((1 2 3) () (1 2 3) (1 2 3)))

;; not in tail position: ordinary calls with the same answers
(defun tc-not-tail (n) (if (= n 0) 0 (+ 1 (tc-not-tail (1- n)))))
(defun tc-in-let (n) (if (= n 0) :end (let ((m (1- n))) (tc-in-let m))))
(defun tc-in-list (n) (if (= n 0) nil (list n (tc-in-list (1- n)))))
(deftest self-calls-not-in-tail-position
  (list (tc-not-tail 100) (tc-in-let 100) (tc-in-list 3))
  (100 :end (3 (2 (1 nil)))))

;;; ---- when the name no longer names the running function ----

;; an argument redefines the function: the new definition gets the call
(defun tc-redef (n x)
  (if (= n 0) (list :old x) (tc-redef (1- n) (if (= n 2) (progn (defun tc-redef (a b) (list :new a b)) x) x))))
(deftest self-tail-call-redefined-by-an-argument
  (tc-redef 3 :x)
  (:new 1 :x))

;; the name now names another function (a different closure of the same code too)
(defun tc-make-counter (tag) (lambda (n) (if (= n 0) tag (funcall 'tc-named (1- n)))))
(defun tc-named (n) (if (= n 0) :original (tc-named (1- n))))
(deftest self-tail-call-of-a-name-rebound
  (let ((old #'tc-named))
    (unwind-protect
         (progn
           (setf (symbol-function 'tc-named) (tc-make-counter :counter))
           (list (funcall old 0) (funcall old 3) (tc-named 2)))
      (setf (symbol-function 'tc-named) old)))
  (:original :counter :counter))

(let ((calls 0))
  (defun tc-closure (n) (incf calls) (if (= n 0) calls (tc-closure (1- n)))))
(deftest self-tail-calls-of-a-closure
  (list (tc-closure 4) (tc-closure 0))
  (5 6))

;; a call with the wrong number of arguments is never a loop
(defun tc-wrong (a b) (if (null a) b (tc-wrong (cdr a))))
(deftest self-tail-call-with-a-wrong-count
  (list (tc-wrong nil 1) (tc-error-text (lambda () (tc-wrong '(1) 1))))
  (1 "invalid number of arguments to TC-WRONG: 1"))

;; a function with an &optional parameter, a local function, a lambda: ordinary calls
(defun tc-opt (n &optional (acc 0)) (if (= n 0) acc (tc-opt (1- n) (+ acc 2))))
(deftest self-tail-calls-of-other-functions
  (list (tc-opt 10)
        (labels ((down (n acc) (if (= n 0) acc (down (1- n) (cons n acc))))) (down 3 nil)))
  (20 (1 2 3)))

;;; ---- exits, TRACE and the backtrace ----

(defun tc-throw (n) (if (= n 0) (throw :tc :thrown) (tc-throw (1- n))))
(defun tc-unwind (n log)
  (if (= n 0)
      (throw :tc (reverse log))
      (unwind-protect (tc-unwind (1- n) (cons n log)) (push n *tc-cleanups*))))
(defvar *tc-cleanups* nil)
(deftest throws-out-of-self-tail-calls
  (list (catch :tc (tc-throw 1000))
        (progn (setq *tc-cleanups* nil) (catch :tc (tc-unwind 3 nil)))
        *tc-cleanups*
        (block out (tc-count1 (progn (return-from out :left) 5))))
  (:thrown (3 2 1) (3 2 1) :left))

(defun tc-err (n x) (if (= n 0) (car x) (tc-err (1- n) (1+ x))))
(deftest backtrace-of-self-tail-calls-shows-the-last-round
  (block nil
    (handler-bind ((error (lambda (c) (declare (ignore c))
                            (let ((frames (sys::%backtrace 40)))
                              (return (subseq frames (position 'car frames :key #'car) 
                                              (1+ (position 'tc-err frames :key #'car :from-end t))))))))
      (tc-err 3 10)))
  ((car 13) (tc-err 0 13)))

;; a traced function's name names the TRACE wrapper: every call goes through it and is shown
(defun tc-traced (n) (if (= n 0) :end (tc-traced (1- n))))
(deftest trace-shows-every-self-tail-call
  (let ((out (with-output-to-string (*trace-output*)
               (trace tc-traced)
               (unwind-protect (tc-traced 3) (untrace tc-traced)))))
    (list (count #\Newline out) (and (search "(TC-TRACED 0)" out) t) (tc-traced 2)))
  (8 t :end))

;;; ---- specialised global calls follow every redefinition of their callee ----

(defun tc-callee (x) (list :one x))
(defun tc-caller (x) (list (tc-callee x)))
(deftest specialised-call-follows-redefinitions
  (list (tc-caller 1) (tc-caller 2)
        (progn (defun tc-callee (x) (list :two x)) (tc-caller 3))
        (progn (defun tc-callee (x &optional y) (list :three x y)) (tc-caller 4))
        (progn (defun tc-callee (x y) (list :four x y))
               (handler-case (tc-caller 5) (program-error () :wrong-count)))
        (progn (fmakunbound 'tc-callee) (handler-case (tc-caller 6) (undefined-function () :undefined)))
        (progn (defun tc-callee (x) (list :five x)) (tc-caller 7)))
  (((:one 1)) ((:one 2)) ((:two 3)) ((:three 4 nil)) :wrong-count :undefined ((:five 7))))

;; the same closure made the expander of a macro of that name: no longer callable
(defun tc-macro-callee (x) (list x))
(defun tc-macro-caller (x) (tc-macro-callee x))
(deftest specialised-call-of-a-name-made-a-macro
  (list (tc-macro-caller 1)
        (let ((f #'tc-macro-callee))
          (setf (macro-function 'tc-macro-callee) f)
          (prog1 (handler-case (tc-macro-caller 2) (undefined-function () :undefined))
            (fmakunbound 'tc-macro-callee)
            (setf (symbol-function 'tc-macro-callee) f)))
        (tc-macro-caller 3))
  ((1) :undefined (3)))

;;; ---- seven and more arguments: global calls and local calls straight into the frame ----

(defun tc-g7 (a b c d e f g) (list a b c d e f g))
(defun tc-g9 (a b c d e f g h i) (declare (ignore b c d e f g h)) (list a i))
(deftest calls-of-seven-and-more-arguments
  (flet ((l7 (a b c d e f g) (list g f e d c b a))
         (l8 (a b c d e f g h) (+ a b c d e f g h)))
    (let ((log '()))
      (flet ((note (x) (push x log) x))
        (list (tc-g7 1 2 3 4 5 6 7) (tc-g9 1 2 3 4 5 6 7 8 9) (l7 1 2 3 4 5 6 7) (l8 1 2 3 4 5 6 7 8)
              ((lambda (a b c d e f g) (declare (ignore b c d e f)) (list a g)) 1 2 3 4 5 6 7)
              (l7 (note 1) (note 2) (note 3) (note 4) (note 5) (note 6) (note 7)) (reverse log)
              (multiple-value-list ((lambda (a b c d e f g) (values a b c d e f g)) 1 2 3 4 5 6 7))
              (apply #'tc-g7 1 2 '(3 4 5 6 7)) (apply #'l8 '(1 1 1 1 1 1 1 1))))))
  ((1 2 3 4 5 6 7) (1 9) (7 6 5 4 3 2 1) 36 (1 7) (7 6 5 4 3 2 1) (1 2 3 4 5 6 7) (1 2 3 4 5 6 7)
   (1 2 3 4 5 6 7) 8))

(deftest calls-of-seven-and-more-arguments-wrong-counts
  (flet ((l7 (a b c d e f g) (list a b c d e f g)))
    (list (tc-error-text (lambda () (tc-g7 1 2 3 4 5 6)))
          (tc-error-text (lambda () (tc-g7 1 2 3 4 5 6 7 8)))
          (tc-error-text (lambda () (tc-g9 1 2 3 4 5 6 7 8)))
          (handler-case (l7 1 2 3 4 5 6 7 8) (program-error () :wrong-count))
          (handler-case (l7 1 2 3 4 5 6) (program-error () :wrong-count))
          (handler-case (apply #'tc-g7 '(1 2 3 4 5 6 7 8)) (program-error () :wrong-count))))
  ("invalid number of arguments to TC-G7: 6" "invalid number of arguments to TC-G7: 8"
   "invalid number of arguments to TC-G9: 8" :wrong-count :wrong-count :wrong-count))

(deftest backtrace-through-a-local-seven-argument-call
  (flet ((inner (a b c d e f g) (declare (ignore a b c d e f)) (car g)))
    (block nil
      (handler-bind ((error (lambda (c) (declare (ignore c))
                              (let ((frames (sys::%backtrace 40)))
                                (return (subseq frames (position 'car frames :key #'car)
                                                (+ 2 (position 'car frames :key #'car))))))))
        (inner 1 2 3 4 5 6 7))))
  ((car 7) (inner 1 2 3 4 5 6 7)))
