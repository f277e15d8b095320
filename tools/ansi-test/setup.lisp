;;; tools/ansi-test/setup.lisp -- load the ANSI test suite's RT harness and its auxiliary
;;; files into tinycl (or SBCL), tolerating errors: a top-level form that fails to read or
;;; evaluate is reported as ";; LOAD-ERROR ..." and skipped, so that one missing feature
;;; does not stop a whole chapter from loading.
;;;
;;; The suite directory is taken from CL-USER::*SUITE-ROOT* if the caller bound it,
;;; else from the environment variable ANSI_TEST_DIR.  See README.md in this directory.
(in-package :common-lisp-user)

(defun %runner-getenv (name)
  #+tinycl (tinycl:posix-getenv name)
  #+sbcl (sb-ext:posix-getenv name)
  #-(or tinycl sbcl) (declare (ignore name)))

(defvar *suite-root*
  (let ((dir (%runner-getenv "ANSI_TEST_DIR")))
    (unless (and dir (plusp (length dir)))
      (error "Set ANSI_TEST_DIR to a checkout of the ANSI test suite (pfdietz/ansi-test)."))
    (pathname (if (char= (char dir (1- (length dir))) #\/) dir (concatenate 'string dir "/")))))
(setf *default-pathname-defaults* *suite-root*)
(defvar *load-problems* nil)

(defun %ansi-aux-path (pathspec)
  ;; Resolve "ANSI-TESTS:AUX;foo.lsp" without relying on logical pathnames.
  (let ((s (if (stringp pathspec) pathspec (namestring pathspec))))
    (if (and (> (length s) 15) (string-equal "ANSI-TESTS:AUX;" s :end2 15))
        (merge-pathnames (concatenate 'string "auxiliary/" (subseq s 15)) *suite-root*)
        pathspec)))

(defun %form-head (form)
  (if (consp form)
      (list (car form) (if (consp (cdr form)) (let ((x (cadr form))) (if (consp x) (car x) x))))
      form))

(defun tolerant-load (pathspec)
  "Like LOAD of a source file, but an error in one top-level form is reported and skipped."
  (let* ((path (merge-pathnames pathspec))
         (*package* *package*)
         (*readtable* *readtable*)
         (*load-pathname* path)
         (*load-truename* (probe-file path))
         (eof (list nil)))
    (unless *load-truename*
      (format t "~&;; LOAD-ERROR missing file ~A~%" path)
      (push (list path :missing) *load-problems*)
      (return-from tolerant-load nil))
    (with-open-file (s path)
      (loop
        (let ((form (handler-case (read s nil eof)
                      (error (e)
                        (format t "~&;; LOAD-ERROR reading ~A: ~A~%" (file-namestring path) e)
                        (push (list path :read (princ-to-string e)) *load-problems*)
                        (return)))))
          (when (eq form eof) (return))
          (handler-case (eval form)
            (error (e)
              (format t "~&;; LOAD-ERROR ~A ~S: ~A~%" (file-namestring path) (%form-head form)
                      (handler-case (princ-to-string e) (error () "<unprintable>")))
              (push (list path (%form-head form) (ignore-errors (princ-to-string e)))
                    *load-problems*))))))
    t))

;;; The suite's auxiliary files call COMPILE-AND-LOAD; loading the source is enough here.
(defun compile-and-load (pathspec &key force)
  (declare (ignore force))
  (tolerant-load (merge-pathnames (%ansi-aux-path pathspec) (or *load-pathname* *suite-root*))))

(defun load-chapter (dir)
  "Load DIR/load.lsp of the suite, with its LOAD calls made tolerant."
  (let ((*default-pathname-defaults* *suite-root*)
        (*package* (find-package "CL-TEST"))
        (path (merge-pathnames (concatenate 'string dir "/load.lsp") *suite-root*))
        (eof (list nil)))
    (with-open-file (s path)
      (let ((*load-pathname* path) (*load-truename* path))
        (loop
          (let ((form (read s nil eof)))
            (when (eq form eof) (return))
            (handler-case (eval (subst 'tolerant-load 'load form))
              (error (e)
                (format t "~&;; LOAD-ERROR load.lsp ~S: ~A~%" (%form-head form) e)))))))))

(let (*load-verbose* *load-print* *compile-verbose* *compile-print*)
  (load (merge-pathnames "rt-package.lsp" *suite-root*))
  (load (merge-pathnames "rt.lsp" *suite-root*))
  (load (merge-pathnames "cl-test-package.lsp" *suite-root*))
  (in-package :cl-test)
  (tolerant-load (merge-pathnames "auxiliary/ansi-aux-macros.lsp" *suite-root*))
  (tolerant-load (merge-pathnames "universe.lsp" *suite-root*))
  (tolerant-load (merge-pathnames "auxiliary/random-aux.lsp" *suite-root*))
  (tolerant-load (merge-pathnames "auxiliary/ansi-aux.lsp" *suite-root*))
  (tolerant-load (merge-pathnames "cl-symbol-names.lsp" *suite-root*))
  (tolerant-load (merge-pathnames "notes.lsp" *suite-root*)))
(in-package :cl-user)
(format t "~&;; SETUP DONE~%")
