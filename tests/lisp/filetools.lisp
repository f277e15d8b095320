;;;; filetools.lisp: tests of the Lisp half of the file tools (stdlib-lisp/filetools.lisp): the
;;;; definitions a form makes, the reader check of edit-lisp-form's content, the form-by-form load
;;;; with its notes, and the RT result collection of run-tests. The tools themselves are tested end
;;;; to end by tests/mcp/e2e-files.mjs.

(defvar *ft-dir* (format nil "/tmp/tinycl-filetools-test-~D-~D/" (get-universal-time)
                               (random 1000000 (make-random-state t))))
(ensure-directories-exist *ft-dir*)

(defun ft-file (name text)
  (let ((p (concatenate 'string *ft-dir* name)))
    (with-open-file (out p :direction :output :if-exists :supersede) (write-string text out))
    p))

(deftest ft-form-definitions
  (list (sys::%form-definitions '(defun f (x) x))
        (sys::%form-definitions '(defmethod area :around ((s square) x &optional y) y))
        (sys::%form-definitions '(defstruct (pt (:conc-name p-)) x))
        (sys::%form-definitions '(progn (defvar *a* 1) (eval-when (:execute) (defmacro m () 1))))
        (sys::%form-definitions '(defun (setf g) (v) v))
        (sys::%form-definitions '(print 1)))
  ((("defun" "F")) (("defmethod" "AREA :AROUND (SQUARE T)")) (("defstruct" "PT"))
   (("defvar" "*A*") ("defmacro" "M")) (("defun" "(SETF G)")) nil))

(deftest ft-check-readable
  (list (progn (sys::%check-readable "(a b) 'c #(1 2) #\\( \"s\" |x y|") sys::*files-report*)
        (progn (sys::%check-readable "(a #<b>)") (stringp sys::*files-report*))
        (progn (sys::%check-readable "(unknown-package-xyz::sym)") sys::*files-report*)
        (progn (sys::%check-readable "#.(error \"evaluated\")") sys::*files-report*)
        (find-package "UNKNOWN-PACKAGE-XYZ"))
  (nil t nil nil nil))

(deftest ft-load-file-report
  (let ((p (ft-file "load.lisp" (format nil "(defpackage :ft-load (:use :cl))~%(in-package :ft-load)~%~%;; note~%(defun one () 1)~%(error \"bad ~~A\" 7)~%(warn \"careful\")~%(defvar *two* 2)~%"))))
    (sys::%load-file-report p nil)
    (destructuring-bind (count notes defs file) sys::*files-report*
      (list count
            (mapcar #'(lambda (n) (subseq n 0 4)) notes)
            (mapcar #'(lambda (d) (list (first d) (second d) (fourth d) (fifth d))) defs)
            (and (search "load.lisp" file) t)
            (package-name *package*)
            (funcall (intern "ONE" "FT-LOAD")))))
  (6 ((6 "error" "SIMPLE-ERROR" "bad 7") (7 "warning" "SIMPLE-WARNING" "careful"))
     (("defpackage" ":FT-LOAD" 1 1) ("defun" "ONE" 5 1) ("defvar" "*TWO*" 8 1))
     t "COMMON-LISP-USER" 1))

(deftest ft-load-file-missing
  (handler-case (progn (sys::%load-file-report (concatenate 'string *ft-dir* "absent.lisp") nil) :no-error)
    (file-error () :file-error))
  :file-error)

(deftest ft-run-tests-rt
  (if (asdf:find-system "rt" nil)
      (let ((p (ft-file "ft-rt.asd" "(defsystem \"ft-rt\" :depends-on (\"rt\") :components ((:file \"ft-rt-tests\")) :perform (test-op (o c) (uiop:symbol-call :rtest :do-tests)))")))
        (ft-file "ft-rt-tests.lisp" "(rtest:deftest ft.1 (+ 1 1) 2) (rtest:deftest ft.2 (+ 1 1) 3) (rtest:deftest ft.3 (car 5) nil)")
        (asdf:load-asd p)
        (let ((*standard-output* (make-broadcast-stream))) (sys::%run-tests "ft-rt" nil nil))
        (destructuring-bind (tsys fw reloaded passed failed errored skipped total failures &rest more) sys::*files-report*
          (declare (ignore more))
          (list tsys fw reloaded passed failed errored skipped total
                (mapcar #'(lambda (f) (list (first f) (second f) (third f) (fourth f)
                                          (subseq (fifth f) 0 (min 12 (length (fifth f))))))
                        failures))))
      '("ft-rt" "rt" t 1 1 1 0 3 (("FT.2" "failed" "(+ 1 1)" "3" "2") ("FT.3" "errored" "(CAR 5)" "NIL" "#<TYPE-ERROR"))))
  ("ft-rt" "rt" t 1 1 1 0 3 (("FT.2" "failed" "(+ 1 1)" "3" "2") ("FT.3" "errored" "(CAR 5)" "NIL" "#<TYPE-ERROR"))))

(deftest ft-cleanup
  (progn (tinycl:delete-directory *ft-dir* :recursive t) (probe-file *ft-dir*))
  nil)
