;;;; warnings.lisp: the warnings analysis gives, compared with SBCL 2.x's on the same code
;;;; (sbcl --non-interactive, (with-compilation-unit () (load ...)): the "caught WARNING" and
;;;; "caught STYLE-WARNING" conditions, their types and messages).

(defun analysis-warnings (&rest forms)
  ;; the warnings evaluating FORMS in one compilation unit gives: (type message) each, in order
  (let ((ws nil))
    (handler-bind ((warning #'(lambda (c)
                                (push (list (symbol-name (sys::%condition-display-type c)) (princ-to-string c)) ws)
                                (muffle-warning c))))
      (with-compilation-unit () (dolist (f forms) (eval f))))
    (nreverse ws)))

(deftest warn-wrong-count-standard-function
  (analysis-warnings '(defun wt-f3 () (car 1 2)))
  (("WARNING" "The function CAR is called with two arguments, but wants exactly one.")))

(deftest warn-wrong-count-user-function
  (analysis-warnings '(defun wt-h (x) x) '(defun wt-f4 () (wt-h 1 2)) '(defun wt-f11 () (wt-h)))
  (("STYLE-WARNING" "The function WT-H is called with two arguments, but wants exactly one.")
   ("STYLE-WARNING" "The function WT-H is called with zero arguments, but wants exactly one.")))

(deftest warn-wrong-count-generic-function
  (analysis-warnings '(defgeneric wt-g (a b &optional c))
                     '(defun wt-g1 () (wt-g 1))
                     '(defun wt-g2 () (wt-g 1 2 3 4))
                     '(defun wt-g3 () (wt-g 1 2) (wt-g 1 2 3)))
  (("STYLE-WARNING" "The function WT-G is called with one argument, but wants at least two.")
   ("STYLE-WARNING" "The function WT-G called with four arguments, but wants at most three.")))

;; a generic function made by DEFMETHOD alone has a lambda list too; its keywords are not checked,
;; since a method may accept more; a standard one warns fully
(deftest warn-wrong-count-generic-function-implicit-and-keys
  (analysis-warnings '(defmethod wt-gm ((a integer) &key x) (list a x))
                     '(defun wt-g4 () (wt-gm 1 :y 2) (wt-gm))
                     '(defun wt-g5 () (print-object 1)))
  (("STYLE-WARNING" "The function WT-GM is called with zero arguments, but wants at least one.")
   ("WARNING" "The function PRINT-OBJECT is called with one argument, but wants exactly two.")))

(deftest warn-at-least-and-at-most
  (analysis-warnings '(defun wt-f12 () (subseq "abc"))
                     '(defun wt-f14 (&optional a b) (list a b))
                     '(defun wt-f15 () (wt-f14 1 2 3)))
  (("WARNING" "The function SUBSEQ is called with one argument, but wants at least two.")
   ("STYLE-WARNING" "The function WT-F14 called with three arguments, but wants at most two.")))

(deftest warn-unknown-keywords
  (analysis-warnings '(defun wt-kk (&key a) a)
                     '(defun wt-f5 () (wt-kk :b 1))
                     '(defun wt-f8 () (make-hash-table :tes 'eq))
                     '(defun wt-f16 () (wt-kk :a))
                     '(defun wt-ok () (wt-kk :b 1 :allow-other-keys t)))
  (("STYLE-WARNING" ":B is not a known argument keyword.")
   ("WARNING" ":TES is not a known argument keyword.")
   ("STYLE-WARNING" "The function WT-KK is called with odd number of keyword arguments.")))

(deftest warn-lambda-expression-calls
  ;; a lambda expression called in place: its counts and keywords, full warnings as in SBCL
  ;; (esrap's compiler macro relies on this to reject a bad keyword combination)
  (analysis-warnings '(defun wt-lx1 () ((lambda (x &key a) (list x a)) 1 :b 2))
                     '(defun wt-lx2 () ((lambda (x) x) 1 2))
                     '(defun wt-lx3 () ((lambda (x &key a) (list x a)) 1 :a 2 :allow-other-keys t :c 3))
                     '(defun wt-lx4 () ((lambda (&rest r &key &allow-other-keys) r) :z 1)))
  (("WARNING" ":B is not a known argument keyword.")
   ("WARNING" "The function (LAMBDA (X) X) is called with two arguments, but wants exactly one.")))

(deftest warn-unused-variables
  (analysis-warnings '(defun wt-f6 (x) 1)
                     '(defun wt-f9 () (let ((y 1)) 2))
                     '(defun wt-f10 (x) (declare (ignore x)) 1)
                     '(defun wt-w9 (x) (setq x 2))
                     '(defun wt-w4 (l) (destructuring-bind (a b) l a))
                     '(defun wt-w11 (h) (maphash (lambda (k v) (print k)) h)))
  (("STYLE-WARNING" "The variable X is defined but never used.")
   ("STYLE-WARNING" "The variable Y is defined but never used.")
   ("STYLE-WARNING" "The variable B is defined but never used.")
   ("STYLE-WARNING" "The variable V is defined but never used.")))

(deftest warn-undefined-at-end-of-unit
  (analysis-warnings '(defun wt-f1 () (wt-undefined-fn 1))
                     '(defun wt-f2 () (+ *wt-undefined-var* 1))
                     '(defun wt-f13 () (setq *wt-undefined-set* 3))
                     '(defun wt-f7 () (wt-later-defined 1))
                     '(defun wt-later-defined (x) x))
  (("STYLE-WARNING" "undefined function: COMMON-LISP-USER::WT-UNDEFINED-FN")
   ("WARNING" "undefined variable: COMMON-LISP-USER::*WT-UNDEFINED-VAR*")
   ("WARNING" "undefined variable: COMMON-LISP-USER::*WT-UNDEFINED-SET*")))

(deftest warn-none-for-common-code
  ;; SBCL gives none of these a warning
  (analysis-warnings '(defstruct wt-point x y)
                     '(defclass wt-animal () ((name :initarg :name :accessor wt-animal-name)))
                     '(defmethod wt-speak ((a wt-animal) b) 1)
                     '(defun wt-w1 (l) (dolist (e l) (print 1)))
                     '(defun wt-w2 (l) (loop for x in l collect 1))
                     '(defun wt-w6 (n) (dotimes (i n) (print 1)))
                     '(defun wt-w8 (&rest args) (declare (ignorable args)) 1)
                     '(defun wt-w13 () (position 1 '(1 2) :test #'eql :from-end t))
                     '(defun wt-w16 (x) (ecase x (1 2)))
                     '(defun wt-w19 (x) (check-type x integer) x)
                     '(defun wt-w20 () (flet ((g (y) y)) (g 1)))
                     '(defvar *wt-declared*)
                     '(defun wt-w21 () *wt-declared*)
                     '(defun wt-w22 () (let ((*print-base* 8)) (princ-to-string 8))))
  nil)

(deftest warn-muffle-warning
  (let ((seen nil))
    (handler-bind ((warning #'(lambda (c) (push c seen) (muffle-warning c))))
      (with-compilation-unit () (eval '(defun wt-m1 (x) (car 1 2)))))
    (length seen))
  2)

(deftest warn-handler-sees-the-types
  (let ((types nil))
    (handler-bind ((style-warning #'(lambda (c) (push :style types) (muffle-warning c)))
                   (warning #'(lambda (c) (push :warning types) (muffle-warning c))))
      (with-compilation-unit () (eval '(defun wt-m2 (x) (car 1 2)))))
    (reverse types))
  (:warning :style))

(deftest warn-nested-units-report-at-the-outermost
  (analysis-warnings '(with-compilation-unit () (defun wt-n1 () (wt-n2)))
                     '(defun wt-n2 () 1))
  nil)

(deftest warn-override-starts-a-unit
  (let ((ws nil))
    (handler-bind ((warning #'(lambda (c) (push (princ-to-string c) ws) (muffle-warning c))))
      (with-compilation-unit ()
        (with-compilation-unit (:override t) (eval '(defun wt-o1 () (wt-o2))))
        (eval '(defun wt-o2 () 1))))
    ws)
  ("undefined function: COMMON-LISP-USER::WT-O2"))

(deftest warn-load-is-a-unit
  (let ((file "/tmp/tinycl-warnings-test.lisp") (ws nil))
    (with-open-file (s file :direction :output :if-exists :supersede)
      (write-string "(defun wt-l1 () (wt-l2)) (defun wt-l2 () (wt-l3)) (defun wt-unused (q) 1)" s))
    (handler-bind ((warning #'(lambda (c) (push (princ-to-string c) ws) (muffle-warning c))))
      (load file))
    (delete-file file)
    (reverse ws))
  ("The variable Q is defined but never used." "undefined function: COMMON-LISP-USER::WT-L3"))

;;; compiler macros: the analysis expands them as SBCL's compiler does, except where the function
;;; is declared NOTINLINE (locally or globally) or shadowed by a local function; an expander
;;; that fails leaves the call as written, with a warning
(defun wt-cm (x &key a) (list x a))
(define-compiler-macro wt-cm (&whole f x &rest args) (if (eql x 0) `(list :zero ,@args) f))
(define-compiler-macro wt-cm-bad (&whole f) (declare (ignore f)) (error "boom"))
(defun wt-cm-bad () 7)
(deftest compiler-macro-expansion
  (list (funcall (compile nil '(lambda () (wt-cm 0 :a 1))))
        (funcall (compile nil '(lambda () (wt-cm 1 :a 1))))
        (funcall (compile nil '(lambda () (locally (declare (notinline wt-cm)) (wt-cm 0 :a 1)))))
        (funcall (compile nil '(lambda () (flet ((wt-cm (&rest r) (cons :local r))) (wt-cm 0)))))
        (let ((ws nil))
          (handler-bind ((warning #'(lambda (c) (push (type-of c) ws) (muffle-warning c))))
            (list (funcall (compile nil '(lambda () (wt-cm-bad)))) (and ws t)))))
  ((:zero :a 1) (1 1) (0 1) (:local 0) (7 t)))
(deftest compiler-macro-global-notinline
  (progn (proclaim '(notinline wt-cm))
         (prog1 (funcall (compile nil '(lambda () (wt-cm 0 :a 1))))
           (proclaim '(inline wt-cm))))
  (0 1))
(deftest compiler-macro-bad-keyword-warns
  ;; esrap's check: a compiler macro rewriting a call into a lambda called with an unknown keyword
  (let ((ws nil))
    (eval '(define-compiler-macro wt-cm2 (&whole f &rest args)
            (declare (ignore f))
            `((lambda (&key a) a) ,@args)))
    (eval '(defun wt-cm2 (&key a) a))
    (handler-bind ((warning #'(lambda (c) (push (princ-to-string c) ws) (muffle-warning c))))
      (compile nil '(lambda () (wt-cm2 :b 1))))
    ws)
  (":B is not a known argument keyword."))
