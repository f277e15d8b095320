;;;; selfloop.lisp: functions whose body is a tree of tests of their variables with self tail calls
;;;; of simple arguments among its leaves run their rounds as one C loop (nodes-loop.c,
;;;; ev_self_loop). Every test the loop makes in place, plain and under NOT, against the general
;;;; call of the predicate on values of every kind; leaves of every kind; arguments that cannot be
;;;; read in place; redefinitions (of the function between and during calls, of NULL and CDR while
;;;; it loops); errors, backtraces, throws through UNWIND-PROTECT, TRACE and deep recursion.

(in-package :cl-user)

(defun sl-outcome (thunk)
  "The values THUNK returns as a list, or (:ERROR type datum) for the error it signals."
  (handler-case (multiple-value-list (funcall thunk))
    (type-error (c) (list :error 'type-error (type-error-datum c)))
    (program-error () (list :error 'program-error))
    (error (c) (list :error (type-of c)))))

(defparameter *sl-values*
  (list 0 1 -1 2 7 most-positive-fixnum most-negative-fixnum (1+ most-positive-fixnum) 1/2 1.5 -2.5d0
        :k 'sym nil t (list 1) (cons 1 2) "s" #\a))

;;; ---- every test of one variable, plain and under NOT ----
;;; (name (l x) (cond ((P x) (list :yes x)) ((null l) :end) (t (name (cdr l) (car l))))): the test
;;; reads X in place, the self tail call takes CDR and CAR; the reference calls P by FUNCALL, so it
;;; is no loop.

(defun sl-reference1 (p negate l x)
  (cond ((if negate (not (funcall p x)) (funcall p x)) (list :yes x))
        ((null l) :end)
        (t (sl-reference1 p negate (cdr l) (car l)))))

(defparameter *sl-tests1* '(null consp atom listp symbolp numberp endp zerop plusp minusp))

(defun sl-loop1-name (p negate) (intern (format nil "SL-LOOP1-~:[~;NOT-~]~A" negate p)))

(dolist (p *sl-tests1*)
  (dolist (negate '(nil t))
    (let ((name (sl-loop1-name p negate)))
      (eval `(defun ,name (l x)
               (cond (,(if negate `(not (,p x)) `(,p x)) (list :yes x))
                     ((null l) :end)
                     (t (,name (cdr l) (car l)))))))))

(defun sl-disagreements1 ()
  "Each (predicate negate value loop reference) where the loop and the reference differ: the value
alone, and the value as the third element of a list walked round by round."
  (let ((bad '()))
    (dolist (p *sl-tests1* (nreverse bad))
      (dolist (negate '(nil t))
        (let ((f (sl-loop1-name p negate)))
          (dolist (v *sl-values*)
            (dolist (args (list (list nil v) (list (list :a v :b) :start)))
              (let ((got (sl-outcome (lambda () (apply f args))))
                    (want (sl-outcome (lambda () (apply #'sl-reference1 p negate args)))))
                (unless (equal got want) (push (list p negate v got want) bad))))))))))

(deftest self-loop-tests-of-one-variable-agree-with-the-predicates
  (sl-disagreements1)
  nil)

;; a few answers written out, so that loop and reference cannot both be wrong the same way
(deftest self-loop-tests-of-one-variable-answers
  (list (sl-loop1-null '(1 2 nil 3) :start) (sl-loop1-not-consp '((1) (2) 3) '(0))
        (sl-loop1-endp '((1) (2) nil) '(0)) (sl-outcome (lambda () (sl-loop1-endp '(1 2) 5)))
        (sl-loop1-zerop '(3 2 0 1) 9) (sl-outcome (lambda () (sl-loop1-zerop '(3 :x 0) 9)))
        (sl-loop1-plusp '(-1 0 2) -5) (sl-loop1-not-minusp '(-1 -2 -3) -4))
  ((:yes nil) (:yes 3) (:yes nil) (:error type-error 5) (:yes 0) (:error type-error :x) (:yes 2) :end))

;;; ---- every test of two variables, or a variable and a constant ----

(defun sl-reference2 (p negate l x y)
  (cond ((if negate (not (funcall p x y)) (funcall p x y)) (list :yes x y))
        ((null l) :end)
        (t (sl-reference2 p negate (cdr l) (car l) y))))

(defparameter *sl-tests2* '(eq eql < > <= >= = /=))

(defun sl-loop2-name (p negate constant)
  (intern (format nil "SL-LOOP2-~:[~;NOT-~]~A~:[~;-K~]" negate p constant)))

(dolist (p *sl-tests2*)
  (dolist (negate '(nil t))
    (dolist (constant '(nil t))
      (let* ((name (sl-loop2-name p negate constant))
             (test (if constant `(,p x 7) `(,p x y))))
        (eval `(defun ,name (l x y)
                 (cond (,(if negate `(not ,test) test) (list :yes x y))
                       ((null l) :end)
                       (t (,name (cdr l) (car l) y)))))))))

(defun sl-disagreements2 ()
  (let ((bad '()))
    (dolist (p *sl-tests2* (nreverse bad))
      (dolist (negate '(nil t))
        (dolist (constant '(nil t))
          (let ((f (sl-loop2-name p negate constant)))
            (dolist (x *sl-values*)
              (dolist (y (if constant '(7) *sl-values*))
                (let ((got (sl-outcome (lambda () (funcall f (list :a x) :start y))))
                      (want (sl-outcome (lambda () (sl-reference2 p negate (list :a x) :start y)))))
                  (unless (equal got want) (push (list p negate constant x y got want) bad)))))))))))

(deftest self-loop-tests-of-two-variables-agree-with-the-predicates
  (sl-disagreements2)
  nil)

(deftest self-loop-tests-of-two-variables-answers
  (list (sl-loop2-< '(9 8 3 1) 10 5) (sl-loop2-not->=-k '(9 8 3 1) 10 0)
        (sl-loop2-eql '(1.5 2.5) 0 2.5) (sl-loop2-eql (list 1 (expt 2 70)) 0 (expt 2 70))
        (sl-outcome (lambda () (sl-loop2-< '(9 :x) 5 3))) (sl-loop2-= '(1 2.0 3) 0 2)
        (sl-loop2-/=-k '(7 7 8) 7 nil))
  ((:yes 3 5) (:yes 3 0) (:yes 2.5 2.5) (:yes 1180591620717411303424 1180591620717411303424)
   (:error type-error :x) (:yes 2.0 2) (:yes 8 nil)))

;;; ---- (if var ...) and leaves of every kind ----

(defun sl-true (l x) (if x (list :yes x) (if (null l) :end (sl-true (cdr l) (car l)))))
(defun sl-leaves (l k)
  (cond ((null l) k)                          ; a variable
        ((eq k :const) 42)                    ; a constant
        ((eq k :values) (values 1 2 3))       ; a form returning several values
        ((eq k :none) (values))
        ((eq k :list) (list l k))             ; another form
        ((atom l) :dotted)
        (t (sl-leaves (cdr l) k))))
(defun sl-count (l n)
  (cond ((null l) n)
        ((eq (car l) :skip) (sl-count (cdr l) n))  ; a self tail call of simple arguments
        (t (sl-count (cdr l) (+ n 1)))))           ; one that is not: the general way, then looping on
(deftest self-loop-leaves
  (list (sl-true '(nil nil 3 nil) nil) (sl-true '(nil nil) nil)
        (sl-leaves '(1 2 3) :k) (sl-leaves '(1 2) :const)
        (multiple-value-list (sl-leaves '(1 2) :values)) (multiple-value-list (sl-leaves '(1) :none))
        (sl-leaves '(1 2) :list) (sl-leaves '(1 2 . 3) :k)
        (sl-count '(a :skip b :skip :skip c) 0)
        (multiple-value-list (funcall #'sl-leaves '(x) :values))
        (multiple-value-list (apply #'sl-leaves '((y z) :values)))
        (mapcar #'sl-leaves '((1) (2 3)) '(:const :k)))
  ((:yes 3) :end :k 42 (1 2 3) () ((1 2) :list) :dotted 3 (1 2 3) (1 2 3) (42 :k)))

;; arguments that are constants and variables as well as CAR and CDR, and a frame with more slots
;; than arguments (a LET in a leaf): the other slots are cleared each round
(defun sl-mixed (a b c)
  (cond ((null a) (let ((r (list b c))) r))
        ((eq b :swap) (sl-mixed (cdr a) c :swapped))
        (t (sl-mixed (cdr a) (car a) b))))
(deftest self-loop-mixed-arguments
  (list (sl-mixed '(1 2 3) 0 0) (sl-mixed '(1 :swap 3) 0 :c) (sl-mixed nil :b :c))
  ((3 2) (1 :swapped) (:b :c)))

;; a million rounds in constant stack, each argument read from the old parameters
(defun sl-shorter (a b) (cond ((null b) nil) ((null a) t) (t (sl-shorter (cdr a) (cdr b)))))
(defun sl-rotate (a b c l) (if (null l) (list a b c) (sl-rotate b c a (cdr l))))
(deftest self-loop-a-million-rounds
  (let ((long (make-list 1000000)))
    (list (sl-shorter long (cons 1 long)) (sl-shorter long long) (sl-rotate 1 2 3 long)
          (sl-rotate 1 2 3 (cdr long))))
  (t nil (2 3 1) (1 2 3)))

;;; ---- arguments that cannot be read in place: what CAR and CDR signal, and the backtrace ----

(defun sl-cdrs (a b) (cond ((null b) (list :end a)) (t (sl-cdrs (cdr a) (cdr b)))))
(defun sl-cars (a n) (cond ((null n) a) (t (sl-cars (car a) (cdr n)))))
(deftest self-loop-cdr-and-car-of-non-lists
  (list (sl-outcome (lambda () (sl-cdrs '(1 2 . 3) '(a b c d))))
        (sl-outcome (lambda () (sl-cdrs '(1) '(a b c))))
        (sl-outcome (lambda () (sl-cdrs 5 '(a))))
        (sl-outcome (lambda () (sl-cars '((((1)))) '(a b c))))
        (sl-outcome (lambda () (sl-cars '((2)) '(a b c)))))
  ((:error type-error 3) ((:end nil)) (:error type-error 5) ((1)) (:error type-error 2)))

(defun sl-bt (a b) (cond ((null b) (error "sl-bt at ~S" a)) (t (sl-bt (cdr a) (cdr b)))))
(deftest self-loop-backtrace-of-an-error-inside
  (block nil
    (handler-bind ((error (lambda (c) (declare (ignore c))
                            (let ((frames (sys::%backtrace 40)))
                              (return (list (find 'cdr frames :key #'car)
                                            (find 'sl-bt frames :key #'car)))))))
      (sl-bt '(1 2 . 3) '(a b c d e))))
  ((cdr 3) (sl-bt 3 (c d e))))

(deftest self-loop-backtrace-of-an-error-in-a-leaf
  (block nil
    (handler-bind ((error (lambda (c) (declare (ignore c))
                            (let ((frames (sys::%backtrace 40)))
                              (return (list (count 'sl-bt frames :key #'car)
                                            (find 'sl-bt frames :key #'car)))))))
      (sl-bt '(1 2 3) '(a b))))
  (1 (sl-bt (3) nil)))

;;; ---- redefinitions ----

(defun sl-walk (l) (if (null l) :old (sl-walk (cdr l))))
(deftest self-loop-redefined-between-calls
  (let ((before (sl-walk '(1 2 3))))
    (eval '(defun sl-walk (l) (if (null l) :new (sl-walk (cdr l)))))
    (list before (sl-walk '(1 2 3)) (sl-walk nil)))
  (:old :new :new))

;; called under another name, the function it names is redefined: the next round calls the new one
(defun sl-named (l) (if (null l) :named-old (sl-named (cdr l))))
(deftest self-loop-through-another-name
  (progn
    (setf (fdefinition 'sl-alias) #'sl-named)
    (let ((first (funcall 'sl-alias '(1 2))))
      (eval '(defun sl-named (l) (list :named-new l)))
      (list first (funcall 'sl-alias '(1 2)) (funcall 'sl-alias nil))))
  (:named-old (:named-new (2)) :named-old))

;; a leaf redefines the function and calls it by name
(defun sl-redef (l n)
  (cond ((null l) (list :old n))
        ((eq (car l) :redefine)
         (eval '(defun sl-redef (l n) (list :new l n)))
         (sl-redef (cdr l) n))
        (t (sl-redef (cdr l) n))))
(deftest self-loop-redefined-by-a-leaf
  (sl-redef '(a :redefine b c) 0)
  (:new (b c) 0))

;; a local function of the name calls the global one: no loop in the local function's frame
(defun sl-local (l) (if (null l) :global (sl-local (cdr l))))
(deftest self-loop-of-a-local-function-of-the-name
  (flet ((sl-local (l) (if (null l) :local (sl-local (cdr l)))))
    (list (sl-local nil) (sl-local '(1 2))))
  (:local :global))

(defvar *sl-count* 0)
(defmacro sl-with-counting ((name) &body body)
  "Run BODY while NAME counts its calls in *SL-COUNT*, then restore NAME."
  (let ((orig (gensym)))
    `(let ((,orig (fdefinition ',name)))
       (unwind-protect
            (progn
              (tinycl:without-package-locks
                (setf (fdefinition ',name) (lambda (x) (incf *sl-count*) (funcall ,orig x))))
              ,@body)
         (tinycl:without-package-locks (setf (fdefinition ',name) ,orig))))))
(deftest self-loop-sees-null-and-cdr-redefined
  (list (let ((*sl-count* 0)) (list (sl-with-counting (null) (sl-shorter '(1 2 3) '(1 2 3 4))) *sl-count*))
        (let ((*sl-count* 0)) (list (sl-with-counting (cdr) (sl-shorter '(1 2 3) '(1 2 3 4))) (>= *sl-count* 6)))
        (let ((*sl-count* 0)) (list (sl-with-counting (car) (sl-cars '((((1)))) '(a b c))) (>= *sl-count* 3)))
        (sl-shorter '(1 2 3) '(1 2 3 4)))
  ((t 8) (t t) ((1) t) t))

;; a wrong argument count is never a loop
(defun sl-wrong (a b) (if (null a) b (sl-wrong (cdr a))))
(deftest self-loop-wrong-argument-count
  (list (sl-wrong nil 1) (sl-outcome (lambda () (sl-wrong '(1) 1))))
  (1 (:error program-error)))

;;; ---- exits, TRACE, deep recursion ----

(defvar *sl-cleaned* nil)
(defun sl-throw (l) (cond ((null l) (throw :sl (values :thrown 2))) ((atom l) (return-from sl-throw :dotted))
                          (t (sl-throw (cdr l)))))
(deftest self-loop-throw-through-unwind-protect
  (let ((*sl-cleaned* nil))
    (list (multiple-value-list (catch :sl (unwind-protect (sl-throw '(1 2 3)) (setq *sl-cleaned* :cleaned))))
          *sl-cleaned* (sl-throw '(1 . 2))))
  ((:thrown 2) :cleaned :dotted))

(defun sl-traced (l) (if (null l) :end (sl-traced (cdr l))))
(deftest self-loop-trace-shows-every-call
  (let ((out (with-output-to-string (*trace-output*)
               (trace sl-traced)
               (unwind-protect (sl-traced '(a b c)) (untrace sl-traced)))))
    (list (count #\Newline out) (and (search "(SL-TRACED NIL)" out) t) (sl-traced '(x))))
  (8 t :end))

;; a leaf that recurses without end: the stack's limit is a clean error
(defun sl-deep (l n) (cond ((null l) (list (sl-deep n n))) (t (sl-deep (cdr l) n))))
(deftest self-loop-deep-recursion-is-an-error
  (handler-case (sl-deep '(1 2) '(1 2)) (storage-condition () :exhausted))
  :exhausted)
