;;;; packages.lisp: tests of the package system (CLHS chapter 11); expected values from SBCL.
;;;; Symbols of packages made by the tests are reached with FIND-SYMBOL / READ-FROM-STRING, since
;;;; the whole file is read before the tests run. The file also runs in SBCL (sbcl --script with
;;;; framework.lisp) to check the expected values.

(defun tp-ext (name)
  ;; an SBCL extension function: SB-EXT in SBCL, TINYCL here
  (find-symbol name (or (find-package "SB-EXT") (find-package "TINYCL"))))

(defun tp-fresh (name &rest options)
  ;; a fresh package named NAME (deleting any previous one)
  (let ((old (find-package name)))
    (when old
      (dolist (u (package-used-by-list old)) (unuse-package old u))
      (delete-package old)))
  (apply #'make-package name options))

(defun tp-names (symbols)
  (let ((r nil)) (dolist (s symbols r) (push (symbol-name s) r))))

(defun tp-member (x list)
  (dolist (y list nil) (when (equal x y) (return t))))

(defun tp-length (list) (list-length list))

(defun tp-set= (a b)
  ;; same elements (EQUAL), any order; only basic operators so that the tests do not depend on
  ;; the sequence library
  (and (= (list-length a) (list-length b))
       (dolist (x a t) (unless (tp-member x b) (return nil)))
       (dolist (x b t) (unless (tp-member x a) (return nil)))))

(defun tp-chars (s)
  (let ((r nil))
    (with-input-from-string (in s)
      (tagbody
       next
         (let ((c (read-char in nil nil)))
           (when c (push c r) (go next)))))
    (let ((l nil)) (dolist (c r l) (push c l)))))

(defun tp-search (needle haystack)
  ;; the index of NEEDLE in HAYSTACK (strings), or NIL
  (let ((n (tp-chars needle)) (h (tp-chars haystack)) (i 0))
    (tagbody
     next
       (when (null h) (return-from tp-search nil))
       (let ((a n) (b h))
         (tagbody
          cmp
            (when (null a) (return-from tp-search i))
            (when (and b (eql (car a) (car b))) (setq a (cdr a) b (cdr b)) (go cmp))))
       (setq h (cdr h) i (+ i 1))
       (go next))))

(defvar *tp-sink* nil)

(defmacro tp-err (form)
  ;; the value goes to a special variable so that SBCL's compiler cannot drop the call
  `(handler-case (progn (setq *tp-sink* ,form) :no-error)
     (name-conflict () 'name-conflict)
     (package-does-not-exist () 'package-does-not-exist)
     (package-locked-error () 'package-locked-error)
     (package-error () 'package-error)
     (type-error () 'type-error)
     (program-error () 'program-error)
     (error () 'error)))

(defun tp-message (thunk)
  (handler-case (progn (funcall thunk) nil)
    (error (c) (princ-to-string c))))

;;; ------------------------------------------------------------------
;;; finding packages

(deftest find-package-by-name-and-nickname
  (list (package-name (find-package "CL")) (package-name (find-package :common-lisp-user))
        (eq (find-package "CL") (find-package (find-package "COMMON-LISP")))
        (find-package "NO-SUCH-PACKAGE-TP") (find-package #\Z))
  ("COMMON-LISP" "COMMON-LISP-USER" t nil nil))

(deftest find-package-type-error (tp-err (find-package 3)) type-error)

(deftest package-name-of-designators
  (list (package-name :cl) (package-name "KEYWORD") (package-nicknames :cl))
  ("COMMON-LISP" "KEYWORD" ("CL")))

(deftest package-name-unknown
  (list (tp-err (package-name "NO-SUCH-PACKAGE-TP")) (tp-err (package-name 3)))
  (package-does-not-exist type-error))

(deftest package-does-not-exist-message
  (tp-message (lambda () (find-symbol "X" "NO-SUCH-PACKAGE-TP")))
  "The name \"NO-SUCH-PACKAGE-TP\" does not designate any package.")

(deftest package-error-package-slot
  (handler-case (find-symbol "X" "NO-SUCH-PACKAGE-TP") (package-error (c) (package-error-package c)))
  "NO-SUCH-PACKAGE-TP")

(deftest packagep-and-list-all-packages
  (list (packagep (find-package "CL")) (packagep "CL")
        (tp-member (find-package "KEYWORD") (list-all-packages)))
  (t nil t))

(deftest in-package-unknown
  (tp-err (eval '(in-package "NO-SUCH-PACKAGE-TP")))
  package-does-not-exist)

(deftest in-package-sets-package
  (let ((*package* *package*))
    (tp-fresh "TP-IN" :use nil)
    (eval '(in-package "TP-IN"))
    (package-name *package*))
  "TP-IN")

;;; ------------------------------------------------------------------
;;; make-package, rename-package, delete-package

(deftest make-package-basics
  (let ((p (tp-fresh "TP-MK" :nicknames '("TP-MK-N1" tp-mk-n2) :use '("CL"))))
    (list (package-name p) (package-nicknames p) (package-use-list p)
          (eq p (find-package "TP-MK-N2"))
          (tp-member p (package-used-by-list "CL"))))
  ("TP-MK" ("TP-MK-N2" "TP-MK-N1") (#.(find-package "CL")) t t))

(deftest make-package-default-use
  (package-use-list (tp-fresh "TP-MK-DEF"))
  nil)

(deftest make-package-duplicate-use
  (tp-length (package-use-list (tp-fresh "TP-MK-DUP" :use '("CL" "COMMON-LISP"))))
  1)

(deftest make-package-existing-name
  (progn (tp-fresh "TP-MK2") (tp-err (make-package "TP-MK2")))
  package-error)

(deftest make-package-nickname-conflicts
  (progn
    (tp-fresh "TP-MK3" :nicknames '("TP-MK3-NICK"))
    (list (tp-err (make-package "TP-MK4" :nicknames '("TP-MK3")))
          (tp-err (make-package "TP-MK5" :nicknames '("TP-MK3-NICK")))
          (find-package "TP-MK4") (find-package "TP-MK5")))
  (package-error package-error nil nil))

(deftest make-package-unknown-use
  (list (tp-err (make-package "TP-MK6" :use '("NO-SUCH-PACKAGE-TP"))) (find-package "TP-MK6"))
  (package-does-not-exist nil))

(deftest make-package-empty-name
  (let ((p (tp-fresh "")))
    (prog1 (list (package-name p) (eq p (find-package "")))
      (delete-package p)))
  ("" t))

(deftest rename-package-basics
  (let ((p (tp-fresh "TP-RN" :nicknames '("TP-RN-OLD"))))
    (tp-fresh "TP-RN2")
    (delete-package "TP-RN2")
    (rename-package p "TP-RN2" '("TP-RN-NEW"))
    (list (package-name p) (package-nicknames p) (find-package "TP-RN") (find-package "TP-RN-OLD")
          (eq p (find-package "TP-RN-NEW"))))
  ("TP-RN2" ("TP-RN-NEW") nil nil t))

(deftest rename-package-to-existing-name
  (progn (tp-fresh "TP-RN3") (tp-fresh "TP-RN4")
         (tp-err (rename-package "TP-RN3" "TP-RN4")))
  package-error)

(deftest delete-package-basics
  (let* ((p (tp-fresh "TP-DEL" :use nil))
         (s (intern "S" p)))
    (list (delete-package p) (symbol-package s) (package-name p) (delete-package p)
          (find-package "TP-DEL") (packagep p)))
  (t nil nil nil nil t))

(deftest delete-package-unknown-name
  (tp-err (delete-package "NO-SUCH-PACKAGE-TP"))
  package-error)

(deftest delete-package-used-by-others
  (progn (tp-fresh "TP-DEL2") (tp-fresh "TP-DEL3" :use '("TP-DEL2"))
         (list (tp-err (delete-package "TP-DEL2")) (not (null (find-package "TP-DEL2")))))
  (package-error t))

(deftest deleted-package-operations
  (let ((p (tp-fresh "TP-DEL4")))
    (delete-package p)
    (list (tp-err (intern "X" p)) (tp-err (find-symbol "X" p))))
  (package-does-not-exist package-does-not-exist))

;;; ------------------------------------------------------------------
;;; intern, find-symbol, unintern

(deftest intern-and-find-symbol
  (let ((p (tp-fresh "TP-IN1" :use '("CL"))))
    (multiple-value-bind (s1 st1) (intern "FOO" p)
      (multiple-value-bind (s2 st2) (intern "FOO" p)
        (multiple-value-bind (s3 st3) (find-symbol "CAR" p)
          (multiple-value-bind (s4 st4) (find-symbol "NOPE" p)
            (list (symbol-name s1) st1 (eq s1 s2) st2 (eq s3 'car) st3 s4 st4 (eq (symbol-package s1) p)))))))
  ("FOO" nil t :internal t :inherited nil nil t))

(deftest intern-keyword
  (let ((r (multiple-value-list (intern "TP-KEY-NEW" "KEYWORD"))))
    (list (symbol-name (car r)) (keywordp (car r)) (eq (symbol-value (car r)) (car r)) (cadr r)
          (nth-value 1 (intern "TP-KEY-NEW" "KEYWORD"))))
  ("TP-KEY-NEW" t t nil :external))

(deftest intern-requires-string
  (list (tp-err (intern 'foo)) (tp-err (find-symbol 'foo)) (tp-err (intern "X" 3)))
  (type-error type-error type-error))

(deftest find-symbol-external-status
  (multiple-value-list (find-symbol "CAR" "CL"))
  (car :external))

(deftest find-symbol-nil
  (multiple-value-list (find-symbol "NIL" "CL"))
  (nil :external))

(deftest unintern-basics
  (let* ((p (tp-fresh "TP-UN" :use nil))
         (s (intern "S" p)))
    (list (unintern s p) (symbol-package s) (find-symbol "S" p) (unintern s p) (unintern 'car p)))
  (t nil nil nil nil))

;;; ------------------------------------------------------------------
;;; export, unexport, import, shadow, shadowing-import

(deftest export-and-unexport
  (let* ((p (tp-fresh "TP-EX" :use nil))
         (s (intern "S" p)))
    (list (export s p)
          (nth-value 1 (find-symbol "S" p))
          (unexport s p)
          (nth-value 1 (find-symbol "S" p))
          (export (list s) p)
          (nth-value 1 (find-symbol "S" p))))
  (t :external t :internal t :external))

(deftest export-inaccessible-symbol
  (let ((p (tp-fresh "TP-EX2" :use nil)))
    (list (tp-err (export 'car p)) (tp-err (export (make-symbol "Q") p))))
  (package-error package-error))

(deftest export-inherited-symbol-imports-it
  (let ((p (tp-fresh "TP-EX3" :use '("CL"))))
    (export 'car p)
    (list (multiple-value-list (find-symbol "CAR" p)) (symbol-package 'car)))
  ((car :external) #.(find-package "CL")))

(deftest export-type-errors
  (list (tp-err (export "CAR")) (tp-err (import 3)) (tp-err (shadow 3)))
  (type-error type-error type-error))

(deftest unexport-inaccessible
  (let ((p (tp-fresh "TP-UX" :use nil)))
    (list (tp-err (unexport 'car p)) (unexport nil p)))
  (package-error t))

(deftest import-basics
  (let* ((p (tp-fresh "TP-IM" :use nil))
         (g (make-symbol "GG")))
    (list (import '(car cdr) p)
          (multiple-value-list (find-symbol "CAR" p))
          (symbol-package 'car)
          (import g p)
          (eq (symbol-package g) p)
          (import 'car p)))
  (t (car :internal) #.(find-package "CL") t t t))

(deftest import-conflict
  (let ((p (tp-fresh "TP-IM2" :use nil)))
    (intern "CAR" p)
    (tp-err (import 'car p)))
  name-conflict)

(deftest import-conflict-with-inherited
  (let ((p (tp-fresh "TP-IM3" :use '("CL"))))
    (tp-err (import (make-symbol "CAR") p)))
  name-conflict)

(deftest shadow-basics
  (let ((p (tp-fresh "TP-SH" :use '("CL"))))
    (list (shadow '("CAR" #\B :c) p)
          (tp-set= (tp-names (package-shadowing-symbols p)) '("B" "C" "CAR"))
          (eq (find-symbol "CAR" p) 'car)
          (eq (symbol-package (find-symbol "CAR" p)) p)
          (nth-value 1 (find-symbol "CAR" p))))
  (t t nil t :internal))

(deftest shadow-existing-present-symbol
  (let* ((p (tp-fresh "TP-SH2" :use nil))
         (s (intern "X" p)))
    (shadow "X" p)
    (list (eq (find-symbol "X" p) s) (eq (car (package-shadowing-symbols p)) s)))
  (t t))

(deftest shadowing-import-replaces
  (let* ((p (tp-fresh "TP-SI" :use nil))
         (old (intern "CAR" p)))
    (list (shadowing-import 'car p)
          (eq (find-symbol "CAR" p) 'car)
          (symbol-package old)
          (equal (package-shadowing-symbols p) '(car))))
  (t t nil t))

(deftest shadowing-import-over-inherited
  (let ((p (tp-fresh "TP-SI2" :use '("CL")))
        (g (make-symbol "CAR")))
    (shadowing-import g p)
    (list (eq (find-symbol "CAR" p) g) (eq (symbol-package g) p) (nth-value 1 (find-symbol "CAR" p))))
  (t nil :internal))

(deftest find-all-symbols-finds-present
  (let ((p (tp-fresh "TP-FA" :use nil)))
    (intern "TP-FIND-ALL-X" p)
    (list (tp-length (find-all-symbols "TP-FIND-ALL-X"))
          (tp-member 'car (find-all-symbols 'car))))
  (1 t))

;;; ------------------------------------------------------------------
;;; use-package, unuse-package, name conflicts

(deftest use-package-basics
  (let ((a (tp-fresh "TP-UA" :use nil))
        (b (tp-fresh "TP-UB" :use nil)))
    (export (intern "X" a) a)
    (list (use-package a b)
          (let ((s (multiple-value-list (find-symbol "X" b)))) (list (symbol-name (car s)) (cadr s)))
          (equal (package-use-list b) (list a))
          (equal (package-used-by-list a) (list b))
          (unuse-package a b)
          (find-symbol "X" b)
          (package-used-by-list a)))
  (t ("X" :inherited) t t t nil nil))

(deftest use-package-conflict
  (let ((a (tp-fresh "TP-UC1" :use nil))
        (b (tp-fresh "TP-UC2" :use nil)))
    (export (intern "X" a) a)
    (intern "X" b)
    (list (tp-err (use-package a b)) (package-use-list b)))
  (name-conflict nil))

(deftest use-package-conflict-message
  (let ((a (tp-fresh "TP-UC3" :use nil))
        (b (tp-fresh "TP-UC4" :use nil)))
    (export (intern "X" a) a)
    (intern "X" b)
    (handler-case (use-package a b)
      (error (c) (let ((m (princ-to-string c)))
                   (list (tp-search "USE-PACKAGE #<PACKAGE \"TP-UC3\"> causes name-conflicts in" m)
                         (not (null (tp-search "TP-UC3:X, TP-UC4::X" m))))))))
  (0 t))

(deftest use-package-conflict-shadowed-ok
  (let ((a (tp-fresh "TP-UC5" :use nil))
        (b (tp-fresh "TP-UC6" :use nil)))
    (export (intern "X" a) a)
    (shadow "X" b)
    (list (use-package a b) (eq (symbol-package (find-symbol "X" b)) b)))
  (t t))

(deftest use-package-two-exporters-conflict
  (let ((a (tp-fresh "TP-UC7" :use nil))
        (b (tp-fresh "TP-UC8" :use nil)))
    (export (intern "X" a) a)
    (export (intern "X" b) b)
    (tp-err (make-package "TP-UC9" :use (list a b))))
  name-conflict)

(deftest export-causes-conflict-in-user
  (let* ((a (tp-fresh "TP-EC1" :use nil))
         (b (tp-fresh "TP-EC2" :use nil))
         (c (tp-fresh "TP-EC3" :use (list a b))))
    (export (intern "Y" b) b)
    (intern "Y" a)
    (list (tp-err (export (find-symbol "Y" a) a)) (package-name c)))
  (name-conflict "TP-EC3"))

(deftest unintern-shadowing-exposes-conflict
  (let* ((a (tp-fresh "TP-UI1" :use nil))
         (b (tp-fresh "TP-UI2" :use nil)))
    (export (intern "X" a) a)
    (export (intern "X" b) b)
    (let ((c (tp-fresh "TP-UI3" :use nil)))
      (shadow "X" c)
      (use-package (list a b) c)
      (tp-err (unintern (find-symbol "X" c) c))))
  name-conflict)

(deftest unintern-shadowing-symbol-uncovers-inherited
  (let ((p (tp-fresh "TP-UI4" :use '("CL"))))
    (shadow "CAR" p)
    (unintern (find-symbol "CAR" p) p)
    (list (multiple-value-list (find-symbol "CAR" p)) (package-shadowing-symbols p)))
  ((car :inherited) nil))

(deftest use-package-keyword-conflict
  (let ((p (tp-fresh "TP-UK" :use nil)))
    (intern "TEST" p)
    (tp-err (use-package "KEYWORD" p)))
  name-conflict)

(deftest use-package-self
  (let ((p (tp-fresh "TP-US" :use nil)))
    (list (use-package p p) (eq (car (package-use-list p)) p)))
  (t t))

;;; ------------------------------------------------------------------
;;; package locks

(deftest lock-intern-into-cl (tp-err (intern "TP-NEW-CL-SYMBOL" "CL")) package-locked-error)
(deftest lock-read-new-cl-symbol (tp-err (read-from-string "cl::tp-new-cl-symbol")) package-locked-error)
(deftest lock-export-from-cl (tp-err (export (intern "TP-LOCK-X" "CL-USER") "CL")) package-locked-error)
(deftest lock-unexport-from-cl (tp-err (unexport 'car "CL")) package-locked-error)
(deftest lock-shadow-in-cl (tp-err (shadow "CAR" "CL")) package-locked-error)
(deftest lock-unintern-from-cl (tp-err (unintern 'car "CL")) package-locked-error)
(deftest lock-import-into-cl (tp-err (import (make-symbol "TP-LOCK-Y") "CL")) package-locked-error)
(deftest lock-delete-cl (tp-err (delete-package "CL")) package-locked-error)
(deftest lock-rename-cl (tp-err (rename-package "CL" "CL2")) package-locked-error)
(deftest lock-use-package-in-cl
  (tp-err (use-package (tp-fresh "TP-LOCK-U" :use nil) "CL"))
  package-locked-error)
(deftest lock-existing-cl-symbol-ok (multiple-value-list (intern "CAR" "CL")) (car :external))

(deftest lock-defun-cl-symbol
  (tp-err (eval '(defun car (x) x)))
  package-error)

(deftest lock-defmacro-cl-symbol
  (tp-err (eval '(defmacro cdr (x) x)))
  package-error)

(deftest lock-defconstant-cl-symbol
  (tp-err (eval '(defconstant list 1)))
  package-error)

(deftest lock-car-still-works (car '(1 2)) 1)

(deftest lock-message
  (tp-search "Lock on package COMMON-LISP violated when interning TP-NEW-CL-SYMBOL2 while in"
             (tp-message (lambda () (intern "TP-NEW-CL-SYMBOL2" "CL"))))
  0)

(deftest package-locked-p
  (list (funcall (tp-ext "PACKAGE-LOCKED-P") "CL") (funcall (tp-ext "PACKAGE-LOCKED-P") "CL-USER"))
  (t nil))

;;; ------------------------------------------------------------------
;;; package-local nicknames (SBCL extension)

(deftest local-nicknames
  (let ((p (tp-fresh "TP-LN" :use nil)))
    (funcall (tp-ext "ADD-PACKAGE-LOCAL-NICKNAME") "TP-LN-CL" "CL" p)
    (list (funcall (tp-ext "PACKAGE-LOCAL-NICKNAMES") p)
          (let ((*package* p)) (eq (find-package "TP-LN-CL") (find-package "CL")))
          (let ((*package* p)) (eq (read-from-string "tp-ln-cl:car") 'car))
          (find-package "TP-LN-CL")
          (tp-member p (funcall (tp-ext "PACKAGE-LOCALLY-NICKNAMED-BY-LIST") "CL"))
          (funcall (tp-ext "REMOVE-PACKAGE-LOCAL-NICKNAME") "TP-LN-CL" p)
          (funcall (tp-ext "REMOVE-PACKAGE-LOCAL-NICKNAME") "TP-LN-CL" p)
          (funcall (tp-ext "PACKAGE-LOCAL-NICKNAMES") p)))
  ((("TP-LN-CL" . #.(find-package "CL"))) t t nil t t nil nil))

(deftest local-nickname-conflict
  (let ((p (tp-fresh "TP-LN2" :use nil)))
    (funcall (tp-ext "ADD-PACKAGE-LOCAL-NICKNAME") "X" "CL" p)
    (tp-err (funcall (tp-ext "ADD-PACKAGE-LOCAL-NICKNAME") "X" "KEYWORD" p)))
  package-error)

;;; ------------------------------------------------------------------
;;; defpackage

(deftest defpackage-basics
  (let ((p (eval '(defpackage "TP-DP1" (:use "CL") (:export "A" "B") (:nicknames "TP-DP1-N")
                   (:intern "I1") (:shadow "CAR") (:documentation "doc")))))
    (list (package-name p) (package-nicknames p)
          (tp-names (package-shadowing-symbols p))
          (nth-value 1 (find-symbol "A" p)) (nth-value 1 (find-symbol "I1" p))
          (nth-value 1 (find-symbol "CDR" p))
          (eq (find-symbol "CAR" p) 'car)))
  ("TP-DP1" ("TP-DP1-N") ("CAR") :external :internal :inherited nil))

(deftest defpackage-import-and-shadowing-import
  (progn
    (eval '(defpackage "TP-DP2" (:use) (:export "CAR")))
    (let ((p (eval '(defpackage "TP-DP3" (:use "CL") (:shadowing-import-from "TP-DP2" "CAR")
                     (:import-from "CL" "CDR")))))
      (list (eq (find-symbol "CAR" p) (find-symbol "CAR" "TP-DP2"))
            (multiple-value-list (find-symbol "CDR" p))
            (tp-length (package-shadowing-symbols p)))))
  (t (cdr :internal) 1))

(deftest defpackage-designators
  (let ((p (eval '(defpackage #:tp-dp4 (:use :cl) (:export #:foo :bar #\Z "BAZ")))))
    (list (package-name p) (tp-set= (tp-names (let (r) (do-external-symbols (s p r) (push s r))))
                                    '("BAR" "BAZ" "FOO" "Z"))))
  ("TP-DP4" t))

(deftest defpackage-returns-existing-package
  (let ((p (eval '(defpackage "TP-DP5"))))
    (eq p (eval '(defpackage "TP-DP5"))))
  t)

(deftest defpackage-redefinition-keeps-exports-and-warns
  (progn
    (eval '(defpackage "TP-DP6" (:use) (:export "A" "B")))
    (let ((warned nil))
      (handler-bind ((warning (lambda (c) (setq warned t) (muffle-warning c))))
        (eval '(defpackage "TP-DP6" (:use) (:export "A"))))
      (list warned (nth-value 1 (find-symbol "B" "TP-DP6")))))
  (t :external))

(deftest defpackage-redefinition-adds
  (progn
    (eval '(defpackage "TP-DP7" (:use) (:export "A")))
    (eval '(defpackage "TP-DP7" (:use "CL") (:export "A" "C") (:nicknames "TP-DP7-N")))
    (list (nth-value 1 (find-symbol "C" "TP-DP7")) (package-use-list "TP-DP7")
          (package-nicknames "TP-DP7")))
  (:external (#.(find-package "CL")) ("TP-DP7-N")))

(deftest defpackage-redefinition-keeps-use-list
  (progn
    (eval '(defpackage "TP-DP8" (:use "CL")))
    (handler-bind ((warning #'muffle-warning))
      (eval '(defpackage "TP-DP8" (:use))))
    (package-use-list "TP-DP8"))
  (#.(find-package "CL")))

(deftest defpackage-option-errors
  (list (tp-err (macroexpand '(defpackage "TP-DP9" (:shadow "X") (:intern "X"))))
        (tp-err (macroexpand '(defpackage "TP-DP9" (:export "X") (:intern "X"))))
        (tp-err (macroexpand '(defpackage "TP-DP9" (:import-from "CL" "CAR") (:shadowing-import-from "CL" "CAR"))))
        (tp-err (macroexpand '(defpackage "TP-DP9" (:documentation "a") (:documentation "b"))))
        (tp-err (macroexpand '(defpackage "TP-DP9" (:size 1) (:size 2))))
        (tp-err (macroexpand '(defpackage "TP-DP9" (:bogus "a"))))
        (find-package "TP-DP9"))
  (program-error program-error program-error program-error program-error program-error nil))

(deftest defpackage-runtime-errors
  (list (tp-err (eval '(defpackage "TP-DP10" (:import-from "CL" "NO-SUCH-SYMBOL-TP"))))
        (tp-err (eval '(defpackage "TP-DP11" (:use "NO-SUCH-PACKAGE-TP"))))
        (tp-err (eval '(defpackage "TP-DP12" (:nicknames "CL")))))
  (package-error package-does-not-exist package-error))

(deftest defpackage-local-nicknames
  (let ((p (eval '(defpackage "TP-DP13" (:use) (:local-nicknames (:tp-l :cl))))))
    (list (funcall (tp-ext "PACKAGE-LOCAL-NICKNAMES") p)
          (let ((*package* p)) (eq (read-from-string "tp-l:car") 'car))))
  ((("TP-L" . #.(find-package "CL"))) t))

(deftest defpackage-expansion-evaluates-at-compile-time
  (let ((e (macroexpand-1 '(defpackage "TP-DP14" (:use "CL")))))
    (list (car e) (cadr e)))
  (eval-when (:compile-toplevel :load-toplevel :execute)))

;;; ------------------------------------------------------------------
;;; iteration

(deftest do-external-symbols-lists-exports
  (let ((p (tp-fresh "TP-IT1" :use nil)))
    (export (list (intern "A" p) (intern "B" p)) p)
    (intern "C" p)
    (tp-set= (tp-names (let (r) (do-external-symbols (s p r) (push s r)))) '("A" "B")))
  t)

(deftest do-symbols-includes-inherited
  (let* ((a (tp-fresh "TP-IT2" :use nil))
         (b (tp-fresh "TP-IT3" :use (list a))))
    (export (intern "X" a) a)
    (intern "Y" b)
    (shadow "Z" b)
    (tp-set= (tp-names (let (r) (do-symbols (s b r) (push s r)))) '("X" "Y" "Z")))
  t)

(deftest do-symbols-skips-shadowed-inherited
  (let* ((a (tp-fresh "TP-IT4" :use nil))
         (b (tp-fresh "TP-IT5" :use (list a))))
    (export (intern "X" a) a)
    (shadow "X" b)
    (let ((n 0)) (do-symbols (s b n) (declare (ignore s)) (incf n))))
  1)

(deftest do-symbols-return-and-result
  (list (do-symbols (s "CL" :never) (when (eq s 'car) (return :found)))
        (let ((p (tp-fresh "TP-IT6" :use nil))) (do-symbols (s p (list :done s)))))
  (:found (:done nil)))

(deftest do-all-symbols-sees-car
  (let ((found nil)) (do-all-symbols (s) (when (eq s 'car) (setq found t))) found)
  t)

(deftest with-package-iterator-kinds
  (let ((a (tp-fresh "TP-WI1" :use nil)))
    (export (intern "E" a) a)
    (intern "I" a)
    (let ((b (tp-fresh "TP-WI2" :use (list a))))
      (intern "J" b)
      (let ((r nil))
        (with-package-iterator (next (list a b) :internal :external :inherited)
          (tagbody
           top
             (multiple-value-bind (more sym kind pkg) (next)
               (when more
                 (push (list (symbol-name sym) kind (package-name pkg)) r)
                 (go top)))))
        (let ((sorted nil))
          (dolist (k '(("E" :external "TP-WI1") ("I" :internal "TP-WI1")
                       ("E" :inherited "TP-WI2") ("J" :internal "TP-WI2")))
            (push (tp-member k r) sorted))
          (list (tp-length r) sorted)))))
  (4 (t t t t)))

(deftest with-package-iterator-option-errors
  (list (tp-err (macroexpand '(with-package-iterator (next "CL") 1)))
        (tp-err (macroexpand '(with-package-iterator (next "CL" :bogus) 1))))
  (program-error program-error))
