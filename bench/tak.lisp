;;;; tak.lisp -- Takeuchi function: fixnum arithmetic, comparisons and deep
;;;; non-tail recursion with three arguments.  Measures raw function-call speed.
;;;; Prints one line "checksum tak N".

(defun tak (x y z)
  (if (not (< y x))
      z
      (tak (tak (1- x) y z)
           (tak (1- y) z x)
           (tak (1- z) x y))))

(defun run-tak (repeats)
  (let ((sum 0))
    (dotimes (i repeats)
      ;; vary the arguments a little so nothing can be hoisted out of the loop
      (setq sum (+ sum (tak (+ 18 (- i i)) 12 6))))
    sum))

(format t "checksum tak ~D~%" (run-tak 450))
