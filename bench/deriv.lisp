;;;; deriv.lisp -- symbolic differentiation of polynomial-like expressions with
;;;; light simplification.  Measures consing, CASE/COND dispatch on symbols,
;;;; EQ tests and MAPCAR.  Prints one line "checksum deriv N".

(defun simplify-sum (terms)
  "Build (+ ...) from TERMS, dropping zeros and folding numbers."
  (let ((const 0) (rest '()))
    (dolist (tm terms)
      (if (numberp tm)
          (setq const (+ const tm))
          (setq rest (cons tm rest))))
    (setq rest (nreverse rest))
    (unless (= const 0) (setq rest (cons const rest)))
    (cond ((null rest) 0)
          ((null (cdr rest)) (car rest))
          (t (cons '+ rest)))))

(defun simplify-product (factors)
  "Build (* ...) from FACTORS: zero absorbs, ones vanish, numbers fold."
  (let ((const 1) (rest '()))
    (dolist (f factors)
      (cond ((numberp f) (setq const (* const f)))
            (t (setq rest (cons f rest)))))
    (setq rest (nreverse rest))
    (cond ((= const 0) 0)
          ((null rest) const)
          (t (unless (= const 1) (setq rest (cons const rest)))
             (if (null (cdr rest)) (car rest) (cons '* rest))))))

(defun d (e v)
  "Derivative of expression E with respect to the symbol V."
  (cond ((numberp e) 0)
        ((symbolp e) (if (eq e v) 1 0))
        (t
         (case (car e)
           (+ (simplify-sum (mapcar #'(lambda (a) (d a v)) (cdr e))))
           (- (if (null (cddr e))
                  (simplify-product (list -1 (d (cadr e) v)))
                  (simplify-sum
                   (list (d (cadr e) v)
                         (simplify-product
                          (list -1 (simplify-sum
                                    (mapcar #'(lambda (a) (d a v)) (cddr e)))))))))
           (* (d-product (cdr e) v))
           (expt ; (expt base n) with a numeric exponent
            (let ((base (cadr e)) (n (caddr e)))
              (simplify-product
               (list n (list 'expt base (- n 1)) (d base v)))))
           (t (error "unknown operator ~S" (car e)))))))

(defun d-product (factors v)
  "Product rule over any number of FACTORS."
  (let ((terms '()))
    (do ((tail factors (cdr tail))
         (before '() (cons (car tail) before)))
        ((null tail))
      (let ((df (d (car tail) v)))
        (unless (eql df 0)
          (setq terms
                (cons (simplify-product
                       (append (reverse before) (list df) (cdr tail)))
                      terms)))))
    (simplify-sum (nreverse terms))))

(defun tree-size (e)
  (if (consp e)
      (+ 1 (tree-size (car e)) (tree-size (cdr e)))
      1))

(defparameter *expressions*
  '((+ (* 3 x x) (* a x x) (* b x) 5)
    (* (+ x 1) (- x 2) (expt x 3))
    (+ (* x y z) (* 2 (expt x 4) y) (- (* a x) b) (expt (+ x y) 2))
    (- (* (+ (* 2 x) 3) (+ (* 4 x x) (* 5 x) 6)) (* x (expt x 5) a))))

(defun run-deriv (repeats)
  (let ((sum 0))
    (dotimes (i repeats)
      (dolist (e *expressions*)
        ;; first and second derivative in x, first derivative in y
        (let* ((dx (d e 'x)) (ddx (d dx 'x)) (dy (d e 'y)))
          (setq sum (+ sum (tree-size dx) (tree-size ddx) (tree-size dy))))))
    sum))

(format t "checksum deriv ~D~%" (run-deriv 8000))
