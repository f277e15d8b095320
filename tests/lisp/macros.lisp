;;;; macros.lisp: tests of the standard macros and small functions of stdlib-lisp/macros.lisp;
;;;; expected values from SBCL.

(defun output-lines (string)
  ;; the lines of STRING, with only C primitives
  (let ((in (make-string-input-stream string)) (lines nil))
    (do ((line (read-line in nil nil) (read-line in nil nil)))
        ((null line) (nreverse lines))
      (push line lines))))

;;; ------------------------------------------------------------------
;;; CASE ECASE CCASE

(deftest case-basic (case 3 ((1 2) :a) (3 :b) (otherwise :c))
  :B)
(deftest case-otherwise (case 9 ((1 2) :a) (3 :b) (otherwise :c)) :C)
(deftest case-t-clause (case 9 (1 :a) (t :other)) :OTHER)
(deftest case-no-match (case 9 (1 :a)) NIL)
(deftest case-empty-body (case 1 (1)) NIL)
(deftest case-empty-otherwise-body (case 1 (t)) NIL)
(deftest case-key-otherwise-in-list (case 'otherwise ((otherwise) 1) (t 2)) 1)
(deftest case-key-t-in-list (case t ((t) 1) (otherwise 2)) 1)
(deftest case-nil-key-list-matches-nothing (case nil (nil 1) ((nil) 2)) 2)
(deftest case-eql-numbers (case 1.0 (1 :int) (1.0 :float)) :FLOAT)
(deftest case-characters (case #\b (#\a 1) (#\b 2)) 2)
(deftest case-keyform-evaluated-once
  (let ((n 0)) (case (incf n) (1 :one) (2 :two)) n)
  1)
(deftest case-multiple-body-forms (let ((x 0)) (case 1 (1 (incf x) (incf x) x))) 2)
(deftest case-t-not-last-error
  (signals-error (macroexpand-1 '(case x (t 1) (2 2))) error)
  T)
(deftest case-otherwise-not-last-error
  (signals-error (macroexpand-1 '(case x (otherwise 1) (2 2))) error)
  T)
(deftest ecase-match (ecase 2 (1 :a) ((2 3) :b)) :B)
(deftest ecase-failure-type
  (handler-case (ecase 5 (1 :a) ((2 3) :b))
    (type-error (e) (list (type-error-datum e) (type-error-expected-type e))))
  (5 (MEMBER 1 2 3)))
(deftest ecase-failure-message
  (handler-case (ecase 5 (1 :a) ((2 3) :b))
    (error (e) (princ-to-string e)))
  "5 fell through ECASE expression. Wanted one of (1 2 3).")
(deftest ecase-t-is-a-key (ecase t (t :yes)) :YES)
(deftest ecase-otherwise-is-a-key
  (handler-case (ecase 1 (otherwise :no)) (type-error (e) (type-error-expected-type e)))
  (MEMBER OTHERWISE))
(deftest ccase-match (let ((x 2)) (ccase x (1 :a) ((2 3) :b))) :B)
(deftest ccase-failure-type
  (let ((x 5))
    (handler-case (ccase x (1 :a))
      (type-error (e) (list (type-error-datum e) (type-error-expected-type e)))))
  (5 (MEMBER 1)))
(deftest ccase-failure-message
  (let ((x 5)) (handler-case (ccase x (1 :a) ((2 3) :b)) (error (e) (princ-to-string e))))
  "5 fell through CCASE expression. Wanted one of (1 2 3).")
(deftest ccase-store-value
  (let ((x 5))
    (list (handler-bind ((type-error (lambda (c) (store-value 2 c))))
            (ccase x (1 :a) ((2 3) :b)))
          x))
  (:B 2))
(deftest ccase-store-value-place
  (let ((l (list 9)))
    (handler-bind ((type-error (lambda (c) (store-value 1 c))))
      (list (ccase (car l) (1 :one)) l)))
  (:ONE (1)))
(deftest ccase-store-value-restart-report
  (let ((x 5))
    (block done
      (handler-bind ((type-error (lambda (c)
                                   (let ((r (find-restart 'store-value c)))
                                     (return-from done (list (restart-name r) (princ-to-string r)))))))
        (ccase x (1 :a)))))
  (STORE-VALUE "Supply a new value for X."))
(deftest ccase-retries-until-valid
  (let ((x 10) (tries 0))
    (list (handler-bind ((type-error (lambda (c) (incf tries) (store-value (- x 3) c))))
            (ccase x ((1 2) :small)))
          x tries))
  (:SMALL 1 3))

;;; ------------------------------------------------------------------
;;; PROG PROG*

(deftest prog-return (prog ((a 1) (b 2)) (setq a (+ a b)) (return a))
  3)
(deftest prog-parallel-bindings (let ((a 10)) (prog ((a 1) (b a)) (return (list a b)))) (1 10))
(deftest prog*-sequential-bindings (prog* ((a 1) (b (+ a 1))) (return (list a b))) (1 2))
(deftest prog-go (prog () (go x) (return 1) x (return 2)) 2)
(deftest prog-loop (prog ((i 0)) top (incf i) (if (< i 5) (go top)) (return i)) 5)
(deftest prog-falls-off-nil (prog ((x 1)) x) NIL)
(deftest prog-empty (prog ()) NIL)
(deftest prog-declarations (prog ((x 1)) (declare (special x)) (return (symbol-value 'x))) 1)
(deftest prog-uninitialized (prog (a (b)) (return (list a b))) (NIL NIL))

;;; ------------------------------------------------------------------
;;; PSETF REMF PUSHNEW WITH-HASH-TABLE-ITERATOR

(deftest psetf-swap (let ((a 1) (b 2)) (psetf a b b a) (list a b))
  (2 1))
(deftest psetf-places (let ((l (list 1 2 3))) (psetf (first l) (third l) (third l) (first l)) l)
  (3 2 1))
(deftest psetf-returns-nil (let ((a 1)) (psetf a 2)) NIL)
(deftest remf-present (let ((pl (list :a 1 :b 2))) (list (remf pl :a) pl)) (T (:B 2)))
(deftest remf-middle (let ((pl (list :a 1 :b 2 :c 3))) (list (remf pl :b) pl)) (T (:A 1 :C 3)))
(deftest remf-absent (let ((pl (list :a 1))) (list (remf pl :z) pl)) (NIL (:A 1)))
(deftest pushnew-new (let ((l (list 1 2))) (pushnew 3 l) l) (3 1 2))
(deftest pushnew-present (let ((l (list 1 2))) (pushnew 2 l) l) (1 2))
(deftest pushnew-test (let ((l (list "a"))) (pushnew "a" l :test #'equal) l) ("a"))
(deftest with-hash-table-iterator-all
  (let ((h (make-hash-table)) (sum 0))
    (setf (gethash 1 h) 10 (gethash 2 h) 20)
    (with-hash-table-iterator (next h)
      (loop (multiple-value-bind (more k v) (next)
              (unless more (return))
              (incf sum (+ k v)))))
    sum)
  33)

;;; ------------------------------------------------------------------
;;; DEFINE-SYMBOL-MACRO DEFINE-COMPILER-MACRO WITH-COMPILATION-UNIT STEP

(defvar *sm-cell* (list 1 2))
(define-symbol-macro sm-first (car *sm-cell*))

(deftest define-symbol-macro-read sm-first 1)
(deftest define-symbol-macro-setq (progn (setq sm-first 10) *sm-cell*) (10 2))
(deftest define-symbol-macro-setf (progn (setf sm-first 20) (incf sm-first) *sm-cell*) (21 2))
(deftest define-symbol-macro-shadowed-by-let (let ((sm-first 5)) sm-first) 5)
(deftest define-symbol-macro-returns-name (define-symbol-macro sm-other 3) SM-OTHER)
(deftest define-symbol-macro-macroexpand
  (multiple-value-list (macroexpand-1 'sm-first))
  ((CAR *SM-CELL*) T))

(defun cm-square (x) (* x x))
(define-compiler-macro cm-square (&whole form x)
  (if (numberp x) (* x x) form))

(deftest compiler-macro-function-applies
  (funcall (compiler-macro-function 'cm-square) '(cm-square 3) nil)
  9)
(deftest compiler-macro-function-declines
  (funcall (compiler-macro-function 'cm-square) '(cm-square y) nil)
  (CM-SQUARE Y))
(deftest compiler-macro-funcall-form
  (funcall (compiler-macro-function 'cm-square) '(funcall #'cm-square 4) nil)
  16)
(deftest compiler-macro-function-absent (compiler-macro-function 'car-cdr-nonexistent) NIL)
(deftest compiler-macro-function-does-not-change-calls (cm-square 5) 25)
(deftest define-compiler-macro-returns-name
  (define-compiler-macro cm-other (a) a)
  CM-OTHER)
(deftest setf-compiler-macro-function
  (progn (setf (compiler-macro-function 'cm-other) nil) (compiler-macro-function 'cm-other))
  NIL)

;;; the compiler macro applies to FUNCALL of #'NAME and 'NAME and to setf functions (CLHS 3.2.2.1.3)
(defun cm-tag (x) (list :called x))
(define-compiler-macro cm-tag (&whole w x) `(list :expanded ',(car w) ,x))
(defun (setf cm-place) (v x) (list :called v x))
(define-compiler-macro (setf cm-place) (&whole w v x) `(list :expanded ',(car w) ,v ,x))
(deftest compiler-macro-applies-to-call (cm-tag 1) (:expanded cm-tag 1))
(deftest compiler-macro-applies-to-funcall-function (funcall #'cm-tag 2) (:expanded funcall 2))
(deftest compiler-macro-applies-to-funcall-quote (funcall 'cm-tag 3) (:expanded funcall 3))
(deftest compiler-macro-applies-to-setf-function
  (let ((x 1)) (list (setf (cm-place x) 5) (funcall #'(setf cm-place) 6 x)))
  ((:expanded funcall 5 1) (:expanded funcall 6 1)))
(deftest compiler-macro-not-for-local-function
  (flet ((cm-tag (x) (list :local x))) (list (funcall #'cm-tag 4) (funcall 'cm-tag 4)))
  ((:local 4) (:expanded funcall 4)))
(deftest compiler-macro-not-when-notinline
  (locally (declare (notinline cm-tag)) (list (cm-tag 5) (funcall #'cm-tag 5)))
  ((:called 5) (:called 5)))
(deftest compiler-macro-not-for-funcall-of-a-variable
  (let ((f #'cm-tag)) (funcall f 6))
  (:called 6))
(deftest with-compilation-unit-body (with-compilation-unit () 1 2 3) 3)
(deftest with-compilation-unit-values
  (multiple-value-list (with-compilation-unit (:override t) (values 1 2)))
  (1 2))
(deftest step-values (multiple-value-list (step (values 1 2))) (1 2))

;;; ------------------------------------------------------------------
;;; CONSTANTLY COMPLEMENT

(deftest constantly-any-args (list (funcall (constantly 5)) (funcall (constantly 5) 1 2 3))
  (5 5))
(deftest constantly-mapcar (mapcar (constantly :x) '(1 2 3)) (:X :X :X))
(deftest complement-basic (list (funcall (complement #'evenp) 3) (funcall (complement #'evenp) 2))
  (T NIL))
(deftest complement-many-args (funcall (complement #'<) 1 2 3) NIL)
(deftest complement-remove-if (remove-if (complement #'evenp) '(1 2 3 4)) (2 4))

;;; ------------------------------------------------------------------
;;; TIME

(deftest time-returns-values
  (let ((*trace-output* (make-string-output-stream)))
    (multiple-value-list (time (values 1 2 3))))
  (1 2 3))
(deftest time-report-first-lines
  (let ((*trace-output* (make-string-output-stream)))
    (time (+ 1 2))
    (let ((lines (output-lines (get-output-stream-string *trace-output*))))
      (list (first lines) (car (last lines)))))
  ("Evaluation took:" "  "))
(deftest time-report-real-time-line
  (let ((*trace-output* (make-string-output-stream)))
    (time nil)
    (let ((line (second (output-lines (get-output-stream-string *trace-output*)))))
      (list (subseq line 0 4) (subseq line (- (length line) 21)))))
  ("  0." " seconds of real time"))

;;; ------------------------------------------------------------------
;;; TRACE UNTRACE

(defun tr-fact (n) (if (< n 2) 1 (* n (tr-fact (1- n)))))
(defun tr-mv () (values 1 2))
(defun tr-none () (values))
(defun (setf tr-place) (v x) (list v x))

(deftest trace-returns-names (prog1 (trace tr-fact tr-mv) (untrace)) (TR-FACT TR-MV))
(deftest trace-output-nested
  (let ((*trace-output* (make-string-output-stream)))
    (trace tr-fact)
    (tr-fact 3)
    (untrace tr-fact)
    (output-lines (get-output-stream-string *trace-output*)))
  ("  0: (TR-FACT 3)" "    1: (TR-FACT 2)" "      2: (TR-FACT 1)" "      2: TR-FACT returned 1" "    1: TR-FACT returned 2" "  0: TR-FACT returned 6"))
(deftest trace-output-values
  (let ((*trace-output* (make-string-output-stream)))
    (trace tr-mv tr-none)
    (tr-mv)
    (tr-none)
    (untrace)
    (output-lines (get-output-stream-string *trace-output*)))
  ("  0: (TR-MV)" "  0: TR-MV returned 1 2" "  0: (TR-NONE)" "  0: TR-NONE returned"))
(deftest trace-result-preserved
  (let ((*trace-output* (make-string-output-stream)))
    (trace tr-mv)
    (prog1 (multiple-value-list (tr-mv)) (untrace tr-mv)))
  (1 2))
(deftest trace-list-and-untrace
  (progn (trace tr-fact tr-mv)
         (list (sort (copy-list (trace)) #'string< :key #'symbol-name)
               (untrace tr-fact) (trace) (progn (untrace) (trace))))
  ((TR-FACT TR-MV) T (TR-MV) NIL))
(deftest untrace-stops-output
  (let ((*trace-output* (make-string-output-stream)))
    (trace tr-fact)
    (untrace tr-fact)
    (tr-fact 3)
    (get-output-stream-string *trace-output*))
  "")
(deftest trace-undefined-function
  (handler-bind ((warning #'muffle-warning))
    (list (trace tr-no-such-function) (trace)))
  (NIL NIL))
(deftest trace-setf-function
  (let ((*trace-output* (make-string-output-stream)))
    (trace (setf tr-place))
    (let ((y 1)) (setf (tr-place y) 2))
    (untrace)
    (output-lines (get-output-stream-string *trace-output*)))
  ("  0: ((SETF TR-PLACE) 2 1)" "  0: (SETF TR-PLACE) returned (2 1)"))
(deftest trace-twice-no-double-output
  (let ((*trace-output* (make-string-output-stream)))
    (trace tr-mv)
    (handler-bind ((warning #'muffle-warning)) (trace tr-mv))
    (tr-mv)
    (untrace)
    (output-lines (get-output-stream-string *trace-output*)))
  ("  0: (TR-MV)" "  0: TR-MV returned 1 2"))

;; a COMMON-LISP function: its package's lock does not stop TRACE (SBCL's neither); the user's
;; calls are shown, with nested ones, and tinycl's own Lisp code (the printer, the trace output
;; itself) calls it without output
(defun tr-first (x) (car x))
(defun tr-firsts (l) (mapcar (lambda (x) (tr-first x)) l))
(deftest trace-cl-function
  (let ((*trace-output* (make-string-output-stream)) (r nil) (names nil))
    (setq names (trace car))
    (setq r (list (tr-first '(1 2)) (car '(a)) (format nil "~S" '(x y))))
    (untrace car)
    (list names r (output-lines (get-output-stream-string *trace-output*))))
  ((CAR) (1 A "(X Y)") ("  0: (CAR (1 2))" "  0: CAR returned 1" "  0: (CAR (A))" "  0: CAR returned A")))
(deftest trace-cl-function-nested
  (let ((*trace-output* (make-string-output-stream)))
    (trace car tr-first)
    (tr-firsts '((p) (q)))
    (untrace)
    (output-lines (get-output-stream-string *trace-output*)))
  ("  0: (TR-FIRST (P))" "    1: (CAR (P))" "    1: CAR returned P" "  0: TR-FIRST returned P"
   "  0: (TR-FIRST (Q))" "    1: (CAR (Q))" "    1: CAR returned Q" "  0: TR-FIRST returned Q"))
(deftest untrace-cl-function-restores-it
  (let ((*trace-output* (make-string-output-stream)) (before #'car))
    (trace car)
    (untrace car)
    (tr-first '(1))
    (list (eq #'car before) (trace) (get-output-stream-string *trace-output*)))
  (T NIL ""))
(deftest trace-user-function-called-by-system-code
  (let ((*trace-output* (make-string-output-stream)))
    (trace tr-first)
    (funcall (complement #'tr-first) '(nil))
    (untrace tr-first)
    (output-lines (get-output-stream-string *trace-output*)))
  ("  0: (TR-FIRST (NIL))" "  0: TR-FIRST returned NIL"))
(deftest trace-special-operator-refused
  (handler-bind ((warning #'muffle-warning)) (list (trace if) (trace)))
  (NIL NIL))

;;; ------------------------------------------------------------------
;;; DOCUMENTATION

(defun doc-fn (x) "Doc-fn doc." x)
(defmacro doc-mac (x) "Doc-mac doc." x)
(defvar *doc-var* 1 "Doc-var doc.")
(defparameter *doc-par* 1 "Doc-par doc.")
(defconstant +doc-const+ 1 "Doc-const doc.")
(defun doc-none (x) x)

(deftest documentation-function (documentation 'doc-fn 'function) "Doc-fn doc.")
(deftest documentation-function-object (documentation #'doc-fn t) "Doc-fn doc.")
(deftest documentation-macro (documentation 'doc-mac 'function) "Doc-mac doc.")
(deftest documentation-variable (documentation '*doc-var* 'variable) "Doc-var doc.")
(deftest documentation-parameter (documentation '*doc-par* 'variable) "Doc-par doc.")
(deftest documentation-constant (documentation '+doc-const+ 'variable) "Doc-const doc.")
(deftest documentation-none (documentation 'doc-none 'function) NIL)
(deftest documentation-unknown-symbol (documentation 'doc-no-such-thing 'function) NIL)
(deftest documentation-lambda (documentation (lambda (x) "Lambda doc." x) t) "Lambda doc.")
(deftest setf-documentation-function
  (progn (setf (documentation 'doc-none 'function) "Now documented.")
         (documentation 'doc-none 'function))
  "Now documented.")
(deftest setf-documentation-variable
  (progn (setf (documentation 'doc-unbound-var 'variable) "V.")
         (documentation 'doc-unbound-var 'variable))
  "V.")
(deftest setf-documentation-type
  (progn (setf (documentation 'doc-some-type 'type) "T.")
         (list (documentation 'doc-some-type 'type) (documentation 'doc-some-type 'function)))
  ("T." NIL))
(deftest setf-documentation-returns-value (setf (documentation 'doc-x 'function) "X.") "X.")
(deftest setf-documentation-function-object
  (let ((f (lambda () 1)))
    (setf (documentation f t) "F.")
    (documentation f t))
  "F.")

;;; ------------------------------------------------------------------
;;; DESCRIBE

(defvar *desc-var* 10 "Var doc.")
(defvar *desc-unbound*)
(defun desc-fn (x &optional y) "Desc doc." (list x y))

(defun describe-string (object)
  (let ((s (make-string-output-stream)))
    (describe object s)
    (get-output-stream-string s)))

(deftest describe-fixnum (describe-string 42) "42
  [fixnum]
")
(deftest describe-bignum (describe-string (expt 2 100))
  "1267650600228229401496703205376
  [bignum]
")
(deftest describe-ratio (describe-string 1/3) "1/3
  [ratio]
")
(deftest describe-float (describe-string 1.5) "1.5
  [single-float]
")
(deftest describe-special-variable (describe-string '*desc-var*)
  "COMMON-LISP-USER::*DESC-VAR*
  [symbol]

*DESC-VAR* names a special variable:
  Value: 10
  Documentation:
    Var doc.
")
(deftest describe-unbound-variable (describe-string '*desc-unbound*)
  "COMMON-LISP-USER::*DESC-UNBOUND*
  [symbol]

*DESC-UNBOUND* names a special variable:
  Currently unbound.
")
(deftest describe-string-object (describe-string "abc")
  "\"abc\"
  [simple-string]

Element-type: CHARACTER
Length: 3
")
(deftest describe-list (describe-string '(1 2 3)) "(1 2 3)
  [list]
")
(deftest describe-cons (describe-string '(1 . 2)) "(1 . 2)
  [cons]
")
(deftest describe-keyword-first-lines (subseq (output-lines (describe-string :kw)) 0 2)
  (":KW" "  [symbol]"))
(deftest describe-function-name-lines
  ;; SBCL adds derived type and source file lines
  (let ((lines (output-lines (describe-string 'desc-fn))))
    (list (first lines) (second lines) (fourth lines) (fifth lines)
          (and (member "  Documentation:" lines :test #'string=) t)
          (and (member "    Desc doc." lines :test #'string=) t)))
  ("COMMON-LISP-USER::DESC-FN" "  [symbol]" "DESC-FN names a compiled function:" "  Lambda-list: (X &OPTIONAL Y)" T T))
(deftest describe-returns-no-values
  (let ((*standard-output* (make-string-output-stream)))
    (multiple-value-list (describe 1)))
  NIL)
(deftest describe-symbol-plist
  (progn (setf (get 'desc-plist-sym 'color) 'red)
         (describe-string 'desc-plist-sym))
  "COMMON-LISP-USER::DESC-PLIST-SYM
  [symbol]

Symbol-plist:
  COLOR -> RED
")

;;; ------------------------------------------------------------------
;;; APROPOS

(ignore-errors
  (eval '(defpackage "APROPOS-TEST" (:use) (:export "ZQXW-FN" "ZQXW-VAR")))
  (eval (read-from-string "(defun apropos-test::zqxw-fn () 1)"))
  (eval (read-from-string "(defvar apropos-test::zqxw-var 2)"))
  (intern "ZQXW-PLAIN" "APROPOS-TEST"))

(deftest apropos-list-package
  (mapcar #'symbol-name (apropos-list "zqxw" "APROPOS-TEST"))
  ("ZQXW-FN" "ZQXW-PLAIN" "ZQXW-VAR"))
(deftest apropos-list-external-only
  (mapcar #'symbol-name (apropos-list "ZQXW" "APROPOS-TEST" t))
  ("ZQXW-FN" "ZQXW-VAR"))
(deftest apropos-list-inherited (apropos-list "MAPCA" "CL") (MAPCAN MAPCAR))
(deftest apropos-list-all-packages
  (length (apropos-list "ZQXW-PLAIN"))
  1)
(deftest apropos-output
  (let ((*standard-output* (make-string-output-stream)))
    (apropos "zqxw" "APROPOS-TEST")
    (output-lines (get-output-stream-string *standard-output*)))
  ("APROPOS-TEST:ZQXW-FN (fbound)" "APROPOS-TEST::ZQXW-PLAIN" "APROPOS-TEST:ZQXW-VAR = 2"))
(deftest apropos-returns-no-values
  (let ((*standard-output* (make-string-output-stream)))
    (multiple-value-list (apropos "zqxw" "APROPOS-TEST")))
  NIL)

;;; ------------------------------------------------------------------
;;; ROOM ED DRIBBLE

(deftest room-first-line
  (let ((*standard-output* (make-string-output-stream)))
    (room)
    (let ((line (first (output-lines (get-output-stream-string *standard-output*)))))
      (subseq line 0 23)))
  "Dynamic space usage is:")
(deftest ed-signals-error (signals-error (ed) error) T)

;;; ------------------------------------------------------------------
;;; Universal time

(deftest decode-universal-time-zero (multiple-value-list (decode-universal-time 0 0))
  (0 0 0 1 1 1900 0 NIL 0))
(deftest decode-universal-time-utc (multiple-value-list (decode-universal-time 3900000000 0))
  (0 20 21 2 8 2023 2 NIL 0))
(deftest decode-universal-time-west (multiple-value-list (decode-universal-time 3900000000 5))
  (0 20 16 2 8 2023 2 NIL 5))
(deftest decode-universal-time-east-fraction
  (multiple-value-list (decode-universal-time 3900000000 -5/2))
  (0 50 23 2 8 2023 2 NIL -5/2))
(deftest decode-universal-time-third-hour
  (multiple-value-list (decode-universal-time 3900000000 1/3))
  (0 0 21 2 8 2023 2 NIL 1/3))
(deftest decode-universal-time-leap-day
  (multiple-value-list (decode-universal-time 3160771200 0))
  (0 0 0 29 2 2000 1 NIL 0))
(deftest decode-universal-time-end-of-century
  (multiple-value-list (decode-universal-time (encode-universal-time 59 59 23 31 12 1999 0) 0))
  (59 59 23 31 12 1999 4 NIL 0))
(deftest decode-universal-time-1900-not-leap
  (multiple-value-list (decode-universal-time (* 59 86400) 0))
  (0 0 0 1 3 1900 3 NIL 0))
(deftest decode-universal-time-negative-error
  (signals-error (decode-universal-time (- 1) 0) type-error)
  T)
(deftest encode-universal-time-epoch (encode-universal-time 0 0 0 1 1 1900 0) 0)
(deftest encode-universal-time-utc (encode-universal-time 30 15 10 22 6 2023 0) 3896417730)
(deftest encode-universal-time-east (encode-universal-time 30 15 10 22 6 2023 -2) 3896410530)
(deftest encode-universal-time-fractional-zone (encode-universal-time 0 0 0 1 1 2000 -11/2)
  3155653800)
(deftest encode-universal-time-two-digit-year (encode-universal-time 30 15 10 22 6 23 0)
  3896417730)
(deftest encode-universal-time-two-digit-year-past (encode-universal-time 30 15 10 22 6 99 0)
  3139035330)
(deftest encode-universal-time-leap-day (encode-universal-time 0 0 0 29 2 2000 0) 3160771200)
(deftest encode-universal-time-day-overflow (encode-universal-time 0 0 0 31 2 2000 0) 3160944000)
(deftest encode-decode-round-trip
  (let ((ut 3987654321))
    (multiple-value-bind (s m h d mo y) (decode-universal-time ut 7)
      (= ut (encode-universal-time s m h d mo y 7))))
  T)
(deftest get-decoded-time-shape
  (let ((v (multiple-value-list (get-decoded-time))))
    (list (length v) (every #'integerp (subseq v 0 7)) (<= 0 (nth 6 v) 6) (>= (nth 5 v) 2024)))
  (9 T T T))
(deftest get-decoded-time-matches-universal
  (multiple-value-bind (s m h d mo y dow dst zone) (get-decoded-time)
    (declare (ignore dow))
    (<= 0 (- (get-universal-time) (encode-universal-time s m h d mo y (if dst (- zone 1) zone))) 2))
  T)
(deftest declaim-several-specs
  (progn (declaim (type list *declaim-test-x*) (special *declaim-test-y*))
         (macroexpand-1 '(declaim (type list *x*) (inline f))))
  (eval-when (:compile-toplevel :load-toplevel :execute)
    (proclaim '(type list *x*)) (proclaim '(inline f)))
  t)
(deftest setf-values-places
  (let ((a 1) (b 2) (c (list 1 2)))
    (list (multiple-value-list (setf (values a (car c) b) (values 10 20))) a b c))
  ((10 20 nil) 10 nil (20 2)))
(deftest setf-values-no-places
  (let ((n 0)) (list (multiple-value-list (setf (values) (incf n))) n))
  (nil 1))
(deftest setf-the-place
  (let ((x 1)) (list (setf (the integer x) 5) x))
  (5 5))
(deftest setf-apply-aref
  (let ((a (make-array '(2 2) :initial-element 0)))
    (list (setf (apply #'aref a '(1 1)) 9) (aref a 1 1)))
  (9 9))
(deftest setf-apply-setf-function
  (let ((x (list 1 2 3)))
    (list (setf (apply #'nth 1 (list x)) 'b) x))
  (b (1 b 3)))
(defun conform-defsetf-acc (x) (car x))
(defsetf conform-defsetf-acc (y) (val)
  "set the car"
  (return-from conform-defsetf-acc `(setf (car ,y) ,val)))
(deftest defsetf-long-form-block-and-doc
  (let ((x (cons 'a 'b)))
    (list (setf (conform-defsetf-acc x) 'c) x (documentation 'conform-defsetf-acc 'setf)))
  (c (c . b) "set the car"))
(defun conform-dse-acc (x) (car x))
(define-setf-expander conform-dse-acc (place &environment env)
  "expander doc"
  (declare (ignorable env))
  (let ((g (gensym)) (s (gensym)))
    (return-from conform-dse-acc
      (values (list g) (list place) (list s) `(setf (car ,g) ,s) `(car ,g)))))
(deftest define-setf-expander-block-and-doc
  (let ((x (list 1)))
    (list (setf (conform-dse-acc x) 5) x (documentation 'conform-dse-acc 'setf)))
  (5 (5) "expander doc"))
(deftest psetf-multiple-store-places
  (let ((y 2) (z 3) u x a b c)
    (psetf (values a b c) (values 1 2 3) (values u x) (values y z))
    (list a b c u x))
  (1 2 3 2 3))
(deftest shiftf-multiple-store-place
  (let ((x 'a) (y 'b))
    (list (multiple-value-list (shiftf (values x y) (values 3 1))) x y))
  ((a b) 3 1))
(deftest rotatef-multiple-places
  (let ((a 1) (b 2) (c 3) (l (list 1 2 3)))
    (rotatef a b c) (rotatef (first l) (third l))
    (list a b c l))
  (2 3 1 (3 2 1)))
(deftest rotatef-one-place-evaluates-subforms
  (let ((i 0) (v (vector 1 2 3))) (list (rotatef (aref v (incf i))) i))
  (nil 1))
(deftest psetq-symbol-macros
  (symbol-macrolet ((x (aref a (incf i))) (y (aref a (incf i))))
    (let ((a (copy-seq #(0 1 2 3 4 5 6 7 8 9))) (i 0))
      (psetq x (aref a (incf i)) y (aref a (incf i)))
      (list a i)))
  (#(0 2 2 4 4 5 6 7 8 9) 4))
(deftest multiple-value-setq-symbol-macros
  (let ((x (list nil)) (z (list nil)) (i 0))
    (symbol-macrolet ((y (car (progn (incf i 3) x))) (w (car (progn (incf i i) z))))
      (multiple-value-setq (y w) (values i 10)))
    (list x z))
  ((6) (10)))
(deftest multiple-value-setq-no-variables
  (list (multiple-value-setq nil :good) (multiple-value-setq nil (values 'a 'b)))
  (:good a))

;;; DISASSEMBLE, INSPECT, the site names (CLHS 25.2)

(deftest disassemble-accepts-function-designators
  (let ((out (make-string-output-stream)))
    (let ((*standard-output* out))
      (list (disassemble 'car) (disassemble #'cons) (disassemble '(lambda (x) x))
            (disassemble '(setf car)) (disassemble 'when)
            (> (length (get-output-stream-string out)) 0))))
  (nil nil nil nil nil t))

(deftest disassemble-rejects-a-non-designator
  (signals-error (disassemble 42) type-error)
  t)

(deftest inspect-returns
  (let ((*standard-output* (make-string-output-stream)))
    (multiple-value-list (inspect 42)))
  ())

(deftest site-names-are-strings-or-nil
  (list (typep (short-site-name) '(or null string)) (typep (long-site-name) '(or null string)))
  (t t))
