;;; tools/ansi-test/run.lisp -- resumable test loop over the RT entries loaded by
;;; setup.lisp and LOAD-CHAPTER.
;;;
;;; (RUNNER-CONTINUE) runs tests not run yet, for at most *BATCH-SECONDS* of wall time
;;; (env RUNNER_BATCH, default 20), and returns :MORE, or :DONE when none is left.  The
;;; driver script calls it many times, each call a separate top-level evaluation under
;;; tinycl's --timeout.  If an evaluation is killed (time limit, heap exhaustion), the
;;; next call records the test that was running as failed and killed, and goes on after
;;; it.  So each test gets at least (--timeout - RUNNER_BATCH) seconds.  (RUNNER-REPORT chapter) prints the lists of failed and killed tests and one
;;; summary line:
;;;   RESULT <chapter> total N passed N failed N killed N missing N load-errors N
;;; where MISSING counts the tests of manifest/<chapter>.txt (the names SBCL defines) that
;;; never ran here; they are counted as failed and in the total too.
;;; Set RUNNER_TRACE=1 in the environment to print ";; START <test>" before each test.
(in-package :cl-user)
(defvar *entries-left* :unset)
(defvar *current* nil)
(defvar *passed* nil)
(defvar *failed* nil)
(defvar *killed* nil)
(defvar *trace-tests* (%runner-getenv "RUNNER_TRACE"))
(defvar *batch-seconds*
  (let ((s (%runner-getenv "RUNNER_BATCH")))
    (or (and s (ignore-errors (parse-integer s))) 20)))

(defun runner-continue ()
  (when (eq *entries-left* :unset)
    ;; Tests that create files do so relative to the suite's sandbox directory.
    (setf (symbol-value (find-symbol "*DEFAULT-PATHNAME-DEFAULTS*" "CL"))
          (truename (merge-pathnames "sandbox/" *suite-root*)))
    ;; tinycl does not treat (VECTOR NIL) as a string; doit.lsp disables this note for
    ;; Allegro, CMUCL and LispWorks too.
    (rt:disable-note :nil-vectors-are-strings)
    ;; OPEN :IF-EXISTS :NEW-VERSION on an existing file signals in tinycl as in SBCL, for which
    ;; the suite's notes.lsp disables this note (so its four tests are in neither total).
    (rt:disable-note :open-if-exists-new-version-no-error)
    (setf *entries-left* (remove-if #'rt::has-disabled-note (cdr rt::*entries*)))
    (format t "~&;; RUNNING ~D tests~%" (length *entries-left*)))
  (when *current*
    (format t "~&;; KILLED ~S~%" (rt::name *current*))
    (push (rt::name *current*) *killed*)
    (push (rt::name *current*) *failed*)
    (setf *current* nil))
  (let ((*package* (find-package "CL-TEST"))
        (stop (+ (get-internal-real-time) (* *batch-seconds* internal-time-units-per-second))))
    (loop while (and *entries-left* (< (get-internal-real-time) stop))
          do (let ((e (pop *entries-left*)))
               (setf *current* e)
               (when *trace-tests* (format t "~&;; START ~S~%" (rt::name e)) (finish-output))
               (let ((ok (handler-case (rt::do-entry e)
                           (serious-condition (c)
                             (format t "~&Test ~S aborted by a serious condition: ~A~%"
                                     (rt::name e) (ignore-errors (princ-to-string c)))
                             nil))))
                 (setf *current* nil)
                 (if ok (push (rt::name e) *passed*) (push (rt::name e) *failed*))))))
  (if *entries-left* :more :done))

(defvar *runner-dir*
  (let ((here (or *load-truename* *load-pathname*)))
    (and here (make-pathname :name nil :type nil :version nil :defaults here))))

(defun %runner-name-string (name)
  (with-standard-io-syntax
    (let ((*package* (find-package "CL-TEST")))
      (prin1-to-string name))))

(defun %runner-read-lines (path)
  (with-open-file (s path :if-does-not-exist nil)
    (and s (loop for line = (read-line s nil nil)
                 while line
                 when (plusp (length line)) collect line))))

(defun %runner-write-lines (path lines)
  (with-open-file (s path :direction :output :if-exists :supersede :if-does-not-exist :create)
    (dolist (line lines) (write-line line s))))

(defun runner-report (chapter)
  "Print the failed and killed lists and the RESULT line of CHAPTER.  The names of the
tests that ran go to $OUT/CHAPTER.ran (one a line, as MAKE-MANIFEST.SH collects them
from an SBCL run).  A test named in manifest/CHAPTER.txt that never ran here (it was never
defined, or the driver stopped early) counts as failed and is listed as missing."
  (when (consp *entries-left*)
    (format t "~&;; NOT-RUN ~D tests (the driver stopped calling RUNNER-CONTINUE)~%"
            (length *entries-left*)))
  (let* ((ran (mapcar #'%runner-name-string (append (reverse *passed*) (reverse *failed*))))
         (out (%runner-getenv "OUT"))
         (manifest (and *runner-dir*
                        (%runner-read-lines
                         (merge-pathnames (concatenate 'string "manifest/" chapter ".txt")
                                          *runner-dir*))))
         (ran-table (make-hash-table :test 'equal))
         (missing nil))
    (dolist (n ran) (setf (gethash n ran-table) t))
    (dolist (n manifest) (unless (gethash n ran-table) (push n missing)))
    (setf missing (nreverse missing))
    (when (and out (plusp (length out)))
      (%runner-write-lines (concatenate 'string out "/" chapter ".ran") ran))
    (format t "~&;; FAILED-LIST ~S~%" (reverse *failed*))
    (format t "~&;; KILLED-LIST ~S~%" (reverse *killed*))
    (format t "~&;; MISSING-LIST (~{~A~^ ~})~%" missing)
    (format t "~&RESULT ~A total ~D passed ~D failed ~D killed ~D missing ~D load-errors ~D~%"
            chapter (+ (length *passed*) (length *failed*) (length missing))
            (length *passed*) (+ (length *failed*) (length missing))
            (length *killed*) (length missing) (length *load-problems*))))
