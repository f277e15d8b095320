;;;; bignum.lisp -- bignum arithmetic: factorials by repeated multiplication,
;;;; digit sums by repeated division with FLOOR, and a check by GCD-free
;;;; exact division.  Prints one line "checksum bignum N".

(defun factorial (n)
  (let ((r 1))
    (do ((i 2 (+ i 1))) ((> i n) r)
      (setq r (* r i)))))

(defun digit-sum (n)
  "Sum of the decimal digits of the non-negative integer N, taking off
eighteen digits at a time with FLOOR and the last ones one by one."
  (let ((sum 0) (chunk (expt 10 18)))
    (do () ((< n chunk))
      (multiple-value-bind (q r) (floor n chunk)
        (setq n q)
        (do () ((= r 0))
          (multiple-value-bind (q2 r2) (floor r 10)
            (setq sum (+ sum r2) r q2)))))
    (do () ((= n 0) sum)
      (multiple-value-bind (q r) (floor n 10)
        (setq sum (+ sum r) n q)))))

(defun run-bignum (n repeats)
  (let ((sum 0))
    (dotimes (k repeats)
      (let* ((f (factorial (+ n k)))
             (g (floor f (factorial (- (+ n k) 50)))))   ; exact: product of 50 numbers
        (setq sum (+ sum (digit-sum f) (mod g 1000003)))))
    sum))

(format t "checksum bignum ~D~%" (run-bignum 5000 12))
