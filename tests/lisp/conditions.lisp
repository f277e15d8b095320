;;;; conditions.lisp: tests of the condition system (CLHS chapter 9); expected values from SBCL.

(deftest handler-case-type-error
  (handler-case (car 1) (type-error (e) (list (type-error-datum e) (type-error-expected-type e))))
  (1 list))

(deftest handler-case-no-error
  (handler-case (values 1 2) (:no-error (a b) (list :ok a b)))
  (:ok 1 2))

(deftest handler-case-first-matching-clause
  (handler-case (error "x") (warning () :warning) (error () :error) (condition () :condition))
  :error)

(deftest ignore-errors-values
  (multiple-value-bind (v c) (ignore-errors (error "boom")) (list v (typep c 'simple-error)))
  (nil t))

(deftest handler-bind-declines-then-outer-handles
  (let ((log nil))
    (handler-case
        (handler-bind ((error (lambda (c) (declare (ignore c)) (push :inner log))))
          (error "x"))
      (error () (push :outer log)))
    (reverse log))
  (:inner :outer))

(deftest handlers-run-before-unwinding
  (let ((seen nil))
    (block done
      (handler-bind ((error (lambda (c) (declare (ignore c))
                              (setq seen (find-restart 'my-restart))
                              (return-from done :handled))))
        (restart-case (error "x") (my-restart () :restarted))))
    (and seen t))
  t)

(deftest handler-runs-with-outer-handlers-only
  (handler-case
      (handler-bind ((error (lambda (c) (declare (ignore c)) (error "second"))))
        (handler-bind ((error (lambda (c) (declare (ignore c)) (error "inner-handler-error"))))
          (error "first")))
    (error (e) (princ-to-string e)))
  "second")

(defvar *x* 0)

(deftest define-condition-slots-and-report
  (progn
    (define-condition my-cond (error) ((a :initarg :a :reader my-cond-a) (b :initform 7 :reader my-cond-b))
      (:report (lambda (c s) (format s "my-cond ~A" (my-cond-a c)))))
    (let ((c (make-condition 'my-cond :a 1)))
      (list (my-cond-a c) (my-cond-b c) (princ-to-string c) (typep c 'error) (typep c 'warning))))
  (1 7 "my-cond 1" t nil))

(deftest define-condition-default-initargs
  (progn
    (define-condition with-defaults (simple-error) () (:default-initargs :format-control "dflt"))
    (princ-to-string (make-condition 'with-defaults)))
  "dflt")

(deftest restart-case-use-value
  (handler-bind ((error (lambda (c) (use-value 21 c))))
    (restart-case (error "x") (use-value (v) (* v 2))))
  42)

(deftest restart-case-normal-return
  (restart-case (values 1 2) (abort () :aborted))
  1 2)

(deftest compute-restarts-names
  (restart-case
      (mapcar #'restart-name (subseq (compute-restarts) 0 2))
    (first () 1) (second () 2))
  (first second))

(deftest with-simple-restart-returns-nil-t
  (multiple-value-list
   (handler-bind ((error (lambda (c) (declare (ignore c)) (invoke-restart 'skip))))
     (with-simple-restart (skip "Skip it.") (error "x"))))
  (nil t))

(deftest restart-report-string
  (restart-case
      (princ-to-string (find-restart 'foo))
    (foo () :report "Do the foo thing." nil))
  "Do the foo thing.")

(deftest invoke-restart-unknown-is-control-error
  (signals-error (invoke-restart 'no-such-restart) control-error)
  t)

(deftest warn-muffled-by-handler
  (let ((n 0))
    (handler-bind ((warning (lambda (c) (incf n) (muffle-warning c))))
      (warn "a") (warn "b"))
    n)
  2)

(deftest warn-returns-nil
  (handler-bind ((warning #'muffle-warning)) (warn "x"))
  nil)

(deftest signal-returns-nil-when-unhandled
  (signal "nobody listens")
  nil)

(deftest cerror-continue
  (handler-bind ((error (lambda (c) (continue c))))
    (list (cerror "Go on." "problem ~A" 1) :after))
  (nil :after))

(deftest error-with-condition-object
  (handler-case (error (make-condition 'simple-error :format-control "obj ~A" :format-arguments '(1)))
    (simple-error (e) (princ-to-string e)))
  "obj 1")

(deftest simple-condition-readers
  (handler-case (error "fmt ~A ~A" 1 2)
    (simple-error (e) (list (simple-condition-format-control e) (simple-condition-format-arguments e))))
  ("fmt ~A ~A" (1 2)))

(deftest division-by-zero-operands
  (handler-case (/ 1 0)
    (division-by-zero (e) (list (arithmetic-error-operation e) (arithmetic-error-operands e))))
  (/ (1 0)))

(deftest unbound-variable-name
  (handler-case (symbol-value (gensym "UNBOUND"))
    (unbound-variable (e) (symbolp (cell-error-name e))))
  t)

(deftest undefined-function-name
  (handler-case (funcall 'no-such-function-xyz)
    (undefined-function (e) (cell-error-name e)))
  no-such-function-xyz)

(deftest error-type-of-program-error
  (handler-case (funcall (lambda (a) a))
    (program-error () :program-error))
  :program-error)

(deftest control-error-on-dead-block
  (let ((f nil))
    (block b (setq f (lambda () (return-from b 1))))
    (signals-error (funcall f) control-error))
  t)

(deftest storage-condition-on-deep-recursion
  (progn
    (defun recurse-forever (n) (1+ (recurse-forever n)))
    (handler-case (recurse-forever 0) (storage-condition () :caught)))
  :caught)

(deftest session-survives-after-storage-condition
  (+ 1 2)
  3)

(deftest break-on-signals-nil-by-default
  *break-on-signals*
  nil)

(deftest handler-case-clause-body-may-start-with-declarations
  (list (handler-case (error "x") (error () (declare (optimize speed))))
        (handler-case (error "x") (error () (declare (optimize speed)) :caught)))
  (nil :caught))

;; a slot with several initargs takes the leftmost one given in the call (CLHS 7.1.4)
(deftest condition-slot-leftmost-initarg
  (progn
    (define-condition two-initargs () ((s :initarg :a :initarg :b :reader two-initargs-s)))
    (list (two-initargs-s (make-condition 'two-initargs :b 1 :a 2))
          (two-initargs-s (make-condition 'two-initargs :a 1 :b 2))
          (two-initargs-s (make-condition 'two-initargs :b 3 :b 4))))
  (1 1 3))
