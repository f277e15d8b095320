;;;; compile-file-xref.lisp: a file COMPILE-FILE compiled gives the cross-reference and the source
;;;; locations that loading its source gives (stdlib-lisp/compile-file.lisp, runtime/xref_compile.c):
;;;; in the compiling process, and from the compiled file alone once the session has forgotten
;;;; them; and find-definitions says "built in" only of what C defines.

(defvar *cx-dir* (format nil "/tmp/tinycl-compile-file-xref-~D-~D/" (get-universal-time) (random 1000000 (make-random-state t))))

(defun cx-write (name &rest lines)
  (let ((path (concatenate 'string *cx-dir* name)))
    (ensure-directories-exist path)
    (with-open-file (s path :direction :output :if-exists :supersede)
      (dolist (l lines) (write-line l s)))
    (namestring (truename path))))

(defun cx-compile (path)
  (let ((*standard-output* (make-broadcast-stream)) (*error-output* (make-broadcast-stream)))
    (handler-bind ((warning #'muffle-warning))
      (compile-file path))))

(defun cx-query (fn &rest args)
  (apply fn args)
  (first sys::*query-report*))

(defvar *cx-package* "CX")

(defun cx-find (name) (cx-query 'sys::%query-find-definitions name *cx-package*))
(defun cx-who (relation name) (cx-query 'sys::%query-xref relation name *cx-package*))

(defun cx-replace (line part by)
  (let ((at (search part line)))
    (if at (concatenate 'string (subseq line 0 at) by (cx-replace (subseq line (+ at (length part))) part by)) line)))

(defun cx-lines (text)
  ;; TEXT's lines, each with the file's directory cut off and the package named CX
  (let ((out nil) (start 0))
    (loop
      (let* ((end (position #\Newline text :start start))
             (line (subseq text start end)))
        (push (cx-replace (cx-replace line (concatenate 'string *cx-package* "::") "CX::")
                          (concatenate 'string *cx-dir* (string-downcase *cx-package*) "/") "")
              out)
        (if end (setq start (1+ end)) (return (nreverse out)))))))

(defun cx-answers ()
  (list (cx-lines (cx-find "helper")) (cx-lines (cx-find "caller")) (cx-lines (cx-find "*count*"))
        (cx-lines (cx-find "bump")) (cx-lines (cx-find "thing")) (cx-lines (cx-find "size"))
        (cx-lines (cx-who "calls" "helper")) (cx-lines (cx-who "references" "*count*"))
        (cx-lines (cx-who "macroexpands" "bump")) (cx-lines (cx-who "calls" "twice"))
        (cx-lines (cx-who "calls-who" "caller"))))

(defun cx-source (package)
  ;; the same definitions in PACKAGE, in <dir>/<package>/defs.lisp
  (cx-write (concatenate 'string (string-downcase package) "/defs.lisp")
            (format nil "(defpackage :~A (:use :cl))" package)
            (format nil "(in-package :~A)" package)
            ""
            "(defvar *count* 0)"
            ""
            "(defmacro bump (place) `(incf ,place))"
            ""
            "(defun helper (n)"
            "  (bump *count*)"
            "  (* n 2))"
            ""
            ";; a comment before the form"
            "  (defun caller (n)"
            "    (helper (1+ n)))"
            ""
            "(defclass thing () ((size :initarg :size :accessor size)))"
            ""
            "(macrolet ((def (name) `(defun ,name (x) (helper (caller x)))))"
            "  (def twice))"))

(defparameter *cx-expected*
  '(("function CX::HELPER: defs.lisp:8:1")
    ("function CX::CALLER: defs.lisp:13:3")
    ("variable (DEFVAR CX::*COUNT*): defs.lisp:4:1")
    ("macro CX::BUMP: defs.lisp:6:1")
    ("class (DEFCLASS CX::THING): defs.lisp:16:1")
    ("generic-function (SETF CX::SIZE): defs.lisp:16:1" "generic-function CX::SIZE: defs.lisp:16:1")
    ("CX::CALLER (defs.lisp:14:5)" "CX::TWICE (defs.lisp:18:1)")
    ("CX::HELPER (defs.lisp:9:3)")
    ("CX::HELPER (defs.lisp:9:3)")
    ("No definitions that call it recorded for CX::TWICE.")
    ("1+ (defs.lisp:14:13)" "CX::HELPER (defs.lisp:14:5)")))

(defun cx-forget (source)
  ;; the session forgets SOURCE's package, definitions, their locations and cross-reference, as
  ;; a fresh process has never seen them
  (let ((keys nil))
    (maphash #'(lambda (k v) (when (and (consp (car v)) (equal (car (car v)) source)) (push k keys)))
             (sys::%xref-table))
    (dolist (k keys) (remhash k (sys::%xref-table)) (remhash k (sys::%xref-sites)))
    (delete-package *cx-package*)
    (length keys)))

(deftest compile-file-xref-source
  ;; what loading the source gives: the answers the compiled file must give too
  (let ((*cx-package* "CXS"))
    (load (cx-source "CXS"))
    (cx-answers))
  #.*cx-expected*)

(defvar *cx-fasl* nil)

(deftest compile-file-xref-in-the-compiling-process
  ;; compiled, then loaded, as the system loader does
  (let ((*cx-package* "CXC"))
    (setq *cx-fasl* (cx-compile (cx-source "CXC")))
    (load *cx-fasl*)
    (cx-answers))
  #.*cx-expected*)

(deftest compile-file-xref-from-the-compiled-file
  ;; nothing left in the session: all comes from the compiled file
  (let ((*cx-package* "CXC"))
    (list (> (cx-forget (namestring (truename (concatenate (quote string) *cx-dir* "cxc/defs.lisp")))) 8)
          (find-package "CXC")
          (progn (load *cx-fasl*) (cx-answers))))
  (t nil #.*cx-expected*))

(deftest compile-file-xref-sites
  ;; each call's line and column, as from source
  (let ((sites (gethash (list 'defun (find-symbol "CALLER" "CXC")) (sys::%xref-sites))))
    (sort (mapcar #'(lambda (s) (list (car s) (symbol-name (cadr s)) (cddr s))) sites)
          #'string< :key #'cadr))
  ((0 "1+" (14 . 13)) (0 "HELPER" (14 . 5))))

(deftest find-definitions-no-location-is-not-built-in
  ;; a function of Lisp code with no recorded place is not a C primitive
  (progn
    (sys::%set-source-location nil)
    (setf (symbol-function (intern "NOWHERE" "CXC")) (lambda () 1))
    (list (cx-query 'sys::%query-find-definitions "nowhere" "CXC")
          (cx-query 'sys::%query-find-definitions "1+" "CL")))
  ("function CXC::NOWHERE: no source location recorded" "function 1+: built in (C primitive)"))

(deftest compile-file-xref-error-leaves-nothing-half-made
  ;; a definition whose code signals an error when it is analysed is recorded (its code signals
  ;; it when run), so is the next one, and the session's own location is back afterwards
  (let ((path (cx-write "bad.lisp"
                        "(in-package :cxc)"
                        "(defun bad-one () (macrolet ((m () (error \"no\"))) (m)))"
                        "(defun after-bad () (helper 1))")))
    (sys::%set-source-location '(:here))
    (cx-compile path)
    (list (car (gethash (list 'defun (intern "BAD-ONE" "CXC")) (sys::%xref-table)))
          (equal (car (gethash (list 'defun (intern "AFTER-BAD" "CXC")) (sys::%xref-table)))
                 (list path 3 1))
          (sys::%source-location)))
  (#.(list (concatenate 'string *cx-dir* "bad.lisp") 2 1) t (:here)))

;;; Loading a compiled file decodes none of its notes and sites: each definition goes in with its
;;; location alone and the file's table waits in SYS::%XREF-DEFERRED until a question reads the
;;; cross-reference (runtime/xref_compile.c). The answers are the ones decoding at once gave.

(defun cx-deferred () (hash-table-count (sys::%xref-deferred)))

;; the table itself, to look at it without the decoding its reader (SYS::%XREF-TABLE) does first
(defvar *cx-raw-table* (sys::%xref-table))

(defvar *cx-lazy-fasl* nil)

(deftest compile-file-xref-decoded-when-first-read
  (let ((*cx-package* "CXL"))
    (setq *cx-lazy-fasl* (cx-compile (cx-source "CXL")))
    (cx-forget (namestring (truename (concatenate 'string *cx-dir* "cxl/defs.lisp"))))
    (let ((before (cx-deferred)))
      (load *cx-lazy-fasl*)
      (list before (cx-deferred)
            ;; the location is there before any decoding, the notes not yet
            (let ((v (gethash (list 'defun (find-symbol "CALLER" "CXL")) *cx-raw-table*)))
              (list (cadr (car v)) (cdr v)))
            (cx-answers) (cx-deferred))))
  (0 1 (13 nil) #.*cx-expected* 0))

(deftest compile-file-xref-defined-again-before-read
  ;; CALLER defined again from source between the load and the first question: its new place and
  ;; cross-reference win, as they did when the compiled file's table was decoded at load
  (let ((*cx-package* "CXL"))
    (cx-forget (namestring (truename (concatenate 'string *cx-dir* "cxl/defs.lisp"))))
    (load *cx-lazy-fasl*)
    (load (cx-write "cxl/again.lisp" "(in-package :cxl)" "" "(defun caller (n) (1- n))"))
    (list (cx-deferred)
          (cx-lines (cx-find "caller")) (cx-lines (cx-who "calls" "helper"))
          (cx-lines (cx-who "calls-who" "caller"))
          (mapcar #'cddr (gethash (list 'defun (find-symbol "CALLER" "CXL")) (sys::%xref-sites)))
          (cx-lines (cx-who "calls-who" "helper"))
          (cx-deferred)))
  (1 ("function CX::CALLER: again.lisp:3:1") ("CX::TWICE (defs.lisp:18:1)")
   ("1- (again.lisp:3:19)") ((3 . 19)) ("* (defs.lisp:10:3)" "+ (defs.lisp:9:3)") 0))

(deftest compile-file-xref-damaged-table-stops-where-damaged
  ;; a table damaged in its second definition's notes: the first definition is complete, the
  ;; second and the rest are not put in, when loaded and when decoded
  (let* ((names (vector 'cx-callee-a 'cx-callee-b))
         (loc-1 (list "cx-damaged.lisp" 1 1)) (loc-2 (list "cx-damaged.lisp" 2 1))
         (item (vector :xref names (vector '(defun cx-damaged-1) loc-1 '(defun cx-damaged-2) loc-2)
                       ;; first: one note (calls CX-CALLEE-A), one site at 1:5; second: a note
                       ;; naming a 7th name the table does not have
                       (vector 1 0 1 (+ (* 0 1099511627776) (* 1 65536) 5) 1 (* 8 7) 0)
                       (vector))))
    (sys::%xref-install item)
    (list (cx-deferred)
          (gethash '(defun cx-damaged-1) (sys::%xref-table))
          (gethash '(defun cx-damaged-1) (sys::%xref-sites))
          (nth-value 1 (gethash '(defun cx-damaged-2) (sys::%xref-table)))
          (cx-deferred)))
  (1 (("cx-damaged.lisp" 1 1) (0 . cx-callee-a)) ((0 cx-callee-a 1 . 5)) nil 0))

(deftest compile-file-xref-damaged-sites-stop-after-their-definition
  ;; the first definition's sites are damaged: it goes in with its notes and no sites, the second
  ;; not at all
  (let ((item (vector :xref (vector 'cx-callee-c)
                      (vector '(defun cx-damaged-3) (list "cx-damaged.lisp" 3 1)
                              '(defun cx-damaged-4) (list "cx-damaged.lisp" 4 1))
                      (vector 1 0 1 -5 0 0)
                      (vector))))
    (sys::%xref-install item)
    (list (cx-deferred)
          (gethash '(defun cx-damaged-3) (sys::%xref-table))
          (nth-value 1 (gethash '(defun cx-damaged-3) (sys::%xref-sites)))
          (nth-value 1 (gethash '(defun cx-damaged-4) (sys::%xref-table)))
          (cx-deferred)))
  (1 (("cx-damaged.lisp" 3 1) (0 . cx-callee-c)) nil nil 0))
