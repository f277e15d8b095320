;;;; fib.lisp -- doubly recursive Fibonacci: one-argument calls, fixnum + and <.
;;;; Prints one line "checksum fib N".

(defun fib (n)
  (if (< n 2)
      n
      (+ (fib (- n 1)) (fib (- n 2)))))

(defun run-fib (n repeats)
  (let ((sum 0))
    (dotimes (i repeats)
      (setq sum (+ sum (fib n))))
    sum))

(format t "checksum fib ~D~%" (run-fib 30 10))
