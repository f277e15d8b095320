;;;; loopnodes.lisp: loops run as C loops (a TAGBODY ending in a GO to its own tag, DOLIST's test,
;;;; element and step done in place), fused tests reading variables and constants in place, EQL
;;;; decided in place and primitive calls specialised by argument count compute what the general
;;;; paths compute, signal what they signal, and see redefinitions.

(in-package :cl-user)

;;; ---- DOLIST ----

(defun ln-collect (list)
  (let ((r '())) (dolist (x list (nreverse r)) (push x r))))

(deftest dolist-proper (ln-collect '(1 2 3)) (1 2 3))
(deftest dolist-empty (ln-collect '()) nil)
(deftest dolist-dotted-end (signals-error (ln-collect '(1 2 . 3)) type-error) t)
(deftest dolist-not-a-list (signals-error (ln-collect 7) type-error) t)
(deftest dolist-result-sees-nil
  (let ((r '())) (dolist (x '(1 2) (list x r)) (push x r)))
  (nil (2 1)))
(deftest dolist-return-from-body
  (dolist (x '(1 2 3 4)) (when (= x 3) (return (* x 10))))
  30)
(deftest dolist-tags-in-body
  (let ((r '()))
    (dolist (x '(1 2 3 4 5) (nreverse r))
      (when (oddp x) (go skip))
      (push x r)
      skip))
  (2 4))
(deftest dolist-without-element-use
  (let ((n 0)) (dolist (x '(a b c) n) (declare (ignore x)) (incf n)))
  3)
(deftest dolist-nested
  (let ((r '()))
    (dolist (x '(1 2)) (dolist (y '(a b)) (push (cons x y) r)))
    (nreverse r))
  ((1 . a) (1 . b) (2 . a) (2 . b)))
;; each turn binds the element afresh: closures see their own (as in SBCL)
(deftest dolist-closures-per-element
  (let ((fs '())) (dolist (x '(1 2 3)) (push (lambda () x) fs)) (mapcar #'funcall fs))
  (3 2 1))
;; DO binds its variables once: closures see the last value (as in SBCL)
(deftest do-closures-share-the-variable
  (let ((fs '())) (do ((i 0 (1+ i))) ((= i 3)) (push (lambda () i) fs)) (mapcar #'funcall fs))
  (3 3 3))
(deftest dotimes-closures
  (let ((fs '())) (dotimes (i 3) (push (lambda () i) fs)) (length (remove-duplicates (mapcar #'funcall fs))))
  1)
;; a closure that leaves the loop by GO makes it an exit point of its own
(deftest dolist-go-from-closure
  (let ((r '()))
    (tagbody
       (dolist (x '(1 2 3 4))
         (funcall (lambda () (when (= x 3) (go out))))
         (push x r))
     out)
    r)
  (2 1))

(defvar *ln-special* :outer)
(defun ln-read-special () *ln-special*)
(deftest dolist-special-variable
  (let ((r '()))
    (dolist (*ln-special* '(1 2 3)) (push (ln-read-special) r))
    (list (nreverse r) *ln-special*))
  ((1 2 3) :outer))
(deftest do-special-variable
  (let ((r '()))
    (do ((*ln-special* 0 (1+ *ln-special*))) ((= *ln-special* 3)) (push (ln-read-special) r))
    (list r *ln-special*))
  ((2 1 0) :outer))
(deftest let-special-and-lexical
  (let ((a 1) (*ln-special* 2) (b 3)) (list a (ln-read-special) b))
  (1 2 3))

;;; ---- the loop shape written by hand, with GOs from the body ----

(defun ln-hand-loop (list stop restart)
  "(tagbody top (if (endp l) (go end)) ... (setq l (cdr l)) (go top) end) with the body
assigning L, leaving early and starting over."
  (let ((l list) (r '()) (restarted nil))
    (tagbody
     top
       (if (endp l) (go end))
       (let ((x (car l)))
         (when (eql x stop) (go end))
         (when (and (eql x restart) (not restarted))
           (setq restarted t l (cdr l))
           (go top))
         (push x r))
       (setq l (cdr l))
       (go top)
     end)
    (nreverse r)))

(deftest hand-loop-plain (ln-hand-loop '(1 2 3) nil nil) (1 2 3))
(deftest hand-loop-go-end (ln-hand-loop '(1 2 3 4) 3 nil) (1 2))
(deftest hand-loop-go-top (ln-hand-loop '(1 2 3) nil 2) (1 3))

(defun ln-assigning-loop (list tail)
  "The body sets the list variable; the step then takes its CDR."
  (let ((l list) (n 0))
    (tagbody
     top
       (if (endp l) (go end))
       (incf n)
       (when (= n 2) (setq l tail))
       (setq l (cdr l))
       (go top)
     end)
    n))

(deftest loop-body-assigns-nil (ln-assigning-loop '(1 2 3 4 5) nil) 2)
(deftest loop-body-assigns-list (ln-assigning-loop '(1 2 3 4 5) '(a b c)) 4)
(deftest loop-body-assigns-atom (signals-error (ln-assigning-loop '(1 2 3 4 5) 7) type-error) t)
(deftest loop-body-assigns-dotted (signals-error (ln-assigning-loop '(1 2 3) '(a b . c)) type-error) t)

;; a loop whose GO goes back to a tag in the middle
(deftest tagbody-loop-to-middle-tag
  (let ((n 0) (r '()))
    (tagbody
       (push :start r)
     again
       (incf n)
       (when (> n 3) (go end))
       (push n r)
       (go again)
     end)
    (nreverse r))
  (:start 1 2 3))
;; a GO to a tag just before the final GO runs that GO
(deftest tagbody-loop-go-to-last
  (let ((n 0))
    (tagbody
     top
       (incf n)
       (when (< n 5) (go last))
       (go end)
     last
       (go top)
     end)
    n)
  5)
(deftest tagbody-loop-value
  (let ((n 0)) (tagbody top (incf n) (if (< n 3) (go top))) n)
  3)
(deftest dotimes-count-not-a-number (signals-error (dotimes (i 'a)) type-error) t)
(deftest dotimes-bignum-count
  (let ((n 0) (big (+ most-positive-fixnum 3)))
    (dotimes (i 3 n) (when (< i big) (incf n))))
  3)
(deftest do-one-step-variable (do ((x 1 (1+ x))) ((> x 3) x)) 4)
(deftest do-parallel-steps
  (do ((a 1 b) (b 2 a) (n 0 (1+ n))) ((= n 3) (list a b)))
  (2 1))
(deftest do*-sequential-steps
  (do* ((a 1 (1+ a)) (b a a)) ((> a 3) (list a b)))
  (4 4))

;;; ---- ENDP, CAR and CDR redefined: the loops call the new definitions ----

(defmacro ln-with-counting ((name counter) &body body)
  "Run BODY while NAME counts its calls in COUNTER, then restore NAME."
  (let ((orig (gensym)))
    `(let ((,orig (fdefinition ',name)))
       (unwind-protect
            (progn
              (tinycl:without-package-locks
                (setf (fdefinition ',name) (lambda (x) (incf ,counter) (funcall ,orig x))))
              ,@body)
         (tinycl:without-package-locks (setf (fdefinition ',name) ,orig))))))

(defvar *ln-count* 0)
(defun ln-sum (list) (let ((s 0)) (dolist (x list s) (incf s x))))

(deftest dolist-sees-endp-redefined
  (let ((*ln-count* 0))
    (list (ln-with-counting (endp *ln-count*) (ln-sum '(1 2 3))) (>= *ln-count* 4)))
  (6 t))
(deftest dolist-sees-car-redefined
  (let ((*ln-count* 0))
    (list (ln-with-counting (car *ln-count*) (ln-sum '(1 2 3))) (>= *ln-count* 3)))
  (6 t))
(deftest dolist-sees-cdr-redefined
  (let ((*ln-count* 0))
    (list (ln-with-counting (cdr *ln-count*) (ln-sum '(1 2 3))) (>= *ln-count* 3)))
  (6 t))

;;; ---- EQL and the two-argument tests read in place ----

(defun ln-eql-cases (x)
  (case x (foo :foo) ((1 2) :small) (#\a :char) (t :other)))

(deftest case-on-symbols (mapcar #'ln-eql-cases '(foo bar 2 #\a)) (:foo :other :small :char))
(deftest eql-in-place-numbers
  (let* ((b1 (expt 2 100)) (b2 (expt 2 100)) (d1 (/ 1.5d0 1)) (d2 (* 0.75d0 2))
         (r1 (/ 1 3)) (r2 (/ 2 6)) (c1 (complex 1 2)) (c2 (complex 1 2)))
    (list (eql b1 b2) (if (eql b1 b2) :y :n) (eql d1 d2) (if (eql d1 d2) :y :n)
          (eql r1 r2) (if (eql r1 r2) :y :n) (eql c1 c2) (if (eql c1 c2) :y :n)
          (eql b1 r1) (if (eql d1 1.5) :y :n) (if (eql 'a 'b) :y :n) (if (eql "a" "a") :y :n)
          (if (eq b1 b1) :y :n) (eql -0.0d0 0.0d0)))
  (t :y t :y t :y t :y nil :n :n :n :y nil))
(deftest eql-constant-bignum
  (let ((b (expt 2 70))) (if (eql b 1180591620717411303424) :y :n))
  :y)
(deftest compare-variable-and-constant
  (let ((i 5) (big (expt 2 80)) (h 1/2))
    (list (if (< i 10) :y :n) (if (>= i 5) :y :n) (if (> big i) :y :n) (if (= h 1/2) :y :n)
          (if (/= i 5) :y :n) (if (<= 10 i) :y :n) (if (< i 5.5) :y :n)))
  (:y :y :y :y :n :n :y))
(deftest compare-variable-type-error
  (let ((x 'a)) (signals-error (if (< x 1) :y :n) type-error))
  t)
(deftest compare-constant-type-error
  (let ((x 1)) (signals-error (if (>= x "s") :y :n) type-error))
  t)
(deftest one-argument-tests-of-variables
  (let ((vals (list 0 5 -5 1/2 1.5 'sym nil '(1) "s" (expt 2 70))))
    (mapcar (lambda (v)
              (list (if (numberp v) 1 0) (if (symbolp v) 1 0) (if (listp v) 1 0)
                    (if (and (realp v) (zerop v)) 1 0) (if (and (realp v) (plusp v)) 1 0)
                    (if (and (realp v) (minusp v)) 1 0)))
            vals))
  ((1 0 0 1 0 0) (1 0 0 0 1 0) (1 0 0 0 0 1) (1 0 0 0 1 0) (1 0 0 0 1 0) (0 1 0 0 0 0)
   (0 1 1 0 0 0) (0 0 1 0 0 0) (0 0 0 0 0 0) (1 0 0 0 1 0)))
(deftest zerop-variable-type-error (let ((x "s")) (signals-error (if (zerop x) :y :n) type-error)) t)
(deftest plusp-variable-type-error (let ((x 'a)) (signals-error (if (plusp x) :y :n) type-error)) t)

;;; ---- primitive calls by argument count ----

(deftest prim-calls-by-count
  (let ((a 1) (b '(2)) (c "xyz"))
    (list (list a) (list a a) (list a a a) (list a a a a) (list a a a a a)
          (append b b) (reverse (list a 2 3)) (length c) (subseq c 1) (subseq c 0 2)
          (position #\z c) (nthcdr 1 b)))
  ((1) (1 1) (1 1 1) (1 1 1 1) (1 1 1 1 1) (2 2) (3 2 1) 3 "yz" "xy" 2 nil))
(deftest prim-call-argument-order
  (let ((r '()))
    (list (list (progn (push 1 r) :a) (progn (push 2 r) :b) (progn (push 3 r) :c) (progn (push 4 r) :d))
          (nreverse r)))
  ((:a :b :c :d) (1 2 3 4)))
(deftest prim-call-type-errors
  (list (signals-error (length 5) type-error) (signals-error (subseq "abc" 'x) type-error)
        (signals-error (reverse 3) type-error) (signals-error (append '(1 . 2) '(3)) type-error))
  (t t t t))
(deftest prim-call-multiple-values
  (multiple-value-list (floor 7 2))
  (3 1))
(deftest prim-call-values-of-one
  (multiple-value-list (let ((x "abc")) (length x)))
  (3))

;;; ---- a TAGBODY without tags among a TAGBODY's statements runs in its place ----

(deftest inner-tagbody-go-outer
  (let ((n 0)) (tagbody top (tagbody (incf n) (if (< n 3) (go top)))) n)
  3)
(deftest inner-tagbody-tags-after
  (let ((r '()) (again t))
    (tagbody
       (tagbody (push 1 r) (push 2 r))
       (tagbody)
     mid
       (push 3 r)
       (tagbody (when again (setq again nil) (go mid)))
       (push 4 r))
    (nreverse r))
  (1 2 3 3 4))
(deftest inner-tagbody-value
  (list (tagbody (tagbody (+ 1 2))) (let ((x 0)) (tagbody top (tagbody (incf x)) (if (< x 2) (go top))) x))
  (nil 2))
(deftest dotimes-body-go-out
  (let ((r '()))
    (tagbody
       (dotimes (i 10) (when (= i 3) (go out)) (push i r))
     out)
    r)
  (2 1 0))

;;; ---- PSETQ of variables of the frame ----

(deftest psetq-swap (let ((a 1) (b 2)) (list (psetq a b b a) a b)) (nil 2 1))
(deftest psetq-rotate
  (let ((a 1) (b 2) (c 3)) (psetq a b b c c a) (list a b c))
  (2 3 1))
(deftest psetq-values-before-assignments
  (let ((a 1) (b 10)) (psetq a (+ a b) b (* a 100)) (list a b))
  (11 100))
(deftest psetq-captured-variable
  (let ((a 1) (b 2)) (let ((f (lambda () (list a b)))) (psetq a b b a) (funcall f)))
  (2 1))
(deftest psetq-special
  (let ((a 1) (*ln-special* 2)) (psetq a *ln-special* *ln-special* a) (list a (ln-read-special)))
  (2 1))
(deftest psetq-error-leaves-variables
  (let ((a 1) (b 2))
    (list (signals-error (psetq a 5 b (car a)) type-error) a b))
  (t 1 2))
(deftest do-two-steps-lists
  (do ((tail '(1 2 3) (cdr tail)) (acc '() (cons (car tail) acc))) ((null tail) acc))
  (3 2 1))

;;; ---- LET of two variables of the frame ----

(deftest let-two-shadowing
  (let ((x 1) (y 10)) (let ((x (+ x 1)) (y x)) (list x y)))
  (2 1))
(deftest let-two-no-inits (let ((a) (b)) (list a b)) (nil nil))
(deftest let-two-error-in-init
  (let ((r (list 1))) (list (signals-error (let ((a 1) (b (car 5))) (list a b)) type-error) r))
  (t (1)))
(deftest let*-two (let* ((a 1) (b (+ a 1))) (list a b)) (1 2))

;;; ---- inline arithmetic on variables and constants read in place ----

(deftest inline-in-place-overflow
  (let ((m most-positive-fixnum) (n most-negative-fixnum) (big (expt 2 62)))
    (list (+ m 1) (- n 1) (* m 2) (* big big) (- m n) (+ 1 m) (* 3 m)))
  #.(list (+ most-positive-fixnum 1) (- most-negative-fixnum 1) (* most-positive-fixnum 2)
          (expt 2 124) (- most-positive-fixnum most-negative-fixnum) (+ 1 most-positive-fixnum)
          (* 3 most-positive-fixnum)))
(deftest inline-in-place-mod
  (let ((a -7) (b 7) (z 0) (h 5/2) (f 7.5))
    (list (mod a 3) (mod b -3) (mod a -3) (mod b 3) (mod h 1) (mod f 2)
          (signals-error (mod b z) division-by-zero) (signals-error (mod 'x b) type-error)))
  (2 -2 -1 1 1/2 1.5 t t))
(deftest inline-in-place-compare
  (let ((a 1) (b 2) (f 1.5) (big (expt 2 65)))
    (list (< a b) (> a b) (<= a 1) (>= b 3) (= a 1) (= f 1.5) (< a big) (= big big)
          (eq a 1) (eql f 1.5) (eql big (expt 2 65)) (signals-error (< a 'x) type-error)))
  (t nil t nil t t t t t t t t))
(deftest inline-in-place-cons-and-sub
  (let ((a 1) (l '(2))) (list (cons a l) (cons a 3) (- a 10) (- 10 a) (signals-error (- a "s") type-error)))
  ((1 2) (1 . 3) -9 9 t))

;;; ---- DOTIMES's test and step in place ----

(defun ln-dotimes-sum (n) (let ((s 0)) (dotimes (i n s) (incf s i))))
(deftest dotimes-plain (list (ln-dotimes-sum 5) (ln-dotimes-sum 0) (ln-dotimes-sum -3)) (10 0 0))
(deftest dotimes-bignum-limit
  (let ((n 0)) (dotimes (i (expt 2 70)) (when (= i 3) (return n)) (incf n)))
  3)
(deftest dotimes-float-limit (let ((n 0)) (dotimes (i 2.5 n) (incf n))) 3)
(deftest dotimes-body-sets-variable
  (let ((r '())) (dotimes (i 10) (push i r) (setq i (+ i 2))) (nreverse r))
  (0 3 6 9))
(deftest dotimes-step-past-fixnums
  (let ((r '()) (m most-positive-fixnum))
    (dotimes (i (+ m 3)) (when (= i 0) (setq i (- m 1))) (push i r) (when (> i m) (return)))
    (nreverse r))
  #.(list (1- most-positive-fixnum) most-positive-fixnum (1+ most-positive-fixnum)))
(deftest dotimes-body-sets-variable-non-number
  (signals-error (dotimes (i 10) (setq i 'a)) type-error)
  t)
(deftest dotimes-sees-redefined-1+
  (let ((*ln-count* 0))
    (list (ln-with-counting (1+ *ln-count*) (ln-dotimes-sum 4)) (>= *ln-count* 4)))
  (6 t))
