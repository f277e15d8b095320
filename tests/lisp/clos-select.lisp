;;;; clos-select.lisp: the parts of method selection, method addition and class finalization done
;;;; in C (runtime/clos-select.c, runtime/clos-cpl.c) checked against the Lisp they replaced (kept
;;;; here as REF- functions, the code clos.lisp and conditions.lisp ran before) on generated class
;;;; hierarchies, generic functions and arguments, and the cases by hand: redefinition,
;;;; REMOVE-METHOD, EQL specializers, the argument precedence order, inconsistent precedence lists.

(in-package :cl-user)

;;; a generator of its own, so that every run makes the same cases
(defvar *cs-seed* 12345)
(defun cs-random (n)
  (setq *cs-seed* (mod (+ (* *cs-seed* 1103515245) 12345) 2147483648))
  (mod (floor *cs-seed* 65536) n))
(defun cs-pick (list) (nth (cs-random (length list)) list))

;;; ------------------------------------------------------------------
;;; The reference: clos.lisp's method selection before it moved to C

(defun ref-specializer-applies-p (s arg arg-class)
  (if (sys::%eql-specializer-p s)
      (eql (sys::eql-specializer-object s) arg)
      (or (eq s (find-class t)) (if (member s (sys::%class-cpl arg-class)) t nil))))

(defun ref-method-applicable-p (m args classes)
  (loop for s in (sys::method-specializers m)
        for a in args for c in classes
        always (ref-specializer-applies-p s a c)))

(defun ref-stable-sort (list pred)
  ;; the merge sort clos.lisp used (%CL-SORT)
  (if (< (length list) 2)
      list
      (let* ((half (floor (length list) 2))
             (a (ref-stable-sort (subseq list 0 half) pred))
             (b (ref-stable-sort (subseq list half) pred))
             (r nil))
        (loop (cond ((null a) (return (nconc (nreverse r) b)))
                    ((null b) (return (nconc (nreverse r) a)))
                    ((funcall pred (car b) (car a)) (push (pop b) r))
                    (t (push (pop a) r)))))))

(defun ref-applicable-methods (gf args)
  (let* ((nreq (sys::%gf.nreq gf))
         (required (loop for i below nreq for a = args then (cdr a) collect (car a)))
         (classes (mapcar #'class-of required))
         (apo (sys::%gf.apo gf))
         (applicable (remove-if-not (lambda (m) (ref-method-applicable-p m required classes))
                                    (sys::%gf.methods gf))))
    (ref-stable-sort applicable (lambda (a b) (sys::%more-specific-p a b apo classes)))))

(defun ref-emf-keys (gf methods)
  (let* ((info (sys::%gf.info gf)) (anykey (not (eq (nth 3 info) :none)))
         (keys (if anykey (nth 3 info) nil)))
    (if (nth 4 info)
        t
        (progn
          (dolist (m methods)
            (let ((mi (sys::%method-info m)))
              (if (nth 4 mi) (return-from ref-emf-keys t))
              (if (not (eq (nth 3 mi) :none))
                  (progn (setq anykey t)
                         (dolist (k (nth 3 mi)) (unless (member k keys) (setq keys (append keys (list k)))))))))
          (if anykey keys t)))))

;;; clos.lisp's standard effective method before it moved to C
(defun ref-slot-accessor-emf (m args kind)
  (let* ((object (if (eq kind :reader) (car args) (cadr args)))
         (class (class-of object)))
    (if (and (eq (sys::%class-kind class) :standard) (sys::%class-finalized-p class)
             (not (sys::%slot-protocol-class-p class)))
        (let ((loc (sys::%slot-location class (sys::%method.slot-name m))))
          (if loc
              (vector (if (eq kind :reader) 0 1) class loc (sys::%method.fast-function m))
              nil))
        nil)))

(defun ref-standard-emf (gf methods args)
  (let ((arounds nil) (befores nil) (primaries nil) (afters nil))
    (dolist (m methods)
      (let ((q (sys::method-qualifiers m)))
        (cond ((null q) (push m primaries))
              ((cdr q) (return-from ref-standard-emf :invalid))
              ((eq (car q) :around) (push m arounds))
              ((eq (car q) :before) (push m befores))
              ((eq (car q) :after) (push m afters))
              (t (return-from ref-standard-emf :invalid)))))
    (setq arounds (nreverse arounds) befores (nreverse befores) primaries (nreverse primaries))
    (let ((keys (ref-emf-keys gf methods))
          (start (+ (car (sys::%gf.info gf)) (cadr (sys::%gf.info gf)))))
      (cond ((and (null arounds) (null befores) (null afters) (null (cdr primaries)) (eq keys t)
                  (sys::%method.slot-name (car primaries))
                  (ref-slot-accessor-emf (car primaries) args
                                         (if (eq (sys::%instance-layout (car primaries))
                                                 sys::*standard-reader-method-class*)
                                             :reader :writer))))
            ((and (null arounds) (null befores) (null afters) (null (cdr primaries)) (eq keys t)
                  (sys::%method.fast-function (car primaries)))
             (sys::%method.fast-function (car primaries)))
            ((and (null arounds) (null befores) (null afters))
             (vector 2 primaries keys start))
            (t (vector 2 (append arounds (list (vector 3 (mapcar #'list befores) primaries
                                                       (mapcar #'list afters) gf)))
                       keys start))))))

(defun cs-emf-or-invalid (gf methods args)
  (handler-case (sys::%standard-emf gf methods args) (error () :invalid)))

(defun ref-dispatch-positions (gf)
  (loop for i below (sys::%gf.nreq gf)
        when (some (lambda (m) (not (eq (nth i (sys::method-specializers m)) (find-class t))))
                   (sys::%gf.methods gf))
          collect i))

;;; ------------------------------------------------------------------
;;; The reference: conditions.lisp's class precedence list before it moved to C

(defun ref-compute-cpl (class)
  (let ((classes (list class)) (pending (copy-list (sys::%class-direct-superclasses class))))
    (loop while pending
          do (let ((c (pop pending)))
               (unless (member c classes)
                 (push c classes)
                 (setq pending (append (sys::%class-direct-superclasses c) pending)))))
    (setq classes (nreverse classes))
    (let ((constraints nil) (result nil) (remaining classes))
      (dolist (c classes)
        (let ((prev c))
          (dolist (s (sys::%class-direct-superclasses c))
            (push (cons prev s) constraints)
            (setq prev s))))
      (loop while remaining
            do (let ((candidates
                       (remove-if (lambda (c)
                                    (some (lambda (k) (and (eq (cdr k) c) (member (car k) remaining)))
                                          constraints))
                                  remaining)))
                 (when (null candidates)
                   (return-from ref-compute-cpl (list :inconsistent (mapcar #'sys::%class-name remaining))))
                 (let ((chosen (car candidates)))
                   (when (cdr candidates)
                     (block scan
                       (dolist (r result)
                         (dolist (cand candidates)
                           (when (member cand (sys::%class-direct-superclasses r))
                             (setq chosen cand)
                             (return-from scan))))))
                   (push chosen result)
                   (setq remaining (remove chosen remaining)))))
      (nreverse result))))

(defun cs-cpl-or-error (class)
  (multiple-value-bind (cpl remaining) (sys::%cpl-order class)
    (if remaining (list :inconsistent (mapcar #'sys::%class-name remaining)) cpl)))

;;; ------------------------------------------------------------------
;;; Generated hierarchies: class CS-Ci has up to three direct superclasses among the earlier ones,
;;; in a random order, so that some precedence lists are inconsistent. The classes are made with
;;; %CPL-ORDER's input alone (direct superclasses), not finalized.

(defun cs-make-hierarchy (n)
  (let ((classes nil))
    (dotimes (i n (nreverse classes))
      (let* ((supers (remove-duplicates
                      (loop repeat (if classes (cs-random 4) 0) collect (cs-pick classes))))
             (c (sys::%make-class-object (intern (format nil "CS-GEN-~D" i)) :standard)))
        (sys::%set-class.direct-supers c supers)
        (push c classes)))))

(deftest clos-select.cpl-matches-the-lisp-order
  (let ((mismatches nil) (inconsistent 0) (cases 0))
    (dotimes (round 30)
      (dolist (c (cs-make-hierarchy 12))
        (let ((ref (ref-compute-cpl c)) (new (cs-cpl-or-error c)))
          (incf cases)
          (when (eq (car ref) :inconsistent) (incf inconsistent))
          (unless (equal ref new) (push (list (sys::%class-name c) ref new) mismatches)))))
    ;; the generated cases must include inconsistent orders and merges of several chains
    (list (length mismatches) (> inconsistent 10) (> (- cases inconsistent) 100)))
  (0 t t))

(defclass cs-p1 () ())
(defclass cs-p2 (cs-p1) ())
(defclass cs-p3 (cs-p1) ())
(defclass cs-p4 (cs-p2 cs-p3) ())
(defclass cs-q (cs-p3) ())
(defclass cs-p5 (cs-q cs-p4) ())

(deftest clos-select.cpl-by-hand
  (mapcar #'class-name (sys::%class-cpl (find-class 'cs-p5)))
  (cs-p5 cs-q cs-p4 cs-p2 cs-p3 cs-p1 standard-object t))

(defclass cs-a () ())
(defclass cs-b () ())
(defclass cs-ab (cs-a cs-b) ())
(defclass cs-ba (cs-b cs-a) ())

(deftest clos-select.inconsistent-cpl-names-the-classes-left
  (handler-case (progn (defclass cs-abba (cs-ab cs-ba) ()) :no-error)
    (error (e) (princ-to-string e)))
  "Inconsistent precedence lists for the superclasses of CS-ABBA: (CS-A STANDARD-OBJECT T CS-B)")

;;; ------------------------------------------------------------------
;;; Generated generic functions: methods on classes of a finalized hierarchy, T and EQL
;;; specializers, checked for many arguments, in both argument precedence orders

(defclass cs-k0 () ())
(defclass cs-k1 (cs-k0) ())
(defclass cs-k2 (cs-k0) ())
(defclass cs-k3 (cs-k1 cs-k2) ())
(defclass cs-k4 (cs-k2 cs-k1) ())
(defclass cs-k5 (cs-k3) ())
(defclass cs-k6 (cs-k2) ())

(defvar *cs-instances*
  (append (mapcar #'make-instance '(cs-k0 cs-k1 cs-k2 cs-k3 cs-k4 cs-k5 cs-k6))
          (list 1 2 3 :x "s" nil)))

(defvar *cs-specializers*
  ;; T most often, so that several methods apply to a call
  (list* 't 't 't 't 't 't 'integer 'fixnum 'string 'symbol 'null '(eql 1) '(eql 2) '(eql :x) '(eql nil)
         '(cs-k0 cs-k0 cs-k1 cs-k2 cs-k3 cs-k4 cs-k5 cs-k6)))

(defun cs-random-gf (name apo)
  ;; a fresh generic function of two required arguments with up to 15 methods
  (when (fboundp name) (fmakunbound name))
  (eval `(defgeneric ,name (a b &optional c) ,@(if apo `((:argument-precedence-order ,@apo)))))
  (let ((seen nil))
    (dotimes (i (+ 4 (cs-random 12)))
      (let ((specs (loop repeat 2 collect (cs-pick *cs-specializers*)))
            (quals (cs-pick '(() () () (:before) (:after) (:around)))))
        (unless (member (cons quals specs) seen :test #'equal)
          (push (cons quals specs) seen)
          (eval `(defmethod ,name ,@quals ((a ,(first specs)) (b ,(second specs)) &optional c)
                   (list a b c)))))))
  (fdefinition name))

(deftest clos-select.applicable-methods-match-the-lisp-selection
  (let ((mismatches 0) (calls 0) (several 0))
    (dotimes (round 40)
      (let ((gf (cs-random-gf 'cs-generated (if (evenp round) nil '(b a)))))
        (dotimes (k 25)
          (let* ((args (loop repeat (+ 2 (cs-random 2)) collect (cs-pick *cs-instances*)))
                 (ref (ref-applicable-methods gf args))
                 (new (compute-applicable-methods gf args)))
            (incf calls)
            (when (cddr ref) (incf several))
            (unless (equal ref new) (incf mismatches))
            (unless (equal (ref-emf-keys gf ref) (sys::%emf-keys gf new)) (incf mismatches))
            (when ref
              (unless (equalp (ref-standard-emf gf ref args) (cs-emf-or-invalid gf new args))
                (incf mismatches)))))
        (unless (equal (coerce (sys::%gf.dispatch gf) 'list) (ref-dispatch-positions gf))
          (incf mismatches))))
    (list mismatches (> several 100) calls))
  (0 t 1000))

(defgeneric cs-order (a b) (:argument-precedence-order b a))
(defmethod cs-order ((a cs-k1) (b cs-k0)) :k1-k0)
(defmethod cs-order ((a cs-k0) (b cs-k1)) :k0-k1)
(defmethod cs-order ((a (eql 1)) b) :eql-1)
(defmethod cs-order (a (b integer)) :integer)

(deftest clos-select.argument-precedence-order-by-hand
  (list (mapcar #'sys::method-specializers
                (compute-applicable-methods #'cs-order (list (make-instance 'cs-k1) (make-instance 'cs-k1))))
        (cs-order (make-instance 'cs-k1) (make-instance 'cs-k1))
        (cs-order 1 2)
        (cs-order 1 :y))
  (((#.(find-class 'cs-k0) #.(find-class 'cs-k1)) (#.(find-class 'cs-k1) #.(find-class 'cs-k0)))
   :k0-k1 :integer :eql-1))

(deftest clos-select.compute-applicable-methods-checks-its-list
  (signals-error (compute-applicable-methods #'cs-order 5) type-error)
  t)

;;; ------------------------------------------------------------------
;;; Method addition: replacing a method, the direct-method lists, the dispatch positions

(defgeneric cs-add (a b &key))
(deftest clos-select.redefinition-replaces-the-method-with-the-same-qualifiers-and-specializers
  (progn
    (defmethod cs-add ((a integer) b &key) 1)
    (defmethod cs-add ((a integer) b &key) 2)
    (defmethod cs-add :before ((a integer) b &key) nil)
    (defmethod cs-add ((a integer) (b integer) &key) 3)
    (list (length (sys::generic-function-methods #'cs-add))
          (cs-add 1 :x)
          (cs-add 1 2)
          (length (compute-applicable-methods #'cs-add '(1 2)))
          (not (null (find-method #'cs-add '(:before) (list (find-class 'integer) (find-class t)))))
          (find-method #'cs-add '(:after) (list (find-class 'integer) (find-class t)) nil)))
  (3 2 3 3 t nil))

(deftest clos-select.find-method-wants-the-same-length
  (signals-error (find-method #'cs-add nil (list (find-class 'integer))) error)
  t)

(defgeneric cs-direct (a))
(deftest clos-select.direct-methods-follow-add-redefine-and-remove
  (let* ((ic (find-class 'integer))
         (before (sys::specializer-direct-methods ic))
         (copy (copy-list before))
         (m1 (defmethod cs-direct ((a integer)) 1))
         (in-1 (list (eq (car (sys::specializer-direct-methods ic)) m1)
                     (count m1 (sys::specializer-direct-methods ic))))
         (m2 (defmethod cs-direct ((a integer)) 2))
         (in-2 (list (and (member m2 (sys::specializer-direct-methods ic)) t)
                     (and (member m1 (sys::specializer-direct-methods ic)) t)))
         (m3 (defmethod cs-direct ((a (eql 7))) 7))
         (e (sys::intern-eql-specializer 7))
         (in-3 (list (eq (car (sys::specializer-direct-methods e)) m3)
                     (cs-direct 7) (cs-direct 8))))
    (remove-method #'cs-direct m2)
    (remove-method #'cs-direct m3)
    (list in-1 in-2 in-3
          (member m2 (sys::specializer-direct-methods ic))
          (member m3 (sys::specializer-direct-methods e))
          (cs-direct 7.5)
          ;; INTEGER's list was replaced, never changed in place
          (equal before copy)))
  ((t 1) (t nil) (t 7 2) nil nil :error-caught t))

(defmethod no-applicable-method ((gf (eql #'cs-direct)) &rest args)
  (declare (ignore args))
  :error-caught)

(deftest clos-select.add-method-of-a-method-already-listed-keeps-one
  ;; a method put back on its specializers' lists (as a restored checkpoint does) and added again
  (let* ((m (defmethod cs-direct ((a string)) :s))
         (sc (find-class 'string)))
    (remove-method #'cs-direct m)
    (sys::%set-class.direct-methods sc (cons m (sys::%class.direct-methods sc)))
    (add-method #'cs-direct m)
    (prog1 (list (count m (sys::specializer-direct-methods sc)) (eq (car (sys::specializer-direct-methods sc)) m)
                 (cs-direct "x"))
      (remove-method #'cs-direct m)))
  (1 t :s))

(defgeneric cs-positions (a b c))
(deftest clos-select.dispatch-positions-and-eql-tables-follow-the-methods
  (let ((r nil))
    (flet ((note () (push (list (coerce (sys::%gf.dispatch #'cs-positions) 'list)
                                (let ((tabs (sys::%gf.eql-tables #'cs-positions)))
                                  (and tabs (map 'list (lambda (h) (and h (hash-table-count h))) tabs))))
                          r)))
      (defmethod cs-positions (a (b integer) c) :b)
      (note)
      (let ((m (defmethod cs-positions (a b (c (eql :k))) :c)))
        (note)
        (push (list (cs-positions 1 2 :k) (cs-positions 1 :x :k) (cs-positions 1 2 :j)) r)
        (remove-method #'cs-positions m))
      (note)
      (push (cs-positions 1 2 :k) r))
    (nreverse r))
  (((1) nil) ((1 2) (nil nil 1)) (:b :c :b) ((1) nil) :b))

(deftest clos-select.union-eq
  (let* ((a (list :a :b)) (u (sys::%cl-union-eq a '(:c :a :c :d))))
    (list u (eq u a) a (sys::%cl-union-eq nil '(:x :x)) (sys::%cl-union-eq '(:y) nil)))
  ((:a :b :c :d) nil (:a :b) (:x) (:y)))

(defclass cs-my-gf (standard-generic-function) () (:metaclass sys::funcallable-standard-class))
(deftest clos-select.generic-function-p
  (list (sys::%generic-function-p #'cs-positions)
        (sys::%generic-function-p (make-instance 'cs-my-gf))
        (sys::%generic-function-p #'car)
        (sys::%generic-function-p (make-instance 'cs-k0))
        (sys::%generic-function-p 5))
  (t t nil nil nil))

;;; the keywords an effective method accepts (CLHS 7.6.5): the generic function's and the
;;; applicable methods' own
(defgeneric cs-keys (a &key x))
(defmethod cs-keys ((a integer) &key x y) (list x y))
(defmethod cs-keys ((a t) &key x z) (list x z))
(defmethod cs-keys ((a string) &key x &allow-other-keys) (list :string x))

(deftest clos-select.effective-method-keys
  (list (cs-keys 1 :y 2 :z 3)
        (cs-keys :s :z 3)
        (signals-error (cs-keys :s :y 3) program-error)
        (cs-keys "s" :w 1)
        (sys::%emf-keys #'cs-keys (compute-applicable-methods #'cs-keys '(1)))
        (sys::%emf-keys #'cs-keys (compute-applicable-methods #'cs-keys '("s"))))
  ((nil 2) (nil 3) t (:string nil) (:x :y :z) t))

;;; ------------------------------------------------------------------
;;; Lambda-list shapes and congruence (CLHS 7.6.4), against clos.lisp's Lisp before

(defun ref-parse-lambda-list-info (ll)
  (let ((state :req) (nreq 0) (nopt 0) (restp nil) (keys :none) (aok nil))
    (dolist (x ll)
      (cond ((eq x '&optional) (setq state :opt))
            ((or (eq x '&rest) (eq x '&body)) (setq state :rest) (setq restp t))
            ((eq x '&key) (setq state :key) (if (eq keys :none) (setq keys nil)))
            ((eq x '&allow-other-keys) (setq aok t) (setq state :aok))
            ((eq x '&aux) (setq state :aux))
            ((eq state :req) (setq nreq (1+ nreq)))
            ((eq state :opt) (setq nopt (1+ nopt)))
            ((eq state :key)
             (let ((spec (if (consp x) (car x) x)))
               (setq keys (append keys (list (if (consp spec)
                                                 (car spec)
                                                 (intern (symbol-name spec) "KEYWORD")))))))))
    (list nreq nopt restp keys aok)))

(defun ref-congruence-problem (g m)
  (cond ((< (car m) (car g)) "the method has fewer required arguments than the generic function")
        ((> (car m) (car g)) "the method has more required arguments than the generic function")
        ((< (cadr m) (cadr g)) "the method has fewer optional arguments than the generic function")
        ((> (cadr m) (cadr g)) "the method has more optional arguments than the generic function")
        ((not (eq (or (caddr g) (not (eq (nth 3 g) :none)))
                  (or (caddr m) (not (eq (nth 3 m) :none)))))
         (if (or (caddr g) (not (eq (nth 3 g) :none)))
             "the method does not accept &REST or &KEY arguments while the generic function does"
             "the method accepts &REST or &KEY arguments while the generic function does not"))
        ((and (not (eq (nth 3 g) :none)) (not (eq (nth 3 m) :none)) (not (nth 4 m)))
         (dolist (k (nth 3 g) nil)
           (if (not (member k (nth 3 m))) (return k))))
        (t nil)))

(defvar *cs-lambda-lists*
  '(() (a) (a b) (a &optional o) (a &optional (o 1) (p 2 p-p)) (a &rest r) (a &body r)
    (a &key) (a &key x) (a &key (x 1) ((:why y) 2 y-p) z) (a &key x &allow-other-keys)
    (a &rest r &key x y) (a &optional o &key y) (a &key y z) (a b &aux (c 1) d)
    (a &allow-other-keys) (&whole w a) (a &key x y z &allow-other-keys)))

(deftest clos-select.lambda-list-shapes-and-congruence
  (let ((bad nil))
    (dolist (ll *cs-lambda-lists*)
      (unless (equal (sys::%parse-lambda-list-info ll) (ref-parse-lambda-list-info ll))
        (push ll bad)))
    (dolist (g *cs-lambda-lists*)
      (dolist (m *cs-lambda-lists*)
        (let ((gi (ref-parse-lambda-list-info g)) (mi (ref-parse-lambda-list-info m)))
          (unless (equal (sys::%congruence-problem gi mi) (ref-congruence-problem gi mi))
            (push (list g m) bad)))))
    bad)
  nil)

(defgeneric cs-cong (a &key x y))
(deftest clos-select.incongruent-methods-are-refused
  (list (handler-case (progn (defmethod cs-cong ((a t) &key x) x) :added)
          (program-error (e) (and (search "does not accept the keyword argument :Y" (princ-to-string e)) t)))
        (handler-case (progn (defmethod cs-cong ((a t) &optional b) b) :added)
          (program-error (e) (and (search "more optional arguments" (princ-to-string e)) t)))
        (progn (defmethod cs-cong ((a t) &key x y z) (list x y z)) (cs-cong 1 :z 3))
        (progn (defmethod cs-cong ((a integer) &rest r) r) (cs-cong 1 :x 1))
        ;; a generic function made without a lambda list takes its first method's
        (progn (ensure-generic-function 'cs-cong-new)
               (defmethod cs-cong-new ((a t) b &key k) (list a b k))
               (list (cs-cong-new 1 2 :k 3) (sys::generic-function-lambda-list #'cs-cong-new))))
  (t t (nil nil 3) (:x 1) ((1 2 3) (a b &key))))

;;; ------------------------------------------------------------------
;;; Effective slots (CLHS 7.5.3), against conditions.lisp's Lisp before, on generated DEFCLASSes

(defun ref-compute-slots (class)
  ;; (name initargs initform initfunction allocation type doc read-only location) of each slot
  (let ((names nil) (cpl (sys::%class-cpl class)) (index 0))
    (dolist (c (reverse cpl))
      (dolist (d (sys::%class-direct-slots c))
        (pushnew (sys::%slotd.name d) names)))
    (mapcar (lambda (name)
              (let* ((defs (loop for c in cpl
                                 append (remove name (sys::%class-direct-slots c)
                                                :key (lambda (d) (sys::%slotd.name d)) :test-not #'eq)))
                     (first (car defs))
                     (initargs nil) (initform nil) (initfunction nil) (type nil) (doc nil) (read-only nil))
                (dolist (d defs)
                  (dolist (a (sys::%slotd.initargs d)) (unless (member a initargs) (push a initargs)))
                  (when (and (null initfunction) (sys::%slotd.initfunction d))
                    (setq initfunction (sys::%slotd.initfunction d) initform (sys::%slotd.initform d)))
                  (when (and (null type) (sys::%slotd.type d)) (setq type (sys::%slotd.type d)))
                  (when (and (null doc) (sys::%slotd.documentation d)) (setq doc (sys::%slotd.documentation d)))
                  (when (sys::%slotd.read-only d) (setq read-only t)))
                (list name (nreverse initargs) initform initfunction (sys::%slotd.allocation first)
                      (or type t) doc read-only
                      (if (eq (sys::%slotd.allocation first) :class)
                          (sys::%slotd.location first)
                          (prog1 index (incf index))))))
            (nreverse names))))

(defun cs-effective-slots (class)
  (mapcar (lambda (e)
            (list (sys::%slotd.name e) (sys::%slotd.initargs e) (sys::%slotd.initform e)
                  (sys::%slotd.initfunction e) (sys::%slotd.allocation e) (sys::%slotd.type e)
                  (sys::%slotd.documentation e) (sys::%slotd.read-only e) (sys::%slotd.location e)))
          (sys::%class-effective-slots class)))

(defun cs-random-slot ()
  (let ((name (cs-pick '(s0 s1 s2 s3 s4 s5))))
    `(,name ,@(loop repeat (cs-random 3) append `(:initarg ,(cs-pick '(:i0 :i1 :i2 :i3))))
            ,@(if (zerop (cs-random 2)) `(:initform ,(cs-random 100)))
            ,@(if (zerop (cs-random 3)) `(:type ,(cs-pick '(integer fixnum number))))
            ,@(if (zerop (cs-random 5)) '(:allocation :class))
            ,@(if (zerop (cs-random 4)) `(:documentation ,(format nil "d~D" (cs-random 9)))))))

(deftest clos-select.effective-slots-match-the-lisp-computation
  (let ((classes nil) (mismatches 0) (slots 0) (shared 0))
    (dotimes (i 40)
      (let* ((name (intern (format nil "CS-SLOTS-~D" i)))
             (supers (remove-duplicates (loop repeat (if classes (cs-random 3) 0) collect (cs-pick classes))))
             (specs (remove-duplicates (loop repeat (cs-random 4) collect (cs-random-slot)) :key #'car)))
        (when (handler-case (progn (eval `(defclass ,name ,supers ,specs)) t) (error () nil))
          (push name classes))))
    (dolist (name classes)
      (let* ((c (find-class name)) (ref (ref-compute-slots c)) (new (cs-effective-slots c)))
        (incf slots (length new))
        (incf shared (count :class new :key #'fifth))
        (unless (equal ref new) (incf mismatches))
        (unless (= (sys::%class.instance-size c) (count-if #'integerp new :key #'ninth)) (incf mismatches))))
    (list mismatches (> slots 100) (> shared 10)))
  (0 t t))

(defclass cs-shared-1 () ((a :allocation :class :initform 1 :accessor cs-shared-a)))
(defclass cs-shared-2 (cs-shared-1) ((b :initarg :b :initform 2 :reader cs-b)))
(deftest clos-select.class-slots-share-their-cell
  (let ((x (make-instance 'cs-shared-1)) (y (make-instance 'cs-shared-2)))
    (setf (cs-shared-a x) 10)
    (list (cs-shared-a y) (cs-b y) (cs-b (make-instance 'cs-shared-2 :b 3))
          (mapcar #'sys::slot-definition-location (sys::class-slots (find-class 'cs-shared-2)))))
  (10 2 3 ((a . 10) 0)))

;;; the standard effective method of accessor methods, of :BEFORE/:AFTER/:AROUND chains and of
;;; invalid qualifiers, against the Lisp before
(defclass cs-acc () ((v :initarg :v :accessor cs-acc-v) (w :allocation :class :accessor cs-acc-w)))
(defclass cs-acc-sub (cs-acc) ())
(defgeneric cs-q (a))
(defmethod cs-q ((a integer)) 1)
(defmethod cs-q :sideways ((a t)) 2)
(defgeneric cs-k (a &key))
(defmethod cs-k ((a t) &key k) k)
(defmethod cs-k :around ((a integer) &key) (list :around (call-next-method)))
(defmethod cs-k :after ((a number) &key) nil)

(deftest clos-select.standard-effective-methods
  (let ((x (make-instance 'cs-acc :v 1)) (y (make-instance 'cs-acc-sub :v 2)) (bad nil))
    (dolist (case (list (list #'cs-acc-v (list x)) (list #'cs-acc-v (list y))
                        (list #'(setf cs-acc-v) (list 5 x)) (list #'cs-acc-w (list y))
                        (list #'cs-q (list 1)) (list #'cs-q (list :a))
                        (list #'cs-k (list 1 :k 2)) (list #'cs-k (list 1.5)) (list #'cs-k (list :a))))
      (let* ((gf (first case)) (args (second case))
             (methods (compute-applicable-methods gf args)))
        (unless (equalp (ref-standard-emf gf methods args) (cs-emf-or-invalid gf methods args))
          (push case bad))))
    (list (length bad) (cs-acc-v y) (setf (cs-acc-v x) 7) (cs-acc-v x) (cs-k 1 :k 3)
          (handler-case (cs-q 1) (error (e) (and (search "invalid qualifier" (princ-to-string e)) t)))))
  (0 2 7 7 (:around 3) t))

;;; ADD-METHOD: a method of another generic function is refused; the initargs epoch moves for the
;;; initialization functions alone; the dependents of AMOP 5.5 hear of it
(defgeneric cs-owner-1 (a))
(defgeneric cs-owner-2 (a))
(defgeneric cs-dependent (a))
(deftest clos-select.add-method-bookkeeping
  (let* ((m (defmethod cs-owner-1 ((a integer)) 1))
         (e0 sys::*initargs-epoch*)
         (e1 (progn (defmethod cs-owner-2 ((a string)) 2) sys::*initargs-epoch*))
         (e2 (progn (defmethod initialize-instance :after ((x cs-k6) &key) nil) sys::*initargs-epoch*))
         (heard nil))
    (defclass cs-listener () ())
    (defmethod tinycl-mop:update-dependent ((gf t) (d cs-listener) &rest initargs)
      (push (car initargs) heard))
    (tinycl-mop:add-dependent #'cs-dependent (make-instance 'cs-listener))
    (defmethod cs-dependent ((a t)) 3)
    (list (handler-case (progn (add-method #'cs-owner-2 m) :added)
            (error (e) (and (search "is already part of the generic function" (princ-to-string e)) t)))
          (= e0 e1) (> e2 e1)
          heard
          (cs-owner-1 5) (cs-dependent 1)))
  (t t t (add-method) 1 3))

;;; DEFMETHOD finds its generic function (%EXISTING-GF's fast path, else %ENSURE-GF's checks)
(defmacro cs-a-macro (x) x)
(defun cs-a-function (x) x)
(defgeneric (setf cs-place) (v x))
(defgeneric cs-traced (x))
(defmethod cs-traced ((x t)) :t)
(deftest clos-select.defmethod-finds-its-generic-function
  (list (handler-case (progn (eval '(defmethod cs-a-macro ((x t)) x)) :added)
          (error (e) (and (search "already names an ordinary function or a macro" (princ-to-string e)) t)))
        (handler-case (progn (eval '(defmethod cs-a-function ((x t)) x)) :added)
          (error (e) (and (search "already names an ordinary function or a macro" (princ-to-string e)) t)))
        (progn (defmethod (setf cs-place) (v (x cons)) (setf (car x) v))
               (let ((c (list 1))) (setf (cs-place c) 2) c))
        (progn (trace cs-traced)
               (unwind-protect
                    (let ((*trace-output* (make-broadcast-stream)))
                      (defmethod cs-traced ((x integer)) :integer)
                      (list (cs-traced 1) (cs-traced :a)
                            (length (sys::generic-function-methods (sys::%untraced-fdefinition 'cs-traced)))))
                 (untrace cs-traced)))
        (cs-traced 1))
  (t t (2) (:integer :t 2) :integer))
