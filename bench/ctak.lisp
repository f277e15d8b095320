;;;; ctak.lisp -- the Takeuchi function where every result travels back through
;;;; THROW to a CATCH established by the caller.  Measures CATCH/THROW
;;;; (dynamic non-local exit) on top of function calls.
;;;; Prints one line "checksum ctak N".

(defun ctak (x y z)
  (catch 'ctak-tag
    (ctak-body x y z)))

(defun ctak-body (x y z)
  (if (not (< y x))
      (throw 'ctak-tag z)
      (ctak-body
       (catch 'ctak-tag (ctak-body (1- x) y z))
       (catch 'ctak-tag (ctak-body (1- y) z x))
       (catch 'ctak-tag (ctak-body (1- z) x y)))))

(defun run-ctak (repeats)
  (let ((sum 0))
    (dotimes (i repeats)
      (setq sum (+ sum (ctak 18 12 6))))
    sum))

(format t "checksum ctak ~D~%" (run-ctak 240))
