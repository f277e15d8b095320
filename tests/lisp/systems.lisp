;;;; systems.lisp: tests of the system loader (stdlib-lisp/asdf.lisp) on the fixture systems of
;;;; tests/systems/, and of the real Debian libraries when they are installed
;;;; (/usr/share/common-lisp/source/). Tests run in order: each builds on the state the ones before
;;;; left. The MCP side (reset, the tools) is tested by tests/mcp/e2e-systems.mjs.

(asdf:initialize-source-registry
 `(:source-registry (:tree ,(namestring (merge-pathnames "tests/systems/")))))

(defvar *sy-dir* (format nil "/tmp/tinycl-systems-test-~D-~D/" (get-universal-time)
                                 (random 1000000 (make-random-state t))))

(defun sy-loaded () (tinycl:list-loaded-systems))

(defun sy-message (c) (princ-to-string c))

(defun sy-contains (string part) (and (search part string) t))

(defmacro sy-error-of (form)
  ;; -> (type message) of the error FORM signals, or :no-error
  `(handler-case (progn ,form :no-error)
     (error (c) (list (type-of c) (princ-to-string c)))))

(defun sy-write (path &rest lines)
  (ensure-directories-exist path)
  (with-open-file (s path :direction :output :if-exists :supersede)
    (dolist (l lines) (write-line l s)))
  path)

;;; ------------------------------------------------------------------
;;; Finding systems and reading their definitions

(deftest sy-find-system
  (let ((s (asdf:find-system "fix-util")))
    (list (asdf:component-name s) (asdf:component-version s)
          (pathname-name (asdf:system-source-file s)) (pathname-type (asdf:system-source-file s))
          (asdf:system-description s) (asdf:system-author s) (asdf:system-license s)))
  ("fix-util" "1.2.0" "fix-util" "asd" "Utilities for the tinycl loader tests" "tinycl tests" "MIT"))

(deftest sy-find-system-missing
  (list (asdf:find-system "no-such-system-xyz" nil)
        (first (sy-error-of (asdf:find-system "no-such-system-xyz"))))
  (nil asdf:missing-component))

(deftest sy-version-from-file
  (asdf:component-version (asdf:find-system "fix-app"))
  "0.3.0")

(deftest sy-secondary-system
  (let ((s (asdf:find-system "fix-app/test")))
    (list (asdf:component-name s) (asdf:system-depends-on s)
          (equal (asdf:system-source-file s) (asdf:system-source-file (asdf:find-system "fix-app")))
          (and (member "fix-app/test" (asdf:registered-systems) :test #'string=) t)))
  ("fix-app/test" ("fix-app") t t))

(deftest sy-symbol-names
  (list (asdf:coerce-name :fix-util) (asdf:primary-system-name "fix-app/test")
        (eq (asdf:find-system :fix-util) (asdf:find-system "fix-util")))
  ("fix-util" "fix-app" t))

(deftest sy-components
  (let* ((s (asdf:find-system "fix-app"))
         (base (asdf:find-component s '("src" "core" "base")))
         (extra (asdf:find-component s '("src" "extras" "extra"))))
    (list (mapcar #'asdf:component-name (asdf:component-children s))
          (enough-namestring (asdf:component-pathname base) (asdf:system-source-directory s))
          (enough-namestring (asdf:component-pathname extra) (asdf:system-source-directory s))
          (type-of (asdf:find-component s "version.sexp"))
          (asdf:component-find-path base)))
  (("version.sexp" "package" "src") "src/core/base.lisp" "src/extra/extra.lisp" asdf:static-file
   ("fix-app" "src" "core" "base")))

(deftest sy-relative-pathname
  (enough-namestring (asdf:system-relative-pathname "fix-app" "test/tests.lisp")
                     (asdf:system-source-directory "fix-app"))
  "test/tests.lisp")

(deftest sy-dependencies-before-loading
  (list (tinycl:system-dependencies "fix-app") (tinycl:system-dependencies "fix-app/test" :transitive t))
  (("fix-util") ("fix-util" "fix-app")))

;;; ------------------------------------------------------------------
;;; A failed load records nothing for the failed system; the dependencies that loaded
;;; completely are recorded (first, so that fix-util is loaded by this very call)

(deftest sy-broken-component
  (let ((e (sy-error-of (asdf:load-system "fix-broken"))))
    (list (first e)
          (sy-contains (second e) "second.lisp")
          (sy-contains (second e) "fix-broken")
          (sy-contains (second e) "failing halfway through second.lisp")
          (typep (asdf::error-condition (handler-case (asdf:load-system "fix-broken") (error (c) c)))
                 'simple-error)))
  (asdf:component-load-error t t t t))

(deftest sy-broken-records-dependency-only
  (list (sy-loaded) (tinycl:system-loaded-p "fix-broken") (tinycl:system-loaded-p "fix-util")
        (asdf:component-loaded-p "fix-broken"))
  (("fix-util") nil t nil))

(deftest sy-broken-partial-code
  ;; what loaded before the error stays in the image; the rest never ran
  (list (funcall (find-symbol "FIRST-FN" "FIX-BROKEN"))
        (fboundp (find-symbol "SECOND-FN" "FIX-BROKEN"))
        (find-symbol "THIRD-FN" "FIX-BROKEN"))
  (:first t nil))

;;; Every other failure leaves the record exactly as it was

(deftest sy-missing-system
  (list (first (sy-error-of (asdf:load-system "no-such-system-xyz")))
        (second (sy-error-of (asdf:load-system "no-such-system-xyz")))
        (sy-loaded))
  (asdf:missing-component "Component \"no-such-system-xyz\" not found" ("fix-util")))

(deftest sy-quickload-missing-system
  (list (sy-error-of (ql:quickload "nonexistent-xyz-123" :silent t))
        (handler-case (ql:quickload "nonexistent-xyz-123" :silent t)
          (ql:system-not-found (c) (ql:system-not-found-name c)))
        (sy-loaded))
  ((quicklisp-client:system-not-found "System \"nonexistent-xyz-123\" not found in any known distribution.")
   "nonexistent-xyz-123" ("fix-util")))

(deftest sy-missing-dependency
  (let ((e (sy-error-of (asdf:load-system "fix-missing-dep"))))
    (list (first e) (sy-contains (second e) "\"no-such-system-xyz\"")
          (sy-contains (second e) "fix-missing-dep.asd") (sy-loaded)
          (fboundp (find-symbol "FIX-MISSING-DEP-LOADED" "CL-USER"))))
  (asdf:missing-dependency t t ("fix-util") nil))

(deftest sy-cycle
  (let ((e (sy-error-of (asdf:load-system "fix-cycle-a"))))
    (list (first e) (sy-contains (second e) "\"fix-cycle-a\" -> system \"fix-cycle-b\" -> system \"fix-cycle-a\"")
          (sy-contains (second e) "fix-cycle-b.asd") (sy-loaded)))
  (asdf:circular-dependency t t ("fix-util")))

(deftest sy-unreadable-asd
  (let ((e (sy-error-of (asdf:load-system "fix-unreadable"))))
    (list (first e) (sy-contains (second e) "fix-unreadable.asd") (sy-contains (second e) "\"fix-unreadable\"")
          (asdf:registered-system "fix-unreadable") (sy-loaded)))
  (asdf:load-system-definition-error t t nil ("fix-util")))

(deftest sy-missing-component-file
  (let ((e (sy-error-of (asdf:load-system "fix-missing-file"))))
    (list (first e) (sy-contains (second e) "absent.lisp") (sy-contains (second e) "\"fix-missing-file\"")
          ;; nothing of the system loaded: the files are checked first
          (fboundp (find-symbol "FIX-MISSING-FILE-PRESENT" "CL-USER")) (sy-loaded)))
  (asdf:missing-component t t nil ("fix-util")))

;;; ------------------------------------------------------------------
;;; Loading, tracking, reloading

(defvar *sy-before* nil)
(defvar *sy-after* nil)

(deftest sy-load-app
  (progn (setq *sy-before* (get-universal-time))
         (prog1 (asdf:load-system "fix-app") (setq *sy-after* (get-universal-time))))
  t)

(deftest sy-load-order
  ;; dependencies first; :serial and :depends-on among components; :if-feature false skipped
  (list (symbol-value (find-symbol "*LOAD-ORDER*" "FIX-APP"))
        (funcall (find-symbol "APP-VALUE" "FIX-APP")) (funcall (find-symbol "EXTRA-VALUE" "FIX-APP")))
  ((:extra :more :base :package) 21 63))

(deftest sy-tracked
  (list (sy-loaded) (tinycl:system-loaded-p "fix-app") (tinycl:system-loaded-p :fix-app)
        (tinycl:system-loaded-p "fix-app/test") (asdf:component-loaded-p "fix-app"))
  (("fix-util" "fix-app") t t nil t))

(deftest sy-load-time
  (multiple-value-bind (ut iso) (tinycl:system-load-time "fix-app")
    (list (<= *sy-before* ut *sy-after*) (length iso) (char iso 4) (char iso 10) (char iso 19)
          (equal iso (asdf::%iso-time ut))))
  (t 20 #\- #\T #\Z t))

(deftest sy-iso-time
  (list (asdf::%iso-time 0) (asdf::%iso-time 3913401600) (asdf::%iso-time (+ 3913401600 (* 59 86400) 3661)))
  ("1900-01-01T00:00:00Z" "2024-01-05T00:00:00Z" "2024-03-04T01:01:01Z"))

(deftest sy-record
  (let ((r (gethash "fix-app" asdf::*image-systems*)))
    (list (asdf::record-version r) (asdf::record-dependencies r) (asdf::record-transitive r)
          (asdf::record-packages r) (pathname-name (asdf::record-asd r)) (integerp (asdf::record-elapsed r))
          (length (asdf::record-files r))))
  ("0.3.0" ("fix-util") ("fix-util") ("FIX-APP") "fix-app" t 4))

(deftest sy-definitions-recorded
  (let ((defs (asdf::record-definitions (gethash "fix-util" asdf::*image-systems*))))
    (list (and (member (find-symbol "DOUBLE" "FIX-UTIL") defs :key #'cdr) t)
          (and (member (find-symbol "WITH-DOUBLED" "FIX-UTIL") defs :key #'cdr) t)))
  (t t))

(deftest sy-list-definitions-package
  (let ((text (sys::%list-definitions nil "FIX-UTIL")))
    (list (sy-contains text "[Functions]") (sy-contains text "DOUBLE") (sy-contains text "[Macros]")
          (sy-contains text "WITH-DOUBLED") (sy-contains text "*UTIL-LOADS*")))
  (t t t t t))

(deftest sy-list-definitions-section
  ;; the user's definitions leave out the systems' packages; [Loaded Systems] lists them. The
  ;; package of the failed fix-broken is not a system's: it is the session's, as a reset shows
  (let ((text (sys::%list-definitions nil nil)))
    (list (sy-contains text "[Loaded Systems]") (sy-contains text "- fix-app 0.3.0")
          (sy-contains text "FIX-UTIL:DOUBLE") (sy-contains text "- FIX-APP")
          (sy-contains text "- FIX-BROKEN")))
  (t t nil nil t))

(deftest sy-system-packages
  (list (sys::%system-package-p (find-package "FIX-APP")) (sys::%system-package-p (find-package "CL-USER")))
  (t nil))

(deftest sy-no-reload-when-unchanged
  (progn (asdf:load-system "fix-app")
         (list (symbol-value (find-symbol "*UTIL-LOADS*" "FIX-UTIL"))
               (length (symbol-value (find-symbol "*LOAD-ORDER*" "FIX-APP"))) (sy-loaded)))
  (1 4 ("fix-util" "fix-app")))

(deftest sy-force-reload
  ;; :force t reloads the system itself (its files push to *LOAD-ORDER* again), not its
  ;; dependencies, and updates the load time
  (let ((t1 (tinycl:system-load-time "fix-app")))
    (sleep 1.1)
    (asdf:load-system "fix-app" :force t)
    (list (> (tinycl:system-load-time "fix-app") t1)
          (symbol-value (find-symbol "*UTIL-LOADS*" "FIX-UTIL"))
          (length (symbol-value (find-symbol "*LOAD-ORDER*" "FIX-APP")))
          (sy-loaded)))
  (t 1 8 ("fix-util" "fix-app")))

(deftest sy-force-all
  (progn (asdf:load-system "fix-app" :force :all)
         (symbol-value (find-symbol "*UTIL-LOADS*" "FIX-UTIL")))
  2)

(deftest sy-test-system
  ;; :in-order-to (test-op (test-op "fix-app/test")) and its :perform
  (progn (asdf:test-system "fix-app")
         (list (symbol-value (find-symbol "*RAN*" "FIX-APP-TEST")) (tinycl:system-loaded-p "fix-app/test")))
  (t t))

(deftest sy-perform-after-and-features
  (progn (asdf:load-system "fix-clos")
         (list (and (member :fix-clos-loaded *features*) t)
               (funcall (find-symbol "AREA" "FIX-CLOS") (funcall (find-symbol "MAKE-CIRCLE" "FIX-CLOS") 2))))
  (t 12))

(deftest sy-defsystem-depends-on
  (progn (asdf:load-system "fix-defsys")
         (list (funcall (find-symbol "FIX-DEFSYS-MAIN" "CL-USER"))
               (asdf:system-defsystem-depends-on (asdf:find-system "fix-defsys"))
               (sy-contains (with-output-to-string (s) (tinycl:describe-system "fix-defsys" s))
                            "option :AROUND-COMPILE ignored")))
  (8 ("fix-util") t))

(deftest sy-describe-system
  (let ((loaded (with-output-to-string (s) (tinycl:describe-system "fix-app" s)))
        (not-loaded (with-output-to-string (s) (tinycl:describe-system "fix-cycle-b" s))))
    (list (sy-contains loaded "Version: 0.3.0") (sy-contains loaded "Status: loaded at ")
          (sy-contains loaded "Depends on: fix-util") (sy-contains loaded "src/core/base.lisp")
          (sy-contains loaded "fix-app.asd") (sy-contains not-loaded "Status: not loaded")))
  (t t t t t t))

(deftest sy-list-local-systems
  (let ((all (tinycl:list-local-systems "fix-")))
    (list (assoc "fix-util" all :test #'string=) (third (assoc "fix-broken" all :test #'string=))
          (second (assoc "fix-clos" all :test #'string=))))
  (("fix-util" "1.2.0" :loaded) :not-loaded "2.0.1"))

(deftest sy-require
  (progn (require "fix-missing-file" (list (merge-pathnames "tests/systems/fix-missing-file/present.lisp")))
         (require :fix-clos)
         (list (fboundp (find-symbol "FIX-MISSING-FILE-PRESENT" "CL-USER"))
               (and (member "fix-clos" *modules* :test #'string-equal) t)))
  (t t))

;;; A system defined at the REPL, and one whose files change

(deftest sy-defsystem-in-session
  (progn
    (sy-write (merge-pathnames "inline/one.lisp" *sy-dir*) "(defparameter cl-user::*sy-inline* :one)")
    (let ((*default-pathname-defaults* (merge-pathnames "inline/" *sy-dir*)))
      (eval '(asdf:defsystem "sy-inline" :version "9.9" :components ((:file "one")))))
    (asdf:load-system "sy-inline")
    (list (symbol-value (find-symbol "*SY-INLINE*" "CL-USER")) (asdf:system-source-file (asdf:find-system "sy-inline"))
          (tinycl:system-loaded-p "sy-inline")))
  (:one nil t))

(deftest sy-depends-on-uiop-and-truenames
  ;; (:depends-on ("uiop")) loads; while a component loads, *LOAD-TRUENAME*, *LOAD-PATHNAME* and
  ;; *COMPILE-FILE-TRUENAME* name its file (code reads them with #. to find files beside it)
  (let ((dir (merge-pathnames "truenames/" *sy-dir*)))
    (sy-write (merge-pathnames "sy-truenames.asd" dir)
              "(defsystem \"sy-truenames\" :depends-on (\"uiop\") :components ((:file \"tn\")))")
    (sy-write (merge-pathnames "tn.lisp" dir)
              "(defparameter cl-user::*sy-tn* (list (pathname-name *load-truename*) (pathname-name *load-pathname*) (pathname-name #.*compile-file-truename*) (pathname-name *compile-file-pathname*)))")
    (push dir asdf:*central-registry*)
    (asdf:load-system "sy-truenames")
    (list (symbol-value (find-symbol "*SY-TN*" "CL-USER"))
          (tinycl:system-dependencies "sy-truenames")
          *compile-file-truename*))
  (("tn" "tn" "tn" "tn") ("uiop") nil))

(deftest sy-changed-file-reloads
  (let ((dir (merge-pathnames "changing/" *sy-dir*)))
    (sy-write (merge-pathnames "sy-changing.asd" dir)
              "(defsystem \"sy-changing\" :version \"1.0\" :components ((:file \"a\")))")
    (sy-write (merge-pathnames "a.lisp" dir) "(defparameter cl-user::*sy-changing* 1)")
    (push dir asdf:*central-registry*)
    (asdf:load-system "sy-changing")
    (let ((v1 (symbol-value (find-symbol "*SY-CHANGING*" "CL-USER"))))
      (sleep 1.1)
      (sy-write (merge-pathnames "a.lisp" dir) "(defparameter cl-user::*sy-changing* 2)")
      (asdf:load-system "sy-changing")
      (let ((v2 (symbol-value (find-symbol "*SY-CHANGING*" "CL-USER"))))
        (sleep 1.1)
        ;; a new version in the .asd is read again
        (sy-write (merge-pathnames "sy-changing.asd" dir)
                  "(defsystem \"sy-changing\" :version \"1.1\" :components ((:file \"a\")))")
        (asdf:load-system "sy-changing")
        (list v1 v2 (asdf:component-version (asdf:find-system "sy-changing"))
              (asdf::record-version (gethash "sy-changing" asdf::*image-systems*))))))
  (1 2 "1.1" "1.1"))

(deftest sy-clear-system
  (progn (asdf:clear-system "sy-changing")
         (list (asdf:registered-system "sy-changing") (tinycl:system-loaded-p "sy-changing")))
  (nil nil))

(deftest sy-malformed-definitions
  ;; every malformed definition is an error naming the system
  (mapcar #'(lambda (form)
              (let ((e (sy-error-of (eval form))))
                (and (consp e) (sy-contains (second e) (string-downcase (symbol-name (second form))))
                     t)))
          '((asdf:defsystem :sy-bad1 :components "notalist")
            (asdf:defsystem :sy-bad2 :components ((:file)))
            (asdf:defsystem :sy-bad3 :version)
            (asdf:defsystem :sy-bad4 :components ((:frob "x")))
            (asdf:defsystem :sy-bad5 :components ((:file "a") (:file "a")))
            (asdf:defsystem :sy-bad6 :perform (frob-op (o c) 1))
            (asdf:defsystem :sy-bad7 :class :package-inferred-system)))
  (t t t t t t t))

(deftest sy-malformed-at-load
  (progn
    (eval '(asdf:defsystem :sy-bad8 :depends-on ((:weird "x"))))
    (eval '(asdf:defsystem :sy-bad9 :components ((:file "a" :depends-on ("nope")))))
    (eval '(asdf:defsystem :sy-bad10 :components ((:file "a" :depends-on ("b")) (:file "b" :depends-on ("a")))))
    (eval '(asdf:defsystem :sy-bad11 :depends-on ("sy-bad11")))
    (list (sy-contains (second (sy-error-of (asdf:load-system :sy-bad8))) "system \"sy-bad8\"")
          (first (sy-error-of (asdf:load-system :sy-bad9)))
          (first (sy-error-of (asdf:load-system :sy-bad10)))
          (first (sy-error-of (asdf:load-system :sy-bad11)))
          (remove-if-not #'(lambda (n) (search "sy-bad" n)) (sy-loaded))))
  (t asdf:missing-dependency asdf:circular-dependency asdf:circular-dependency nil))

;;; ------------------------------------------------------------------
;;; UIOP as .asd files use it

(deftest sy-uiop-versions
  (list (uiop:version<= "3.1" "3.3.1") (uiop:version< "1.10" "1.9") (uiop:parse-version "1.2.0")
        (uiop:parse-version "1.x") (asdf:version-satisfies (asdf:find-system "fix-util") "1.1")
        (asdf:version-satisfies (asdf:find-system "fix-util") "1.3"))
  (t nil (1 2 0) nil t nil))

(deftest sy-uiop-strings
  (list (uiop:split-string "a b  c") (uiop:split-string "a,b,c" :separator "," :max 2)
        (uiop:string-prefix-p "fix" "fix-app") (uiop:string-suffix-p "fix-app" "app")
        (uiop:strcat "a" "b") (uiop:featurep '(:and :asdf3 (:not :no-such-feature))))
  (("a" "b" "" "c") ("a,b" "c") t t "ab" t))

(deftest sy-uiop-pathnames
  (list (namestring (uiop:parse-unix-namestring "a/b/c.lisp"))
        (namestring (uiop:parse-unix-namestring "a/b/c" :type "lisp"))
        (namestring (uiop:parse-unix-namestring "a/b/" ))
        (namestring (uiop:ensure-directory-pathname "/x/y"))
        (uiop:directory-pathname-p "/x/") (uiop:symbol-call :fix-util :double 4))
  ("a/b/c.lisp" "a/b/c.lisp" "a/b/" "/x/y/" t 8))

(deftest sy-system-relative-pathname-slot
  ;; as in ASDF, the slot holds the system's absolute directory (cxml reads it)
  (let ((s (asdf:find-system "fix-util")))
    (equal (slot-value s 'asdf::relative-pathname) (asdf:system-source-directory s)))
  t)

(deftest sy-uiop-more
  ;; the UIOP functions the Debian libraries call beyond what .asd files use (uiop.lisp)
  (list (uiop:escape-command '("ls" "a b" "x$y" "plain-1.txt"))
        (list (uiop:timestamp< nil 1) (uiop:timestamp< 1 t) (uiop:timestamp< t 1) (uiop:timestamp< 2 1)
              (uiop:latest-timestamp 1 nil 3) (uiop:earliest-timestamp 4 2 t))
        (let (path)
          (list (uiop:with-temporary-file (:stream s :pathname p)
                  (setq path p) (print '(1 2) s) (finish-output s) (uiop:read-file-form p))
                (probe-file path)))
        (uiop:with-temporary-file (:pathname p :keep nil) (pathname-type p))
        (multiple-value-list (uiop:split-name-type "a.tar.gz"))
        (uiop:nest (list 1) (list 2) 3)
        (with-output-to-string (s) (uiop:format! s "~A" 1) (uiop:safe-format! s "~A" 2))
        (uiop:encoding-external-format :utf-8)
        (stringp (uiop:implementation-identifier))
        (listp uiop:*command-line-arguments*))
  ("ls \"a b\" \"x\\$y\" plain-1.txt" (t t nil nil 3 2) ((1 2) nil) "tmp" ("a.tar" "gz") (1 (2 3)) "12" :utf-8 t t))

(deftest sy-uiop-define-package
  (progn (eval '(uiop:define-package :sy-defpkg (:use :cl) (:mix :fix-util) (:reexport :fix-util)))
         (list (eq (find-symbol "DOUBLE" "SY-DEFPKG") (find-symbol "DOUBLE" "FIX-UTIL"))
               (nth-value 1 (find-symbol "DOUBLE" "SY-DEFPKG"))))
  (t :external))

;;; ------------------------------------------------------------------
;;; Real libraries from Debian (cl-split-sequence cl-alexandria cl-ppcre cl-parse-number cl-iterate
;;; cl-flexi-streams cl-trivial-gray-streams cl-babel).
;;; A library that loads must work; one that does not must fail with a loader error naming a file
;;; and leave no record. docs/compatibility.md says which load today and what stops the others.

(defparameter *sy-debian*
  '(("split-sequence" "SPLIT-SEQUENCE" "(split-sequence:split-sequence #\\, \"a,b,,c\")" ("a" "b" "" "c"))
    ("parse-number" "PARSE-NUMBER" "(list (parse-number:parse-number \"1/2\") (parse-number:parse-number \"-12\"))" (1/2 -12))
    ("iterate" "ITERATE" "(iterate:iter (iterate:for i from 1 to 4) (iterate:collect (* i i)))" (1 4 9 16))
    ("alexandria" "ALEXANDRIA" "(list (alexandria:iota 3 :start 1) (alexandria:flatten '(1 (2 (3)))))" ((1 2 3) (1 2 3)))
    ("cl-ppcre" "CL-PPCRE" "(list (cl-ppcre:scan-to-strings \"a(b+)c\" \"xabbc\") (cl-ppcre:split \",\" \"a,b\"))" ("abbc" ("a" "b")))
    ;; the built-in layer (no .asd read) under a library from disk that uses Gray streams
    ("trivial-gray-streams" "TRIVIAL-GRAY-STREAMS" "(list (asdf:system-source-file (asdf:find-system \"trivial-gray-streams\")) (asdf:component-version (asdf:find-system \"trivial-gray-streams\")) (subtypep 'trivial-gray-streams:fundamental-binary-input-stream 'tinycl-gray:fundamental-input-stream))" (nil "2.0" t))
    ("babel" "BABEL" "(let ((s (coerce (list #\\a (code-char 233)) 'string))) (list (coerce (babel:string-to-octets s :encoding :utf-16le) 'list) (string= s (babel:octets-to-string (babel:string-to-octets s :encoding :utf-8) :encoding :utf-8))))" ((97 0 233 0) t))
    ("flexi-streams" "FLEXI-STREAMS" "(let* ((s (coerce (list #\\h (code-char 233) (code-char 8364)) 'string)) (o (flexi-streams:string-to-octets s :external-format :utf-8)) (in (flexi-streams:make-flexi-stream (flexi-streams:make-in-memory-input-stream o) :external-format :utf-8))) (list (coerce o 'list) (string= s (flexi-streams:octets-to-string o :external-format :utf-8)) (read-char in) (char-code (read-char in)) (char-code (read-char in)) (read-char in nil :eof) (coerce (flexi-streams:with-output-to-sequence (out) (write-byte 1 out) (write-sequence #(2 3) out)) 'list)))" ((104 195 169 226 130 172) t #\h 233 8364 :eof (1 2 3)))
    ;; issue 15: Gray streams, (unsigned-byte 8) arrays, UIOP, the built-in cl-fad, truenames
    ("md5" "MD5" "(coerce (md5:md5sum-string \"abc\") 'list)" (144 1 80 152 60 210 79 176 214 150 63 125 40 225 127 114))
    ("yason" "YASON" "(list (gethash \"a\" (yason:parse \"{\\\"a\\\": [1, \\\"x\\\"]}\")) (with-output-to-string (s) (yason:encode (list 1 \"b\") s)))" ((1 "x") "[1,\"b\"]"))
    ("quri" "QURI" "(let ((u (quri:uri \"http://ex.com:8080/p?x=1\"))) (list (quri:uri-host u) (quri:uri-port u) (quri:uri-query-params u)))" ("ex.com" 8080 (("x" . "1"))))
    ("nibbles" "NIBBLES" "(let ((v (make-array 4 :element-type '(unsigned-byte 8) :initial-element 0))) (setf (nibbles:ub32ref/be v 0) #x01020304) (list (coerce v 'list) (nibbles:ub16ref/le v 2)))" ((1 2 3 4) 1027))
    ("local-time" "LOCAL-TIME" "(local-time:format-timestring nil (local-time:encode-timestamp 0 0 0 12 1 2 2020 :timezone local-time:+utc-zone+) :timezone local-time:+utc-zone+)" "2020-02-01T12:00:00.000000Z")
    ("cxml" "CXML" "(dom:get-attribute (dom:document-element (cxml:parse \"<a x='1'><b/></a>\" (cxml-dom:make-dom-builder))) \"x\")" "1")
    ;; the metaobject protocol: special slots (SLOT-VALUE-USING-CLASS), layered functions (classes
    ;; made by MAKE-INSTANCE of a metaclass, generic functions of a program's class)
    ("contextl" "CONTEXTL" "(progn (eval '(defclass sy-cx-person () ((name :initarg :name :accessor sy-cx-name :special t)) (:metaclass contextl:special-class))) (eval '(contextl:deflayer sy-cx-polite)) (eval '(contextl:define-layered-function sy-cx-greet (x))) (eval '(contextl:define-layered-method sy-cx-greet ((x string)) (list :base x))) (eval '(contextl:define-layered-method sy-cx-greet :in-layer sy-cx-polite ((x string)) (list :polite (call-next-method)))) (let ((p (make-instance 'sy-cx-person :name \"x\"))) (list (funcall 'sy-cx-greet \"a\") (eval '(contextl:with-active-layers (sy-cx-polite) (sy-cx-greet \"b\"))) (sy-cx-name p) (eval `(contextl:dletf (((sy-cx-name ,p) \"y\")) (sy-cx-name ,p))) (sy-cx-name p))))" ((:base "a") (:polite (:base "b")) "x" "y" "x"))))

(defparameter *sy-debian-expected*
  ;; the libraries that load unmodified with tinycl today (docs/compatibility.md)
  '("split-sequence" "parse-number" "iterate" "alexandria" "cl-ppcre" "trivial-gray-streams" "flexi-streams" "babel"
    "md5" "yason" "quri" "nibbles" "local-time" "cxml" "contextl"))

(defun sy-debian-installed-p () (probe-file "/usr/share/common-lisp/source/"))

(defun sy-try-debian (entry)
  ;; -> :loaded-and-works, :not-installed, (:failed-cleanly type), or a description of what is wrong
  (destructuring-bind (name package code expected) entry
    (declare (ignore package))
    (cond ((not (asdf:find-system name nil)) :not-installed)
          (t (let ((before (tinycl:list-loaded-systems))
                   (result (handler-case (progn (asdf:load-system name) :loaded)
                             (error (c) c))))
               (if (eq result :loaded)
                   (let ((value (handler-case (eval (read-from-string code)) (error (c) (list :error (princ-to-string c))))))
                     (if (and (tinycl:system-loaded-p name) (equal value expected))
                         :loaded-and-works
                         (list :loaded-but name value)))
                   (if (and (typep result '(or asdf:component-load-error asdf:system-definition-error))
                            (search ".lisp" (princ-to-string result))
                            (not (tinycl:system-loaded-p name))
                            (subsetp (tinycl:list-loaded-systems) (append before (tinycl:list-loaded-systems)) :test #'string=))
                       (list :failed-cleanly (type-of result))
                       (list :failed-badly name (type-of result) (princ-to-string result)))))))))

(defvar *sy-debian-results* nil)

(deftest sy-debian-libraries
  (if (sy-debian-installed-p)
      (progn
        (setq *sy-debian-results* (mapcar #'(lambda (e) (cons (first e) (sy-try-debian e))) *sy-debian*))
        (format t "~&; Debian libraries: ~{~A~^, ~}~%"
                (mapcar #'(lambda (r) (format nil "~A ~(~A~)" (car r) (if (consp (cdr r)) (cadr r) (cdr r))))
                        *sy-debian-results*))
        ;; every library works, or fails cleanly, or loads but meets a missing CL feature when used
        (remove-if #'(lambda (r) (or (member (cdr r) '(:loaded-and-works :not-installed))
                                     (and (consp (cdr r)) (member (cadr r) '(:failed-cleanly :loaded-but)))))
                   *sy-debian-results*))
      nil)
  nil)

(deftest sy-debian-expected-load
  ;; `make test` installs the packages (tools/deps.sh test), so a missing one is a failure too
  (remove-if #'(lambda (name)
                 (eq (cdr (assoc name *sy-debian-results* :test #'string=)) :loaded-and-works))
             *sy-debian-expected*)
  nil)

(deftest sy-debian-list-definitions
  ;; seed 004: a loaded system's definitions show in list-definitions {package}
  (if (eq (cdr (assoc "alexandria" *sy-debian-results* :test #'string=)) :loaded-and-works)
      (let ((text (sys::%list-definitions nil "ALEXANDRIA")))
        (list (sy-contains text "COPY-SEQUENCE") (sy-contains text "HASH-TABLE-KEYS")))
      (list t t))
  (t t))

(deftest sy-cleanup
  (progn (tinycl:delete-directory *sy-dir* :recursive t) (probe-file *sy-dir*))
  nil)

;;; ------------------------------------------------------------------
;;; Built-in portability layers (stdlib-lisp/layers.lisp): found before any .asd, no file read.
;;; Last in the file: they load systems, which the tests above must not see.

(deftest sy-builtin-trivial-gray-streams
  (progn
    (asdf:load-system "trivial-gray-streams")
    (let ((s (asdf:find-system "trivial-gray-streams")))
      (list (asdf:system-source-file s) (asdf:component-version s) (tinycl:system-loaded-p "trivial-gray-streams")
            (and (find-package "IMPL-SPECIFIC-GRAY") t)
            (eq (find-symbol "STREAM-WRITE-CHAR" "TRIVIAL-GRAY-STREAMS") 'tinycl-gray:stream-write-char))))
  (nil "2.0" t t t))

(deftest sy-builtin-trivial-gray-streams-portable-methods
  ;; the portable (stream seq start end) methods and STREAM-FILE-POSITION are what CL calls
  (progn
    ;; read at run time: the package exists once the test above loaded the layer
    (eval (read-from-string "(defclass sy-tgs-out (trivial-gray-streams:fundamental-character-output-stream)
                               ((got :initform nil) (pos :initform 0)))"))
    (eval (read-from-string "(defmethod trivial-gray-streams:stream-write-sequence ((s sy-tgs-out) seq start end &key)
                              (push (list (subseq seq start end) start end) (slot-value s 'got))
                              seq)"))
    (eval (read-from-string "(defmethod trivial-gray-streams:stream-file-position ((s sy-tgs-out)) (slot-value s 'pos))"))
    (eval (read-from-string "(defmethod (setf trivial-gray-streams:stream-file-position) (new (s sy-tgs-out))
                               (setf (slot-value s 'pos) new))"))
    (let ((s (make-instance 'sy-tgs-out)))
      (write-sequence "abcdef" s :start 1 :end 3)
      (list (slot-value s 'got) (file-position s) (file-position s 7) (file-position s))))
  ((("bc" 1 3)) 0 7 7))

(deftest sy-builtin-trivial-features
  (progn
    (asdf:load-system "trivial-features")
    (list (asdf:system-source-file (asdf:find-system "trivial-features"))
          (every #'(lambda (f) (member f *features*)) '(:64-bit :little-endian :x86-64 :unix :linux))))
  (nil t))

(deftest sy-builtin-trivial-gray-streams-fallback
  ;; a stream without its own STREAM-READ-SEQUENCE: the portable method answers FALLBACK and
  ;; the layer calls the next method (the protocol's default, by characters)
  (progn
    (eval (read-from-string "(defclass sy-tgs-in (trivial-gray-streams:fundamental-character-input-stream)
                               ((left :initform (list #\\a #\\b))))"))
    (eval (read-from-string "(defmethod trivial-gray-streams:stream-read-char ((s sy-tgs-in))
                               (if (slot-value s 'left) (pop (slot-value s 'left)) :eof))"))
    (let ((v (make-string 4 :initial-element #\-)))
      (list (read-sequence v (make-instance (find-symbol "SY-TGS-IN"))) v)))
  (2 "ab--"))

(deftest sy-builtin-closer-mop
  ;; closer-mop's package definition names a MOP package per implementation; the built-in
  ;; layer is its package over TINYCL-MOP, with C2CL (CL plus the MOP) beside it
  (progn
    (asdf:load-system "closer-mop")
    (eval (read-from-string
           "(progn (defclass sy-c2-a () ((x :initarg :x)))
                   (defclass sy-c2-b (sy-c2-a) ((y)))
                   (defgeneric sy-c2-f (o))
                   (c2mop:ensure-method #'sy-c2-f '(lambda (o) (list :b (call-next-method)))
                                        :specializers (list (find-class 'sy-c2-b)))
                   (c2mop:ensure-method #'sy-c2-f '(lambda (o) :a)
                                        :specializers (list (find-class 'sy-c2-a))))"))
    (let ((s (asdf:find-system "closer-mop")))
      (list (asdf:system-source-file s) (asdf:component-version s)
            (funcall (read-from-string "c2mop:subclassp") 'sy-c2-b 'sy-c2-a)
            (mapcar (read-from-string "c2mop:slot-definition-name")
                    (funcall (read-from-string "c2mop:class-slots")
                             (funcall (read-from-string "c2mop:ensure-finalized") (find-class 'sy-c2-b))))
            (funcall (read-from-string "sy-c2-f") (make-instance (read-from-string "sy-c2-b")))
            (eq (find-symbol "CLASS-SLOTS" "C2CL") (find-symbol "CLASS-SLOTS" "SB-MOP"))
            (eq (find-symbol "DEFCLASS" "C2CL") 'defclass)
            (funcall (read-from-string "c2mop:required-args") '(a b &optional c)))))
  (nil "1.0.0" t (x y) (:b :a) t t (a b)))

(deftest sy-builtin-cl-fad
  ;; the sources on disk (packages, fad, path, temporary-files) with tinycl's branches
  (if (not (probe-file "/usr/share/common-lisp/source/cl-fad/fad.lisp"))
      '(nil "0.7.6" (#p"/tmp/sy-fad/a.txt" #p"/tmp/sy-fad/sub/") #p"/tmp/sy-fad/sub/" 5 t "TEMPORARY-FILES:TEMP-%" t) ; not installed
      (progn
        (asdf:load-system "cl-fad")
        (ensure-directories-exist "/tmp/sy-fad/sub/")
        (with-open-file (s "/tmp/sy-fad/a.txt" :direction :output :if-exists :supersede) (write-string "a" s))
        (let ((fn (lambda (name &rest args) (apply (find-symbol name "CL-FAD") args))))
          (prog1
              (list (asdf:system-source-file (asdf:find-system "cl-fad"))
                    (asdf:component-version (asdf:find-system "cl-fad"))
                    (funcall fn "LIST-DIRECTORY" "/tmp/sy-fad/")
                    (funcall fn "DIRECTORY-EXISTS-P" "/tmp/sy-fad/sub")
                    (eval (read-from-string "(cl-fad:with-open-temporary-file (s :direction :io) (print 5 s) (file-position s 0) (read s))"))
                    (progn (funcall fn "DELETE-DIRECTORY-AND-FILES" "/tmp/sy-fad/")
                           (null (probe-file "/tmp/sy-fad/")))
                    ;; temporary-files.lisp from disk: its template names the logical host it sets up
                    (symbol-value (find-symbol "*DEFAULT-TEMPLATE*" "CL-FAD"))
                    (equal (translate-logical-pathname "TEMPORARY-FILES:X.Y")
                           (merge-pathnames "x.y" (funcall fn "GET-DEFAULT-TEMPORARY-DIRECTORY"))))))))
  (nil "0.7.6" (#p"/tmp/sy-fad/a.txt" #p"/tmp/sy-fad/sub/") #p"/tmp/sy-fad/sub/" 5 t "TEMPORARY-FILES:TEMP-%" t))

(deftest sy-builtin-uiop-and-asdf
  ;; part of the image: found by name, loadable as a dependency, loading does nothing more
  (list (asdf:component-version (asdf:find-system "uiop" nil))
        (asdf:component-version (asdf:find-system "asdf" nil))
        (progn (asdf:load-system "uiop") (tinycl:system-loaded-p "uiop"))
        (asdf:system-source-file (asdf:find-system "uiop")))
  ("3.3.1" "3.3.1" t nil))

(deftest sy-builtin-metatilities-base
  ;; its package from disk with the MOP imported from TINYCL-MOP, its files from disk
  (if (not (probe-file "/usr/share/common-lisp/source/metatilities-base/dev/package.lisp"))
      '(nil "0.6.6" t t (2) (3))        ; not installed
      (progn
        (asdf:load-system "metatilities-base")
        (list (asdf:system-source-file (asdf:find-system "metatilities-base"))
              (asdf:component-version (asdf:find-system "metatilities-base"))
              (eq (find-symbol "CLASS-PRECEDENCE-LIST" "METATILITIES") (find-symbol "CLASS-PRECEDENCE-LIST" "SB-MOP"))
              (eval (read-from-string "(metatilities:samep 1 1)"))
              (list (eval (read-from-string "(metatilities:without-interrupts 1 2)")))
              (eval (read-from-string "(metatilities:ensure-list 3)")))))
  (nil "0.6.6" t t (2) (3)))

(deftest sy-builtin-trivial-garbage
  ;; the built-in layer over TINYCL's weak pointers, weak tables and finalizers, then the library's
  ;; own suite (tests.lisp from disk, with RT) through the built-in trivial-garbage/tests
  (if (not (probe-file "/usr/share/common-lisp/source/trivial-garbage/tests.lisp"))
      '(nil (:key :value) t t t t)      ; not installed
      (progn
        (asdf:load-system "trivial-garbage")
        (list (asdf:system-source-file (asdf:find-system "trivial-garbage"))
              (mapcar (lambda (w) (funcall (find-symbol "HASH-TABLE-WEAKNESS" "TG")
                                           (funcall (find-symbol "MAKE-WEAK-HASH-TABLE" "TG") :weakness w)))
                      '(:key :value))
              (funcall (find-symbol "WEAK-POINTER-P" "TG") (funcall (find-symbol "MAKE-WEAK-POINTER" "TG") 'x))
              (progn (asdf:load-system "trivial-garbage/tests")
                     (let ((*standard-output* (make-broadcast-stream)))
                       (funcall (find-symbol "RUN" "TRIVIAL-GARBAGE-TESTS"))))
              (null (funcall (find-symbol "PENDING-TESTS" "REGRESSION-TEST")))
              ;; as its .asd on disk: TEST-SYSTEM goes to trivial-garbage/tests, whose TEST-OP runs RT
              (and (search "No tests failed" (with-output-to-string (*standard-output*)
                                               (asdf:test-system "trivial-garbage")))
                   t))))
  (nil (:key :value) t t t t))

(deftest sy-builtin-bordeaux-threads
  ;; the built-in layer over TINYCL-THREADS with the library's other files from disk, then its own
  ;; FiveAM suite (bordeaux-threads/test from the .asd on disk): every check passes, as on SBCL
  (if (not (and (probe-file "/usr/share/common-lisp/source/bordeaux-threads/test/bordeaux-threads-test.lisp")
                (asdf:find-system "fiveam" nil)))
      '(nil "0.8.8" t t t t)            ; not installed
      (progn
        (asdf:load-system "bordeaux-threads")
        (let* ((out (with-output-to-string (*standard-output*) (asdf:test-system "bordeaux-threads")))
               (checks (let ((at (search "Did " out)))
                         (and at (parse-integer out :start (+ at 4) :junk-allowed t)))))
          (list (asdf:system-source-file (asdf:find-system "bordeaux-threads"))
                (asdf:component-version (asdf:find-system "bordeaux-threads"))
                (and (member :thread-support *features*) t)
                (symbol-value (find-symbol "*SUPPORTS-THREADS-P*" "BT"))
                ;; 22 tests run here (SBCL runs one more, for Lisps the test file lists)
                (and checks (>= checks 25) t)
                (and (search "Fail: 0" out) (not (search "Skip: 1" out)) t)))))
  (nil "0.8.8" t t t t))

;;; named-readtables loads from disk; tinycl's readtable iterator replaces its portable one
;;; (stdlib-lisp/layers.lisp), which asked about all 1,114,112 character codes (half a second an
;;; iteration). The entries are SBCL's for the same readtable (sorted, as SBCL's order is its own).
(defun sy-nrt-x (s c) (declare (ignore s c)) :x)
(defun sy-nrt-y (s c n) (declare (ignore s c n)) :y)

(defun sy-nrt-entries (rt)
  ;; what DO-READTABLE walks: the iterator's values (more? char function dispatch-p sub-alist)
  (let ((next (funcall (find-symbol "%MAKE-READTABLE-ITERATOR" "EDITOR-HINTS.NAMED-READTABLES") rt))
        (entries nil))
    (loop
      (multiple-value-bind (more? char fn disp? table) (funcall next)
        (unless more? (return))
        (push (list (char-code char) (and fn (eq fn (get-macro-character char rt)))
                    (nth-value 1 (get-macro-character char rt)) disp?
                    (if (char= char #\%)
                        (mapcar (lambda (e) (list (char-code (car e)) (eq (cdr e) #'sy-nrt-y)))
                                (sort (copy-list table) #'char< :key #'car))
                        (and table t)))
              entries)))
    (sort entries #'< :key #'car)))

(deftest sy-file-layer-named-readtables
  (if (not (probe-file "/usr/share/common-lisp/source/named-readtables/src/cruft.lisp"))
      '(t t t (:error type-error))      ; not installed
      (progn
        (asdf:load-system "named-readtables")
        (let ((rt (copy-readtable nil)))
          (set-macro-character #\! #'sy-nrt-x nil rt)
          (set-macro-character (code-char 955) #'sy-nrt-x t rt)
          (make-dispatch-macro-character #\% t rt)
          (set-dispatch-macro-character #\% #\a #'sy-nrt-y rt)
          (set-dispatch-macro-character #\% #\~ #'sy-nrt-y rt)
          (let ((start (get-internal-run-time)))
            (list
             ;; loaded from its .asd on disk, not a built-in system
             (and (asdf:system-source-file (asdf:find-system "named-readtables")) t)
             (equal (sy-nrt-entries rt)
                    '((33 t nil nil nil) (34 t nil nil nil) (35 t t t t) (37 t t t ((65 t) (126 t)))
                      (39 t nil nil nil) (40 t nil nil nil) (41 t nil nil nil) (44 t nil nil nil)
                      (59 t nil nil nil) (96 t nil nil nil) (955 t t nil nil)))
             ;; ten iterations: the portable iterator takes five seconds
             (progn (dotimes (i 10) (sy-nrt-entries (copy-readtable nil)))
                    (< (- (get-internal-run-time) start) (* 2 internal-time-units-per-second)))
             (handler-case (sy-nrt-entries 3)
               (error (c) (list :error (if (typep c 'type-error) 'type-error c)))))))))
  (t t t (:error type-error)))

;;; xmls loads from disk; its TEST (which xmls/test calls, defined in xmls.lisp only for the
;;; implementations it lists) is read from xmls.lisp as CCL reads it: it parses the library's 35
;;; test files twice and writes escaped text, all "ok" as under SBCL
(deftest sy-file-layer-xmls
  (if (not (probe-file "/usr/share/common-lisp/source/xmls/xmls.lisp"))
      '(t t 71 0)                       ; not installed
      (progn
        (asdf:load-system "xmls")
        (let* ((result nil)
               (out (with-output-to-string (*standard-output*)
                      (setq result (funcall (find-symbol "TEST" "XMLS") :interactive t)))))
          (list (and (asdf:system-source-file (asdf:find-system "xmls")) t)
                result
                (loop for start = 0 then (+ p 3) for p = (search "ok" out :start2 start) while p count t)
                (loop for start = 0 then (+ p 6) for p = (search "FAILED" out :start2 start) while p count t)))))
  (t t 71 0))

(deftest sy-perform-named-operation
  ;; ASDF takes an operation's name where it takes the operation (prove's test runner does this)
  (progn
    (asdf:load-system "fix-util")
    (let ((before (symbol-value (find-symbol "*UTIL-LOADS*" "FIX-UTIL")))
          (c (asdf:find-component (asdf:find-system "fix-util") "util")))
      (asdf:perform 'asdf:load-source-op c)
      (- (symbol-value (find-symbol "*UTIL-LOADS*" "FIX-UTIL")) before)))
  1)

(deftest sy-uiop-collect-sub*directories
  (let ((root (format nil "~Acsd/" *sy-dir*)) (seen nil))
    (dolist (d '("a/b/" "a/skip/deep/" "c/")) (ensure-directories-exist (concatenate 'string root d)))
    (uiop:collect-sub*directories
     root
     (constantly t)
     (lambda (d) (not (equal (car (last (pathname-directory d))) "skip")))
     (lambda (d) (push (enough-namestring d root) seen)))
    (sort seen #'string<))
  ("" "a/" "a/b/" "c/"))
