;;;; defstruct.lisp: tests of DEFSTRUCT (CLHS chapter 8); expected values from SBCL.

(defstruct person name (age 0) (email nil :type (or null string)))

(deftest defstruct-returns-name
  (defstruct returned-struct a)
  returned-struct)

(deftest keyword-constructor-and-accessors
  (let ((p (make-person :name "Ann" :age 30)))
    (list (person-name p) (person-age p) (person-email p)))
  ("Ann" 30 nil))

(deftest slot-defaults-evaluated-each-time
  (progn (defstruct fresh-default (items (list 1 2)))
         (eq (fresh-default-items (make-fresh-default)) (fresh-default-items (make-fresh-default))))
  nil)

(defvar *outer-a* :global)
(deftest initforms-do-not-see-other-slots
  (progn (eval '(defstruct chained (*outer-a* 1) (b *outer-a*)))
         (list (chained-b (make-chained)) (chained-b (make-chained :*outer-a* 5))))
  (:global :global))

(deftest boa-defaults-see-earlier-parameters
  (progn (defstruct (boa-chain (:constructor make-boa-chain (a &optional (b (+ a 1))))) a b)
         (boa-chain-b (make-boa-chain 10)))
  11)

(deftest setf-accessors
  (let ((p (make-person :name "Bob")))
    (setf (person-age p) 41)
    (incf (person-age p))
    (push "x" (person-name p))
    (list (person-age p) (person-name p)))
  (42 ("x" . "Bob")))

(deftest predicate-and-copier
  (let* ((p (make-person :name "C")) (q (copy-person p)))
    (setf (person-name q) "D")
    (list (person-p p) (person-p q) (person-p 3) (person-p nil) (eq p q) (person-name p) (person-name q)))
  (t t nil nil nil "C" "D"))

(deftest copy-structure-function
  (let* ((p (make-person :name "E")) (q (copy-structure p)))
    (list (equalp p q) (eq p q) (person-name q)))
  (t nil "E"))

(deftest printing
  (list (prin1-to-string (make-person :name "Ann" :age 3))
        (princ-to-string (make-person :name "Ann" :age 3)))
  ("#S(PERSON :NAME \"Ann\" :AGE 3 :EMAIL NIL)" "#S(PERSON :NAME Ann :AGE 3 :EMAIL NIL)"))

(deftest printing-length-and-level
  (list (let ((*print-length* 1)) (prin1-to-string (make-person :name "A")))
        (let ((*print-level* 1)) (prin1-to-string (list (make-person :name "A")))))
  ("#S(PERSON :NAME \"A\" ...)" "(#)"))

(deftest read-structure
  (let ((p (read-from-string "#S(PERSON :NAME \"R\" :AGE 5)")))
    (list (person-p p) (person-name p) (person-age p) (person-email p)))
  (t "R" 5 nil))

(deftest read-structure-round-trip
  (let ((p (make-person :name "Z" :age 1)))
    (equalp p (read-from-string (prin1-to-string p))))
  t)

(deftest read-structure-unknown
  (signals-error (read-from-string "#S(NO-SUCH-STRUCT-TYPE :A 1)") reader-error)
  t)

(deftest equalp-on-structures
  (list (equalp (make-person :name "a") (make-person :name "A"))
        (equalp (make-person :name "a") (make-person :name "b"))
        (equal (make-person :name "a") (make-person :name "a")))
  (t nil nil))

(deftest typep-and-class
  (let ((p (make-person)))
    (list (typep p 'person) (typep p 'structure-object) (typep 3 'person) (type-of p)
          (class-name (class-of p)) (class-name (class-of (find-class 'person)))))
  (t t nil person person structure-class))

(deftest accessor-type-error
  (list (signals-error (person-name 3) type-error)
        (handler-case (person-name 3) (type-error (e) (list (type-error-datum e) (type-error-expected-type e)))))
  (t (3 person)))

(deftest unknown-keyword-to-constructor
  (signals-error (make-person :nope 1) program-error)
  t)

;;; options

(defstruct (p3 (:constructor mk-p3 (a &optional (b 2) c &key (d 4) e &aux (f (+ a 1)) g))
               (:predicate is-p3) (:copier cp-p3) (:conc-name p3-))
  a b (c 33) d (e 55) f (g 77))

(deftest boa-constructor
  (let ((x (mk-p3 1)) (y (mk-p3 1 5 6 :d 7 :e 8)))
    (list (p3-a x) (p3-b x) (p3-c x) (p3-d x) (p3-e x) (p3-f x)
          (p3-a y) (p3-b y) (p3-c y) (p3-d y) (p3-e y) (p3-f y)))
  (1 2 33 4 55 2 1 5 6 7 8 2))

(deftest predicate-and-copier-options
  (list (is-p3 (mk-p3 1)) (is-p3 (cp-p3 (mk-p3 1))) (fboundp 'p3-p) (fboundp 'copy-p3) (fboundp 'make-p3))
  (t t nil nil nil))

(defstruct (several (:constructor make-several) (:constructor several-of (a b))) a b)

(deftest several-constructors
  (list (several-a (make-several :a 1)) (several-b (several-of 1 2)))
  (1 2))

(defstruct (no-ctor (:constructor nil) (:copier nil) (:predicate nil)) a)

(deftest disabled-functions
  (list (fboundp 'make-no-ctor) (fboundp 'copy-no-ctor) (fboundp 'no-ctor-p) (not (null (fboundp 'no-ctor-a))))
  (nil nil nil t))

(defstruct (no-conc (:conc-name nil)) alpha beta)
(defstruct (str-conc (:conc-name "SC-")) alpha)

(deftest conc-name-options
  (list (alpha (make-no-conc :alpha 1)) (sc-alpha (make-str-conc :alpha 2)))
  (1 2))

;; With (:conc-name) or (:conc-name nil) the accessor is the slot name itself, even when the
;; slot name lives in another package (no new symbol is interned in the current one).
(defpackage "CONC-SLOTS" (:use))
(defstruct (bare-conc (:conc-name)) conc-slots::first-slot conc-slots::second-slot)
(defstruct (nil-conc (:conc-name nil)) conc-slots::only-slot)

(deftest conc-name-without-prefix-keeps-slot-symbols
  (let ((b (make-bare-conc :first-slot 1 :second-slot 2))
        (n (make-nil-conc :only-slot 3)))
    (setf (conc-slots::second-slot b) 20)
    (list (conc-slots::first-slot b) (conc-slots::second-slot b) (conc-slots::only-slot n)
          (find-symbol "FIRST-SLOT" *package*)))
  (1 20 3 nil))

(defstruct (animal) name (legs 4))
(defstruct (bird (:include animal (legs 2))) (wings 2))
(defstruct (penguin (:include bird (wings 0 :read-only t))) (swims t))

(deftest include-and-overrides
  (let ((b (make-bird :name "robin")) (p (make-penguin)))
    (list (animal-name b) (animal-legs b) (bird-legs b) (bird-wings b)
          (animal-legs p) (bird-wings p) (penguin-wings p) (penguin-swims p)
          (animal-p p) (bird-p p) (penguin-p b)))
  ("robin" 2 2 2 2 0 0 t t t nil))

(deftest include-printing
  (prin1-to-string (make-penguin :name "P"))
  "#S(PENGUIN :NAME \"P\" :LEGS 2 :WINGS 0 :SWIMS T)")

(deftest include-typep
  (list (typep (make-penguin) 'animal) (typep (make-animal) 'penguin)
        (multiple-value-list (subtypep 'penguin 'animal)))
  (t nil (t t)))

(deftest include-accessor-on-subtype
  (let ((p (make-penguin :name "x")))
    (setf (animal-name p) "y")
    (penguin-name p))
  "y")

(defstruct (ro) (a 1 :read-only t) (b 2 :type fixnum))

(deftest read-only-slot-has-no-setf
  (list (fboundp '(setf ro-a)) (not (null (fboundp '(setf ro-b)))) (ro-a (make-ro :a 5)))
  (nil t 5))

(deftest slot-type-checked
  (list (signals-error (make-ro :b "x") type-error)
        (signals-error (setf (ro-b (make-ro)) "y") type-error))
  (t t))

(defstruct (pf (:print-function (lambda (o s d) (declare (ignore d)) (format s "<pf ~A>" (pf-a o))))) a)
(defstruct (po (:print-object (lambda (o s) (format s "<po ~A>" (po-a o))))) a)
(defun print-po-named (o s) (format s "<named ~A>" (pon-a o)))
(defstruct (pon (:print-object print-po-named)) a)

(deftest print-options
  (list (format nil "~A" (make-pf :a 1)) (format nil "~S" (list (make-po :a 2)))
        (prin1-to-string (make-pon :a 3)))
  ("<pf 1>" "(<po 2>)" "<named 3>"))

(defstruct (docd) "A documented structure." a)

(deftest docstring-is-not-a-slot
  (prin1-to-string (make-docd :a 1))
  "#S(DOCD :A 1)")

;;; :type list and vector

(defstruct (lp (:type list) :named (:initial-offset 1)) a (b 2))
(defstruct (lv (:type vector)) a b)
(defstruct (lvn (:type vector) :named) a)
(defstruct (lpi (:type list) (:include lp)) c)

(deftest typed-list-structure
  (let ((x (make-lp :a 1)))
    (setf (lp-b x) 20)
    (list x (lp-a x) (lp-b x) (lp-p x) (lp-p '(nil other 1 2)) (copy-lp x)))
  ((nil lp 1 20) 1 20 t nil (nil lp 1 20)))

(deftest typed-vector-structure
  (let ((v (make-lv :a 1 :b 2)))
    (list v (lv-b v) (fboundp 'lv-p) (make-lvn :a 5) (lvn-p (make-lvn :a 5))))
  (#(1 2) 2 nil #(lvn 5) t))

(deftest typed-include
  (let ((x (make-lpi :a 1 :c 3)))
    (list x (lp-a x) (lpi-c x) (lpi-b x)))
  ((nil lp 1 2 3) 1 3 2))

(deftest typed-structure-is-not-a-class
  (find-class 'lp nil)
  nil)

;;; methods and classes

(defgeneric area (shape))
(defstruct (rect) (w 1) (h 1))
(defstruct (square-rect (:include rect)))
(defmethod area ((r rect)) (* (rect-w r) (rect-h r)))
(defmethod area ((s square-rect)) (list :square (call-next-method)))

(deftest methods-on-structures
  (list (area (make-rect :w 2 :h 3)) (area (make-square-rect :w 2 :h 2)))
  (6 (:square 4)))

(defmethod print-object ((r rect) stream)
  (format stream "<rect ~Ax~A>" (rect-w r) (rect-h r)))

(deftest print-object-method-on-structure
  (list (prin1-to-string (make-rect)) (prin1-to-string (make-square-rect :w 3)))
  ("<rect 1x1>" "<rect 3x1>"))

;;; redefinition

(deftest compatible-redefinition
  (progn (defstruct redef-s a (b 1))
         (let ((old (make-redef-s)))
           (defstruct redef-s a (b 2))
           (list (redef-s-b (make-redef-s)) (redef-s-b old) (redef-s-p old))))
  (2 1 t))

(deftest incompatible-redefinition-is-continuable
  (progn (defstruct redef-t a)
         (list (signals-error (handler-bind ((warning #'muffle-warning)) (eval '(defstruct redef-t a b))) error)
               (handler-bind ((warning #'muffle-warning)
                              (error (lambda (c) (declare (ignore c)) (invoke-restart 'continue))))
                 (eval '(defstruct redef-t a b)))
               (eval '(redef-t-b (make-redef-t :b 3)))))
  (t redef-t 3))

(deftest bad-options
  (list (signals-error (macroexpand '(defstruct (bad-opt (:nope 1)) a)) error)
        (signals-error (macroexpand '(defstruct bad-dup a a)) error))
  (t t))
