;;;; loop.lisp: tests of the LOOP macro (CLHS 6.1); expected values from SBCL.

;;; ------------------------------------------------------------------
;;; Simple loop

(deftest simple-loop-return
  (let ((i 0)) (loop (incf i) (when (> i 4) (return (* i 10)))))
  50)

(deftest simple-loop-block-nil
  (block nil (loop (return-from nil :out)))
  :OUT)

(deftest simple-loop-compound-first-is-simple
  ;; a compound first form makes a simple loop; later symbols are then just variables
  (let ((while 1) (n 0)) (loop (incf n) while (when (= n 3) (return n))))
  3)

(deftest simple-loop-empty-expansion
  (let ((x (macroexpand-1 '(loop (foo))))) (and (consp x) (car x)))
  BLOCK)

;;; ------------------------------------------------------------------
;;; FOR x IN / ON

(deftest for-in-collect (loop for x in '(1 2 3) collect x)
  (1 2 3))
(deftest for-in-empty (loop for x in '() collect x) NIL)
(deftest for-in-by-cddr (loop for x in '(1 2 3 4 5) by #'cddr collect x) (1 3 5))
(deftest for-in-by-quoted (loop for x in '(1 2 3 4 5) by 'cddr collect x) (1 3 5))
(deftest for-in-by-lambda
  (loop for x in '(1 2 3 4 5 6 7) by (lambda (l) (cdddr l)) collect x)
  (1 4 7))
(deftest for-in-by-evaluated-once
  (let ((n 0))
    (list (loop for x in '(1 2 3 4) by (progn (incf n) #'cdr) collect x) n))
  ((1 2 3 4) 1))
(deftest for-in-final-value (loop for x in '(1 2) finally (return x)) 2)
(deftest for-in-dotted-list-error
  (signals-error (loop for x in '(1 . 2) collect x) type-error)
  T)
(deftest for-as-synonym (loop as x in '(a b) collect x) (A B))
(deftest for-in-two-lists-shortest (loop for x in '(1 2 3) for y in '(a b) collect (list x y))
  ((1 A) (2 B)))
(deftest for-on-collect (loop for x on '(1 2 3) collect x) ((1 2 3) (2 3) (3)))
(deftest for-on-dotted (loop for x on '(1 2 . 3) collect x) ((1 2 . 3) (2 . 3)))
(deftest for-on-by (loop for x on '(1 2 3 4 5) by #'cddr collect x) ((1 2 3 4 5) (3 4 5) (5)))
(deftest for-on-final-value (loop for x on '(1 2) finally (return x)) NIL)
(deftest for-on-destructuring-final-value (loop for (a) on '(1 2) finally (return a)) 2)
(deftest for-on-plist (loop for (k v) on '(:a 1 :b 2) by #'cddr collect (list k v))
  ((:A 1) (:B 2)))
(deftest for-on-empty (loop for x on nil collect x) NIL)

;;; ------------------------------------------------------------------
;;; FOR x = ... [THEN ...]

(deftest for-equals-then (loop for x = 1 then (* x 2) while (< x 100) collect x)
  (1 2 4 8 16 32 64))
(deftest for-equals-no-then-reevaluated
  (let ((n 0)) (loop for x = (incf n) repeat 3 collect x))
  (1 2 3))
(deftest for-equals-sees-previous-for
  (loop for x in '(1 2 3) for y = (* x 10) collect y)
  (10 20 30))
(deftest for-equals-then-sees-previous-for
  (loop for x in '(1 2 3) for y = x then (+ y 10) collect y)
  (1 11 21))
(deftest for-equals-initially-sees-nil
  (let ((seen :unset)) (loop for x = 5 initially (setq seen x) repeat 1 collect x) seen)
  NIL)
(deftest for-equals-list-walk
  (loop for x = '(1 2 3) then (cdr x) while x collect (car x))
  (1 2 3))
(deftest for-equals-and-swap
  (loop for x = 1 then y and y = 2 then x repeat 4 collect (list x y))
  ((1 2) (2 1) (1 2) (2 1)))
(deftest for-in-and-equals-parallel
  (loop for x in '(1 2 3) and y = 0 then x collect (list x y))
  ((1 0) (2 1) (3 2)))
(deftest for-arith-and-equals-parallel
  (loop for x from 1 to 3 and y = 10 then (+ y x) collect (list x y))
  ((1 10) (2 11) (3 13)))

;;; ------------------------------------------------------------------
;;; FOR x ACROSS

(deftest for-across-vector (loop for x across #(1 2 3) collect x)
  (1 2 3))
(deftest for-across-string (loop for c across "abc" collect c) (#\a #\b #\c))
(deftest for-across-empty (loop for x across #() collect x) NIL)
(deftest for-across-final-value (loop for x across #(1 2 3) finally (return x)) 3)
(deftest for-across-fill-pointer
  (loop for x across (make-array 3 :initial-contents '(a b c) :fill-pointer 2) collect x)
  (A B))
(deftest for-across-with-index
  (loop for x across (vector 1 2 3) for i from 0 sum (* x i))
  8)
(deftest for-across-destructuring
  (loop for (a b) across #((1 2) (3 4)) collect (+ a b))
  (3 7))

;;; ------------------------------------------------------------------
;;; Arithmetic FOR

(deftest arith-from-to (loop for i from 1 to 5 collect i)
  (1 2 3 4 5))
(deftest arith-below (loop for i below 3 collect i) (0 1 2))
(deftest arith-to-only (loop for i to 2 collect i) (0 1 2))
(deftest arith-from-below-by (loop for i from 0 below 10 by 3 collect i) (0 3 6 9))
(deftest arith-upto (loop for i from 0 upto 2 collect i) (0 1 2))
(deftest arith-upfrom-below (loop for i upfrom 0 below 2 collect i) (0 1))
(deftest arith-by-first (loop for i by 2 below 7 collect i) (0 2 4 6))
(deftest arith-from-downto (loop for i from 3 downto 1 collect i) (3 2 1))
(deftest arith-downfrom-to (loop for i downfrom 3 to 1 collect i) (3 2 1))
(deftest arith-from-downto-by (loop for i from 10 downto 1 by 3 collect i) (10 7 4 1))
(deftest arith-from-above (loop for i from 5 above 2 collect i) (5 4 3))
(deftest arith-from-above-by (loop for i from 10 above 1 by 3 collect i) (10 7 4))
(deftest arith-downfrom-no-limit
  (loop for i downfrom 3 collect i into l while (> i -2) finally (return l))
  (3 2 1 0 -1 -2))
(deftest arith-empty-range (loop for i from 1 to 0 collect i) NIL)
(deftest arith-ratio-step (loop for x from 1 to 2 by 1/2 collect x) (1 3/2 2))
(deftest arith-float-step (loop for x from 1.0 below 2 by 0.25 collect x) (1.0 1.25 1.5 1.75))
(deftest arith-negative-range (loop for i from -2 to 2 collect (* i i)) (4 1 0 1 4))
(deftest arith-final-value-inclusive (loop for i from 0 to 3 finally (return i)) 4)
(deftest arith-final-value-exclusive
  (loop for x below 3 collect x into l finally (return (list l x)))
  ((0 1 2) 3))
(deftest arith-no-limit-with-list (loop for x in '(a b c) for i from 0 collect (cons i x))
  ((0 . A) (1 . B) (2 . C)))
(deftest arith-limit-evaluated-once
  (let ((n 0)) (loop for i from 1 to (progn (incf n) 3) count t) n)
  1)
(deftest arith-forms-evaluated-in-order
  (let ((log nil))
    (loop for i to (progn (push :to log) 2) from (progn (push :from log) 0)
               by (progn (push :by log) 1)
          count t)
    (reverse log))
  (:TO :FROM :BY))
(deftest arith-body-may-modify-var (loop for i from 1 to 6 do (setq i (+ i 1)) collect i) (2 4 6))
(deftest arith-two-parallel-counters
  (loop for x from 1 to 2 for y from 10 downto 0 by 5 collect (list x y))
  ((1 10) (2 5)))
(deftest arith-of-type-fixnum (loop for i of-type fixnum from 0 below 3 sum i) 3)
(deftest arith-simple-type-fixnum (loop for i fixnum from 1 to 3 collect i) (1 2 3))
(deftest arith-limit-test-after-sibling-steps
  ;; the first-iteration limit test of a numeric clause comes after its AND siblings' steps
  (signals-error (loop for i from 0 below 0 and (a b) in '(1 2) collect a) error)
  T)

;;; ------------------------------------------------------------------
;;; BEING the hash-keys / hash-values / symbols

(deftest hash-keys-using-value
  (let ((h (make-hash-table)))
    (setf (gethash 1 h) 10 (gethash 2 h) 20 (gethash 3 h) 30)
    (loop for k being the hash-keys of h using (hash-value v) sum (* k v)))
  140)
(deftest hash-values-using-key
  (let ((h (make-hash-table)))
    (setf (gethash 1 h) 10 (gethash 2 h) 20)
    (loop for v being each hash-value in h using (hash-key k) sum (+ k v)))
  33)
(deftest hash-key-singular
  (let ((h (make-hash-table)))
    (setf (gethash :a h) 1)
    (loop for k being each hash-key of h collect k))
  (:A))
(deftest hash-empty
  (loop for k being the hash-keys of (make-hash-table) collect k)
  NIL)
(deftest hash-count-values
  (let ((h (make-hash-table :test 'equal)))
    (setf (gethash "a" h) 1 (gethash "b" h) 2 (gethash "c" h) 3)
    (loop for v being the hash-values of h count (oddp v)))
  2)
(deftest hash-destructuring-values
  (let ((h (make-hash-table)))
    (setf (gethash 1 h) '(10 11))
    (loop for (a b) being the hash-values of h collect (list a b)))
  ((10 11)))
(deftest hash-final-values-nil
  (let ((h (make-hash-table)))
    (setf (gethash 1 h) 10)
    (loop for k being the hash-keys of h using (hash-value v) finally (return (list k v))))
  (NIL NIL))
(deftest hash-final-destructured-kept
  (let ((h (make-hash-table)))
    (setf (gethash 1 h) '(10 20))
    (loop for (a b) being the hash-values of h using (hash-key k)
          finally (return (list a b k))))
  (10 20 NIL))
(deftest hash-remhash-current-entry
  (let ((h (make-hash-table)))
    (dotimes (i 10) (setf (gethash i h) i))
    (loop for k being the hash-keys of h do (remhash k h))
    (hash-table-count h))
  0)
(deftest hash-test-after-sibling-steps
  (signals-error (loop for (a b) in '(1 2) and k being the hash-keys of (make-hash-table) collect a)
                 error)
  T)

(ignore-errors                          ; keep loading if packages are missing
  (eval '(defpackage "LOOP-TEST-PKG" (:use) (:export "A" "B")))
  (intern "C" "LOOP-TEST-PKG"))

(deftest package-symbols
  (loop for s being the symbols of "LOOP-TEST-PKG" count (symbolp s))
  3)
(deftest package-present-symbols
  (loop for s being the present-symbols in "LOOP-TEST-PKG" count t)
  3)
(deftest package-external-symbols
  (let ((names (loop for s being each external-symbol of (find-package "LOOP-TEST-PKG")
                     collect (symbol-name s))))
    (list (length names) (and (member "A" names :test #'string=) t)
          (and (member "B" names :test #'string=) t)))
  (2 T T))
(deftest package-external-symbols-cl
  (loop for s being the external-symbols of :common-lisp count t)
  978)
(deftest package-symbol-final-nil
  (loop for s being the external-symbols of "LOOP-TEST-PKG" finally (return s))
  NIL)
(deftest package-default-is-current
  (let ((*package* (find-package "LOOP-TEST-PKG")))
    (loop for s being each present-symbol count t))
  3)

;;; ------------------------------------------------------------------
;;; Destructuring

(deftest destructure-in (loop for (a b) in '((1 2) (3 4)) collect (+ a b))
  (3 7))
(deftest destructure-short-list (loop for (a b) in '((1) (2 3 4)) collect (list a b))
  ((1 NIL) (2 3)))
(deftest destructure-dotted (loop for (a . b) in '((1) (2 3 4)) collect (list a b))
  ((1 NIL) (2 (3 4))))
(deftest destructure-nil-placeholder (loop for (nil b) in '((1 2) (3 4)) collect b) (2 4))
(deftest destructure-middle-nil (loop for (a nil c) in '((1 2 3) (4 5 6)) collect (+ a c)) (4 10))
(deftest destructure-nested (loop for ((a b) c) in '(((1 2) 3)) collect (list a b c)) ((1 2 3)))
(deftest destructure-equals
  (loop for x in '((1 (2 3)) (4 (5 6))) for (a (b c)) = x collect (list a b c))
  ((1 2 3) (4 5 6)))
(deftest destructure-rest (loop for (a b . c) = '(1 2 3 4) return (list a b c)) (1 2 (3 4)))
(deftest destructure-on (loop for (a . b) on '(1 2 3) collect (cons a b)) ((1 2 3) (2 3) (3)))
(deftest destructure-of-type
  (loop for (a b) of-type (fixnum fixnum) in '((1 2) (3 4)) collect (+ a b))
  (3 7))
(deftest destructure-type-list-without-of-type
  (loop for (a b) (fixnum fixnum) in '((1 2)) collect (+ a b))
  (3))
(deftest destructure-single-type-for-all
  (loop for (a b) fixnum in '((1 2)) collect (+ a b))
  (3))
(deftest destructure-error-on-atom
  (signals-error (loop for (a b) in '(1 2) collect a) error)
  T)

;;; ------------------------------------------------------------------
;;; WITH

(deftest with-simple (loop with x = 5 return x)
  5)
(deftest with-sequential (loop with a = 1 with b = (+ a 1) return (list a b)) (1 2))
(deftest with-and-parallel (let ((a 5)) (loop with a = 1 and b = a return (list a b))) (1 5))
(deftest with-no-value (loop with x return x) NIL)
(deftest with-fixnum-default (loop with x fixnum return x) 0)
(deftest with-float-default (loop with x float return x) 0.0)
(deftest with-double-float-default (loop with x of-type double-float return x) 0.0d0)
(deftest with-and-default (loop with a and b = 3 return (list a b)) (NIL 3))
(deftest with-destructuring (loop with (a b) = '(1 2) and c = 3 return (list a b c)) (1 2 3))
(deftest with-destructuring-no-value (loop with (a b) return (list a b)) (NIL NIL))
(deftest with-destructuring-types
  (loop with (a b) of-type (fixnum float) return (list a b))
  (0 0.0))
(deftest with-destructuring-dotted-type
  (loop with (a . b) of-type (fixnum . list) = '(1 2 3) return (list a b))
  (1 (2 3)))
(deftest with-then-for (loop with x = (list 1 2) for y in x collect y) (1 2))
(deftest with-limit (loop with n = 10 for i from 1 to n sum i) 55)
(deftest with-body-modifies
  (loop with s = 0 for x in '(1 2 3) do (incf s x) finally (return s))
  6)
(deftest with-before-accumulation-sees-outer
  (let ((s 100)) (loop with a = s for x in '(1) sum x into s finally (return (list a s))))
  (100 1))

;;; ------------------------------------------------------------------
;;; Accumulation

(deftest collect-basic (loop for x in '(1 2 3) collect (* x x))
  (1 4 9))
(deftest collecting-synonym (loop for x in '(1 2 3) collecting x) (1 2 3))
(deftest collect-into (loop for x in '(1 2 3) collect x into l finally (return l)) (1 2 3))
(deftest collect-into-visible-in-body
  (let ((seen nil)) (loop for x in '(1 2 3) collect x into l do (push (copy-list l) seen)) seen)
  ((1 2 3) (1 2) (1)))
(deftest collect-into-nreverse
  (loop for x in '(1 2 3) collect x into r finally (return (nreverse r)))
  (3 2 1))
(deftest collect-into-two
  (loop for i from 1 to 3 collect i into a collect (* i i) into b finally (return (list a b)))
  ((1 2 3) (1 4 9)))
(deftest collect-twice-anonymous (loop for x in '(1 2) collect x collect (* x 10)) (1 10 2 20))
(deftest collect-without-into-returns-nil
  (loop for x in '(1 2) collect x into r)
  NIL)
(deftest collect-fresh-list
  (let ((src (list 1 2))) (eq (loop for x in src collect x) src))
  NIL)
(deftest append-basic (loop for x in '((1 2) (3) () (4 5)) append x) (1 2 3 4 5))
(deftest append-does-not-modify
  (let ((a (list 1 2)) (b (list 3)))
    (loop for x in (list a b) append x)
    (list a b))
  ((1 2) (3)))
(deftest appending-into (loop for x in '(1 2 3) appending (list x x) into l finally (return l))
  (1 1 2 2 3 3))
(deftest append-and-collect-share (loop for x in '(1 2) append (list x) collect 0) (1 0 2 0))
(deftest nconc-basic (loop for x in '(1 2 3) nconc (list x x)) (1 1 2 2 3 3))
(deftest nconcing-into (loop for x in '(a b) for y = (list x) nconcing y into r finally (return r))
  (A B))
(deftest nconc-empty-lists (loop for x in '(1 2 3) nconc (if (oddp x) (list x) nil)) (1 3))
(deftest count-basic (loop for x in '(1 2 3 4 5) count (oddp x)) 3)
(deftest counting-into (loop for x in '(1 nil 3) counting x into c finally (return c)) 2)
(deftest sum-basic (loop for x in '(1 2 3) sum x) 6)
(deftest summing-floats (loop for x in '(1.5 2.5) summing x) 4.0)
(deftest sum-empty (loop for x in '() sum x) 0)
(deftest sum-of-type-float-empty (loop for x in nil sum x of-type float) 0.0)
(deftest sum-of-type-float (loop for x in '(1 2) sum x of-type float) 3.0)
(deftest sum-into-fixnum (loop for x in '(1 2) sum x into s fixnum finally (return s)) 3)
(deftest count-and-sum-share (loop for x in '(1 2) count x sum x) 5)
(deftest sum-and-count-into
  (loop for i from 1 to 3 sum i into s count t into c finally (return (values s c)))
  6 3)
(deftest maximize-basic (loop for x in '(3 1 4 1 5) maximize x) 5)
(deftest minimize-basic (loop for x in '(3 1 4 1 5) minimize x) 1)
(deftest maximizing-floats (loop for x in '(1.5 2.5) maximizing x) 2.5)
(deftest minimizing-negative (loop for x in '(1 2 3) minimizing (- x)) -3)
(deftest maximize-empty (loop for x in nil maximize x) 0)
(deftest minimize-into-empty (loop for x in nil minimize x into m finally (return m)) 0)
(deftest maximize-fixnum-empty (loop for x in nil maximize x fixnum) -4611686018427387904)
(deftest maximize-and-minimize-share (loop for x in '(1 2) maximize x minimize x) 2)
(deftest maximize-minimize-same-into
  (loop for x in '(3 1 2) minimize x into m maximize x into m finally (return m))
  2)
(deftest maximize-expression (loop for i from 1 to 3 maximize (* i (- 4 i))) 4)
(deftest accumulate-into-then-return-values
  (loop for x from 1 to 5 when (evenp x) collect x into evens else collect x into odds
        finally (return (values evens odds)))
  (2 4) (1 3 5))
(deftest collect-and-sum-into-other
  (let ((s nil))
    (list (loop for x in '(1 2 3) collect x sum x into total finally (setq s total)) s))
  ((1 2 3) 6))

;;; ------------------------------------------------------------------
;;; Conditionals

(deftest when-collect (loop for x in '(1 2 3 4) when (evenp x) collect x)
  (2 4))
(deftest if-collect (loop for x in '(1 2 3 4) if (oddp x) collect x) (1 3))
(deftest unless-collect (loop for x in '(1 2 3 4) unless (evenp x) collect x) (1 3))
(deftest when-it (loop for x in '(1 2 3) when (> x 1) collect it) (T T))
(deftest when-it-value (loop for x in '((a . 1) (b . 2)) when (cdr x) collect it) (1 2))
(deftest when-return-it (loop for x in '(1 2 3) when (and (> x 1) (* x 100)) return it) 200)
(deftest when-it-into
  (loop for x in '(1 nil 2) when x collect it into l finally (return l))
  (1 2))
(deftest when-else (loop for x in '(1 2 3) if (oddp x) collect x else collect (- x)) (1 -2 3))
(deftest unless-else (loop for x in '(1 2 3) unless (oddp x) collect x else collect (- x))
  (-1 2 -3))
(deftest when-else-into
  (loop for x in '(1 2 3 4) if (evenp x) collect x into e else collect x into o
        finally (return (list e o)))
  ((2 4) (1 3)))
(deftest when-and-chain
  (loop for i from 0 below 5 when (oddp i) collect i into odds and count t into n
        finally (return (list odds n)))
  ((1 3) 2))
(deftest when-and-do
  (let ((log nil))
    (list (loop for x in '(1 2 3) when (oddp x) collect x and do (push x log)) log))
  ((1 3) (3 1)))
(deftest when-end-then-unconditional (loop for x in '(1 2) if x collect x end collect 0)
  (1 0 2 0))
(deftest nested-when-else-end-else
  (loop for x in '(1 2 3 4 5 6)
        when (evenp x) when (> x 3) collect x else collect (- x) end
        else collect 0)
  (0 -2 0 4 0 6))
(deftest nested-if-else-binding
  (loop for i below 4
        if (evenp i) if (= i 2) collect :two else collect :even-not-two end
        else collect :odd)
  (:EVEN-NOT-TWO :ODD :TWO :ODD))
(deftest nested-else-when
  (loop for x in '(1 2 3) when (evenp x) collect x into evens
        else when (> x 2) collect x into big
        finally (return (list evens big)))
  ((2) (3)))
(deftest when-and-if-chain
  (loop for x in '(1 nil 3) if x collect x and count t into c else count t into n end
        finally (return (list c n)))
  (2 1))
(deftest when-return (loop for x in '(1 2 3) when (> x 1) return (* x 2)) 4)
(deftest when-do-multiple-forms
  (let ((a 0) (b 0)) (loop for x in '(1 2 3) when (oddp x) do (incf a) (incf b x)) (list a b))
  (2 4))
(deftest it-only-in-first-clause
  ;; in a later clause IT is an ordinary variable
  (let ((it :outer)) (loop for x in '(1) when x collect it and collect it))
  (1 :OUTER))
(deftest when-multiple-accumulations-anonymous
  (loop for x in '(1 2 3) when (oddp x) collect x and collect (* x 10))
  (1 10 3 30))

;;; ------------------------------------------------------------------
;;; WHILE UNTIL REPEAT ALWAYS NEVER THEREIS

(deftest while-basic (loop for x in '(1 2 3) while (< x 3) collect x)
  (1 2))
(deftest until-basic (loop for x in '(1 2 3) until (= x 2) collect x) (1))
(deftest while-runs-finally
  (let ((fin nil)) (list (loop for x in '(1 2 3) until (= x 2) collect x finally (setq fin t)) fin))
  ((1) T))
(deftest while-after-collect (loop for x in '(1 2 3) collect x while (< x 2)) (1 2))
(deftest while-with (loop with i = 0 while (< i 3) collect (incf i)) (1 2 3))
(deftest while-between-for-clauses
  (loop for x in '(1 2 3 4) while (< x 3) for y = (* x 10) collect y)
  (10 20))
(deftest repeat-basic (loop repeat 3 collect 1) (1 1 1))
(deftest repeat-zero (loop repeat 0 collect 1) NIL)
(deftest repeat-negative (loop repeat -1 collect 1) NIL)
(deftest repeat-float (loop repeat 2.5 collect 1) (1 1 1))
(deftest repeat-before-for (loop repeat 3 for x in '(1 2 3 4) collect x) (1 2 3))
(deftest repeat-after-for (loop for x in '(1 2 3 4) repeat 2 collect x) (1 2))
(deftest repeat-after-body (loop for x = 1 collect x repeat 2) (1 1))
(deftest repeat-position-count
  (loop count t into a repeat 3 count t into b finally (return (list a b)))
  (3 3))
(deftest repeat-evaluated-once
  (let ((n 0)) (loop repeat (progn (incf n) 3) count t) n)
  1)
(deftest always-true (loop for x in '(1 2 3) always (< x 4)) T)
(deftest always-false (loop for x in '(1 2 3) always (< x 2)) NIL)
(deftest always-empty (loop for x in '() always x) T)
(deftest always-false-skips-finally
  (let ((fin nil)) (list (loop for x in '(1 nil) always x finally (setq fin t)) fin))
  (NIL NIL))
(deftest always-finally-return (loop for x in '(1 2 3) always (< x 7) finally (return :other))
  :OTHER)
(deftest never-true (loop for x in '(1 2) never (> x 5)) T)
(deftest never-false (loop for x in '(1 2) never (> x 1)) NIL)
(deftest thereis-found (loop for x in '(1 2) thereis (and (> x 1) (* x 10))) 20)
(deftest thereis-not-found (loop for x in '(1 2) thereis (> x 5)) NIL)
(deftest thereis-found-skips-finally
  (let ((fin nil)) (list (loop for x in '(1 2 3) thereis (and (= x 2) :found) finally (setq fin t)) fin))
  (:FOUND NIL))
(deftest thereis-finally-return
  (loop for x in '(1 2 3) thereis (> x 7) finally (return :no))
  :NO)
(deftest always-with-collect-into
  (loop for x in '(1 2) collect x into l always x finally (return l))
  (1 2))
(deftest always-then-thereis (loop for x in '(1 2) always x thereis x) 1)

;;; ------------------------------------------------------------------
;;; RETURN NAMED LOOP-FINISH INITIALLY FINALLY DO

(deftest return-clause (loop for x in '(1 2 3) return x)
  1)
(deftest return-first-wins (loop for x in '(1 2) return x return 5) 1)
(deftest return-multiple-values (multiple-value-list (loop return (values 1 2))) (1 2))
(deftest named-return-from
  (loop named outer for x in '(1 2)
        do (loop for y in '(3 4) do (when (= y 4) (return-from outer (list x y)))))
  (1 4))
(deftest named-also-block-nil-is-outer
  (block nil (loop named foo do (return 1)))
  1)
(deftest named-return-clause (loop named foo for x in '(1 2) return (list :x x)) (:X 1))
(deftest loop-finish-runs-finally
  (loop for x in '(1 2 3) do (when (= x 2) (loop-finish)) collect x)
  (1))
(deftest loop-finish-in-conditional
  (loop for x in '(1 2 3) when (= x 2) do (loop-finish) collect x)
  (1))
(deftest loop-finish-inner-loop-only
  (loop for x in '(1 2) collect (loop for y in '(a b c) when (eq y 'b) do (loop-finish) collect y))
  ((A) (A)))
(deftest initially-order
  (let ((log nil))
    (loop initially (push 1 log) for x in '(a) initially (push 2 log) do (push x log)
          finally (push 3 log))
    (reverse log))
  (1 2 A 3))
(deftest initially-before-first-step
  (let ((seen :unset)) (loop for x in '(1 2 3) initially (setq seen x) collect x) seen)
  NIL)
(deftest finally-return-overrides (loop for x in '(1 2 3) collect x finally (return 5)) 5)
(deftest finally-sees-accumulation
  (loop for i in '(1 2 3) sum i into total finally (return (* total 2)))
  12)
(deftest finally-multiple-forms
  (let ((a nil)) (loop for x in '(1) finally (push 1 a) (push 2 a)) a)
  (2 1))
(deftest do-multiple-forms
  (let ((log nil)) (loop for x in '(1 2) do (push x log) (push (* x 10) log)) (reverse log))
  (1 10 2 20))
(deftest doing-synonym (let ((n 0)) (loop for x in '(1 2 3) doing (incf n x)) n) 6)
(deftest do-returns-nil (loop for x in '(1 2) do (list x)) NIL)
(deftest loop-default-value-nil (loop for x in '(1 2)) NIL)

;;; ------------------------------------------------------------------
;;; Closures, iteration variables, efficiency

(deftest closures-share-one-binding
  (mapcar #'funcall (loop for i below 3 collect (lambda () i)))
  (3 3 3))
(deftest closures-over-in-var
  (mapcar #'funcall (loop for x in '(a b c) collect (lambda () x)))
  (C C C))
(deftest closures-over-let-in-body
  (mapcar #'funcall (loop for i below 3 collect (let ((j i)) (lambda () j))))
  (0 1 2))
(deftest nested-loops
  (loop for i from 1 to 3 collect (loop for j from 1 to i collect (* i j)))
  ((1) (2 4) (3 6 9)))
(deftest nested-loop-return-inner
  (loop for i from 1 to 3 collect (loop for j from 1 do (when (> j i) (return j))))
  (2 3 4))
(deftest big-loop-sum (loop for i from 1 to 100000 sum i) 5000050000)
(deftest big-collect-length (length (loop for i below 50000 collect i)) 50000)
(deftest expansion-uses-tagbody
  (let ((x (macroexpand-1 '(loop for i below 3 collect i))))
    (labels ((find-op (op form)
               (cond ((atom form) nil)
                     ((eq (car form) op) t)
                     (t (or (find-op op (car form)) (find-op op (cdr form)))))))
      (list (car x) (find-op 'tagbody x) (find-op 'lambda x) (find-op 'function x))))
  (BLOCK T NIL NIL))
(deftest loop-variables-ignorable
  (let ((x (macroexpand-1 '(loop for (a b) in l collect a))))
    (labels ((find-ignorable (form)
               (cond ((atom form) nil)
                     ((eq (car form) 'ignorable) t)
                     (t (or (find-ignorable (car form)) (find-ignorable (cdr form)))))))
      (find-ignorable x)))
  T)

;;; ------------------------------------------------------------------
;;; Malformed loops: PROGRAM-ERROR at macroexpansion

(deftest error-for-runs-out (signals-error (macroexpand-1 '(loop for)) program-error)
  T)
(deftest error-unknown-keyword (signals-error (macroexpand-1 '(loop foo)) program-error) T)
(deftest error-in-without-form (signals-error (macroexpand-1 '(loop for x in)) program-error) T)
(deftest error-collect-without-form (signals-error (macroexpand-1 '(loop collect)) program-error)
  T)
(deftest error-named-without-name (signals-error (macroexpand-1 '(loop named)) program-error) T)
(deftest error-named-too-late
  (signals-error (macroexpand-1 '(loop for x from 1 named foo)) program-error)
  T)
(deftest error-finally-empty (signals-error (macroexpand-1 '(loop finally)) program-error) T)
(deftest error-do-empty (signals-error (macroexpand-1 '(loop do)) program-error) T)
(deftest error-do-atom (signals-error (macroexpand-1 '(loop for x in l do 1)) program-error) T)
(deftest error-else-at-top (signals-error (macroexpand-1 '(loop else collect 1)) program-error) T)
(deftest error-end-at-top (signals-error (macroexpand-1 '(loop for x in l end)) program-error) T)
(deftest error-and-at-top
  (signals-error (macroexpand-1 '(loop for x in l collect x and collect x)) program-error)
  T)
(deftest error-duplicate-into
  (signals-error (macroexpand-1 '(loop for x in l collect x into x)) program-error)
  T)
(deftest error-duplicate-variable
  (signals-error (macroexpand-1 '(loop with x = 1 for x in l)) program-error)
  T)
(deftest error-duplicate-for
  (signals-error (macroexpand-1 '(loop for x in l for x in m)) program-error)
  T)
(deftest error-bad-path (signals-error (macroexpand-1 '(loop for x being the foo of h)) program-error)
  T)
(deftest error-for-unknown-preposition
  (signals-error (macroexpand-1 '(loop for x foo 1)) program-error)
  T)
(deftest error-when-runs-out (signals-error (macroexpand-1 '(loop for x in l when x)) program-error)
  T)
(deftest error-then-without-form
  (signals-error (macroexpand-1 '(loop for x = 1 then)) program-error)
  T)
(deftest error-conflicting-directions
  (signals-error (macroexpand-1 '(loop for i upfrom 1 above 0 collect i)) program-error)
  T)
(deftest error-downto-without-start
  (signals-error (macroexpand-1 '(loop for i downto -3 collect i)) program-error)
  T)
(deftest error-two-limits
  (signals-error (macroexpand-1 '(loop for i below 3 to 5 collect i)) program-error)
  T)
(deftest error-two-from
  (signals-error (macroexpand-1 '(loop for i from 1 from 2 to 3 collect i)) program-error)
  T)
(deftest error-mixed-anonymous-accumulation
  (signals-error (macroexpand-1 '(loop for x in l collect x sum x)) program-error)
  T)
(deftest error-count-maximize
  (signals-error (macroexpand-1 '(loop for x in l count x maximize x)) program-error)
  T)
(deftest error-incompatible-into
  (signals-error (macroexpand-1 '(loop for x in l collect x into a sum x into a)) program-error)
  T)
(deftest error-anonymous-collect-with-always
  (signals-error (macroexpand-1 '(loop for x in l always x collect x)) program-error)
  T)
(deftest error-always-with-anonymous-collect
  (signals-error (macroexpand-1 '(loop for x in l collect x always x)) program-error)
  T)
(deftest error-iteration-after-body
  (signals-error (macroexpand-1 '(loop do (print 1) for x in l)) program-error)
  T)
(deftest error-while-in-conditional
  (signals-error (macroexpand-1 '(loop for x in l when x while x collect x)) program-error)
  T)
(deftest error-always-in-conditional
  (signals-error (macroexpand-1 '(loop for x in l when x always x)) program-error)
  T)
(deftest error-using-outside-hash
  (signals-error (macroexpand-1 '(loop for x in l using (hash-value v) collect v)) program-error)
  T)
(deftest error-eval-signals-program-error
  (signals-error (eval '(loop for x in '(1) collect)) program-error)
  T)
(deftest error-message-mentions-context
  (handler-case (macroexpand-1 '(loop for x frob 1))
    (program-error (c) (and (search "FROB" (princ-to-string c)) t)))
  T)

;;; ------------------------------------------------------------------
;;; Loop keywords are recognised by name

(deftest keywords-as-keywords (loop :for x :in '(1 2 3) :when (oddp x) :collect x)
  (1 3))
(deftest keywords-from-other-package
  (let ((form (list (intern "FOR" "KEYWORD") 'x (intern "IN" "KEYWORD") ''(1 2)
                    (intern "SUM" "KEYWORD") 'x)))
    (eval (cons 'loop form)))
  3)
(deftest into-variable-named-like-a-type
  (loop for x in '(1 2) collect x into list finally (return list))
  (1 2))
(deftest it-as-ordinary-variable-in-do
  (let ((it 5)) (loop for x in '(1) when x do (setq it (+ it x))) it)
  6)
