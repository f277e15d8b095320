;;;; evaluator.lisp: tests of the evaluator: special operators, lambda lists, closures, multiple
;;;; values, non-local exits, macros and backquote; expected values from SBCL.
;;;; Only special operators, boot macros and list primitives are used, so that a failure points
;;;; at the evaluator rather than at the library.  Tests of MACROLET evaluate their form with EVAL so
;;;; that an analysis error fails one test instead of stopping the load of the file.

;;; ------------------------------------------------------------------
;;; Lexical and special variables

(defvar *ev-special* :global)
(defun ev-read-special () *ev-special*)

(deftest let-parallel (let ((a 1)) (let ((a 2) (b a)) (list a b))) (2 1))
(deftest let*-sequential (let ((a 1)) (let* ((a 2) (b a)) (list a b))) (2 2))
(deftest let-no-init (let (a (b) (c 3)) (list a b c)) (NIL NIL 3))
(deftest setq-multiple (let (a b) (setq a 1 b (+ a 1)) (list a b)) (1 2))
(deftest setq-returns-last (let (a b) (setq a 1 b 2)) 2)
(deftest setq-no-args (setq) NIL)
(deftest special-binding-seen-by-callee (let ((*ev-special* :dynamic)) (ev-read-special))
  :DYNAMIC)
(deftest special-binding-restored (progn (let ((*ev-special* :dynamic)) nil) (ev-read-special))
  :GLOBAL)
(deftest local-special-declaration
  (let ((x :lexical))
    (declare (ignorable x))
    (let ((x :special)) (declare (special x))
      (funcall (lambda () (declare (special x)) x))))
  :SPECIAL)
(deftest special-declaration-does-not-affect-inner-binding
  (let ((y 1))
    (declare (special y))
    (let ((y 2))
      (list y (symbol-value 'y))))
  (2 1))
(deftest free-special-declaration
  (let ((z :special-value))
    (declare (special z))
    (let ((z :lexical))
      (declare (ignorable z))
      (locally (declare (special z)) z)))
  :SPECIAL-VALUE)
(deftest let*-special-visible-in-later-init
  (let* ((*ev-special* :rebound) (b (ev-read-special))) b)
  :REBOUND)
(deftest let-special-not-visible-in-parallel-init
  (let ((*ev-special* :rebound) (b (ev-read-special))) (list *ev-special* b))
  (:REBOUND :GLOBAL))
(deftest special-restored-after-throw
  (progn (catch 'tag (let ((*ev-special* :inner)) (throw 'tag nil))) *ev-special*)
  :GLOBAL)
(deftest special-restored-after-error
  (progn (ignore-errors (let ((*ev-special* :inner)) (error "x"))) *ev-special*)
  :GLOBAL)
(deftest special-restored-after-return-from
  (progn (block b (let ((*ev-special* :inner)) (return-from b nil))) *ev-special*)
  :GLOBAL)
(deftest special-restored-after-go
  (let ((seen nil))
    (tagbody
       (let ((*ev-special* :inner)) (go out))
     out
       (setq seen *ev-special*))
    seen)
  :GLOBAL)
(deftest progv-binds
  (progv '(ev-progv-a ev-progv-b) '(1 2)
    (list (symbol-value 'ev-progv-a) (symbol-value 'ev-progv-b)))
  (1 2))
(deftest progv-fewer-values-unbound
  (progv '(ev-progv-c) '() (boundp 'ev-progv-c))
  NIL)
(deftest progv-restores (progn (progv '(*ev-special*) '(:p) nil) *ev-special*) :GLOBAL)
(deftest progv-seen-by-callee (progv '(*ev-special*) '(:p) (ev-read-special)) :P)

;;; ------------------------------------------------------------------
;;; Closures

(defun ev-make-counter ()
  (let ((n 0)) (list (lambda () (setq n (+ n 1))) (lambda () n))))

(deftest closure-counter
  (let ((c (ev-make-counter)))
    (funcall (car c)) (funcall (car c))
    (funcall (cadr c)))
  2)
(deftest closures-independent
  (let ((a (ev-make-counter)) (b (ev-make-counter)))
    (funcall (car a)) (funcall (car a)) (funcall (car b))
    (list (funcall (cadr a)) (funcall (cadr b))))
  (2 1))
(deftest closure-over-dotimes-var
  (let ((fns nil))
    (dotimes (i 3) (push (lambda () i) fns))
    (list (funcall (car fns)) (funcall (cadr fns)) (funcall (caddr fns))))
  (3 3 3))
(deftest closure-over-fresh-let-in-loop
  (let ((fns nil))
    (dotimes (i 3) (let ((j i)) (push (lambda () j) fns)))
    (list (funcall (car fns)) (funcall (cadr fns)) (funcall (caddr fns))))
  (2 1 0))
(deftest closure-over-dolist-var
  (let ((fns nil))
    (dolist (x '(a b c)) (push (lambda () x) fns))
    (list (funcall (car fns)) (funcall (caddr fns))))
  (C A))
(deftest closure-shared-binding-mutation
  (let ((x 1))
    (let ((get (lambda () x)) (set (lambda (v) (setq x v))))
      (funcall set 5)
      (list x (funcall get))))
  (5 5))
(deftest closure-nested-three-levels
  (let ((a 1))
    (funcall (funcall (lambda () (let ((b 2)) (lambda () (let ((c 3)) (+ a b c))))))))
  6)
(deftest closure-captures-parameter
  (funcall (funcall (lambda (x) (lambda () (setq x (+ x 1)) x)) 10))
  11)
(deftest closure-over-optional-and-key
  (funcall (funcall (lambda (&optional (a 1) &key (b 2)) (lambda () (list a b))) 5 :b 6))
  (5 6))
(deftest closure-in-labels-recursion
  (labels ((make (n) (if (= n 0) nil (cons (lambda () n) (make (- n 1))))))
    (let ((l (make 3))) (list (funcall (car l)) (funcall (caddr l)))))
  (3 1))
(deftest closure-does-not-capture-special
  (let ((f (let ((*ev-special* :at-creation)) (lambda () *ev-special*))))
    (funcall f))
  :GLOBAL)

;;; ------------------------------------------------------------------
;;; FLET LABELS MACROLET SYMBOL-MACROLET

(defun ev-global-f () :global)

(deftest flet-basic (flet ((f (x) (* x 2))) (f 5)) 10)
(deftest flet-not-recursive
  (flet ((ev-global-f () :local-outer))
    (flet ((ev-global-f () (list :inner (ev-global-f))))
      (ev-global-f)))
  (:INNER :LOCAL-OUTER))
(deftest flet-body-sees-global-in-definition
  (flet ((ev-global-f () (list :local (ev-global-f)))) (ev-global-f))
  (:LOCAL :GLOBAL))
(deftest labels-recursive (labels ((fact (n) (if (< n 2) 1 (* n (fact (- n 1)))))) (fact 10))
  3628800)
(deftest labels-mutual
  (labels ((ev (n) (if (= n 0) t (od (- n 1)))) (od (n) (if (= n 0) nil (ev (- n 1)))))
    (list (ev 10) (od 7)))
  (T T))
(deftest flet-function-object (flet ((f () :f)) (funcall #'f)) :F)
(deftest flet-shadows-global-function (flet ((ev-global-f () :local)) (list (ev-global-f) (funcall 'ev-global-f)))
  (:LOCAL :GLOBAL))
(deftest flet-block-name (flet ((f () (return-from f :early) :late)) (f)) :EARLY)
(deftest labels-block-name (labels ((f (n) (if (= n 0) (return-from f :done) (f (- n 1))))) (f 3))
  :DONE)
(deftest flet-closure-over-local-function
  (let ((g (flet ((f (x) (+ x 100))) (lambda (y) (f y))))) (funcall g 1))
  101)
(deftest flet-optional-keyword-args
  (flet ((f (a &optional (b 2) &key (c 3)) (list a b c))) (list (f 1) (f 1 5 :c 6)))
  ((1 2 3) (1 5 6)))
(deftest flet-declarations (flet ((f (x) (declare (ignorable x)) :ok)) (f 1)) :OK)
(deftest flet-setf-function
  (let ((cell (list 1)))
    (flet (((setf kar) (v c) (rplaca c v) v)) (setf (kar cell) 9))
    cell)
  (9))
(deftest macrolet-basic (eval '(macrolet ((twice (x) `(list ,x ,x))) (twice 1))) (1 1))
(deftest macrolet-no-args (eval '(macrolet ((one () 1)) (one))) 1)
(deftest macrolet-shadows-function (eval '(flet ((f () :function)) (macrolet ((f () :macro)) (f))))
  :MACRO)
(deftest macrolet-sees-outer-macrolet
  (eval '(macrolet ((a () 1)) (macrolet ((b () `(+ (a) 1))) (b))))
  2)
(deftest macrolet-destructuring (eval '(macrolet ((m ((a b) &rest r) `(list ,a ,b ',r))) (m (1 2) 3 4)))
  (1 2 (3 4)))
(deftest macrolet-environment-macroexpand
  (eval '(macrolet ((inner () :expanded)
             (outer (&environment env) `',(macroexpand '(inner) env)))
    (outer)))
  :EXPANDED)
(deftest symbol-macrolet-basic (symbol-macrolet ((x 42)) x) 42)
(deftest symbol-macrolet-setq
  (let ((cell (list 1 2))) (symbol-macrolet ((head (car cell))) (setq head 10) cell))
  (10 2))
(deftest symbol-macrolet-setf-incf
  (let ((cell (list 1 2))) (symbol-macrolet ((head (car cell))) (incf head 5) cell))
  (6 2))
(deftest symbol-macrolet-shadowed-by-let
  (symbol-macrolet ((x :macro)) (list x (let ((x :var)) x) x))
  (:MACRO :VAR :MACRO))
(deftest symbol-macrolet-macroexpand-1
  (eval '(symbol-macrolet ((x (car y)))
          (macrolet ((expand (&environment env) `',(macroexpand-1 'x env))) (expand))))
  (CAR Y))
(deftest let-shadows-symbol-macro-in-closure
  (symbol-macrolet ((x :macro)) (let ((x :var)) (funcall (lambda () x))))
  :VAR)

;;; ------------------------------------------------------------------
;;; Lambda lists

(deftest optional-defaults ((lambda (a &optional b (c 3) (d c)) (list a b c d)) 1)
  (1 NIL 3 3))
(deftest optional-supplied-p
  (list ((lambda (&optional (a 1 a-p)) (list a a-p)))
        ((lambda (&optional (a 1 a-p)) (list a a-p)) nil))
  ((1 NIL) (NIL T)))
(deftest optional-default-sees-earlier ((lambda (a &optional (b (+ a 1))) (list a b)) 5) (5 6))
(deftest rest-args ((lambda (a &rest r) (list a r)) 1 2 3) (1 (2 3)))
(deftest rest-empty ((lambda (&rest r) r)) NIL)
(deftest key-args ((lambda (&key a (b 2) (c 3 c-p)) (list a b c c-p)) :c 5 :a 1) (1 2 5 T))
(deftest key-supplied-p-nil-value ((lambda (&key (a 1 a-p)) (list a a-p)) :a nil) (NIL T))
(deftest key-duplicate-first-wins ((lambda (&key a) a) :a 1 :a 2) 1)
(deftest key-explicit-keyword-name ((lambda (&key ((:foo bar) 7)) bar) :foo 8) 8)
(deftest key-non-keyword-name ((lambda (&key ((foo bar) 7)) bar) 'foo 9) 9)
(deftest key-allow-other-keys ((lambda (&key a &allow-other-keys) a) :b 1 :a 2) 2)
(deftest key-allow-other-keys-argument ((lambda (&key a) a) :b 1 :allow-other-keys t :a 3) 3)
(deftest key-unknown-error (signals-error ((lambda (&key a) a) :b 1) program-error) T)
(deftest key-odd-error (signals-error ((lambda (&key a) a) :a) program-error) T)
(deftest rest-and-key ((lambda (&rest r &key a) (list r a)) :a 1) ((:A 1) 1))
(deftest aux-vars ((lambda (a &aux (b (* a 2)) c) (list a b c)) 4) (4 8 NIL))
(deftest aux-sees-key ((lambda (&key (k 1) &aux (d (+ k 1))) d) :k 5) 6)
(deftest too-few-args-error (signals-error ((lambda (a b) (list a b)) 1) program-error) T)
(deftest too-many-args-error (signals-error ((lambda (a) a) 1 2) program-error) T)
(deftest funcall-too-few-error (signals-error (funcall (lambda (a b) (list a b)) 1) program-error)
  T)
(deftest optional-default-evaluated-each-call
  (let ((n 0))
    (flet ((f (&optional (x (setq n (+ n 1)))) x))
      (list (f) (f) (f 10) n)))
  (1 2 10 2))
(deftest supplied-p-with-defaults-referring-back
  ((lambda (&optional (a 1 ap) (b (if ap :a-given :a-missing))) (list a b)) 2)
  (2 :A-GIVEN))
(deftest special-parameter
  (flet ((f (*ev-special*) (ev-read-special))) (list (f :param) *ev-special*))
  (:PARAM :GLOBAL))
(deftest special-optional-parameter
  (flet ((f (&optional (*ev-special* :default)) (ev-read-special))) (list (f) (f :given)))
  (:DEFAULT :GIVEN))
(deftest destructuring-bind-basic (destructuring-bind (a (b c) &optional d) '(1 (2 3)) (list a b c d))
  (1 2 3 NIL))
(deftest destructuring-bind-dotted (destructuring-bind (a . b) '(1 2 3) (list a b)) (1 (2 3)))
(deftest destructuring-bind-key (destructuring-bind (&key x y) '(:y 2 :x 1) (list x y)) (1 2))
(deftest destructuring-bind-whole (destructuring-bind (&whole w a b) '(1 2) (list w a b))
  ((1 2) 1 2))
(deftest destructuring-bind-error (signals-error (destructuring-bind (a b) '(1) (list a b)) error)
  T)
(deftest destructuring-bind-nested-optional
  (destructuring-bind (a &optional ((b c) '(8 9))) '(1) (list a b c))
  (1 8 9))

;;; ------------------------------------------------------------------
;;; Macros: &whole &environment &body, defmacro destructuring

(defmacro ev-whole (&whole form a) `(list ',form ,a))
(defmacro ev-env-expand (form &environment env) `',(macroexpand form env))
(defmacro ev-body (name &body body) `(list ',name ,@body))
(defmacro ev-destructure ((a b) &optional (c 3)) `(list ,a ,b ,c))
(defmacro ev-dotted (a . rest) `(list ,a ',rest))
(defmacro ev-key (&key (x 1) y) `(list ,x ,y))

(deftest defmacro-whole (ev-whole 5) ((EV-WHOLE 5) 5))
(deftest defmacro-environment-sees-macrolet
  (eval '(macrolet ((local () :local-expansion)) (ev-env-expand (local))))
  :LOCAL-EXPANSION)
(deftest defmacro-environment-global (ev-env-expand (ev-body x 1)) (LIST (QUOTE X) 1))
(deftest defmacro-body (ev-body foo 1 2) (FOO 1 2))
(deftest defmacro-destructuring (ev-destructure (1 2)) (1 2 3))
(deftest defmacro-dotted (ev-dotted 1 2 3) (1 (2 3)))
(deftest defmacro-key (ev-key :y 2) (1 2))
(deftest macroexpand-1-returns-two-values (multiple-value-list (macroexpand-1 '(ev-body x)))
  ((LIST (QUOTE X)) T))
(deftest macroexpand-1-non-macro (multiple-value-list (macroexpand-1 '(car x))) ((CAR X) NIL))
(deftest macroexpand-repeatedly (macroexpand '(ev-whole 1)) (LIST (QUOTE (EV-WHOLE 1)) 1) T)
(deftest macro-function-of-macro (if (macro-function 'ev-body) t nil) T)
(deftest macro-function-of-function (macro-function 'car) NIL)
(deftest defmacro-returns-name (defmacro ev-tmp-macro () 1) EV-TMP-MACRO)
(deftest defun-returns-name (defun ev-tmp-fn () 1) EV-TMP-FN)
(deftest macro-wrong-args-error (signals-error (macroexpand-1 '(ev-destructure 1)) error) T)

;;; ------------------------------------------------------------------
;;; Backquote

(deftest bq-simple (let ((x 1)) `(a ,x b))
  (A 1 B))
(deftest bq-splice (let ((l '(1 2))) `(a ,@l b)) (A 1 2 B))
(deftest bq-splice-end (let ((l '(1 2))) `(a ,@l)) (A 1 2))
(deftest bq-dotted (let ((x 1)) `(a . ,x)) (A . 1))
(deftest bq-splice-dotted-tail (let ((l '(1 2))) `(a ,@l . c)) (A 1 2 . C))
(deftest bq-nconc-splice (let ((l (list 1 2))) `(a ,.l b)) (A 1 2 B))
(deftest bq-vector (let ((x 1)) `#(a ,x)) #(A 1))
(deftest bq-nested-quote (let ((x 1)) `(a '(b ,x))) (A (QUOTE (B 1))))
(deftest bq-nested-levels
  (let ((x 'y)) (let ((form ``(a ,,x))) (eval `(let ((y 5)) ,form))))
  (A 5))
(deftest bq-nested-eval (let ((y 5)) (let ((x 'y)) (eval `(let ((y 7)) ,``(a ,,x))))) (A 7))
(deftest bq-nested-splice-splice
  (let ((x '(p q))) (eval `(let ((p 1) (q 2)) `(list ,,@x))))
  (LIST 1 2))
(deftest bq-nested-comma-quote-comma (let ((x 'v)) (eval ``(,',x))) (V))
(deftest bq-splice-copies
  (let ((l (list 1 2))) (let ((r `(,@l 3))) (eq (cdr (cdr r)) l)))
  NIL)
(deftest bq-atom (let ((x 5)) `,x) 5)
(deftest bq-constant (eval '`(a b)) (A B))
(deftest bq-empty-splice (let ((l nil)) `(a ,@l b)) (A B))

;;; ------------------------------------------------------------------
;;; Multiple values

(deftest values-none (multiple-value-list (values))
  NIL)
(deftest values-several (multiple-value-list (values 1 2 3)) (1 2 3))
(deftest values-in-non-tail-position (multiple-value-list (progn (values 1 2) (values 3 4)))
  (3 4))
(deftest values-truncated-by-let (multiple-value-list (let ((x (values 1 2))) x)) (1))
(deftest values-through-if (multiple-value-list (if t (values 1 2) 3)) (1 2))
(deftest values-through-block (multiple-value-list (block b (values 1 2))) (1 2))
(deftest values-through-return-from (multiple-value-list (block b (return-from b (values 1 2)) 3))
  (1 2))
(deftest values-through-catch (multiple-value-list (catch 'c (throw 'c (values 1 2)))) (1 2))
(deftest values-through-unwind-protect
  (multiple-value-list (unwind-protect (values 1 2) (values 3 4)))
  (1 2))
(deftest values-through-let (multiple-value-list (let () (values 1 2))) (1 2))
(deftest values-through-flet (multiple-value-list (flet ((f () (values 1 2))) (f))) (1 2))
(deftest values-through-funcall (multiple-value-list (funcall (lambda () (values 1 2)))) (1 2))
(deftest values-through-apply (multiple-value-list (apply #'values '(1 2 3))) (1 2 3))
(deftest values-through-the (multiple-value-list (the (values integer integer) (values 1 2)))
  (1 2))
(deftest values-through-locally (multiple-value-list (locally (values 1 2))) (1 2))
(deftest values-through-tagbody-exit
  (multiple-value-list (block b (tagbody (return-from b (values 1 2)))))
  (1 2))
(deftest values-prog1-truncates (multiple-value-list (prog1 (values 1 2) 3)) (1))
(deftest multiple-value-prog1 (multiple-value-list (multiple-value-prog1 (values 1 2) (values 3 4)))
  (1 2))
(deftest multiple-value-call-concatenates
  (multiple-value-call #'list (values 1 2) 3 (values) (values 4 5))
  (1 2 3 4 5))
(deftest multiple-value-bind-extra-and-missing
  (multiple-value-bind (a b c) (values 1 2) (list a b c))
  (1 2 NIL))
(deftest multiple-value-bind-special
  (multiple-value-bind (*ev-special* b) (values :mvb 2) (list (ev-read-special) b))
  (:MVB 2))
(deftest multiple-value-setq-returns-first
  (let (a b) (list (multiple-value-setq (a b) (values 1 2 3)) a b))
  (1 1 2))
(deftest nth-value-basic (nth-value 1 (values :a :b :c)) :B)
(deftest values-list-basic (multiple-value-list (values-list '(1 2 3))) (1 2 3))
(deftest values-from-cond-test (multiple-value-list (cond ((values 1 2)))) (1))
(deftest values-from-cond-body (multiple-value-list (cond (t (values 1 2)))) (1 2))
(deftest values-from-or-last (multiple-value-list (or nil (values 1 2))) (1 2))
(deftest values-from-or-not-last (multiple-value-list (or (values 1 2) 3)) (1))
(deftest values-from-and-last (multiple-value-list (and t (values 1 2))) (1 2))
(deftest values-from-when (multiple-value-list (when t (values 1 2))) (1 2))
(deftest values-from-case (multiple-value-list (case 1 (1 (values 1 2)))) (1 2))
(deftest values-from-dolist-result (multiple-value-list (dolist (x '(1) (values 1 2)))) (1 2))

;;; ------------------------------------------------------------------
;;; BLOCK RETURN-FROM TAGBODY GO CATCH THROW UNWIND-PROTECT

(deftest block-return (block b (return-from b 1) 2)
  1)
(deftest block-nested-same-name (block b (block b (return-from b 1)) 2) 2)
(deftest block-return-from-closure
  (block b (funcall (lambda () (return-from b :from-closure))) :not-reached)
  :FROM-CLOSURE)
(deftest block-return-from-deep-closure
  (block b (let ((f (lambda () (return-from b :deep)))) (funcall (lambda () (funcall f)))) :no)
  :DEEP)
(deftest block-return-from-flet (block b (flet ((f () (return-from b :flet))) (f) :no)) :FLET)
(deftest block-exited-closure-error
  (let ((f (block b (lambda () (return-from b 1)))))
    (signals-error (funcall f) control-error))
  T)
(deftest block-nil-return (block nil (return 5)) 5)
(deftest block-return-no-value (multiple-value-list (block b (return-from b))) (NIL))
(deftest tagbody-returns-nil (tagbody a b) NIL)
(deftest tagbody-go-forward (let ((r nil)) (tagbody (go b) a (push :a r) b (push :b r)) r) (:B))
(deftest tagbody-loop (let ((i 0)) (tagbody top (setq i (+ i 1)) (if (< i 10) (go top))) i) 10)
(deftest tagbody-integer-tags (let ((r nil)) (tagbody (go 2) 1 (push 1 r) 2 (push 2 r)) r) (2))
(deftest tagbody-go-from-closure
  (let ((r nil))
    (tagbody
       (funcall (lambda () (go out)))
       (push :not-reached r)
     out
       (push :out r))
    r)
  (:OUT))
(deftest tagbody-go-from-nested-function
  (let ((n 0))
    (tagbody
     again
       (setq n (+ n 1))
       (flet ((f () (if (< n 3) (go again))))
         (f)))
    n)
  3)
(deftest tagbody-go-out-of-unwind-protect
  (let ((r nil))
    (tagbody
       (unwind-protect (go out) (push :cleanup r))
     out
       (push :out r))
    r)
  (:OUT :CLEANUP))
(deftest tagbody-nested-shadowing
  (let ((r nil))
    (tagbody
       (tagbody (go a) a (push :inner r))
       (go end)
     a (push :outer r)
     end)
    r)
  (:INNER))
(deftest catch-throw (catch 'c (throw 'c 1) 2) 1)
(deftest catch-nested-inner (catch 'a (catch 'b (throw 'a :to-a)) :not-reached) :TO-A)
(deftest catch-dynamic-extent
  (flet ((thrower () (throw 'ev-tag :thrown))) (catch 'ev-tag (thrower) :no))
  :THROWN)
(deftest catch-tag-evaluated (let ((tag (list 1))) (catch tag (throw tag :ok))) :OK)
(deftest throw-no-catch-error (signals-error (throw 'ev-no-such-tag 1) control-error) T)
(deftest catch-normal-return (multiple-value-list (catch 'c (values 1 2))) (1 2))
(deftest unwind-protect-normal (let ((r nil)) (list (unwind-protect :value (push :cleanup r)) r))
  (:VALUE (:CLEANUP)))
(deftest unwind-protect-on-throw
  (let ((r nil)) (catch 'c (unwind-protect (throw 'c 1) (push :cleanup r))) r)
  (:CLEANUP))
(deftest unwind-protect-on-return-from
  (let ((r nil)) (block b (unwind-protect (return-from b 1) (push :cleanup r))) r)
  (:CLEANUP))
(deftest unwind-protect-on-error
  (let ((r nil)) (ignore-errors (unwind-protect (error "x") (push :cleanup r))) r)
  (:CLEANUP))
(deftest unwind-protect-nested-order
  (let ((r nil))
    (catch 'c
      (unwind-protect
           (unwind-protect (throw 'c 1) (push :inner r))
        (push :outer r)))
    r)
  (:OUTER :INNER))
(deftest unwind-protect-cleanup-values-discarded
  (multiple-value-list (block b (unwind-protect (return-from b (values 1 2)) (values 3 4))))
  (1 2))
(deftest unwind-protect-cleanup-may-exit
  (block outer (catch 'c (unwind-protect (throw 'c :thrown) (return-from outer :cleanup-exit))))
  :CLEANUP-EXIT)
(deftest unwind-protect-cleanup-sees-specials
  (let ((seen nil))
    (let ((*ev-special* :outer))
      (catch 'c
        (let ((*ev-special* :inner))
          (unwind-protect (throw 'c nil) (setq seen (ev-read-special))))))
    seen)
  :INNER)
(deftest non-local-exit-through-many-frames
  (labels ((deep (n) (if (= n 0) (throw 'bottom :hit) (+ 1 (deep (- n 1))))))
    (catch 'bottom (deep 500)))
  :HIT)

;;; ------------------------------------------------------------------
;;; Other special operators

(deftest if-two-args (if nil 1)
  NIL)
(deftest progn-empty (progn) NIL)
(deftest quote-identity (let ((x '(a b))) (eq x x)) T)
(deftest function-lambda (funcall (function (lambda (x) (+ x 1))) 1) 2)
(deftest function-setf-name
  (let ((c (list 1))) (funcall #'(setf car) 5 c) c)
  (5))
(deftest the-returns-value (the fixnum (+ 1 2)) 3)
(deftest locally-declarations (locally (declare (optimize speed)) 1 2) 2)
(deftest eval-when-execute (eval-when (:execute) :ran) :RAN)
(deftest eval-when-no-execute (eval-when (:compile-toplevel) :ran) NIL)
(deftest load-time-value-once
  (let ((n 0))
    (flet ((f () (load-time-value (list :created))))
      (setq n (eq (f) (f)))
      n))
  T)
(deftest lambda-form-call ((lambda (x y) (list y x)) 1 2) (2 1))
(deftest eval-basic (eval '(+ 1 2)) 3)
(deftest eval-null-lexical-environment (let ((x 1)) (declare (ignorable x)) (eval '(boundp 'x)))
  NIL)
(deftest funcall-symbol (funcall 'list 1 2) (1 2))
(deftest apply-spread (apply #'list 1 2 '(3 4)) (1 2 3 4))
(deftest apply-symbol (apply 'list '(1 2)) (1 2))
(deftest funcall-undefined-error (signals-error (funcall 'ev-no-such-function) undefined-function)
  T)
(deftest unbound-variable-error (signals-error (eval 'ev-no-such-variable) unbound-variable) T)
(deftest setq-constant-error (signals-error (eval '(setq t 1)) condition) T)
(deftest let-constant-error (signals-error (eval '(let ((t 1)) t)) condition) T)
(deftest keyword-self-evaluating :kw :KW)
(deftest fdefinition-defun (progn (defun ev-redefined () 1) (defun ev-redefined () 2) (ev-redefined))
  2)
(deftest recursive-defun-sees-redefinition
  (progn (defun ev-rec (n) (if (= n 0) :old (ev-rec (- n 1))))
         (let ((f #'ev-rec))
           (defun ev-rec (n) (declare (ignore n)) :new)
           (funcall f 1)))
  :NEW)
(deftest defun-block (progn (defun ev-block-fn () (return-from ev-block-fn :early) :late) (ev-block-fn))
  :EARLY)
(deftest defun-setf-function
  (progn (defun (setf ev-kar) (v c) (rplaca c v) v)
         (let ((c (list 1))) (setf (ev-kar c) 7) c))
  (7))
(deftest defun-docstring-not-value (progn (defun ev-doc-only () "just a string") (ev-doc-only))
  "just a string")
(deftest defun-declare-then-docstring
  (progn (defun ev-doc2 (x) "doc" (declare (ignore x)) :body) (ev-doc2 1))
  :BODY)
(deftest deep-recursion
  (labels ((count-down (n acc) (if (= n 0) acc (count-down (- n 1) (+ acc 1))))) (count-down 5000 0))
  5000)

;;; ------------------------------------------------------------------
;;; Assorted interactions

(deftest go-to-exited-tagbody-error
  (let ((k nil))
    (block b (tagbody (setq k (lambda () (go x))) x))
    (handler-case (funcall k) (control-error () :control-error)))
  :CONTROL-ERROR)
(deftest special-parameter-local-declaration
  (funcall (lambda (x) (declare (special x)) (symbol-value 'x)) 5)
  5)
(deftest closure-reads-dynamic-value-at-call
  (let ((x 1)) (declare (special x))
    (let ((f (lambda () x))) (let ((x 2)) (declare (special x)) (funcall f))))
  2)
(deftest flet-lexical-despite-later-special
  (let ((x 1)) (flet ((f () x)) (let ((x 2)) (declare (special x)) (list x (f)))))
  (2 1))
(defmacro ev-some-macro (x) `(list :macro ,x))
(deftest flet-shadows-macro (flet ((ev-some-macro (x) (list :fn x))) (ev-some-macro 1)) (:FN 1))
(deftest labels-rest-apply
  (labels ((f (&rest r) (if r (cons (car r) (apply #'f (cdr r))) nil))) (f 1 2 3))
  (1 2 3))
(deftest return-from-in-cleanup (block b (unwind-protect 1 (return-from b 2))) 2)
(deftest flet-in-loop-sees-iteration
  (let ((x 0)) (dotimes (i 3) (flet ((f () (setq x (+ x i)))) (f))) x)
  3)
(deftest optional-default-closure ((lambda (a &optional (b (lambda () a))) (funcall b)) 7) 7)
(deftest symbol-macro-expansion-resolved-at-use (let ((x 1)) (symbol-macrolet ((y x)) (let ((x 2)) y)))
  2)
(deftest throw-from-cleanup-replaces (catch 'a (catch 'b (unwind-protect (throw 'a 1) (throw 'b 2))))
  2)
(defvar *ev-dv* 1)
(defvar *ev-dv2* 1)
(deftest makunbound-dynamic-binding
  (let ((*ev-dv* 2)) (makunbound '*ev-dv*) (boundp '*ev-dv*))
  NIL)
(deftest makunbound-dynamic-binding-restores
  (progn (let ((*ev-dv2* 2)) (makunbound '*ev-dv2*)) *ev-dv2*)
  1)
(deftest flet-closes-over-definition-env
  (let ((x 'outer)) (flet ((g () x)) (let ((x 'inner)) (declare (ignorable x)) (g))))
  OUTER)
(deftest go-out-of-let-in-tagbody
  (let ((i 0)) (tagbody a (setq i (+ i 1)) (if (< i 3) (let ((j i)) (declare (ignorable j)) (go a)))) i)
  3)
(deftest block-nil-in-dolist
  (let ((r nil)) (dolist (x '(1 2 3)) (push (block nil (if (= x 2) (return :two) x)) r)) r)
  (3 :TWO 1))
(deftest setq-after-closure-creation (let ((a 1)) (flet ((f () a)) (setq a 2) (f))) 2)
(deftest argument-evaluation-order (let ((i 0)) (list (setq i (+ i 1)) (setq i (+ i 1)) i))
  (1 2 2))
(deftest do-loop-closures-share-binding
  (let ((fns nil))
    (do ((i 0 (+ i 1))) ((= i 3)) (push (lambda () i) fns))
    (list (funcall (car fns)) (funcall (cadr fns))))
  (3 3))
(deftest optional-default-refers-to-special
  (flet ((f (&optional (x *ev-special*)) x)) (let ((*ev-special* :dyn)) (f)))
  :DYN)
(deftest lambda-list-keyword-after-rest
  ((lambda (a &rest r &key b &allow-other-keys) (list a r b)) 1 :b 2 :c 3)
  (1 (:B 2 :C 3) 2))
(deftest funcall-lambda-expression-error (signals-error (funcall '(lambda (x) x) 1) error) T)
(deftest mutually-recursive-closures-over-shared-var
  (let ((n 0))
    (labels ((inc () (setq n (+ n 1)) (if (< n 5) (dec) n)) (dec () (inc)))
      (inc)))
  5)
(deftest nested-block-same-name-closure
  (block a
    (let ((f (lambda () (return-from a :outer))))
      (block a (funcall f) :inner-fallthrough)))
  :OUTER)
(deftest catch-inside-closure-called-later
  (let ((f (lambda (tag) (catch tag (throw tag :caught)))))
    (list (funcall f 'x) (funcall f 'y)))
  (:CAUGHT :CAUGHT))
(deftest unwind-protect-in-loop-each-iteration
  (let ((n 0)) (dotimes (i 3) (unwind-protect (if (= i 1) nil i) (setq n (+ n 1)))) n)
  3)
(deftest handler-case-in-recursion
  (labels ((f (n) (if (= n 0) (error "bottom") (handler-case (f (- n 1)) (error () (list :caught n))))))
    (f 3))
  (:CAUGHT 1))
(deftest eval-defun-then-call (progn (eval '(defun ev-evaled (x) (* x 3))) (ev-evaled 4)) 12)
(deftest symbol-function-of-flet-is-global
  (flet ((ev-global-f () :local)) (funcall (symbol-function 'ev-global-f)))
  :GLOBAL)
(deftest special-in-let*-order
  (let* ((*ev-special* 1) (*ev-special* (+ *ev-special* 1))) (ev-read-special))
  2)

;;; ------------------------------------------------------------------
;;; &ENVIRONMENT and symbol macros (without MACROLET)

(defmacro ev-expand-sym (s &environment env) `',(multiple-value-list (macroexpand-1 s env)))

(deftest environment-sees-symbol-macrolet (symbol-macrolet ((x (car y))) (ev-expand-sym x))
  ((CAR Y) T))
(deftest environment-symbol-macrolet-shadows-let
  (let ((x 1)) (declare (ignorable x)) (symbol-macrolet ((x 2)) (ev-expand-sym x)))
  (2 T))
(deftest environment-let-shadows-symbol-macrolet
  (symbol-macrolet ((x 2)) (let ((x 1)) (declare (ignorable x)) (ev-expand-sym x)))
  (X NIL))
(deftest environment-global-symbol-macro-none (ev-expand-sym ev-not-a-symbol-macro)
  (EV-NOT-A-SYMBOL-MACRO NIL))
(deftest stack-exhaustion-is-storage-condition
  ;; SBCL (interactive): :EXHAUSTED (its control-stack-exhausted is a STORAGE-CONDITION)
  (handler-case (labels ((f (n) (+ 1 (f n)))) (f 1)) (storage-condition () :exhausted))
  :exhausted)
(deftest constantp-basic
  (list (constantp t) (constantp nil) (constantp :foo) (constantp 12) (constantp "s")
        (constantp ''x) (constantp (gensym)) (constantp '(incf x)) (constantp 1 nil))
  (t t t t t t nil nil t))
(deftest constantp-defconstant
  (progn (defconstant +constantp-test-constant+ 3) (constantp '+constantp-test-constant+))
  t)
(deftest constantp-arity (signals-error (funcall 'constantp) program-error) t)
(deftest call-limits
  (list (integerp call-arguments-limit) (>= call-arguments-limit lambda-parameters-limit 50)
        (>= multiple-values-limit 20) (constantp 'call-arguments-limit)
        (constantp 'multiple-values-limit) (constantp 'lambda-parameters-limit))
  (t t t t t t))
(deftest lambda-list-keywords-contents
  (every (lambda (k) (member k lambda-list-keywords))
         '(&allow-other-keys &aux &body &environment &key &optional &rest &whole))
  t)
(deftest apply-circular-list
  (let ((l (list 1 2))) (setf (cddr l) l) (signals-error (apply #'list l) error))
  t)
(deftest apply-circular-spread-list
  (let ((l (list 1 2))) (setf (cddr l) l) (signals-error (apply #'list 0 l) error))
  t)
(deftest empty-key-lambda-list-allow-other-keys
  (list ((lambda (&key) 'good) :allow-other-keys nil)
        (funcall (lambda (&key) 'good) :allow-other-keys t :a 1)
        (flet ((f (&key) 'good)) (f :allow-other-keys t :a 1 :b 2)))
  (good good good))
(deftest empty-key-lambda-list-unknown-key
  (signals-error (funcall (lambda (&key) 'good) :a 1) program-error)
  t)
(deftest symbol-function-of-special-operator
  (list (functionp (symbol-function 'block)) (functionp (fdefinition 'setq)))
  (t t))
(deftest environment-parameter-bound-first
  (macrolet ((foo () 1))
    (macrolet ((%f (&optional (x (macroexpand '(foo) env)) &environment env) x))
      (%f)))
  1)
(deftest empty-pattern-in-macro-lambda-list
  (list (macrolet ((%m (()) :good)) (%m ()))
        (destructuring-bind (a ()) '(1 nil) a)
        (signals-error (destructuring-bind (a ()) '(1 (2)) a) program-error))
  (:good 1 t))
(deftest symbol-macrolet-special-declaration
  (signals-error (eval '(symbol-macrolet ((x 10)) (declare (special x)) 20)) program-error)
  t)
(deftest proclaim-malformed-specifiers
  (list (signals-error (proclaim '(optimize . foo)) error)
        (signals-error (proclaim '(type integer . foo)) error)
        (signals-error (proclaim '(ftype . foo)) type-error)
        (signals-error (proclaim '(declaration . foo)) error))
  (t t t t))
(deftest values-list-dotted-datum
  (handler-case (values-list '(a b c . d)) (type-error (e) (type-error-datum e)))
  d)
(deftest allow-other-keys-leftmost-wins
  (list (signals-error (make-array '(2) :allow-other-keys nil :allow-other-keys t :bad t) program-error)
        (length (make-array '(2) :allow-other-keys t :allow-other-keys nil :bad t)))
  (t 2))

;; The inline paths of two-argument primitives (+ - < > <= >= = EQ EQL CONS), with arguments
;; read in place (a variable of the frame, a constant): fixnum overflow, other numbers and
;; errors go to the full primitive
(defun inline2-probe (x)
  (list (+ x 1) (- x 1) (< x 2) (> x 2) (<= x 2) (>= x 2) (= x 2) (eq x x) (eql x 2) (cons x 1)))
(deftest inline2-fixnums
  (list (inline2-probe 2) (inline2-probe 3))
  ((3 1 nil nil t t t t t (2 . 1)) (4 2 nil t nil t nil t nil (3 . 1))))
(deftest inline2-overflow-and-other-numbers
  (list (inline2-probe most-positive-fixnum) (inline2-probe most-negative-fixnum) (inline2-probe 2.0))
  ((#.(1+ most-positive-fixnum) #.(1- most-positive-fixnum) nil t nil t nil t nil (#.most-positive-fixnum . 1))
   (#.(1+ most-negative-fixnum) #.(1- most-negative-fixnum) t nil t nil nil t nil (#.most-negative-fixnum . 1))
   (3.0 1.0 nil nil t t t t nil (2.0 . 1))))
(deftest inline2-type-errors
  (list (signals-error (inline2-probe 'a) type-error)
        (signals-error (let ((y "s")) (- 5 y)) type-error))
  (t t))
(deftest inline2-nested-operands
  (let ((a 5) (b 7))
    (flet ((f () (list (+ (* a 2) (- b a)) (< (+ a 1) (- b 1)) (cons (car (list a)) b))))
      (f)))
  (12 nil (5 . 7)))

;; An error while a macro expands inside code being analysed becomes, as in SBCL, a report on
;; *error-output* and a PROGRAM-ERROR when that code runs; a macro form evaluated directly
;; signals the expander's own error
(defmacro broken-macro () (error "no way"))
(deftest macroexpansion-error-defines-the-function
  (let ((*error-output* (make-string-output-stream)))
    (eval '(defun uses-broken-macro () (broken-macro)))
    (list (fboundp 'uses-broken-macro)
          (handler-case (uses-broken-macro)
            (program-error (e) (and (search "no way" (princ-to-string e)) :program-error)))
          (not (null (search "during macroexpansion of (BROKEN-MACRO)"
                             (get-output-stream-string *error-output*))))))
  (t :program-error t))
(deftest macroexpansion-error-inside-ignore-errors
  (let ((*error-output* (make-string-output-stream)))
    (multiple-value-bind (v c) (eval '(ignore-errors (let () (broken-macro))))
      (list v (typep c 'program-error))))
  (nil t))
(deftest macroexpansion-error-of-a-toplevel-macro-form
  (handler-case (eval '(broken-macro)) (simple-error (e) (princ-to-string e)))
  "no way")
(deftest macroexpansion-warning-is-not-an-error
  (let ((*error-output* (make-string-output-stream)) (seen nil))
    (eval '(defmacro warning-macro () (warn "careful") 42))
    (handler-bind ((warning #'(lambda (w) (setq seen (princ-to-string w)) (muffle-warning w))))
      (list (eval '(let () (warning-macro))) seen)))
  (42 "careful"))

;; The inline one-argument primitives (CAR CDR FIRST REST 1+ 1- NULL NOT CONSP ZEROP): fast paths,
;; overflow, other numbers and errors
(defun inline1-probe (x)
  (list (consp x) (null x) (not x)
        (if (listp x) (list (car x) (cdr x) (first x) (rest x)) :atom)
        (if (numberp x) (list (1+ x) (1- x) (zerop x)) :not-a-number)))
(deftest inline1-paths
  (list (inline1-probe nil) (inline1-probe '(1 . 2)) (inline1-probe 0) (inline1-probe 0.0)
        (inline1-probe most-positive-fixnum) (inline1-probe most-negative-fixnum))
  ((nil t t (nil nil nil nil) :not-a-number)
   (t nil nil (1 2 1 2) :not-a-number)
   (nil nil nil :atom (1 -1 t))
   (nil nil nil :atom (1.0 -1.0 t))
   (nil nil nil :atom (#.(1+ most-positive-fixnum) #.(1- most-positive-fixnum) nil))
   (nil nil nil :atom (#.(1+ most-negative-fixnum) #.(1- most-negative-fixnum) nil))))
(deftest inline1-type-errors
  (let ((x 1) (y "s"))
    (list (signals-error (car x) type-error) (signals-error (cdr y) type-error)
          (signals-error (1+ y) type-error) (signals-error (zerop y) type-error)))
  (t t t t))

;; LET/LET* of lexical variables in the current frame (one pass, ev_let_local): parallel binding
;; still sees the outer variables, sequential binding the earlier ones
(defun let-local-probe (x)
  (list (let ((x (+ x 1)) (y x)) (list x y))
        (let* ((x (+ x 1)) (y x)) (list x y))
        (let ((a (let ((tmp 5)) tmp)) (b (let ((tmp 6)) (+ tmp x)))) (list a b))
        (let (u (v)) (list u v))
        (let ((k (block nil (return 7)))) k)))
(deftest let-local-semantics
  (let-local-probe 10)
  ((11 10) (11 11) (5 16) (nil nil) 7))
(deftest let-local-exit-from-init
  (block out (let ((a 1) (b (return-from out :left))) (list a b)))
  :left)
