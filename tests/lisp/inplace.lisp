;;;; inplace.lisp: tests and arithmetic whose arguments are variables of the current frame or
;;;; constants read them in place (nodes-test.c's _vv/_vc/_var tests, nodes.c's inline_in_place):
;;;; the fixnum fast path and every other case (other numbers, overflow, wrong types, NOT around
;;;; the test) give what the general path gives.

(in-package :cl-user)

(defun ip-type-error-p (thunk)
  (handler-case (progn (funcall thunk) nil) (type-error () t)))

;;; ---- two-argument tests of (variable, variable) and (variable, constant) ----

(defun ip-compare-vv (a b)
  (list (if (< a b) '< '-) (if (> a b) '> '-) (if (<= a b) '<= '-) (if (>= a b) '>= '-)
        (if (= a b) '= '-) (if (/= a b) '/= '-) (if (eq a b) 'eq '-) (if (eql a b) 'eql '-)
        (if (not (< a b)) 'not< '-)))

(defun ip-compare-vc (a)
  (list (if (< a 2) '< '-) (if (> a 2) '> '-) (if (<= a 2) '<= '-) (if (>= a 2) '>= '-)
        (if (= a 2) '= '-) (if (/= a 2) '/= '-) (if (eq a 2) 'eq '-) (if (eql a 2) 'eql '-)
        (if (not (< a 2)) 'not< '-)))

(deftest in-place-compares-of-fixnums
  (list (ip-compare-vv 1 2) (ip-compare-vv 2 2) (ip-compare-vv 3 2)
        (ip-compare-vc 1) (ip-compare-vc 2) (ip-compare-vc 3))
  ((< - <= - - /= - - -) (- - <= >= = - eq eql not<) (- > - >= - /= - - not<)
   (< - <= - - /= - - -) (- - <= >= = - eq eql not<) (- > - >= - /= - - not<)))

(deftest in-place-compares-of-other-numbers
  (list (ip-compare-vv 1.5 2) (ip-compare-vv 2 2.0) (ip-compare-vv 1/2 1/2)
        (ip-compare-vv (expt 2 70) (expt 2 70)) (ip-compare-vc 2.0) (ip-compare-vc 5/2))
  ((< - <= - - /= - - -) (- - <= >= = - - - not<) (- - <= >= = - - eql not<)
   (- - <= >= = - - eql not<) (- - <= >= = - - - not<) (- > - >= - /= - - not<)))

(deftest in-place-compares-of-non-numbers
  (list (ip-type-error-p (lambda () (ip-compare-vv 'a 1))) (ip-type-error-p (lambda () (ip-compare-vc "x")))
        (let ((k :k)) (list (if (eq k :k) :yes :no) (if (eql k :j) :yes :no))))
  (t t (:yes :no)))

;;; ---- one-argument tests of a variable ----

(defun ip-signs (a) (list (if (zerop a) 'zero '-) (if (plusp a) 'plus '-) (if (minusp a) 'minus '-)))
(deftest in-place-sign-tests
  (list (ip-signs 0) (ip-signs 7) (ip-signs -7) (ip-signs 0.0) (ip-signs -1/2) (ip-signs (expt 10 30))
        (ip-type-error-p (lambda () (ip-signs :x))))
  ((zero - -) (- plus -) (- - minus) (zero - -) (- - minus) (- plus -) t))

;;; ---- arithmetic of variables and constants ----

(defun ip-arith (v w)
  (list (1+ v) (1- v) (+ v w) (+ v 3) (- v w) (- v 3)))

(deftest in-place-arithmetic-of-fixnums
  (list (ip-arith 10 4) (ip-arith -10 -4))
  ((11 9 14 13 6 7) (-9 -11 -14 -7 -6 -13)))

(deftest in-place-arithmetic-overflows-to-bignums
  (list (ip-arith most-positive-fixnum 1) (ip-arith most-negative-fixnum 1))
  (#.(list (+ most-positive-fixnum 1) (- most-positive-fixnum 1) (+ most-positive-fixnum 1)
           (+ most-positive-fixnum 3) (- most-positive-fixnum 1) (- most-positive-fixnum 3))
   #.(list (+ most-negative-fixnum 1) (- most-negative-fixnum 1) (+ most-negative-fixnum 1)
           (+ most-negative-fixnum 3) (- most-negative-fixnum 1) (- most-negative-fixnum 3))))

(deftest in-place-arithmetic-of-other-numbers
  (list (ip-arith 1.5 1/2) (ip-arith 1/2 0.5))
  ((2.5 0.5 2.0 4.5 1.0 -1.5) (3/2 -1/2 1.0 7/2 0.0 -5/2)))

(deftest in-place-arithmetic-of-non-numbers
  (list (ip-type-error-p (lambda () (ip-arith "a" 1))) (ip-type-error-p (lambda () (ip-arith 1 'b))))
  (t t))

;; fib and tak shaped code: the fused test, the arithmetic and the calls together
(defun ip-fib (n) (if (< n 2) n (+ (ip-fib (- n 1)) (ip-fib (- n 2)))))
(defun ip-tak (x y z) (if (not (< y x)) z (ip-tak (ip-tak (1- x) y z) (ip-tak (1- y) z x) (ip-tak (1- z) x y))))
(deftest in-place-fib-and-tak
  (list (ip-fib 20) (ip-fib 20.0) (ip-tak 18 12 6) (ip-tak 18.0 12 6))
  (6765 6765.0 7 7))
