;;;; compile-file.lisp: COMPILE-FILE writes a compiled file and LOAD runs it (stdlib-lisp/
;;;; compile-file.lisp, runtime/fasl.c): EVAL-WHEN, macros of the file, literals (identity,
;;;; similarity, uninterned and circular), LOAD-TIME-VALUE, the values returned, and files LOAD
;;;; refuses. The files live in a temporary directory under /tmp.

(defvar *cf-dir* (format nil "/tmp/tinycl-compile-file-test-~D-~D/" (get-universal-time) (random 1000000 (make-random-state t))))
(defvar *cf-log* nil)
(defvar *cf-counter* 0)

(defun cf (name) (concatenate 'string *cf-dir* name))

(defun cf-write (name &rest lines)
  (ensure-directories-exist (cf name))
  (with-open-file (s (cf name) :direction :output :if-exists :supersede)
    (dolist (l lines) (write-line l s)))
  (cf name))

(defun cf-compile (name &rest keys)
  ;; -> (truename warnings-p failure-p), output and warnings discarded
  (let ((*standard-output* (make-broadcast-stream))
        (*error-output* (make-broadcast-stream)))
    (handler-bind ((warning #'muffle-warning))
      (multiple-value-list (apply #'compile-file (cf name) keys)))))

(defmacro cf-error-of (form)
  `(handler-case (progn ,form :no-error)
     (error (c) (list (type-of c) (princ-to-string c)))))

(defun cf-contains (string part) (and (search part string) t))

(deftest compile-file-writes-a-compiled-file
  (progn
    (cf-write "a.lisp" "(defun cl-user::cf-a () :a)")
    (let ((r (cf-compile "a.lisp")))
      (list (pathname-type (first r)) (second r) (third r) (fboundp 'cf-a)
            (with-open-file (s (first r) :element-type '(unsigned-byte 8))
              (let ((b (make-array 7 :element-type '(unsigned-byte 8))))
                (read-sequence b s)
                (map 'string #'code-char b)))
            (load (first r)) (funcall 'cf-a))))
  ("fasl" nil nil nil "TCLFASL" t :a))

(deftest compile-file-eval-when
  ;; CLHS 3.2.3.1: what runs at compile time, what at load time
  (progn
    (setq *cf-log* nil)
    (cf-write "ew.lisp"
              "(eval-when (:compile-toplevel) (push :ct cl-user::*cf-log*))"
              "(eval-when (:load-toplevel) (push :lt cl-user::*cf-log*))"
              "(eval-when (:execute) (push :ex cl-user::*cf-log*))"
              "(eval-when (:compile-toplevel :load-toplevel) (push :ct-lt cl-user::*cf-log*))"
              "(eval-when (:compile-toplevel :load-toplevel) (eval-when (:execute) (push :nested-ex cl-user::*cf-log*)))"
              "(eval-when (:load-toplevel) (eval-when (:compile-toplevel) (push :lt-ct cl-user::*cf-log*)))"
              "(progn (eval-when (:compile-toplevel) (push :progn-ct cl-user::*cf-log*)))"
              "(let () (eval-when (:compile-toplevel :load-toplevel :execute) (push :not-top cl-user::*cf-log*)))")
    (let ((out (first (cf-compile "ew.lisp"))))
      (let ((at-compile (reverse *cf-log*)))
        (setq *cf-log* nil)
        (load out)
        (list at-compile (reverse *cf-log*)))))
  ((:ct :ct-lt :nested-ex :lt-ct :progn-ct)
   (:lt :ct-lt :not-top)))

(deftest compile-file-macros-and-specials-of-the-file
  ;; a macro defined earlier is expanded later; a DEFVAR makes its name special for what follows;
  ;; the functions are not defined by compiling
  (progn
    (cf-write "m.lisp"
              "(defpackage :cf-m (:use :cl))"
              "(in-package :cf-m)"
              "(defmacro twice (x) `(list ,x ,x))"
              "(defvar *depth* 0)"
              "(defun depth () *depth*)"
              "(defun deeper () (let ((*depth* (1+ *depth*))) (depth)))"
              "(defun use-twice () (twice (deeper)))")
    (let ((r (cf-compile "m.lisp")))
      (list (third r) (fboundp (find-symbol "USE-TWICE" "CF-M"))
            (progn (load (first r)) (funcall (find-symbol "USE-TWICE" "CF-M"))))))
  (nil nil (1 1)))

(deftest compile-file-package-not-existing-at-load
  ;; the file makes its package: its symbols are found once the DEFPACKAGE has run
  (progn
    (cf-write "p.lisp"
              "(defpackage :cf-fresh-pkg (:use :cl) (:export #:hello))"
              "(in-package :cf-fresh-pkg)"
              "(defun hello () (list 'hello :kw (symbol-package 'hello)))")
    (let ((out (first (cf-compile "p.lisp"))))
      (delete-package :cf-fresh-pkg)
      (load out)
      (let ((r (funcall (find-symbol "HELLO" "CF-FRESH-PKG"))))
        (list (eq (first r) (find-symbol "HELLO" "CF-FRESH-PKG")) (second r)
              (eq (third r) (find-package "CF-FRESH-PKG"))))))
  (t :kw t))

(defstruct cf-point x y)
(defmethod make-load-form ((p cf-point) &optional env) (make-load-form-saving-slots p :environment env))

(defclass cf-thing () ((name :initarg :name :reader cf-thing-name) (made :initform 0 :accessor cf-thing-made)))
(defvar *cf-made* 0)
(defmethod make-load-form ((x cf-thing) &optional env)
  (declare (ignore env))
  (values `(make-instance 'cf-thing :name ',(cf-thing-name x))
          `(setf (cf-thing-made ,x) (incf *cf-made*))))
(defvar *cf-thing* (make-instance 'cf-thing :name "one"))
(defstruct cf-opaque a)

(deftest compile-file-literals
  ;; identity within the file, similarity of the copies, symbols by name, uninterned symbols
  ;; shared, circular structure, structures by their slots
  (progn
    (cf-write "lit.lisp"
              "(defun cl-user::cf-lits ()"
              "  (list '#1=(1 2) '#1# '(#2=#:gen #2#) '#3=(a . #3#) \"str\" #(1 #\\x 2.5d0)"
              "        12345678901234567890 3/4 #c(1 2) #p\"/tmp/x.txt\" 'cl:car :key 'cl-user::cf-sym"
              "        #S(cl-user::cf-point :x 1 :y (2 3)) #*1011 (make-array 2 :initial-element 'q)))")
    (load (first (cf-compile "lit.lisp")))
    (destructuring-bind (l1 l2 gens circ str vec big ratio cpx path car kw sym pt bits arr) (cf-lits)
      (list (eq l1 l2) l1 (eq (first gens) (second gens)) (symbol-package (first gens))
            (eq (cdr circ) circ) str vec big ratio cpx (namestring path)
            (eq car 'car) (eq kw :key) (eq sym 'cf-sym)
            (cf-point-p pt) (cf-point-x pt) (cf-point-y pt) bits arr)))
  (t (1 2) t nil t "str" #(1 #\x 2.5d0) 12345678901234567890 3/4 #c(1 2) "/tmp/x.txt"
   t t t t 1 (2 3) #*1011 #(q q)))

(deftest compile-file-make-load-form
  ;; an object made once per file by its MAKE-LOAD-FORM forms, the initialisation form seeing it;
  ;; inside a list too; a structure without a method is an error of the compilation
  (progn
    (setq *cf-made* 0)
    (cf-write "mlf.lisp"
              "(defun cl-user::cf-mlf () (list '#.cl-user::*cf-thing* '(1 #.cl-user::*cf-thing*) #.cl-user::*cf-thing*))")
    (cf-write "mlf2.lisp" "(defun cl-user::cf-mlf2 () '#S(cl-user::cf-opaque :a 1))")
    (let ((r (cf-compile "mlf.lisp")))
      (list (third r) *cf-made*
            (progn (load (first r))
                   (let ((l (funcall 'cf-mlf)))
                     (list (cf-thing-name (first l)) (eq (first l) (second (second l))) (eq (first l) (third l))
                           (eq (first l) *cf-thing*) (cf-thing-made (first l)) *cf-made*)))
            (third (cf-compile "mlf2.lisp")))))
  (nil 0 ("one" t t nil 1 1) t))

(deftest compile-file-load-time-value
  ;; evaluated once, when the file is loaded, not when it is compiled
  (progn
    (setq *cf-counter* 0)
    (cf-write "ltv.lisp" "(defun cl-user::cf-ltv () (load-time-value (incf cl-user::*cf-counter*)))")
    (let ((out (first (cf-compile "ltv.lisp"))))
      (let ((after-compile *cf-counter*))
        (load out)
        (let ((after-load *cf-counter*))
          (list after-compile after-load (funcall 'cf-ltv) (funcall 'cf-ltv) *cf-counter*)))))
  (0 1 1 1 1))

(deftest compile-file-values-and-variables
  ;; warnings-p for a style warning, failure-p for a warning; *COMPILE-FILE-TRUENAME* and
  ;; *COMPILE-FILE-PATHNAME* bound while compiling; an :OUTPUT-FILE of any type loads
  (progn
    (cf-write "w1.lisp" "(defun cl-user::cf-w1 () (cf-no-such-function-at-all))")
    (cf-write "w2.lisp" "(eval-when (:compile-toplevel) (warn \"a real warning\"))")
    (cf-write "v.lisp" "(eval-when (:compile-toplevel) (setq cl-user::*cf-log* (list *compile-file-truename* *compile-file-pathname*)))")
    (let ((r1 (cf-compile "w1.lisp"))
          (r2 (cf-compile "w2.lisp"))
          (r3 (cf-compile "v.lisp" :output-file (cf "other.bin"))))
      (list (rest r1) (rest r2) (pathname-type (first r3))
            (equal (first *cf-log*) (truename (cf "v.lisp"))) (pathnamep (second *cf-log*))
            (load (first r3)))))
  ((t nil) (t t) "bin" t t t))

(deftest compile-file-verbose-and-print
  (progn
    (cf-write "vp.lisp" "(defun cl-user::cf-vp () 1)")
    (let ((s (make-string-output-stream)))
      (let ((*standard-output* s)) (compile-file (cf "vp.lisp") :verbose t :print t))
      (let ((text (get-output-stream-string s)))
        (list (cf-contains text "; compiling file") (cf-contains text "; wrote")
              (cf-contains text "processing")))))
  (t t t))

(defun cf-bytes (path)
  (with-open-file (s path :element-type '(unsigned-byte 8))
    (let ((b (make-array (file-length s) :element-type '(unsigned-byte 8))))
      (read-sequence b s)
      b)))

(defun cf-put-bytes (path bytes)
  (with-open-file (s path :direction :output :element-type '(unsigned-byte 8) :if-exists :supersede)
    (write-sequence bytes s)))

(defun cf-u64 (bytes at)
  (let ((n 0)) (dotimes (i 8 n) (setq n (+ n (ash (aref bytes (+ at i)) (* 8 i)))))))

(deftest compile-file-damaged-and-foreign-files-refused
  ;; a damaged, truncated or foreign compiled file, or one of another build, is a FILE-ERROR before
  ;; anything of it runs
  (progn
    (cf-write "d.lisp" "(setq cl-user::*cf-counter* :ran)")
    (let* ((good (cf-bytes (first (cf-compile "d.lisp"))))
           (damaged (copy-seq good))
           (foreign (copy-seq good))
           (stale (copy-seq good)))
      (setf (aref damaged (- (length damaged) 100)) (logxor 255 (aref damaged (- (length damaged) 100))))
      (setf (aref foreign 8) 99)               ; another format version
      (let ((at (+ 40 (cf-u64 good 16) 16)))  ; the image's build id, after the header and the table
        (setf (aref stale at) (logxor 1 (aref stale at))))
      (cf-put-bytes (cf "stale.fasl") stale)
      (cf-put-bytes (cf "damaged.fasl") damaged)
      (cf-put-bytes (cf "short.fasl") (subseq good 0 (floor (length good) 2)))
      (cf-put-bytes (cf "foreign.fasl") foreign)
      (setq *cf-counter* 0)
      (let ((r (mapcar #'(lambda (f)
                           (let ((e (cf-error-of (load (cf f)))))
                             (list (subtypep (first e) 'file-error) (cf-contains (second e) "Cannot load the compiled file"))))
                       '("damaged.fasl" "short.fasl" "foreign.fasl"))))
        (list r *cf-counter*
              (cf-contains (second (cf-error-of (load (cf "damaged.fasl")))) "checksum")
              (cf-contains (second (cf-error-of (load (cf "foreign.fasl")))) "another")
              (cf-contains (second (cf-error-of (load (cf "stale.fasl")))) "another build")
              (sys::%fasl-loadable-p (cf "stale.fasl"))))))
  (((t t) (t t) (t t)) 0 t t t nil))

(deftest compile-file-read-error-fails
  (progn
    (cf-write "bad.lisp" "(defun cl-user::cf-bad () (" )
    (cf-compile "bad.lisp"))
  (nil t t))

;; a compiled file keeps no function's source form (SBCL's FUNCTION-LAMBDA-EXPRESSION of a compiled
;; function is NIL too): loaded from source the function has it; its docstring and lambda list stay
(deftest compile-file-keeps-no-source-forms
  (progn
    (cf-write "src.lisp" "(defun cl-user::cf-src (a &optional (b 2) &key c) \"Doc of cf-src.\" (list a b c))")
    (load (cf "src.lisp"))
    (let ((from-source (function-lambda-expression #'cf-src)))
      (load (first (cf-compile "src.lisp")))
      (list (car from-source) (function-lambda-expression #'cf-src) (documentation 'cf-src 'function)
            (sys::%function-lambda-list #'cf-src) (cf-src 1 2 :c 3))))
  (lambda nil "Doc of cf-src." (a &optional (b 2) &key c) (1 2 3)))

;; esrap's rule.lisp: a top-level MACROLET's local macro expands into an EVAL-WHEN of all three
;; situations defining a function, which a later DEFCONSTANT calls at compile time
(deftest compile-file-macrolet-eval-when-defun-used-at-compile-time
  (progn
    (cf-write "mr.lisp"
              "(macrolet ((define (&rest names)"
              "             `(eval-when (:compile-toplevel :load-toplevel :execute)"
              "                (defun cl-user::cf-mr-props (&key ,@names) (+ ,@names)))))"
              "  (define a b))"
              "(defconstant cl-user::+cf-mr-default+ (cl-user::cf-mr-props :a 1 :b 2))"
              "(defun cl-user::cf-mr-get () cl-user::+cf-mr-default+)")
    (fmakunbound 'cf-mr-props)
    (let ((r (cf-compile "mr.lisp")))
      (list (second r) (third r) (progn (load (first r)) (cf-mr-get)))))
  (nil nil 3))

;; a file whose literal is an object an earlier compiled file made (read with #.) holds a copy of
;; that object only, not the whole of the earlier file (loaded as one block of the heap); a global
;; function the earlier file defined is referred to by its name
(deftest compile-file-objects-of-an-earlier-compiled-file
  (progn
    (cf-write "early.lisp"
              "(defparameter cl-user::*cf-early* '(optimize speed))"
              "(defparameter cl-user::*cf-early-big* '#.(make-list 20000 :initial-element 7))"
              "(defun cl-user::cf-early-fn () :early)")
    (load (first (cf-compile "early.lisp")))
    (cf-write "late.lisp"
              "(defun cl-user::cf-late () (list '#.cl-user::*cf-early* #.#'cl-user::cf-early-fn))")
    (let ((out (first (cf-compile "late.lisp"))))
      (load out)
      (list (< (length (cf-bytes out)) 100000) (first (cf-late))
            (eq (second (cf-late)) #'cf-early-fn))))
  (t (optimize speed) t))

(deftest compile-file-objects-survive-collections
  ;; a compiled file's objects are one block of the collector's heap, taken without clearing it
  ;; (runtime/image.c): the block is scanned, so what it points to (its strings, in a block of
  ;; their own, and a list made when it was loaded) outlives full collections that reuse freed
  ;; memory, and a second load of the file gets objects of its own, equal to the first's
  (progn
    (cf-write "kept.lisp"
              "(defvar cl-user::*cf-kept* (list (make-string 3 :initial-element #\\k)))"
              "(defun cl-user::cf-kept () (list \"a string of the compiled file\" '(1 2.5 \"three\" #\\4)))")
    (let ((out (first (cf-compile "kept.lisp"))))
      (load out)
      (let ((first-list (second (cf-kept))))
        (dotimes (i 3)
          (dotimes (j 2000) (make-string 100 :initial-element #\z) (make-list 20))
          (tinycl:gc :full t))
        (makunbound '*cf-kept*)
        (load out)
        (dotimes (j 2000) (make-list 30 :initial-element :garbage))
        (tinycl:gc :full t)
        (list (cf-kept) *cf-kept* (equal first-list (second (cf-kept)))
              (eq first-list (second (cf-kept)))))))
  (("a string of the compiled file" (1 2.5 "three" #\4)) ("kkk") t nil))

(deftest compile-file-cleanup
  (progn
    (dolist (f (directory (cf "*.*"))) (delete-file f))
    (delete-directory *cf-dir*)
    (probe-file *cf-dir*))
  nil)

(deftest compile-file-macrolet-symbol-macrolet-locally-bodies-are-top-level
  ;; CLHS 3.2.3.1: the body of a top-level MACROLET, SYMBOL-MACROLET or LOCALLY is processed as
  ;; top-level forms: its EVAL-WHEN runs at compile time, its DEFMACRO is there for the forms after
  ;; it, and its local macros and symbol macros expand into such forms
  (progn
    (setq *cf-log* nil)
    (cf-write "ml.lisp"
              "(macrolet ((note (x) `(push ,x cl-user::*cf-log*)))"
              "  (eval-when (:compile-toplevel) (note :macrolet-ct))"
              "  (defmacro cl-user::cf-ml-m () :from-macrolet)"
              "  (defun cl-user::cf-ml-f () (list (note :at-load) (cl-user::cf-ml-m))))"
              "(macrolet ((ct-only (x) `(eval-when (:compile-toplevel) (push ,x cl-user::*cf-log*))))"
              "  (ct-only :local-macro-ct))"
              "(symbol-macrolet ((ct-form (eval-when (:compile-toplevel) (push :symbol-macro-ct cl-user::*cf-log*))))"
              "  ct-form)"
              "(locally (declare (special cl-user::*cf-log*))"
              "  (eval-when (:compile-toplevel) (push :locally-ct cl-user::*cf-log*))"
              "  (defmacro cl-user::cf-lo-m () :from-locally))"
              "(defun cl-user::cf-ml-g () (list (cl-user::cf-ml-m) (cl-user::cf-lo-m)))")
    (let ((r (cf-compile "ml.lisp")))
      (let ((at-compile (reverse *cf-log*)))
        (setq *cf-log* nil)
        (fmakunbound 'cf-ml-m)
        (fmakunbound 'cf-lo-m)
        (load (first r))
        (list at-compile (third r) (cf-ml-f) (cf-ml-g) (reverse *cf-log*)))))
  ((:macrolet-ct :local-macro-ct :symbol-macro-ct :locally-ct) nil
   ((:at-load) :from-macrolet) (:from-macrolet :from-locally) (:at-load)))

(deftest compile-file-user-macros-expanding-to-compile-time-forms
  ;; whatever a top-level macro expands to is processed: EVAL-WHEN, DEFMACRO, PROGN of them
  (progn
    (setq *cf-log* nil)
    (cf-write "um.lisp"
              "(defmacro cl-user::cf-at-compile (x) `(eval-when (:compile-toplevel :load-toplevel :execute) (push ,x cl-user::*cf-log*)))"
              "(defmacro cl-user::cf-def-const-macro (name value) `(progn (defmacro ,name () ,value) (cl-user::cf-at-compile ',name)))"
              "(cl-user::cf-at-compile :user-ct)"
              "(cl-user::cf-def-const-macro cl-user::cf-um-seven 7)"
              "(defun cl-user::cf-um-f () (cl-user::cf-um-seven))")
    (let ((r (cf-compile "um.lisp")))
      (let ((at-compile (reverse *cf-log*)))
        (setq *cf-log* nil)
        (fmakunbound 'cf-um-seven)
        (load (first r))
        (list at-compile (third r) (cf-um-f) (reverse *cf-log*)))))
  ((:user-ct cf-um-seven) nil 7 (:user-ct cf-um-seven)))
