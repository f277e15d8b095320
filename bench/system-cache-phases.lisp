;;;; bench/system-cache-phases.lisp -- loaded by bench/system-cache-phases.sh before its timed calls:
;;;; wraps the system loader's main steps so that each one's CPU time (GET-INTERNAL-RUN-TIME,
;;;; user and system) is summed, then loads alexandria and cl-ppcre and prints "TOTAL ms" and a
;;;; line "STEP ms" per step. Loading this file itself inflates much of the boot image before the
;;;; calls (docs/performance.md, "seventh pass"), as the bench's WRAP form does.
(defvar cl-user::*phases* (make-hash-table))
(dolist (f '(asdf::%index-find asdf::load-asd asdf::%load-source-component asdf::%begin-capture
             asdf::%commit-capture asdf::%plan sys::%fasl-read asdf::%find-root))
  (let ((old (fdefinition f)) (name f))
    (setf (fdefinition f)
          (lambda (&rest args)
            (let ((c (get-internal-run-time)))
              (multiple-value-prog1 (apply old args)
                (incf (gethash name cl-user::*phases* 0) (- (get-internal-run-time) c))))))))
(let ((c (get-internal-run-time))
      (ms (/ internal-time-units-per-second 1000.0)))
  (asdf:load-system :alexandria)
  (asdf:load-system :cl-ppcre)
  (format t "~&TOTAL ~,1F~%" (/ (- (get-internal-run-time) c) ms))
  (maphash (lambda (k v) (format t "~A ~,1F~%" k (/ v ms))) cl-user::*phases*))
