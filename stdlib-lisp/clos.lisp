;;;; clos.lisp: CLOS-lite (CLHS chapter 7): classes and instances, generic functions with the
;;;; standard and short-form method combinations, the initialization protocols, class
;;;; redefinition with lazy instance updates, CHANGE-CLASS, PRINT-OBJECT and DESCRIBE.
;;;; Classes, generic functions, methods and slot definitions are instances with the slot
;;;; layouts of runtime/lisp-abi.def; a class may be an instance of a program's subclass of
;;;; STANDARD-CLASS (with more slots); mop.lisp exports the metaobject protocol over them.
;;;; runtime/clos.c does what must be fast: CLASS-OF, slot access, and the dispatch of generic
;;;; functions through per-function caches keyed on the classes of the specialised arguments.
;;;; Uses only the boot and condition layers, so that it loads wherever MANIFEST puts it.

(in-package "SYSTEM")

;;; ------------------------------------------------------------------
;;; Small list helpers

(defun %cl-assq (x alist)
  (dolist (e alist nil) (if (eq (car e) x) (return e))))

(defun %cl-position (x list)
  (let ((i 0))
    (dolist (y list nil)
      (if (eq x y) (return i))
      (setq i (1+ i)))))

(defun %cl-every2 (fn a b)
  (tagbody
   top
     (if (or (null a) (null b)) (return-from %cl-every2 t))
     (if (not (funcall fn (car a) (car b))) (return-from %cl-every2 nil))
     (setq a (cdr a) b (cdr b))
     (go top)))

(defun %cl-remove-if (fn list)
  (let ((r nil)) (dolist (x list) (if (not (funcall fn x)) (setq r (cons x r)))) (nreverse-boot r)))

(defun %cl-merge (a b pred)
  (let ((r nil))
    (tagbody
     top
       (cond ((null a) (return-from %cl-merge (nconc (nreverse-boot r) b)))
             ((null b) (return-from %cl-merge (nconc (nreverse-boot r) a)))
             ((funcall pred (car b) (car a)) (setq r (cons (car b) r)) (setq b (cdr b)))
             (t (setq r (cons (car a) r)) (setq a (cdr a))))
       (go top))))

(defun %cl-sort (list pred)
  ;; a stable merge sort
  (let ((n (%list-length list)))
    (if (< n 2)
        list
        (let ((half (nthcdr (1- (floor-boot n 2)) list)))
          (let ((second (cdr half)))
            (rplacd half nil)
            (%cl-merge (%cl-sort list pred) (%cl-sort second pred) pred))))))

(defun floor-boot (n d)
  (let ((q 0)) (tagbody top (if (< n d) (go end)) (setq n (- n d) q (1+ q)) (go top) end) q))

;; %CL-UNION-EQ (runtime/clos-select.c): (a b) -> A then the elements of B not in it, a new list

(defun %tree-mentions-p (tree symbols)
  ;; whether any of SYMBOLS occurs in TREE (conses only; stops on circular structure by depth)
  (let ((count 0))
    (labels ((walk (x)
               (setq count (1+ count))
               (cond ((> count 200000) t)
                     ((symbolp x) (if (%memq x symbols) t nil))
                     ((consp x) (or (walk (car x)) (walk (cdr x))))
                     (t nil))))
      (walk tree))))

(defun %set-documentation (object doc-type doc)
  ;; DOCUMENTATION lives in macros.lisp; it is told about classes and generic functions
  ;; (by the function under (SETF DOCUMENTATION)'s default method, usable while CLOS boots)
  (if (fboundp '%set-documentation-1)
      (%set-documentation-1 doc object doc-type))
  doc)

(defun %prin1-qualified (object stream)
  ;; symbols with their package prefix, as SBCL prints class and function names
  (let ((*package* (find-package "KEYWORD"))) (prin1 object stream)))

(defun %qualified-string (object)
  (let ((s (make-string-output-stream)))
    (%prin1-qualified object s)
    (get-output-stream-string s)))

;; (setf (slot-value o name) v) calls a primitive directly instead of FUNCALLing #'(SETF SLOT-VALUE)
;; (the same function, its arguments in DEFSETF's order)
(defsetf slot-value %set-slot-value)

;;; ------------------------------------------------------------------
;;; The class hierarchy. Kinds map to metaclasses once these exist.

(defvar *class-slot-names*
  '(name direct-superclasses class-precedence-list direct-slots slots direct-default-initargs
    default-initargs documentation kind direct-subclasses version obsolete-layouts finalized-p
    prototype direct-methods initargs-cache plist instance-size))

(defun %class-version (c) (%class.version c))
(defun %class-finalized-p (c) (%class.finalized c))

(defun %define-system-class (name supers kind &optional slot-names)
  (let ((c (gethash name *class-table*)))
    (if (null c) (setq c (%make-class-object name kind)))
    (%set-class.kind c kind)
    (if slot-names
        (%set-class.direct-slots c (%mapcar1 #'(lambda (s) (%make-slot-definition s nil nil nil nil nil :instance t nil))
                                     slot-names)))
    (%set-direct-superclasses c (%mapcar1 #'(lambda (s) (gethash s *class-table*)) supers))
    (setf (gethash name *class-table*) c)
    (%finalize-class c)
    c))

(%define-system-class 't nil :built-in)
(%define-system-class 'standard-object '(t) :standard)
(%define-system-class 'structure-object '(t) :structure)
(%define-system-class 'metaobject '(standard-object) :standard)
(%define-system-class 'specializer '(metaobject) :standard)
(%define-system-class 'class '(specializer) :standard *class-slot-names*)
(%define-system-class 'built-in-class '(class) :standard)
(%define-system-class 'standard-class '(class) :standard)
(%define-system-class 'structure-class '(class) :standard)
(%define-system-class 'condition-class '(class) :standard)
(%define-system-class 'funcallable-standard-class '(class) :standard)
(%define-system-class 'forward-referenced-class '(class) :standard)
(%define-system-class 'eql-specializer '(specializer) :standard '(object direct-methods))
(%define-system-class 'method '(metaobject) :standard)
(%define-system-class 'standard-method '(method) :standard
                      '(generic-function qualifiers specializers lambda-list function fast-function
                        documentation slot-name plist))
(%define-system-class 'standard-accessor-method '(standard-method) :standard)
(%define-system-class 'standard-reader-method '(standard-accessor-method) :standard)
(%define-system-class 'standard-writer-method '(standard-accessor-method) :standard)
(%define-system-class 'method-combination '(metaobject) :standard '(type-name options))
(%define-system-class 'slot-definition '(metaobject) :standard
                      '(name initargs initform initfunction readers writers allocation type
                        documentation location read-only))
(%define-system-class 'standard-slot-definition '(slot-definition) :standard)
(%define-system-class 'direct-slot-definition '(slot-definition) :standard)
(%define-system-class 'effective-slot-definition '(slot-definition) :standard)
(%define-system-class 'standard-direct-slot-definition '(standard-slot-definition direct-slot-definition) :standard)
(%define-system-class 'standard-effective-slot-definition '(standard-slot-definition effective-slot-definition) :standard)
(%define-system-class 'function '(t) :built-in)
(%define-system-class 'funcallable-standard-object '(function standard-object) :funcallable)
(%define-system-class 'generic-function '(metaobject funcallable-standard-object) :funcallable
                      '(name lambda-list methods method-combination documentation
                        argument-precedence-order declarations method-class cache dispatch
                        eql-tables info nreq plist initial-methods))
(%define-system-class 'standard-generic-function '(generic-function) :funcallable)

;; conditions and restarts join the hierarchy
(%set-direct-superclasses (gethash 'condition *class-table*) (list (gethash 't *class-table*)))
(%finalize-class (gethash 'condition *class-table*))
(%set-direct-superclasses *restart-class* (list (gethash 'structure-object *class-table*)))
(%finalize-class *restart-class*)

;; the built-in classes (CLHS 4.3.7, with SBCL's precedence lists)
(dolist (spec '((number t) (real number) (rational real) (integer rational) (fixnum integer)
                (bignum integer) (ratio rational) (float real) (single-float float)
                (double-float float) (complex number) (character t) (symbol t) (sequence t)
                (list sequence) (cons list) (null symbol list) (array t) (simple-array array)
                (vector array sequence) (simple-vector vector simple-array) (string vector)
                (simple-string string simple-array) (base-string string)
                (simple-base-string base-string simple-string) (bit-vector vector)
                (simple-bit-vector bit-vector simple-array) (hash-table t) (package t)
                (stream t) (file-stream stream) (string-stream stream) (broadcast-stream stream)
                (concatenated-stream stream) (two-way-stream stream) (echo-stream stream)
                (synonym-stream stream) (readtable t) (random-state t) (pathname t)
                (logical-pathname pathname)))
  (%define-system-class (car spec) (cdr spec) :built-in))

(defun %metaclass-for-kind (kind)
  (gethash (cond ((eq kind :built-in) 'built-in-class)
                 ((eq kind :standard) 'standard-class)
                 ((eq kind :structure) 'structure-class)
                 ((eq kind :condition) 'condition-class)
                 ((eq kind :funcallable) 'funcallable-standard-class)
                 (t 'forward-referenced-class))
           *class-table*))

(defvar *standard-class* (gethash 'standard-class *class-table*))
(defvar *funcallable-standard-class* (gethash 'funcallable-standard-class *class-table*))
(defvar *standard-object-class* (gethash 'standard-object *class-table*))
(defvar *structure-object-class* (gethash 'structure-object *class-table*))
(defvar *t-class* (gethash 't *class-table*))
(defvar *standard-generic-function-class* (gethash 'standard-generic-function *class-table*))
(defvar *standard-method-class* (gethash 'standard-method *class-table*))
(defvar *standard-reader-method-class* (gethash 'standard-reader-method *class-table*))
(defvar *standard-writer-method-class* (gethash 'standard-writer-method *class-table*))
(defvar *eql-specializer-class* (gethash 'eql-specializer *class-table*))
(defvar *method-combination-class* (gethash 'method-combination *class-table*))
(setq *direct-slot-definition-class* (gethash 'standard-direct-slot-definition *class-table*))
(setq *effective-slot-definition-class* (gethash 'standard-effective-slot-definition *class-table*))
(setq *condition-metaclass* (gethash 'condition-class *class-table*))

;; every class made so far gets its metaclass, every slot definition its class
(maphash #'(lambda (name c)
             (declare (ignore name))
             (%set-instance-layout c (%metaclass-for-kind (%class-kind c)))
             (dolist (s (%class-direct-slots c)) (%set-instance-layout s *direct-slot-definition-class*))
             (dolist (s (%class-effective-slots c)) (%set-instance-layout s *effective-slot-definition-class*)))
         *class-table*)

(%set-built-in-class-table (%mapcar1 #'(lambda (n) (gethash n *class-table*)) (%built-in-class-names)))

;;; ------------------------------------------------------------------
;;; Conditions about classes and generic functions (SBCL's names, in SYSTEM)

(define-condition class-not-found-error (cell-error) ()
  (:report (lambda (c s)
             (write-string "There is no class named " s)
             (%prin1-qualified (cell-error-name c) s)
             (write-string "." s))))

(define-condition initarg-error (program-error)
  ((class :initarg :class :reader initarg-error-class)
   (initargs :initarg :initargs :reader initarg-error-initargs))
  (:report (lambda (c s)
             (let ((initargs (initarg-error-initargs c)) (first t))
               (write-string (if (cdr initargs) "Invalid initialization arguments:" "Invalid initialization argument:") s)
               (terpri s)
               (write-string "  " s)
               (dolist (a (reverse-boot initargs))
                 (if (not first) (write-string ", " s))
                 (setq first nil)
                 (prin1 a s))
               (format s "~%in call for class ~S." (initarg-error-class c))))))

(define-condition missing-slot (cell-error)
  ((object :initarg :object :reader missing-slot-object)
   (operation :initarg :operation :reader missing-slot-operation)
   (new-value :initarg :new-value :reader missing-slot-new-value :initform nil))
  (:report (lambda (c s)
             (let ((op (missing-slot-operation c)))
               (write-string "When attempting to " s)
               (cond ((eq op 'slot-value) (write-string "read the slot's value (slot-value)" s))
                     ((eq op 'setf) (format s "set the slot's value to ~S (SETF of SLOT-VALUE)"
                                            (missing-slot-new-value c)))
                     ((eq op 'slot-boundp) (write-string "test to see whether slot is bound (SLOT-BOUNDP)" s))
                     ((eq op 'slot-makunbound) (write-string "make the slot unbound (SLOT-MAKUNBOUND)" s))
                     (t (format s "~A" op)))
               (format s ", the slot ~S is missing from the object ~S." (cell-error-name c)
                       (missing-slot-object c))))))

(define-condition effective-method-error (error)
  ((generic-function :initarg :generic-function :reader effective-method-error-generic-function)
   (arguments :initarg :arguments :reader effective-method-error-arguments)
   (method :initarg :method :reader effective-method-error-method :initform nil)))

(define-condition no-applicable-method-error (effective-method-error) ()
  (:report (lambda (c s)
             (format s "There is no applicable method for the generic function~%  ~S~%when called with arguments~%  ~S."
                     (effective-method-error-generic-function c) (effective-method-error-arguments c)))))

(define-condition no-next-method-error (effective-method-error) ()
  (:report (lambda (c s)
             (format s "There is no next method for the generic function~%  ~S~%when called from method~%  ~S~%with arguments~%  ~S."
                     (effective-method-error-generic-function c) (effective-method-error-method c)
                     (effective-method-error-arguments c)))))

(define-condition no-primary-method-error (effective-method-error) ()
  (:report (lambda (c s)
             (format s "There is no primary method for the generic function~%  ~S~%when called with arguments~%  ~S."
                     (effective-method-error-generic-function c) (effective-method-error-arguments c)))))

(defun %invalid-keyword-error (key allowed)
  (let ((s (make-string-output-stream)) (first t))
    (dolist (k allowed)
      (if (not first) (write-string ", " s))
      (setq first nil)
      (prin1 k s))
    (error 'simple-program-error :format-control "invalid keyword argument: ~S (valid keys are ~A)."
                                 :format-arguments (list key (get-output-stream-string s)))))

;;; ------------------------------------------------------------------
;;; FIND-CLASS and the dispatch epoch

(defun %bump-epoch ()
  ;; every dispatch cache and initarg cache made before is stale
  (setq *clos-epoch* (1+ *clos-epoch*)))

(defun find-class (symbol &optional (errorp t) environment)
  "The class named SYMBOL; when there is none, signals an error if ERRORP (default true) is true, else returns NIL. SETF-able."
  (declare (ignore environment))
  (let ((c (gethash symbol *class-table*)))
    (cond (c c)
          (errorp (error 'class-not-found-error :name symbol))
          (t nil))))

(defun (setf find-class) (new-class symbol &optional errorp environment)
  (declare (ignore errorp environment))
  (cond ((null new-class) (remhash symbol *class-table*))
        ((%class-p new-class) (setf (gethash symbol *class-table*) new-class))
        (t (error 'type-error :datum new-class :expected-type '(or class null))))
  (%bump-epoch)
  new-class)

(defun %class-name-p (name)
  (if (and (symbolp name) (gethash name *class-table*)) t nil))

(defun %class-proper-name (class)
  ;; the name of CLASS when FIND-CLASS of that name gives it back (for SUBTYPEP on class objects)
  (let ((name (and (%class-p class) (%class-name class))))
    (if (and name (symbolp name) (eq (gethash name *class-table*) class)) name nil)))

(defun %class-subtypep (c1 c2)
  ;; for SUBTYPEP: T or NIL when both name classes, else :UNKNOWN
  (let ((a (if (%class-p c1) c1 (gethash c1 *class-table*)))
        (b (if (%class-p c2) c2 (gethash c2 *class-table*))))
    (if (and a b (%class-finalized-p a))
        (if (%memq b (%class-cpl a)) t nil)
        :unknown)))

(defun %coerce-to-class (x &optional (errorp t))
  (if (%class-p x) x (find-class x errorp)))

;;; ------------------------------------------------------------------
;;; Generic function objects. Their slots (%gf.name, %gf.methods, %gf.cache, ...) are declared,
;;; with what each holds, in runtime/lisp-abi.def.

;; %GENERIC-FUNCTION-P (runtime/clos-select.c): an instance of STANDARD-GENERIC-FUNCTION or a
;; subclass

;; %PARSE-LAMBDA-LIST-INFO (runtime/clos-select.c): a lambda list -> (nreq nopt restp keys
;; aok-p), KEYS a list of keywords or :NONE when there is no &KEY

(defun %check-gf-lambda-list (ll name)
  (let ((seen nil))
    (dolist (x ll)
      (cond ((%memq x '(&optional &rest &key &allow-other-keys)))
            ((%memq x '(&aux &body &whole &environment))
             (error 'simple-program-error :format-control "~S is not allowed in the lambda list of the generic function ~S."
                                          :format-arguments (list x name)))
            ((and (consp x) (cdr (cdr x)))
             (error 'simple-program-error :format-control "Default values are not allowed in the generic function lambda list ~S."
                                          :format-arguments (list ll)))
            (t (let ((v (if (consp x) (car x) x)))
                 (if (consp v) (setq v (cadr v)))
                 (if (%memq v seen)
                     (error 'simple-program-error :format-control "The variable ~S occurs more than once in the lambda list ~S."
                                                  :format-arguments (list v ll)))
                 (setq seen (cons v seen))))))))

(defvar *generic-functions* nil
  "Every generic function made, newest first (for the session's reset).")

(defun %make-generic-function (name lambda-list &optional (class *standard-generic-function-class*))
  (let ((gf (%allocate-funcallable-instance class #'identity
                                                (+ (%flag.generic) (%flag.standard)))))
    (setq *generic-functions* (cons gf *generic-functions*))
    (%set-gf.name gf name)
    (%set-gf.methods gf nil)
    (%set-gf.method-combination gf '(standard))
    (%set-gf.documentation gf nil)
    (%set-gf.declarations gf nil)
    (%set-gf.method-class gf *standard-method-class*)
    (%set-gf.cache gf nil)
    (%set-gf.plist gf nil)
    (%set-gf.initial-methods gf nil)
    (%set-gf-lambda-list gf lambda-list)
    (%set-funcallable-instance-function
     gf #'(lambda (&rest args) (%run-emf (%gf-miss gf args) args)))
    ;; the slots a subclass of STANDARD-GENERIC-FUNCTION adds take their initforms
    (if (not (eq class *standard-generic-function-class*))
        (dolist (sd (%class-effective-slots class))
          (let ((loc (%slot-definition-location sd)))
            (if (and (integerp loc) (>= loc (%gf.nslots)) (%slot-definition-initfunction sd))
                (%instance-set gf loc (funcall (%slot-definition-initfunction sd)))))))
    gf))

(defun %set-gf-lambda-list (gf lambda-list)
  (let ((info (%parse-lambda-list-info lambda-list)))
    (%set-gf.lambda-list gf lambda-list)
    (%set-gf.info gf info)
    (%set-gf.nreq gf (car info))
    (let ((apo nil) (i 0))
      (dotimes (k (car info)) (setq apo (cons i apo)) (setq i (1+ i)))
      (%set-gf.apo gf (nreverse-boot apo)))
    (%update-gf-dispatch gf)))

(defun generic-function-name (gf) (%gf.name gf))
(defun generic-function-lambda-list (gf) (%gf.lambda-list gf))
(defun generic-function-methods (gf) (%gf.methods gf))
(defun %gf-nreq (gf) (%gf.nreq gf))

;; %UPDATE-GF-DISPATCH (runtime/clos-select.c), after any change of the methods or the lambda
;; list: the positions the cache keys on, the EQL specializer tables, and an empty cache

(defun %make-list-boot (n)
  (let ((r nil)) (dotimes (i n) (setq r (cons nil r))) r))

;;; ------------------------------------------------------------------
;;; EQL specializers: one per object

(defvar *eql-specializers* (make-hash-table :test 'eql))

(defun %eql-specializer-p (x)
  (and (%instance-p x) (eq (%instance-layout x) *eql-specializer-class*)))

(defun intern-eql-specializer (object)
  (or (gethash object *eql-specializers*)
      (let ((s (%allocate-instance *eql-specializer-class* (%flag.standard))))
        (%set-eqls.object s object)
        (%set-eqls.direct-methods s nil)
        (setf (gethash object *eql-specializers*) s))))

(defun eql-specializer-object (s) (%eqls.object s))

;;; ------------------------------------------------------------------
;;; Methods. Their slots (%method.gf, %method.qualifiers, %method.specializers, ...) are declared in
;;; runtime/lisp-abi.def: function takes the chain of methods and the argument list first;
;;; fast-function is there when the body never calls the next method; slot-name marks accessor
;;; methods; plist holds :info (nreq nopt restp keys aok).

;; %MAKE-METHOD (runtime/clos-select.c): (class qualifiers specializers lambda-list function
;; fast-function doc) -> a new method, in no generic function yet, its plist (:info shape)

(defun %method-p (x)
  (and (%instance-p x) (%class-p (%instance-layout x))
       (if (%memq *standard-method-class* (%class-cpl (%instance-layout x))) t nil)))

(defun method-qualifiers (m)
  "The list of qualifiers (such as :BEFORE or :AROUND) of method M."
  (%method.qualifiers m))
(defun method-specializers (m) (%method.specializers m))
(defun method-lambda-list (m) (%method.lambda-list m))
(defun method-generic-function (m) (%method.gf m))
(defun %method-info (m) (%plist-get (%method.plist m) :info nil))

(defun %specializer-name (s)
  (cond ((%eql-specializer-p s) (list 'eql (%eqls.object s)))
        ((%class-p s) (%class-name s))
        (t s)))

(defun %invoke-method (m args)
  ;; call one method alone (no next methods)
  (let ((fast (%method.fast-function m)))
    (if fast
        (apply fast args)
        (apply (%method.function m) (list m) args args))))

;;; ------------------------------------------------------------------
;;; Congruence (CLHS 7.6.4)

(defun %congruence-error (gf method reason)
  ;; a generic function made with no lambda list (ENSURE-GENERIC-FUNCTION without one, as
  ;; DEFMETHOD of a new one calls ENSURE-GENERIC-FUNCTION-USING-CLASS) takes its first method's,
  ;; as in SBCL; its lambda list () until then is what the method is found incongruent with
  (if (and (null (%gf.methods gf)) (getf (%gf.plist gf) 'lambda-list-from-first-method))
      (progn (%set-gf.plist gf (%remove-lambda-list-marker (%gf.plist gf)))
             (%set-gf-lambda-list gf (%gf-lambda-list-from-method (%method.lambda-list method))))
      (error 'simple-program-error
             :format-control "attempt to add the method~%  ~S~%to the generic function~%  ~S;~%but ~A."
             :format-arguments (list method gf reason))))

(defun %remove-lambda-list-marker (plist)
  ;; PLIST (a generic function's) without LAMBDA-LIST-FROM-FIRST-METHOD: its lambda list is known
  (let ((r nil))
    (do ((p plist (cddr p))) ((null p))
      (if (not (eq (car p) 'lambda-list-from-first-method))
          (setq r (cons (cadr p) (cons (car p) r)))))
    (nreverse-boot r)))

(defun %check-congruence (gf method)
  ;; the shapes are compared by %CONGRUENCE-PROBLEM (runtime/clos-select.c)
  (let ((why (%congruence-problem (%gf.info gf) (%method-info method))))
    (if why
        (%congruence-error gf method (if (stringp why)
                                         why
                                         (format nil "the method does not accept the keyword argument ~S" why))))))

(defun %lambda-lists-congruent-p (gf-info method-info)
  (and (= (car gf-info) (car method-info))
       (= (cadr gf-info) (cadr method-info))
       (eq (or (caddr gf-info) (not (eq (nth 3 gf-info) :none)))
           (or (caddr method-info) (not (eq (nth 3 method-info) :none))))))

;;; ------------------------------------------------------------------
;;; Adding and removing methods

;; %FIND-METHOD-1 (runtime/clos-select.c): (gf qualifiers specializers) -> the method with
;; those qualifiers (EQUAL) and specializers (the same objects), or NIL

;; %NOTE-DIRECT-METHOD (runtime/clos-select.c): (specializers method add) adds METHOD first to
;; or removes it from the direct methods of each class and EQL specializer of SPECIALIZERS. The
;; lists are never changed in place: a reset puts the old ones back, and a load's capture keeps
;; them (a list is copied only up to METHOD: T's holds hundreds, and each method a load adds
;; lands there)

(defvar *initargs-epoch* 0)

(defvar *methods-changed-hook* nil) ; mop-protocols.lisp: told of every change of a generic function

;; %METHODS-CHANGED (runtime/clos-select.c): (gf) after any change of GF's methods: its
;; dispatch positions and EQL tables made again and its cache emptied, *INITARGS-EPOCH* bumped
;; for MAKE-INSTANCE, ALLOCATE-INSTANCE, INITIALIZE-INSTANCE, SHARED-INITIALIZE and
;; REINITIALIZE-INSTANCE, and *METHODS-CHANGED-HOOK* called

;; AMOP 5.5's dependent maintenance: NIL until a program adds a dependent (mop.lisp), then a
;; function of a metaobject and the initargs describing its change, which tells its dependents
(defvar *metaobject-changed-hook* nil)

(defun %method-in-another-gf-error (method gf)
  (error 'simple-error :format-control "The method ~S is already part of the generic function ~S."
                       :format-arguments (list method gf)))

;; %ADD-METHOD (runtime/clos-select.c): (gf method) adds METHOD to GF, replacing the method with the
;; same qualifiers and specializers: METHOD must be in no other generic function
;; (%METHOD-IN-ANOTHER-GF-ERROR), an incongruent lambda list goes to %CHECK-CONGRUENCE, then
;; %NOTE-DIRECT-METHOD, %METHODS-CHANGED and *METAOBJECT-CHANGED-HOOK* (gf (add-method method))

(defun %remove-method (gf method)
  (if (%memq method (%gf.methods gf))
      (progn
        (%set-gf.methods gf (%remove-eq method (%gf.methods gf)))
        (%note-direct-method (%method.specializers method) method nil)
        (%set-method.gf method nil)
        (%methods-changed gf)
        (if *metaobject-changed-hook* (funcall *metaobject-changed-hook* gf (list 'remove-method method)))))
  gf)

;;; ------------------------------------------------------------------
;;; ENSURE-GENERIC-FUNCTION

(defun %not-generic-error (name)
  (error 'simple-program-error :format-control "~S already names an ordinary function or a macro."
                               :format-arguments (list name)))

(defun %gf-lambda-list-from-method (ll)
  ;; required and optional names, &rest, and a bare &key when the method has keys (as SBCL)
  (let ((r nil) (state :req) (keyp nil))
    (dolist (x ll)
      (cond ((eq x '&optional) (setq state :opt) (setq r (cons x r)))
            ((or (eq x '&rest) (eq x '&body)) (setq state :rest) (setq r (cons '&rest r)))
            ((eq x '&key) (setq state :key) (setq keyp t))
            ((eq x '&allow-other-keys) (setq state :aok))
            ((eq x '&aux) (setq state :aux))
            ((eq state :req) (setq r (cons (if (consp x) (car x) x) r)))
            ((eq state :opt) (setq r (cons (if (consp x) (car x) x) r)))
            ((eq state :rest) (setq r (cons x r)))))
    (setq r (nreverse-boot r))
    (if keyp (append r (list '&key)) r)))

(defun %untraced-fdefinition (name)
  ;; FDEFINITION of NAME, or what TRACE wrapped when NAME is traced (so that DEFMETHOD and
  ;; DEFGENERIC find a traced generic function)
  (let ((f (fdefinition name)) (e (%trace-entry name)))
    (if (and e (not (nth 3 e)) (eq (nth 1 e) f)) (nth 2 e) f)))

;; mop.lisp: the generic function ENSURE-GENERIC-FUNCTION-USING-CLASS, through which
;; ENSURE-GENERIC-FUNCTION (and so DEFGENERIC) goes once the MOP is loaded
(defvar *ensure-gf-using-class* nil)
;; mop-protocols.lisp: T while a program's method on it exists: DEFMETHOD (and DEFCLASS's
;; accessors) then call it too, for a new generic function and for an existing one (with its
;; class), as SBCL does; until then %ENSURE-GF does the standard methods' work directly
(defvar *program-ensure-gf-methods-p* nil)

(defun %ensured-gf (result name)
  ;; the generic function ENSURE-GENERIC-FUNCTION-USING-CLASS returned for NAME
  (if (%generic-function-p result)
      result
      (error 'simple-error :format-control "ENSURE-GENERIC-FUNCTION-USING-CLASS for ~S returned ~S, not a generic function."
                           :format-arguments (list name result))))

(defun %ensure-gf (name lambda-list-for-new)
  ;; the generic function named NAME, made when there is none; one already there, untraced, is
  ;; found by %EXISTING-GF (runtime/clos-select.c) without the checks below
  (let ((f (%existing-gf name))) (if f (return-from %ensure-gf f)))
  (if (fboundp name)
      (let ((f (%untraced-fdefinition name)))
        (if (and (symbolp name) (macro-function name)) (%not-generic-error name))
        (if (not (%generic-function-p f)) (%not-generic-error name))
        (if *program-ensure-gf-methods-p*
            (%ensured-gf (funcall *ensure-gf-using-class* f name
                                  :generic-function-class (%instance-layout f))
                         name)
            f))
      (if *program-ensure-gf-methods-p*
          (%ensured-gf (funcall *ensure-gf-using-class* nil name :lambda-list lambda-list-for-new) name)
          (let ((gf (%make-generic-function name lambda-list-for-new)))
            (%set-fdefinition name gf)
            gf))))

(defun %ensure-gf-of-method (name lambda-list-for-new)
  ;; DEFMETHOD's %ENSURE-GF while a program's method on ENSURE-GENERIC-FUNCTION-USING-CLASS
  ;; exists: for a new generic function it is given no :LAMBDA-LIST, as in SBCL (the generic
  ;; function takes the method's: %CONGRUENCE-ERROR); DEFCLASS's accessors give theirs
  (if (fboundp name)
      (%ensure-gf name lambda-list-for-new)
      (%ensured-gf (funcall *ensure-gf-using-class* nil name) name)))

(defun %generic-function-class (designator)
  ;; STANDARD-GENERIC-FUNCTION or a subclass of it (the :GENERIC-FUNCTION-CLASS option)
  (let ((c (%coerce-to-class designator)))
    (if (eq c *standard-generic-function-class*) (return-from %generic-function-class c))
    (%ensure-finalized c)
    (if (%memq *standard-generic-function-class* (%class-cpl c))
        c
        (error 'simple-error :format-control "~S is not a subclass of STANDARD-GENERIC-FUNCTION."
                             :format-arguments (list designator)))))

(defun ensure-generic-function (name &rest args &key &allow-other-keys)
  "The generic function named NAME, created when it does not exist or updated with LAMBDA-LIST, DOCUMENTATION and the other options."
  (if (and (symbolp name) (special-operator-p name)) (%not-generic-error name))
  (let ((gf (if (fboundp name)
                (let ((f (%untraced-fdefinition name)))
                  (if (or (and (symbolp name) (macro-function name)) (not (%generic-function-p f)))
                      (%not-generic-error name))
                  f)
                nil)))
    (if *ensure-gf-using-class*
        (%ensured-gf (apply *ensure-gf-using-class* gf name args) name)
        (apply #'%ensure-generic-function-1 gf name args))))

(defun %ensure-generic-function-1 (gf name &key (lambda-list nil lambda-list-p) (documentation nil documentation-p)
                                             (method-combination nil mc-p) argument-precedence-order
                                             declare (generic-function-class 'standard-generic-function gf-class-p)
                                             (method-class nil method-class-p) environment
                                        &allow-other-keys)
  ;; ENSURE-GENERIC-FUNCTION's work for NAME, whose generic function is GF (NIL: none yet, made
  ;; and named here); the standard methods of ENSURE-GENERIC-FUNCTION-USING-CLASS (mop.lisp)
  (declare (ignore environment))
  (if lambda-list-p (%check-gf-lambda-list lambda-list name))
  (if (null gf)
      (progn (setq gf (%make-generic-function name (if lambda-list-p lambda-list nil)
                                              (%generic-function-class generic-function-class)))
             ;; with no lambda list, its first method gives it one (%CONGRUENCE-ERROR)
             (if (not lambda-list-p) (%set-gf.plist gf (list 'lambda-list-from-first-method t)))
             (%set-fdefinition name gf))
      (if lambda-list-p
          (let ((info (%parse-lambda-list-info lambda-list)))
            (%set-gf.plist gf (%remove-lambda-list-marker (%gf.plist gf)))
            (dolist (m (%gf.methods gf))
              (if (not (%lambda-lists-congruent-p info (%method-info m)))
                  (error 'simple-error
                         :format-control "New lambda-list ~S is incompatible with existing methods of ~S.~%Old lambda-list ~S"
                         :format-arguments (list lambda-list gf (%gf.lambda-list gf)))))
            (%set-gf-lambda-list gf lambda-list))))
  ;; a class given for an existing generic function becomes its class (CLHS, AMOP)
  (if gf-class-p
      (let ((c (%generic-function-class generic-function-class)))
        (if (not (eq c (%instance-layout gf))) (%change-gf-class gf c))))
  (if (or documentation-p lambda-list-p) (%set-gf.documentation gf documentation))
  (if (or documentation lambda-list-p) (%set-documentation gf t documentation))
  (if mc-p (%set-gf.method-combination gf (%canonical-method-combination method-combination)))
  (if method-class-p (%set-gf.method-class gf (%coerce-to-class method-class)))
  (if declare (%set-gf.declarations gf declare))
  (if argument-precedence-order
      (let ((required (%required-names (%gf.lambda-list gf))))
        (if (not (and (= (%list-length required) (%list-length argument-precedence-order))
                      (dolist (v required t)
                        (if (not (= 1 (count v argument-precedence-order))) (return nil)))))
            (error 'simple-program-error
                   :format-control "The argument precedence order ~S is not a permutation of the required parameters ~S of ~S."
                   :format-arguments (list argument-precedence-order required name)))
        (%set-gf.apo gf (%mapcar1 #'(lambda (v) (%cl-position v required)) argument-precedence-order))))
  (%methods-changed gf)
  gf)

(defun %change-gf-class (gf new-class)
  ;; the class of the generic function GF becomes NEW-CLASS as CHANGE-CLASS changes an instance's:
  ;; the same object, the slots both classes have keep their values, the new class's other slots
  ;; take their initforms; it dispatches as tinycl does until %METHODS-CHANGED decides again
  (%ensure-finalized new-class)
  (let* ((old-class (%instance-layout gf))
         (kept (let ((r nil))
                 (dolist (n (%instance-slot-names old-class) r)
                   (setq r (cons (cons n (%instance-ref gf (%slot-location old-class n))) r))))))
    (%resize-instance gf (%class.instance-size new-class))
    (%set-instance-layout gf new-class)
    (%set-instance-version gf (%class-version new-class))
    (dolist (sd (%class-effective-slots new-class))
      (let ((loc (%slot-definition-location sd)) (k (%cl-assq (%slot-definition-name sd) kept)))
        (if (integerp loc)
            (%instance-set gf loc (cond (k (cdr k))
                                        ((%slot-definition-initfunction sd)
                                         (funcall (%slot-definition-initfunction sd)))
                                        (t +slot-unbound+))))))
    (%set-generic-flag gf t)
    (%bump-epoch)
    gf))

(defun %required-names (ll)
  (let ((r nil))
    (dolist (x ll)
      (if (%memq x '(&optional &rest &key &allow-other-keys &aux &body)) (return))
      (setq r (cons x r)))
    (nreverse-boot r)))

(defvar *short-method-combinations* '(+ and or list append nconc progn max min))

;;; The method combination types, by name: (:short operator identity-with-one-argument) or
;;; (:long function), where FUNCTION takes the generic function, its applicable methods (most
;;; specific first) and the options of its :METHOD-COMBINATION and returns the effective
;;; method form. The built-in types are short ones whose operator is their name.
(defvar *method-combination-types* (make-hash-table :test 'eq))

(dolist (name *short-method-combinations*)
  (setf (gethash name *method-combination-types*)
        (list :short name (if (%memq name '(+ and or progn max min)) t nil))))

(defun %canonical-method-combination (mc)
  (let ((name (if (consp mc) (car mc) mc)) (options (if (consp mc) (cdr mc) nil)))
    (if (or (eq name 'standard) (gethash name *method-combination-types*))
        (cons name options)
        (error 'simple-program-error :format-control "~S is not a known method combination." :format-arguments (list name)))))

;;; ------------------------------------------------------------------
;;; DEFGENERIC and DEFMETHOD

(defmacro defgeneric (name lambda-list &rest options)
  "Defines the generic function NAME with LAMBDA-LIST; OPTIONS may give :documentation, :method-combination, :argument-precedence-order and (:method ...) definitions."
  (let ((doc nil) (mc nil) (apo nil) (decls nil) (methods nil) (method-class nil) (gf-class nil))
    (dolist (o options)
      (if (not (consp o))
          (error 'simple-program-error :format-control "Malformed DEFGENERIC option ~S." :format-arguments (list o)))
      (if (and (%memq (car o) '(:documentation :method-combination :argument-precedence-order
                                :generic-function-class :method-class))
               (%cl-assq (car o) (cdr (%memq o options))))
          (error 'simple-program-error :format-control "The option ~S appears more than once in DEFGENERIC ~S."
                                       :format-arguments (list (car o) name)))
      (cond ((eq (car o) :documentation) (setq doc (cadr o)))
            ((eq (car o) :method-combination) (setq mc (cdr o)))
            ((eq (car o) :argument-precedence-order) (setq apo (cdr o)))
            ((eq (car o) 'declare) (setq decls (append decls (cdr o))))
            ((eq (car o) :method) (setq methods (append methods (list (cdr o)))))
            ((eq (car o) :generic-function-class) (setq gf-class (cadr o)))
            ((eq (car o) :method-class) (setq method-class (cadr o)))
            (t (error 'simple-program-error :format-control "Unsupported option ~S in DEFGENERIC ~S."
                                            :format-arguments (list o name)))))
    ;; defined at compile time too, so that the rest of a file COMPILE-FILE processes knows it
    `(eval-when (:compile-toplevel :load-toplevel :execute)
       (%defgeneric ',name ',lambda-list ',doc ',mc ',apo ',decls ',method-class ',gf-class)
       (%set-initial-methods (%untraced-fdefinition ',name)
                             (list ,@(%mapcar1 #'(lambda (m) `(defmethod ,name ,@m)) methods)))
       (%note-definition 'defgeneric ',name)
       (%untraced-fdefinition ',name))))

(defun %defgeneric (name lambda-list doc mc apo decls method-class &optional gf-class)
  (let ((gf (if (fboundp name) (%untraced-fdefinition name) nil)))
    (if (and gf (%generic-function-p gf))
        ;; methods from an earlier DEFGENERIC's :method options go
        (dolist (m (%gf.initial-methods gf)) (%remove-method gf m))))
  (apply #'ensure-generic-function name :lambda-list lambda-list :documentation doc
         (append (if mc (list :method-combination mc) (list :method-combination '(standard)))
                 (if apo (list :argument-precedence-order apo))
                 (if decls (list :declare decls))
                 (if method-class (list :method-class method-class))
                 (if gf-class (list :generic-function-class gf-class)))))

(defun %set-initial-methods (gf methods)
  (%set-gf.initial-methods gf methods))

(defun %parse-defmethod (args)
  ;; -> (qualifiers lambda-list body)
  (let ((qualifiers nil))
    (tagbody
     top
       (if (and args (car args) (atom (car args)))
           (progn (setq qualifiers (cons (car args) qualifiers)) (setq args (cdr args)) (go top))))
    (if (not (listp (car args)))
        (error 'simple-program-error :format-control "Malformed DEFMETHOD: no lambda list." :format-arguments nil))
    (list (nreverse-boot qualifiers) (car args) (cdr args))))

(defun %parse-specialized-lambda-list (ll)
  ;; -> (required-names specializer-forms plain-lambda-list specializer-names)
  (let ((names nil) (forms nil) (spec-names nil) (rest ll))
    (tagbody
     top
       (if (or (null rest) (%memq (car rest) '(&optional &rest &key &allow-other-keys &aux &body)))
           (go end))
       (let ((p (car rest)))
         (cond ((symbolp p)
                (setq names (cons p names)) (setq forms (cons ''t forms)) (setq spec-names (cons 't spec-names)))
               ((and (consp p) (symbolp (car p)) (consp (cdr p)) (null (cddr p)))
                (let ((s (cadr p)))
                  (setq names (cons (car p) names))
                  (cond ((symbolp s) (setq forms (cons `',s forms)))
                        ((and (consp s) (eq (car s) 'eql) (consp (cdr s)) (null (cddr s)))
                         (setq forms (cons `(list 'eql ,(cadr s)) forms)))
                        (t (error 'simple-program-error :format-control "~S is not a valid parameter specializer name."
                                                        :format-arguments (list s))))
                  (setq spec-names (cons s spec-names))))
               (t (error 'simple-program-error :format-control "Malformed specialized parameter ~S in ~S."
                                               :format-arguments (list p ll)))))
       (setq rest (cdr rest))
       (go top)
     end)
    (let ((req (nreverse-boot names)))
      (list req (nreverse-boot forms) (append req rest) (nreverse-boot spec-names)))))

(defun %parse-body (body doc-allowed)
  ;; -> (doc declarations forms)
  (let ((doc nil) (decls nil))
    (tagbody
     top
       (cond ((and doc-allowed (null doc) (stringp (car body)) (cdr body))
              (setq doc (car body)) (setq body (cdr body)) (go top))
             ((and (consp (car body)) (eq (caar body) 'declare))
              (setq decls (cons (car body) decls)) (setq body (cdr body)) (go top))))
    (list doc (nreverse-boot decls) body)))

(defun %add-allow-other-keys (ll)
  ;; a method accepts any keyword: the effective method checks them (CLHS 7.6.5)
  (if (and (%memq '&key ll) (not (%memq '&allow-other-keys ll)))
      (let ((r nil) (done nil))
        (dolist (x ll)
          (if (and (eq x '&aux) (not done))
              (progn (setq r (cons '&allow-other-keys r)) (setq done t)))
          (setq r (cons x r)))
        (if (not done) (setq r (cons '&allow-other-keys r)))
        (nreverse-boot r))
      ll))

(defun %method-function-forms (name qualifiers spec-names required plain-ll body)
  ;; -> (fast-form slow-form doc); exactly one of the forms is non-NIL
  (let* ((parsed (%parse-body body t))
         (doc (car parsed)) (decls (cadr parsed)) (forms (caddr parsed))
         (block-name (if (consp name) (cadr name) name))
         (ll (%add-allow-other-keys plain-ll))
         (fname (append (list 'method name) qualifiers (list spec-names)))
         (ignorable `(declare (ignorable ,@required))))
    (if (not (or (%tree-mentions-p body '(call-next-method next-method-p))
                 (%tree-calls-user-macro-p body)))
        ;; NAMED-LAMBDA makes the block of a symbol's name itself
        (list `(function (named-lambda ,fname ,ll ,ignorable ,@decls
                           ,@(if (consp name) `((block ,block-name ,@forms)) forms)))
              nil doc)
        (let ((chain (gensym "CHAIN")) (args (gensym "ARGS")) (cnm-args (gensym "CNM-ARGS")))
          (list nil
                `(function
                  (named-lambda ,fname (,chain ,args ,@ll)
                    ,ignorable ,@decls
                    ,(if (or (%tree-mentions-form-p body '(function call-next-method))
                             (%tree-mentions-form-p body '(function next-method-p)))
                         ;; the local functions are used as objects: real closures
                         `(flet ((call-next-method (&rest ,cnm-args)
                                   (%call-next-method ,chain (if ,cnm-args (%check-next-method-args ,chain ,args ,cnm-args) ,args)))
                                 (next-method-p () (if (cdr ,chain) t nil)))
                            (declare (ignorable (function call-next-method) (function next-method-p)))
                            (block ,block-name ,@forms))
                         ;; only called: local macros, so that no closure is made per call
                         `(macrolet ((call-next-method (&rest cnm-args)
                                       (if cnm-args
                                           (list '%call-next-method ',chain
                                                 (list '%check-next-method-args ',chain ',args (cons 'list cnm-args)))
                                           (list '%call-next-method ',chain ',args)))
                                     (next-method-p () (list 'if (list 'cdr ',chain) t nil)))
                            (block ,block-name ,@forms)))))
                doc)))))

(defun %check-next-method-args (chain old-args new-args)
  ;; CLHS CALL-NEXT-METHOD: arguments given to it must select the same applicable methods
  (let ((gf (and (consp chain) (%method-p (car chain)) (method-generic-function (car chain)))))
    (if (and gf (not (equal (%applicable-methods gf old-args) (%applicable-methods gf new-args))))
        (error 'simple-error
               :format-control "CALL-NEXT-METHOD called with arguments ~S that select other methods of ~S than its original arguments ~S."
               :format-arguments (list new-args gf old-args)))
    new-args))

(defun %tree-calls-user-macro-p (tree)
  ;; whether TREE has a form whose operator is a macro from outside COMMON-LISP and SYSTEM (whose
  ;; macros never do): its expansion may call CALL-NEXT-METHOD, as trivial-gray-streams'
  ;; OR-FALLBACK does, so the method cannot take the fast path, which has no next methods
  (let ((count 0) (own (list (find-package "COMMON-LISP") (find-package "SYSTEM"))))
    (labels ((walk (x)
               (setq count (1+ count))
               (cond ((> count 200000) t)
                     ((not (consp x)) nil)
                     ((and (symbolp (car x)) (car x) (not (%memq (symbol-package (car x)) own))
                           (macro-function (car x)))
                      t)
                     (t (or (walk (car x)) (walk (cdr x)))))))
      (walk tree))))

(defun %tree-mentions-form-p (tree form)
  ;; whether FORM (a two-element list) occurs in TREE
  (let ((count 0))
    (labels ((walk (x)
               (setq count (1+ count))
               (cond ((> count 200000) t)
                     ((not (consp x)) nil)
                     ((and (eq (car x) (car form)) (consp (cdr x)) (eq (cadr x) (cadr form)) (null (cddr x))) t)
                     (t (or (walk (car x)) (walk (cdr x)))))))
      (walk tree))))

(defvar *method-lambda-expander* nil) ; mop-protocols.lisp: DEFMETHOD by MAKE-METHOD-LAMBDA

(defun %program-method-class-gf (name)
  ;; the generic function NAME when it exists and its method class is a program's: DEFMETHOD then
  ;; makes the method function with MAKE-METHOD-LAMBDA (AMOP), decided when it is expanded
  (if (and *method-lambda-expander* (fboundp name)
           (not (and (symbolp name) (or (macro-function name) (special-operator-p name)))))
      (let ((f (%untraced-fdefinition name)))
        (if (and (%generic-function-p f) (not (eq (%gf.method-class f) *standard-method-class*)))
            f
            nil))
      nil))

(defmacro defmethod (&environment env name &rest args)
  "Defines a method of the generic function NAME (creating it when needed): (DEFMETHOD name qualifier... specialized-lambda-list body...), where parameters may be (var class) or (var (EQL object))."
  (let* ((parsed (%parse-defmethod args))
         (qualifiers (car parsed)) (lambda-list (cadr parsed)) (body (caddr parsed))
         (spec (%parse-specialized-lambda-list lambda-list))
         (gf (%program-method-class-gf name)))
    ;; COMPILE-FILE notes NAME as a function the file defines; the method exists once it is loaded
    `(progn
       (eval-when (:compile-toplevel) (%compiler-defun ',name))
       ,(if gf
            (funcall *method-lambda-expander* gf name qualifiers spec body env)
            (let ((fns (%method-function-forms name qualifiers (nth 3 spec) (car spec) (caddr spec) body)))
              `(%defmethod ',name ',qualifiers (list ,@(cadr spec)) ',(caddr spec)
                           ,(cadr fns) ,(car fns) ,(caddr fns)))))))

(defun %resolve-specializer (s)
  (cond ((%class-p s) s)
        ((%eql-specializer-p s) s)
        ((and (consp s) (eq (car s) 'eql)) (intern-eql-specializer (cadr s)))
        ((symbolp s) (find-class s))
        (t (error 'simple-program-error :format-control "~S is not a valid parameter specializer name."
                                        :format-arguments (list s)))))

(defun %defmethod (name qualifiers specializers lambda-list function fast-function doc)
  ;; the lambda list a new generic function would take is only made when there is none
  (let* ((new-ll (if (fboundp name) nil (%gf-lambda-list-from-method lambda-list)))
         (gf (if *program-ensure-gf-methods-p*
                 (%ensure-gf-of-method name new-ll)
                 (%ensure-gf name new-ll)))
         (m (%make-method (%gf.method-class gf) qualifiers
                          (%resolve-specializers specializers)
                          lambda-list function fast-function doc)))
    (%add-method gf m)
    (%note-definition 'defmethod name)
    m))

;;; ------------------------------------------------------------------
;;; Method selection (CLHS 7.6.6)

(defun %more-specific-p (m1 m2 apo classes)
  ;; whether M1 precedes M2 for arguments of CLASSES
  (dolist (i apo nil)
    (let ((s1 (nth i (%method.specializers m1))) (s2 (nth i (%method.specializers m2))))
      (if (not (eq s1 s2))
          (return-from %more-specific-p
            (cond ((%eql-specializer-p s1) t)
                  ((%eql-specializer-p s2) nil)
                  (t (let ((cpl (%class-cpl (nth i classes))))
                       (< (or (%cl-position s1 cpl) 1000000) (or (%cl-position s2 cpl) 1000000))))))))))

;; %APPLICABLE-METHODS (runtime/clos-select.c): (gf args) -> the applicable methods, most
;; specific first (%MORE-SPECIFIC-P's order), a stable sort of the methods in the function's
;; order (newest first), as SBCL

(defun compute-applicable-methods (generic-function arguments)
  "The methods of GENERIC-FUNCTION applicable to ARGUMENTS, most specific first."
  (%applicable-methods generic-function arguments))

;;; ------------------------------------------------------------------
;;; Effective methods. What the caches hold (runtime/clos.h): a function; #(0 class location
;;; fallback) to read a slot, #(1 ...) to write one; #(2 chain keys start) for a chain of
;;; methods with the keyword check of CLHS 7.6.5 (keys T: none); an element of a chain is a
;;; method, or #(3 befores primaries afters gf) for the inner part of the standard combination.

;; %EMF-KEYS (runtime/clos-select.c): (gf methods) -> the keywords the effective method of
;; METHODS accepts (CLHS 7.6.5), the generic function's then each method's, or T when any allows
;; other keys or none has &KEY

(defun %invalid-qualifiers-error (gf m)
  (error 'simple-error
         :format-control "invalid method error for~%  ~S~%method:~%  The method ~S on ~S has an invalid qualifier.~%  Standard method combination requires all methods to have one of the single qualifiers :AROUND, :BEFORE and :AFTER or to have no qualifier at all."
         :format-arguments (list m m gf)))

(defun %slot-protocol-class-p (class)
  ;; whether the slots of CLASS's instances are accessed through SLOT-VALUE-USING-CLASS and its kin
  (/= 0 (logand (%instance-flags class) (%flag.slot-protocol))))

(defun %make-emf (gf methods args)
  (let ((comb (car (%gf.method-combination gf))))
    (if (eq comb 'standard)
        (%standard-emf gf methods args)
        (let ((type (gethash comb *method-combination-types*)))
          (cond ((null type)
                 (error 'simple-error :format-control "The method combination ~S of ~S is not defined."
                                      :format-arguments (list comb gf)))
                ((eq (car type) :long)
                 (%long-emf gf methods (cadr type) (cdr (%gf.method-combination gf))))
                (t (%short-emf gf methods comb (cdr (%gf.method-combination gf)) type)))))))

;; %STANDARD-EMF (runtime/clos-select.c): (gf methods args) -> the effective method of the
;; standard method combination: a single accessor method as a slot access (#(0 or 1 class location
;; fallback), while the class is standard, finalized and without the slot protocol), a single
;; method that never calls the next method as its function, else a chain (#(2 ...)) whose last
;; element is #(3 befores primaries afters gf) when there are :BEFORE or :AFTER methods

(defun %short-emf (gf methods comb options type)
  (let* ((groups (%short-method-groups gf methods comb options))
         (arounds (car groups)) (primaries (cdr groups)))
    (if (null primaries)
        (%clos-vector (%emf.chain) (list (%clos-vector (%emf.inner) nil nil nil gf)) t 0)
        (let* ((ms primaries)
               (operator (cadr type))
               (combined
                 (%make-method *standard-method-class* nil nil nil nil
                               (if (and (eq operator comb) (%memq comb *short-method-combinations*))
                                   #'(lambda (&rest args) (%apply-short-combination comb ms args))
                                   (%effective-method-function
                                    gf (%short-combination-form type ms)))
                               nil)))
          (%clos-vector (%emf.chain) (append arounds (list combined)) (%emf-keys gf methods)
                        (+ (car (%gf.info gf)) (cadr (%gf.info gf))))))))

(defun %short-combination-form (type primaries)
  ;; the primary methods combined by the operator of the short-form combination TYPE
  (if (and (caddr type) (null (cdr primaries)))
      `(call-method ,(car primaries) nil)
      `(,(cadr type) ,@(%mapcar1 #'(lambda (m) `(call-method ,m nil)) primaries))))

(defun %short-method-groups (gf methods comb options)
  ;; (arounds . primaries) of a short-form combination, in the order they run, once their
  ;; qualifiers and the combination's options are checked
  (let ((arounds nil) (primaries nil))
    (dolist (m methods)
      (let ((q (%method.qualifiers m)))
        (cond ((equal q '(:around)) (setq arounds (cons m arounds)))
              ((and (consp q) (eq (car q) comb) (null (cdr q))) (setq primaries (cons m primaries)))
              (t (error 'simple-error
                        :format-control "invalid method error for~%  ~S~%method:~%  The method ~S on ~S has ~A.~%  The method combination type ~S was defined with the short form of DEFINE-METHOD-COMBINATION and so requires all methods have either the single qualifier ~S or the single qualifier :AROUND."
                        :format-arguments (list m m gf (if q "an invalid qualifier" "no qualifiers") comb comb))))))
    (dolist (o options)
      (if (not (%memq o '(:most-specific-first :most-specific-last)))
          (error 'simple-program-error
                 :format-control "Illegal option ~S to the method combination ~S: only :MOST-SPECIFIC-FIRST and :MOST-SPECIFIC-LAST are allowed."
                 :format-arguments (list o comb))))
    (cons (nreverse-boot arounds)
          (if (%memq :most-specific-last options) primaries (nreverse-boot primaries)))))

(defun %apply-short-combination (comb methods args)
  (cond ((eq comb 'progn) (let ((r nil)) (dolist (m methods r) (setq r (%invoke-method m args)))))
        ((eq comb 'and) (let ((r t)) (dolist (m methods r) (setq r (%invoke-method m args)) (if (null r) (return nil)))))
        ((eq comb 'or) (dolist (m methods nil) (let ((r (%invoke-method m args))) (if r (return r)))))
        ((null (cdr methods)) (if (%memq comb '(list)) (list (%invoke-method (car methods) args))
                                  (%invoke-method (car methods) args)))
        (t (let ((values (%mapcar1 #'(lambda (m) (%invoke-method m args)) methods)))
             (cond ((eq comb 'list) values)
                   ((eq comb 'append) (apply #'append values))
                   ((eq comb 'nconc) (apply #'nconc values))
                   (t (apply (symbol-function comb) values)))))))

;;; Effective method forms (long-form and user short-form combinations) become functions of
;;; the generic function's arguments. CALL-METHOD and MAKE-METHOD are local macros there.

(defvar *emf-args* (make-symbol "EMF-ARGS"))

(defun %emf-method-form (m)
  (cond ((and (consp m) (eq (car m) 'make-method))
         `(%make-method *standard-method-class* nil nil nil nil
                        #'(lambda (&rest ignore) (declare (ignore ignore)) ,(cadr m)) nil))
        (t `',m)))

(defun %call-method-expansion (method next-methods)
  `(%call-method ,(%emf-method-form method)
                 (list ,@(%mapcar1 #'%emf-method-form next-methods))
                 ,*emf-args*))

(defun %call-method (m next args)
  (let ((fast (%method.fast-function m)))
    (if fast
        (apply fast args)
        (apply (%method.function m) (cons m next) args args))))

(defun %effective-method-function (gf form &optional arguments-binder)
  (declare (ignore gf))
  (let ((body (if arguments-binder (funcall arguments-binder form) form)))
    (eval `#'(lambda (&rest ,*emf-args*)
               (macrolet ((call-method (method &optional next-methods)
                            (%call-method-expansion method next-methods))
                          (make-method (form)
                            (declare (ignore form))
                            (error "MAKE-METHOD is only allowed in CALL-METHOD.")))
                 ,body)))))

(defun %long-emf (gf methods function options)
  (let* ((result (funcall function gf methods options))
         (form (car result))
         (fn (%effective-method-function gf form (cadr result)))
         (combined (%make-method *standard-method-class* nil nil nil nil fn nil)))
    (%clos-vector (%emf.chain) (list combined) (%emf-keys gf methods)
                  (+ (car (%gf.info gf)) (cadr (%gf.info gf))))))

;;; DEFINE-METHOD-COMBINATION (CLHS 7.7.x)

(defun %define-short-method-combination (name operator identity doc)
  (setf (gethash name *method-combination-types*) (list :short operator identity))
  (%set-documentation name 'method-combination doc)
  name)

(defun %define-long-method-combination (name function doc)
  (setf (gethash name *method-combination-types*) (list :long function))
  (%set-documentation name 'method-combination doc)
  name)

(defun %qualifier-pattern-matches-p (pattern qualifiers)
  (cond ((eq pattern '*) t)
        ((null pattern) (null qualifiers))
        ((atom pattern) nil)
        ((atom qualifiers) nil)
        ((or (eq (car pattern) '*) (equal (car pattern) (car qualifiers)))
         (%qualifier-pattern-matches-p (cdr pattern) (cdr qualifiers)))
        (t nil)))

(defun %method-group-matches-p (patterns qualifiers)
  ;; PATTERNS: qualifier patterns, or (:predicate fn)
  (if (eq (car patterns) :predicate)
      (funcall (cadr patterns) qualifiers)
      (dolist (p patterns nil)
        (if (%qualifier-pattern-matches-p p qualifiers) (return t)))))

(defun %group-methods (methods groups)
  ;; GROUPS: ((patterns order required description) ...) -> a list of method lists
  (let ((buckets (%make-list-boot (%list-length groups))))
    (dolist (m methods)
      (let ((q (%method.qualifiers m)) (i 0) (found nil))
        (dolist (g groups)
          (if (%method-group-matches-p (car g) q)
              (progn (setq found t)
                     (let ((cell (nthcdr i buckets))) (rplaca cell (cons m (car cell))))
                     (return)))
          (setq i (1+ i)))
        (if (not found)
            (invalid-method-error m "The method's qualifiers ~S match no method group of the method combination." q))))
    (let ((result nil) (cells buckets))
      (dolist (g groups)
        (let ((ms (car cells)) (order (cadr g)))
          (cond ((eq order :most-specific-last))
                ((eq order :most-specific-first) (setq ms (nreverse-boot ms)))
                (t (method-combination-error "~S is not a valid :ORDER (:MOST-SPECIFIC-FIRST or :MOST-SPECIFIC-LAST)." order)))
          (if (and (caddr g) (null ms))
              (method-combination-error "No method of the required method group ~S." (nth 4 g)))
          (setq result (cons ms result)))
        (setq cells (cdr cells)))
      (nreverse-boot result))))

(defun %parse-method-group-specifier (spec)
  ;; -> (name patterns-or-predicate order-form required-form description)
  (let ((name (car spec)) (rest (cdr spec)) (patterns nil) (order :most-specific-first)
        (required nil) (description nil))
    (if (and rest (symbolp (car rest)) (car rest) (not (eq (car rest) '*))
             (not (%memq (car rest) '(:description :order :required))))
        (progn (setq patterns (list :predicate (list 'function (car rest)))) (setq rest (cdr rest)))
        (progn
          (tagbody
           top
             (if (and rest (not (%memq (car rest) '(:description :order :required))))
                 (progn (setq patterns (cons (car rest) patterns)) (setq rest (cdr rest)) (go top))))
          (setq patterns (nreverse-boot patterns))))
    (tagbody
     top
       (if rest
           (progn
             (cond ((eq (car rest) :description) (setq description (cadr rest)))
                   ((eq (car rest) :order) (setq order (cadr rest)))
                   ((eq (car rest) :required) (setq required (cadr rest)))
                   (t (error 'simple-program-error :format-control "Bad method group specifier ~S."
                                                   :format-arguments (list spec))))
             (setq rest (cddr rest))
             (go top))))
    (list name patterns order required description)))

(defun %lambda-list-variables (ll)
  (let ((vars nil))
    (dolist (x ll)
      (cond ((%memq x '(&optional &rest &key &allow-other-keys &aux &whole &body)))
            ((consp x)
             (let ((v (car x)))
               (setq vars (cons (if (consp v) (cadr v) v) vars))
               (if (and (cdr x) (cddr x)) (setq vars (cons (caddr x) vars)))))
            (t (setq vars (cons x vars)))))
    (nreverse-boot vars)))

(defun %make-arguments-binder (args-ll symbols)
  ;; the lambda list of :ARGUMENTS, its variables replaced by SYMBOLS, bound to the arguments
  (let* ((vars (%lambda-list-variables args-ll))
         (alist (let ((r nil) (ss symbols))
                  (dolist (v vars (nreverse-boot r)) (setq r (cons (cons v (car ss)) r)) (setq ss (cdr ss)))))
         (ll (sublis alist args-ll))
         (whole nil))
    (if (eq (car ll) '&whole) (progn (setq whole (cadr ll)) (setq ll (cddr ll))))
    (if (not (or (%memq '&rest ll) (%memq '&body ll)))
        (let ((r (gensym "REST")) (head nil) (tail ll))
          (tagbody
           top
             (if (and tail (not (%memq (car tail) '(&key &aux))))
                 (progn (setq head (cons (car tail) head)) (setq tail (cdr tail)) (go top))))
          (setq ll (append (nreverse-boot head) (list '&rest r) tail))))
    (if (and (%memq '&key ll) (not (%memq '&allow-other-keys ll)))
        (setq ll (append ll (list '&allow-other-keys))))
    #'(lambda (form)
        `(destructuring-bind ,ll ,*emf-args*
           ,@(if whole `((let ((,whole ,*emf-args*)) ,form)) (list form))))))

(defmacro define-method-combination (name &rest args)
  "Defines the method combination NAME: the short form names an operator that combines the values of all applicable methods; the long form groups methods and builds the effective method form."
  (if (or (null args) (keywordp (car args)))
      ;; the short form
      (let ((operator name) (identity nil) (doc nil) (rest args))
        (tagbody
         top
           (if rest
               (progn
                 (cond ((eq (car rest) :operator) (setq operator (cadr rest)))
                       ((eq (car rest) :identity-with-one-argument) (setq identity (cadr rest)))
                       ((eq (car rest) :documentation) (setq doc (cadr rest)))
                       (t (error 'simple-program-error :format-control "Bad option ~S to DEFINE-METHOD-COMBINATION ~S."
                                                       :format-arguments (list (car rest) name))))
                 (setq rest (cddr rest))
                 (go top))))
        ;; evaluated by COMPILE-FILE too, for a later DEFGENERIC of the file that names it
        `(eval-when (:compile-toplevel :load-toplevel :execute)
           (%define-short-method-combination ',name ',operator ',identity ',doc)))
      ;; the long form
      (let* ((lambda-list (car args))
             (groups (%mapcar1 #'%parse-method-group-specifier (cadr args)))
             (body (cddr args))
             (arguments nil) (gf-var nil))
        (tagbody
         top
           (cond ((and (consp (car body)) (eq (caar body) :arguments))
                  (setq arguments (cdar body)) (setq body (cdr body)) (go top))
                 ((and (consp (car body)) (eq (caar body) :generic-function))
                  (setq gf-var (cadar body)) (setq body (cdr body)) (go top))))
        (let* ((parsed (%parse-body body t))
               (doc (car parsed))
               (gfv (gensym "GF")) (msv (gensym "METHODS")) (opv (gensym "OPTIONS"))
               (arg-vars (%lambda-list-variables arguments)))
          `(eval-when (:compile-toplevel :load-toplevel :execute)
            (%define-long-method-combination
            ',name
            #'(lambda (,gfv ,msv ,opv)
                (declare (ignorable ,gfv))
                (destructuring-bind ,(%mapcar1 #'car groups)
                    (%group-methods ,msv (list ,@(%mapcar1 #'(lambda (g)
                                                                `(list ,(if (eq (car (cadr g)) :predicate)
                                                                            `(list :predicate ,(cadr (cadr g)))
                                                                            `',(cadr g))
                                                                       ,(caddr g) ,(cadddr g) ',(nth 4 g) ',(car g)))
                                                            groups)))
                  (apply #'(lambda ,lambda-list
                             (let (,@(if gf-var `((,gf-var ,gfv)))
                                   ,@(%mapcar1 #'(lambda (v) `(,v (gensym ,(symbol-name v)))) arg-vars))
                               ,@(cadr parsed)
                               (list (progn ,@(caddr parsed))
                                     ,(if arguments
                                          `(%make-arguments-binder ',arguments (list ,@arg-vars))
                                          nil))))
                         ,opv)))
            ',doc))))))

(defvar *gf-miss-hook* nil) ; mop-protocols.lisp: %GF-MISS for a generic function of a program's class

(defun %gf-miss (gf args)
  ;; the slow path of a call: find the applicable methods, make and cache the effective method
  (if (and *gf-miss-hook* (not (eq (%instance-layout gf) *standard-generic-function-class*)))
      (return-from %gf-miss (funcall *gf-miss-hook* gf args)))
  (let ((nreq (%gf.nreq gf)))
    (if (< (length args) nreq)
        (error 'simple-program-error :format-control "The function~%  ~S~%requires at least ~D argument~A."
                                     :format-arguments (list gf nreq (if (= nreq 1) "" "s"))))
    (let ((methods (%applicable-methods gf args)))
      (if (null methods)
          #'(lambda (&rest a) (apply #'no-applicable-method gf a))
          (let ((emf (if (eq (car (%gf.method-combination gf)) 'standard)
                         (%standard-emf gf methods args)
                         (%make-emf gf methods args))))
            (%gf-cache-add gf args emf)
            emf)))))

(defun %no-next-method (chain-method args)
  (apply #'no-next-method (%method.gf chain-method) chain-method args))

(defun %no-primary-method (gf args)
  (error 'no-primary-method-error :generic-function gf :arguments args))

;;; ------------------------------------------------------------------
;;; The standard generic functions are defined with the machinery above; their methods
;;; follow once the classes they specialise on exist.

(defgeneric no-applicable-method (generic-function &rest function-arguments)
  (:documentation "Generic function called when GENERIC-FUNCTION has no method applicable to FUNCTION-ARGUMENTS; the default method signals an error."))
(defmethod no-applicable-method ((generic-function t) &rest args)
  (error 'no-applicable-method-error :generic-function generic-function :arguments args))

(defgeneric no-next-method (generic-function method &rest args)
  (:documentation "Generic function called when METHOD of GENERIC-FUNCTION calls CALL-NEXT-METHOD and there is no next method; the default method signals an error."))
(defmethod no-next-method ((generic-function t) (method t) &rest args)
  (error 'no-next-method-error :generic-function generic-function :method method :arguments args))

(defgeneric slot-missing (class object slot-name operation &optional new-value)
  (:documentation "Generic function called when OBJECT of CLASS has no slot SLOT-NAME; OPERATION says what was tried (SLOT-VALUE, SETF, SLOT-BOUNDP, SLOT-MAKUNBOUND). The default method signals an error."))
(defmethod slot-missing ((class t) object slot-name operation &optional new-value)
  (error 'missing-slot :name slot-name :object object :operation operation :new-value new-value))

(defgeneric slot-unbound (class instance slot-name)
  (:documentation "Generic function called when the slot SLOT-NAME of INSTANCE of CLASS is read while unbound; the default method signals UNBOUND-SLOT."))
(defmethod slot-unbound ((class t) instance slot-name)
  (error 'unbound-slot :name slot-name :instance instance))

(defgeneric class-name (class)
  (:documentation "The name of CLASS, a symbol."))
(defmethod class-name ((class class)) (%class.name class))
(defgeneric (setf class-name) (new-value class))
(defmethod (setf class-name) (new-value (class class)) (%set-class.name class new-value))

(defun class-precedence-list (class) (%class-cpl class))
(defun class-direct-superclasses (class) (%class-direct-superclasses class))
(defun class-direct-subclasses (class) (%class-direct-subclasses class))
(defun class-direct-slots (class) (%class-direct-slots class))
(defun class-slots (class) (%class-effective-slots class))
(defun class-default-initargs (class) (%class-default-initargs class))
(defun class-direct-default-initargs (class) (%class-direct-default-initargs class))
(defun class-finalized-p (class) (%class-finalized-p class))
(defun specializer-direct-methods (s) (if (%class-p s) (%class.direct-methods s) (%eqls.direct-methods s)))
(defun slot-definition-name (s) (%slotd.name s))
(defun slot-definition-initargs (s) (%slotd.initargs s))
(defun slot-definition-initform (s) (%slotd.initform s))
(defun slot-definition-initfunction (s) (%slotd.initfunction s))
(defun slot-definition-readers (s) (%slotd.readers s))
(defun slot-definition-writers (s) (%slotd.writers s))
(defun slot-definition-allocation (s) (%slotd.allocation s))
(defun slot-definition-type (s) (%slotd.type s))
(defun slot-definition-location (s) (%slotd.location s))

;;; ------------------------------------------------------------------
;;; DEFCLASS

(defun %class-option-error (class-name what)
  (error 'simple-program-error :format-control "~A in DEFCLASS ~S." :format-arguments (list what class-name)))

(defun %defclass-slot-form (class-name spec &optional canonical)
  ;; a form making the direct slot definition of SPEC; with CANONICAL (a metaclass of the
  ;; program's), its canonicalized plist instead, other slot options included (AMOP 5.4.2)
  (if (symbolp spec)
      (if canonical
          `(list :name ',spec)
          `(%make-slot-definition ',spec nil nil nil nil nil :instance t nil))
      (let ((name (car spec)) (options (cdr spec))
            (initargs nil) (initform nil) (initfunction nil) (readers nil) (writers nil)
            (allocation :instance) (type t) (doc nil) (seen nil) (others nil))
        (if (not (symbolp name))
            (%class-option-error class-name (format nil "~S is not a legal slot name" name)))
        (tagbody
         top
           (if (null options) (go end))
           (if (null (cdr options))
               (%class-option-error class-name (format nil "Odd-length slot specification ~S" spec)))
           (let ((k (car options)) (v (cadr options)))
             (if (and (%memq k '(:initform :allocation :type :documentation)) (%memq k seen))
                 (error 'simple-program-error
                        :format-control "Duplicate slot option ~S for slot ~S in DEFCLASS ~S."
                        :format-arguments (list k name class-name)))
             (setq seen (cons k seen))
             (cond ((eq k :initarg) (setq initargs (append initargs (list v))))
                   ((eq k :initform) (setq initform v)
                                     (setq initfunction `(function (lambda () ,v))))
                   ((eq k :reader) (setq readers (append readers (list v))))
                   ((eq k :writer) (setq writers (append writers (list v))))
                   ((eq k :accessor) (setq readers (append readers (list v)))
                                     (setq writers (append writers (list (list 'setf v)))))
                   ((eq k :allocation)
                    (if (not (or canonical (%memq v '(:instance :class))))
                        (%class-option-error class-name (format nil "~S is not a legal slot allocation" v)))
                    (setq allocation v))
                   ((eq k :type) (setq type v))
                   ((eq k :documentation) (setq doc v))
                   (canonical (setq others (append others (list (cons k v)))))
                   (t (error 'initarg-error :class (find-class 'standard-direct-slot-definition)
                                            :initargs (list k)))))
           (setq options (cddr options))
           (go top)
         end)
        (if canonical
            `(list :name ',name :initargs ',initargs :initform ',initform :initfunction ,initfunction
                   :readers ',readers :writers ',writers :allocation ',allocation :type ',type
                   :documentation ',doc ,@(%other-slot-options others))
            `(%make-slot-definition ',name ',initargs ',initform ,initfunction ',readers ',writers
                                    ',allocation ',type ',doc)))))

(defun %other-slot-options (others)
  ;; ((key . value) ...) -> key 'value ...; an option given more than once gives the list of its
  ;; values, in order (AMOP 5.4.2)
  (let ((keys nil) (r nil))
    (dolist (o others) (if (not (%memq (car o) keys)) (setq keys (cons (car o) keys))))
    (dolist (k (nreverse-boot keys))
      (let ((vs nil))
        (dolist (o others) (if (eq (car o) k) (setq vs (cons (cdr o) vs))))
        (setq r (append r (list k (list 'quote (if (cdr vs) (nreverse-boot vs) (car vs))))))))
    r))

(defmacro defclass (name superclasses slots &rest options)
  "Defines (or redefines) the class NAME with direct SUPERCLASSES and slot specifications SLOTS (each with options such as :initarg, :initform, :reader, :accessor, :type); OPTIONS include :documentation and :default-initargs. Returns the class."
  (if (not (and name (symbolp name)))
      (error 'simple-program-error :format-control "~S is not a legal class name." :format-arguments (list name)))
  (if (not (listp superclasses))
      (%class-option-error name (format nil "~S is not a list of superclass names" superclasses)))
  (let ((names nil))
    (dolist (s slots)
      (let ((n (if (consp s) (car s) s)))
        (if (%memq n names)
            (error 'simple-program-error :format-control "Multiple slots named ~S in DEFCLASS ~S."
                                         :format-arguments (list n name)))
        (setq names (cons n names)))))
  (let ((default-initargs nil) (doc nil) (metaclass nil) (seen nil) (other-options nil))
    (dolist (o options)
      (if (not (consp o)) (%class-option-error name (format nil "~S is not a class option" o)))
      (if (%memq (car o) seen)
          (%class-option-error name (format nil "Duplicate class option ~S" (car o))))
      (setq seen (cons (car o) seen))
      (cond ((eq (car o) :default-initargs)
             (let ((keys nil) (d (cdr o)))
               (tagbody
                top
                  (if (null d) (go end))
                  (if (%memq (car d) keys)
                      (error 'simple-program-error
                             :format-control "Duplicate initialization argument name ~S in :DEFAULT-INITARGS of DEFCLASS ~S."
                             :format-arguments (list (car d) name)))
                  (setq keys (cons (car d) keys))
                  (setq d (cddr d))
                  (go top)
                end))
             (setq default-initargs (%parse-default-initargs (cdr o))))
            ((eq (car o) :documentation) (setq doc (cadr o)))
            ((eq (car o) :metaclass) (setq metaclass (cadr o)))
            ;; another option is an initarg of the metaclass, its value the option's rest (AMOP)
            (t (setq other-options (append other-options (list (car o) (cdr o)))))))
    ;; COMPILE-FILE defines the class at compile time too: later forms of the file may name it as a
    ;; type, a specializer, a superclass or a metaclass (CLHS DEFCLASS)
    `(eval-when (:compile-toplevel :load-toplevel :execute)
       (%ensure-class ',name ',superclasses
                      (list ,@(let ((canonical (and metaclass (not (%memq metaclass '(standard-class
                                                                                        funcallable-standard-class))))))
                                (%mapcar1 #'(lambda (s) (%defclass-slot-form name s canonical)) slots)))
                      ,default-initargs ',doc ',metaclass ',other-options)
       (%note-definition 'defclass ',name)
       (find-class ',name))))

(defun %forward-class (name)
  (let ((c (%make-class-object name :forward)))
    (%set-instance-layout c (%metaclass-for-kind :forward))
    (setf (gethash name *class-table*) c)
    c))

(defun %accessor-methods-of (class)
  (let ((r nil))
    (dolist (m (%class.direct-methods class))
      (if (and (%method.slot-name m) (%method.gf m)) (setq r (cons m r))))
    r))

(defun %metaclass-object (metaclass)
  ;; the class of a class DEFCLASS makes: STANDARD-CLASS, FUNCALLABLE-STANDARD-CLASS, or a
  ;; subclass of one of them (a metaclass of the program's, as the MOP allows)
  (let ((m (cond ((null metaclass) *standard-class*)
                 ((%class-p metaclass) metaclass)
                 (t (gethash metaclass *class-table*)))))
    (if (and m (not (eq (%class-kind m) :forward)) (%ensure-finalized m)
             (or (%memq *standard-class* (%class-cpl m)) (%memq *funcallable-standard-class* (%class-cpl m))))
        m
        (error 'simple-error :format-control "The metaclass ~S is not supported: it must be STANDARD-CLASS, FUNCALLABLE-STANDARD-CLASS or a subclass of one of them."
                             :format-arguments (list metaclass)))))

(defun %adopt-metaclass (class meta)
  ;; CLASS becomes an instance of META: room for the slots META adds, with their initforms
  (%set-instance-layout class meta)
  (if (not (or (eq meta *standard-class*) (eq meta *funcallable-standard-class*)))
      (progn
        (if (> (%class.instance-size meta) (%class.nslots)) (%resize-instance class (%class.instance-size meta)))
        (%set-instance-version class (%class-version meta))
        (dolist (sd (%class-effective-slots meta))
          (let ((loc (%slot-definition-location sd)))
            (if (and (integerp loc) (>= loc (%class.nslots)) (%slot-definition-initfunction sd)
                     (not (slot-boundp class (%slot-definition-name sd))))
                (setf (slot-value class (%slot-definition-name sd)) (funcall (%slot-definition-initfunction sd)))))))))

(defun %validate-superclasses (class supers)
  ;; with a metaclass of the program's, each superclass must be accepted by the MOP's
  ;; VALIDATE-SUPERCLASS (mop.lisp), as in SBCL
  (let ((validate (find-symbol "VALIDATE-SUPERCLASS" "TINYCL-MOP")))
    (if (and validate (fboundp validate))
        (dolist (s supers)
          (if (not (funcall validate class s))
              (error 'simple-error :format-control "The class ~S was specified as a superclass of the class ~S, but the metaclasses ~S and ~S are incompatible.~%Define a method for ~S to avoid this error."
                                   :format-arguments (list s class (class-of s) (class-of class) validate)))))))

(defun %metaclass-initargs (class meta initargs)
  ;; the slots of a metaclass of the program's that INITARGS (class options or ENSURE-CLASS
  ;; arguments) fill; an initarg no slot of META takes is an error, as in SBCL
  (do ((p initargs (cddr p))) ((null p))
    (let ((sd (dolist (x (%class-effective-slots meta) nil)
                (if (%memq (car p) (%slot-definition-initargs x)) (return x)))))
      (if (or (null sd) (not (integerp (%slot-definition-location sd)))
              (< (%slot-definition-location sd) (%class.nslots)))
          (error 'initarg-error :class meta :initargs (list (car p))))
      (setf (slot-value class (%slot-definition-name sd)) (cadr p)))))

(defvar *direct-slot-definition-maker* nil) ; mop-protocols.lisp: (class slots) -> slot definitions
(defvar *class-initializer* nil) ; mop-protocols.lisp: defines a class of a program's metaclass
;; mop-protocols.lisp: T while a program's method on INITIALIZE-INSTANCE, SHARED-INITIALIZE or
;; REINITIALIZE-INSTANCE applies to a class of STANDARD-CLASS or FUNCALLABLE-STANDARD-CLASS, whose
;; classes are then made by *CLASS-INITIALIZER* too (so that the method runs); NIL keeps them on
;; the direct path below
(defvar *standard-class-initializer-p* nil)

(defvar *ensure-class-hook* nil) ; mop.lisp: DEFCLASS defines through ENSURE-CLASS once it exists

(defun %ensure-class (name superclasses direct-slots default-initargs doc metaclass &optional other-initargs)
  ;; what DEFCLASS calls: ENSURE-CLASS (and so ENSURE-CLASS-USING-CLASS) once the MOP is loaded,
  ;; whose standard methods call %ENSURE-CLASS-1
  (if *ensure-class-hook*
      (funcall *ensure-class-hook* name superclasses direct-slots default-initargs doc metaclass other-initargs)
      (%ensure-class-1 name superclasses direct-slots default-initargs doc metaclass other-initargs)))

(defun %ensure-class-1 (name superclasses direct-slots default-initargs doc metaclass &optional other-initargs)
  (%check-definition-lock name)
  (sys::%check-type-name-free name)
  (if (%memq name superclasses)
      (error 'simple-error :format-control "The class ~S cannot be its own superclass."
                           :format-arguments (list name)))
  (let* ((meta (%metaclass-object metaclass))
         (kind (if (%memq *funcallable-standard-class* (%class-cpl meta)) :funcallable :standard))
         (class (gethash name *class-table*))
         (redefined nil))
    ;; a class whose name was changed since it was registered is not redefined: a new one is made
    (if (and class (not (eq (%class-name class) name))) (setq class nil))
    (setq redefined (and class (%memq (%class-kind class) '(:standard :funcallable))))
    (if (or (null class) (not (%memq (%class-kind class) '(:standard :funcallable :forward))))
        (setq class nil))
    ;; a program's metaclass (or STANDARD-CLASS with a program's initialization method on it):
    ;; MAKE-INSTANCE or REINITIALIZE-INSTANCE of it (mop-protocols.lisp)
    (if (and *class-initializer*
             (or (not (or (eq meta *standard-class*) (eq meta *funcallable-standard-class*)))
                 *standard-class-initializer-p*))
        (return-from %ensure-class-1
          (funcall *class-initializer* name class meta
                   (%mapcar1 #'(lambda (s) (or (gethash s *class-table*) (%forward-class s))) superclasses)
                   direct-slots default-initargs doc other-initargs)))
    (if (null class)
        (progn (setq class (%make-class-object name kind))
               (%adopt-metaclass class meta)))
    (let ((supers (%mapcar1 #'(lambda (s)
                                (or (gethash s *class-table*) (%forward-class s)))
                            (or superclasses
                                (list (if (eq kind :funcallable) 'funcallable-standard-object 'standard-object))))))
      (%shape-class class meta kind supers direct-slots default-initargs doc other-initargs
                    #'(lambda () (setf (gethash name *class-table*) class)))
      (%set-documentation name 'type doc)
      (if (and redefined *metaobject-changed-hook*)
          (funcall *metaobject-changed-hook* class
                   (list* :direct-superclasses supers :direct-slots (%class-direct-slots class)
                          :direct-default-initargs default-initargs other-initargs)))
      class)))

(defun %shape-class (class meta kind supers direct-slots default-initargs doc other-initargs register)
  ;; give CLASS, an instance of META, its definition: direct superclasses SUPERS (classes), slots,
  ;; default initargs, documentation and the initargs of a program's metaclass; then REGISTER it
  ;; (a function, or NIL for an anonymous class), finalize it and make its accessor methods
  (dolist (s supers)
    (if (or (eq s class) (%inherits-from-p s class))
        (error 'simple-error :format-control "Specified class ~S as a superclass of itself."
                             :format-arguments (list class)))
    (if (not (%memq (%class-kind s) '(:standard :funcallable :forward)))
        ;; STREAM may be a superclass, as Gray streams' FUNDAMENTAL-STREAM needs
        (if (not (%memq s (list *t-class* *standard-object-class* (gethash 'stream *class-table*)
                                (gethash 'funcallable-standard-object *class-table*))))
            (error 'simple-error :format-control "The class ~S was specified as a superclass of the class ~S, but the metaclasses ~S and ~S are incompatible."
                                 :format-arguments (list s class (%instance-layout s) (%metaclass-for-kind kind))))))
  ;; a class never defined before (no superclasses, subclasses, methods, not finalized: not a
  ;; forward-referenced one; its name names no class yet) changes no dispatch already cached,
  ;; since no instance of it exists and no cache entry is keyed on it; its accessor methods
  ;; invalidate their own functions' caches
  (let ((fresh (and (null (%class-direct-superclasses class)) (null (%class-direct-subclasses class))
                    (null (%class.direct-methods class)) (not (%class-finalized-p class))
                    (not (and (%class-name class) (gethash (%class-name class) *class-table*))))))
    (%set-class.kind class kind)
    (%adopt-metaclass class meta)
    (if other-initargs (%metaclass-initargs class meta other-initargs))
    ;; canonicalized slot plists (DEFCLASS with a program's metaclass, ENSURE-CLASS) become direct
    ;; slot definitions through DIRECT-SLOT-DEFINITION-CLASS
    (if *direct-slot-definition-maker*
        (setq direct-slots (funcall *direct-slot-definition-maker* class direct-slots)))
    (if (not (or (eq meta *standard-class*) (eq meta *funcallable-standard-class*)))
        (%validate-superclasses class supers))
    ;; the accessor methods of the old definition go
    (dolist (m (%accessor-methods-of class)) (%remove-method (%method.gf m) m))
    ;; class slots keep their values when the slot stays shared
    (dolist (d direct-slots)
      (if (eq (%slot-definition-allocation d) :class)
          (dolist (old (%class-direct-slots class))
            (if (and (eq (%slot-definition-name old) (%slot-definition-name d))
                     (consp (%slotd.location old)))
                (%set-slotd.location d (%slotd.location old))))))
    (%set-class.direct-slots class direct-slots)
    (%set-class.direct-default-initargs class default-initargs)
    (%set-class.documentation class doc)
    (%set-direct-superclasses class supers)
    (if register (funcall register))
    ;; a class to which a program's method on FINALIZE-INHERITANCE applies is finalized by calling
    ;; it once the class is otherwise defined and registered (so that an error there leaves it
    ;; defined and unfinalized, as SBCL leaves a class until it is first instantiated; without
    ;; REGISTER, by the caller once it has registered it); any other directly
    (let ((generic (and *generic-finalization-p* (funcall *generic-finalization-p* class))))
      (if (not generic) (%finalize-class class))
      (%initialize-class-slots class)
      (if (not fresh) (%bump-epoch))
      (dolist (d direct-slots)
        (dolist (r (%slotd.readers d)) (%add-accessor-method r class (%slot-definition-name d) :reader))
        (dolist (w (%slotd.writers d)) (%add-accessor-method w class (%slot-definition-name d) :writer)))
      (if (and generic register (%finalizable-p class))
          (progn (finalize-inheritance class)
                 (%initialize-class-slots class)
                 (%bump-epoch)))))
  class)

(defun %inherits-from-p (class super)
  ;; whether SUPER is among the direct superclasses of CLASS, transitively
  (let ((seen nil) (pending (list class)))
    (tagbody
     top
       (if (null pending) (return-from %inherits-from-p nil))
       (let ((c (car pending)))
         (setq pending (cdr pending))
         (if (not (%memq c seen))
             (progn
               (setq seen (cons c seen))
               (dolist (s (%class-direct-superclasses c))
                 (if (eq s super) (return-from %inherits-from-p t))
                 (setq pending (cons s pending))))))
       (go top))))

(defun %initialize-class-slots (class)
  (dolist (s (%class-effective-slots class))
    (let ((loc (%slot-definition-location s)))
      (if (and (consp loc) (eq (cdr loc) +slot-unbound+) (%slot-definition-initfunction s))
          (rplacd loc (funcall (%slot-definition-initfunction s))))))
  (dolist (sub (%class-direct-subclasses class)) (%initialize-class-slots sub)))

(defun %add-accessor-method (fname class slot-name kind)
  (let* ((reader (eq kind :reader))
         (gf (%ensure-gf fname (if reader '(object) '(new-value object))))
         (m (%make-method (if reader *standard-reader-method-class* *standard-writer-method-class*) nil
                          (if reader (list class) (list *t-class* class))
                          (if reader '(object) '(new-value object))
                          nil
                          (if reader
                              #'(lambda (object) (slot-value object slot-name))
                              #'(lambda (new-value object) (setf (slot-value object slot-name) new-value)))
                          nil)))
    (%set-method.slot-name m slot-name)
    (%add-method gf m)
    m))

(defun finalize-inheritance (class)
  (if (%class-forward-p-deep class)
      (%forward-class-error class)
      (%finalize-class class)))

(defun %class-forward-p-deep (class)
  (if (eq (%class-kind class) :forward)
      t
      (dolist (s (%class-direct-superclasses class) nil)
        (if (%class-forward-p-deep s) (return t)))))

(defun %find-forward-super (c)
  ;; -> (forward-class . its-direct-subclass) or NIL
  (dolist (s (%class-direct-superclasses c) nil)
    (if (eq (%class-kind s) :forward)
        (return (cons s c))
        (let ((r (%find-forward-super s))) (if r (return r))))))

(defun %forward-class-error (class)
  (let* ((found (%find-forward-super class)) (fwd (car found)) (sub (cdr found)))
    (error 'simple-error
           :format-control "While computing the class precedence list of the class named ~A.~%The class named ~A is a forward referenced class.~%The class named ~A is a direct superclass of the class named ~A."
           :format-arguments (list (%qualified-string (%class-name class)) (%qualified-string (%class-name fwd))
                                   (%qualified-string (%class-name fwd)) (%qualified-string (%class-name sub))))))

(defun %ensure-finalized (class)
  (if (not (%class-finalized-p class)) (finalize-inheritance class))
  class)

;;; ------------------------------------------------------------------
;;; Instances: creation and initialization (CLHS 7.1)

(defun %check-initargs-plist (initargs)
  (let ((x initargs))
    (tagbody
     top
       (if (null x) (go end))
       (if (not (symbolp (car x)))
           (error 'simple-program-error :format-control "keyword argument not a symbol: ~S." :format-arguments (list (car x))))
       (if (null (cdr x)) (error 'simple-program-error :format-control "odd number of &KEY arguments"))
       (setq x (cddr x))
       (go top)
     end)))

(defun %class-prototype (class)
  (or (%class.prototype class)
      (%set-class.prototype class (if (eq (%class-kind class) :funcallable)
                                  (%allocate-funcallable-instance class #'identity (%flag.standard))
                                  (%allocate-instance class (%flag.standard))))))

(defun class-prototype (class) (%class-prototype (%ensure-finalized class)))

(defun %method-keys-of (gf args)
  ;; the keywords the applicable methods accept, or T when one allows other keys
  (let ((keys nil))
    (dolist (m (%applicable-methods gf args) keys)
      (let ((info (%method-info m)))
        (if (nth 4 info) (return-from %method-keys-of t))
        (if (not (eq (nth 3 info) :none)) (setq keys (%cl-union-eq keys (nth 3 info))))))))

(defun %valid-initargs (class)
  ;; cached per class: slot initargs and the keywords of the initialization methods; the cache is
  ;; ((clos-epoch . initargs-epoch) path . keys), PATH as %STANDARD-PATH-P computes it (C reads
  ;; it too: standard_plan in runtime/clos.c)
  (let* ((cache (%class.initargs-cache class)) (stamp (car cache)))
    (if (and stamp (eq (car stamp) *clos-epoch*) (eq (cdr stamp) *initargs-epoch*))
        (cddr cache)
        (let* ((proto (%class-prototype class))
               (keys (list :allow-other-keys))
               (more (list (%method-keys-of #'allocate-instance (list class))
                           (%method-keys-of #'initialize-instance (list proto))
                           (%method-keys-of #'shared-initialize (list proto t)))))
          (dolist (s (%class-effective-slots class))
            (setq keys (%cl-union-eq keys (%slot-definition-initargs s))))
          (dolist (k more)
            (if (eq k t) (setq keys t))
            (if (not (eq keys t)) (setq keys (%cl-union-eq keys k))))
          (%set-class.initargs-cache class (list* (cons *clos-epoch* *initargs-epoch*) :unknown keys))
          keys))))

(defun %check-initargs (class initargs &optional extra-gfs)
  (if (not (eq (%plist-get initargs :allow-other-keys '%none) '%none))
      (if (%plist-get initargs :allow-other-keys nil) (return-from %check-initargs nil)))
  (let ((valid (%valid-initargs class)) (bad nil))
    (if (eq valid t) (return-from %check-initargs nil))
    (dolist (g extra-gfs)
      (let ((k (%method-keys-of (car g) (cdr g))))
        (if (eq k t) (return-from %check-initargs nil))
        (setq valid (%cl-union-eq valid k))))
    (let ((x initargs))
      (tagbody
       top
         (if (null x) (go end))
         (if (and (not (%memq (car x) valid)) (not (%memq (car x) bad)))
             (setq bad (cons (car x) bad)))
         (setq x (cddr x))
         (go top)
       end))
    (if bad (error 'initarg-error :class class :initargs (nreverse-boot bad)))))

(defvar *standard-initialization-methods* nil
  "The methods of ALLOCATE-INSTANCE, INITIALIZE-INSTANCE and SHARED-INITIALIZE defined here.")

(defgeneric allocate-instance (class &rest initargs &key &allow-other-keys)
  (:documentation "A new instance of CLASS with every slot unbound, not yet initialized."))
(push (defmethod allocate-instance ((class standard-class) &rest initargs)
        (declare (ignore initargs))
        (%allocate-instance class (%flag.standard)))
      *standard-initialization-methods*)
(defmethod allocate-instance ((class structure-class) &rest initargs)
  (declare (ignore initargs))
  (%make-structure class))
(defmethod allocate-instance ((class funcallable-standard-class) &rest initargs)
  (declare (ignore initargs))
  (%allocate-funcallable-instance class #'(lambda (&rest args) (declare (ignore args))
                                            (error 'simple-error :format-control "The funcallable instance has no function yet."))
                                  4))

(defgeneric make-instance (class &rest initargs &key &allow-other-keys)
  (:documentation "Creates and initializes a new instance of CLASS (a class or its name), passing INITARGS to INITIALIZE-INSTANCE."))
(defvar *standard-make-instance-methods* nil "The methods of MAKE-INSTANCE defined here.")
(push (defmethod make-instance ((class symbol) &rest initargs)
        (or (%make-instance-on-standard-path class initargs)
            (apply #'make-instance (find-class class) initargs)))
      *standard-make-instance-methods*)


(defun %initarg-error (class initargs)
  (error 'initarg-error :class class :initargs initargs))

;;; The standard path of instance creation. MAKE-INSTANCE of a class whose metaclass is exactly
;;; STANDARD-CLASS, when only the methods defined here apply to MAKE-INSTANCE, ALLOCATE-INSTANCE,
;;; INITIALIZE-INSTANCE and SHARED-INITIALIZE for it, is done in C from the class's own tables
;;; (runtime/clos.c, make_standard_instance: initargs checked against the cached valid ones,
;;; default initargs added, slots filled from initargs or initforms, read and written directly,
;;; without SLOT-VALUE-USING-CLASS). %STANDARD-PATH-P is the one place that decides it; the
;;; answer is cached in the class's initargs cache with the two epochs, so that it is computed
;;; again after any class is defined or redefined or finalized (*CLOS-EPOCH*) and after a method
;;; of those functions or of REINITIALIZE-INSTANCE is added or removed (*INITARGS-EPOCH*).

(defun %standard-methods-p (gf args standard)
  (dolist (m (%applicable-methods gf args) t)
    (if (not (%memq m standard)) (return nil))))

(defun %standard-path-p (class)
  ;; T: only the methods defined here apply, the slots are filled in C; :CALL: the same, except
  ;; that a program's methods of INITIALIZE-INSTANCE or SHARED-INITIALIZE apply, so C checks
  ;; the initargs, adds the defaults and allocates, then calls INITIALIZE-INSTANCE; :INIT and
  ;; :CALL-INIT: T and :CALL when MAKE-INSTANCE has other methods too (its standard method still
  ;; takes the path once they call it); NIL otherwise
  (if (or (not (eq (%instance-layout class) *standard-class*)) (%slot-protocol-class-p class))
      (return-from %standard-path-p nil))
  (if (not (%standard-methods-p #'allocate-instance (list class) *standard-initialization-methods*))
      (return-from %standard-path-p nil))
  (let* ((proto (%class-prototype class))
         (fill (and (%standard-methods-p #'initialize-instance (list proto) *standard-initialization-methods*)
                    (%standard-methods-p #'shared-initialize (list proto t) *standard-initialization-methods*))))
    (if (%standard-methods-p #'make-instance (list class) *standard-make-instance-methods*)
        (if fill t :call)
        (if fill :init :call-init))))

(defun %standard-initialization-p (class)
  ;; whether the standard method of MAKE-INSTANCE may fill the slots itself for CLASS
  (%valid-initargs class)
  (let ((cache (%class.initargs-cache class)))
    (if (eq (cadr cache) :unknown) (rplaca (cdr cache) (%standard-path-p class)))
    (%memq (cadr cache) '(t :init))))

(defun %make-standard-instance (class initargs)
  (%ensure-finalized class)
  (if (%standard-initialization-p class)
      (return-from %make-standard-instance
        (%make-standard-instance-fast class initargs (%valid-initargs class))))
  (%check-initargs-plist initargs)
  (let ((initargs (%add-default-initargs class initargs)))
    (%check-initargs class initargs)
    (let ((instance (apply #'allocate-instance class initargs)))
      (apply #'initialize-instance instance initargs)
      instance)))

(push (defmethod make-instance ((class standard-class) &rest initargs)
        (or (%make-instance-on-standard-path class initargs t)
            (%make-standard-instance class initargs)))
      *standard-make-instance-methods*)
(push (defmethod make-instance ((class funcallable-standard-class) &rest initargs)
        (%make-standard-instance class initargs))
      *standard-make-instance-methods*)

(defgeneric initialize-instance (instance &rest initargs &key &allow-other-keys)
  (:documentation "Generic function called by MAKE-INSTANCE to initialize the new INSTANCE from INITARGS; its default method calls SHARED-INITIALIZE."))
(push (defmethod initialize-instance ((instance standard-object) &rest initargs)
        (apply #'shared-initialize instance t initargs))
      *standard-initialization-methods*)

(defgeneric reinitialize-instance (instance &rest initargs &key &allow-other-keys)
  (:documentation "Changes the slots of an existing INSTANCE from INITARGS by calling SHARED-INITIALIZE with no slots to initialize from initforms."))
(defmethod reinitialize-instance ((instance standard-object) &rest initargs)
  (%check-initargs-plist initargs)
  (%check-initargs (class-of instance) initargs
                   (list (cons #'reinitialize-instance (list instance))))
  (apply #'shared-initialize instance nil initargs))

(defgeneric shared-initialize (instance slot-names &rest initargs &key &allow-other-keys)
  (:documentation "Generic function that fills the slots of INSTANCE from INITARGS, then fills the still-unbound slots named in SLOT-NAMES (T for all) from their initforms."))
(push (defmethod shared-initialize ((instance standard-object) slot-names &rest initargs)
        (%check-initargs-plist initargs)
        (%ensure-current-instance instance)
        (%shared-initialize instance slot-names initargs))
      *standard-initialization-methods*)

(defun %shared-initialize (instance slot-names initargs)
  (if (and (eq (%instance-layout (class-of instance)) *standard-class*)
           (not (%slot-protocol-class-p (class-of instance))))
      (return-from %shared-initialize (%fill-standard-slots instance slot-names initargs)))
  (let ((class (class-of instance)))
    (dolist (s (%class-effective-slots class))
      (let ((found '%none) (slot-initargs (%slot-definition-initargs s)) (name (%slot-definition-name s)))
        (if slot-initargs
            (let ((x initargs))
              (tagbody
               top
                 (if (null x) (go end))
                 (if (%memq (car x) slot-initargs) (progn (setq found (cadr x)) (go end)))
                 (setq x (cddr x))
                 (go top)
               end)))
        (cond ((not (eq found '%none)) (setf (slot-value instance name) found))
              ((and (%slot-definition-initfunction s)
                    (or (eq slot-names t) (%memq name slot-names))
                    (not (slot-boundp instance name)))
               (setf (slot-value instance name) (funcall (%slot-definition-initfunction s)))))))
    instance))

;;; ------------------------------------------------------------------
;;; Redefined classes: obsolete instances are updated when next touched

(defgeneric update-instance-for-redefined-class (instance added-slots discarded-slots property-list
                                                 &rest initargs &key &allow-other-keys)
  (:documentation "Generic function called when INSTANCE is updated to its class's new definition, with the slots added, the slots discarded and a property list of the discarded values."))
(defmethod update-instance-for-redefined-class ((instance standard-object) added-slots discarded-slots
                                                property-list &rest initargs)
  (declare (ignore discarded-slots property-list))
  (%check-initargs-plist initargs)
  (%check-initargs (class-of instance) initargs
                   (list (cons #'update-instance-for-redefined-class (list instance nil nil nil))))
  (apply #'shared-initialize instance added-slots initargs))

(defun %update-obsolete-instance (instance)
  (let* ((class (%instance-layout instance))
         (version (%instance-version instance))
         (old-names (cdr (%cl-assq version (%class.obsolete-layouts class))))
         (fresh (%allocate-instance class (%instance-flags instance)))
         (new-names (%instance-slot-names class))
         (old-values nil))
    ;; the old storage, by name
    (let ((i 0))
      (dolist (n old-names)
        (setq old-values (cons (cons n (if (< i (%instance-length instance)) (%instance-ref instance i) +slot-unbound+))
                               old-values))
        (setq i (1+ i))))
    (%swap-instance-slots instance fresh)
    ;; FRESH now holds the old storage; INSTANCE is current with every slot unbound
    (let ((added nil) (discarded nil) (plist nil))
      (dolist (n new-names)
        (let ((old (%cl-assq n old-values)))
          (if old
              (%instance-set instance (%slot-location class n) (cdr old))
              (setq added (cons n added)))))
      (dolist (e (reverse-boot old-values))
        (if (not (%memq (car e) new-names))
            (progn (setq discarded (cons (car e) discarded))
                   (if (not (eq (cdr e) +slot-unbound+))
                       (setq plist (cons (cdr e) (cons (car e) plist)))))))
      ;; slots that became shared keep the shared value; added ones are initialized
      (update-instance-for-redefined-class instance (nreverse-boot added) (nreverse-boot discarded)
                                           (nreverse-boot plist)))
    instance))

(defgeneric make-instances-obsolete (class)
  (:documentation "Marks the existing instances of CLASS to be updated (via UPDATE-INSTANCE-FOR-REDEFINED-CLASS) when next accessed."))
(defmethod make-instances-obsolete ((class standard-class))
  (%make-instances-obsolete class (%instance-slot-names class))
  class)
(defmethod make-instances-obsolete ((class symbol))
  (make-instances-obsolete (find-class class)))

;;; ------------------------------------------------------------------
;;; CHANGE-CLASS (CLHS 7.2)

(defgeneric update-instance-for-different-class (previous current &rest initargs &key &allow-other-keys)
  (:documentation "Generic function called by CHANGE-CLASS to initialize the new slots of CURRENT; PREVIOUS is a copy with the old class and values."))
(defmethod update-instance-for-different-class ((previous standard-object) (current standard-object)
                                                &rest initargs)
  (%check-initargs-plist initargs)
  (%check-initargs (class-of current) initargs
                   (list (cons #'update-instance-for-different-class (list previous current))))
  (let ((added nil) (old-class (class-of previous)))
    (dolist (n (%instance-slot-names (class-of current)))
      (if (not (%memq n (%instance-slot-names old-class))) (setq added (cons n added))))
    (apply #'shared-initialize current (nreverse-boot added) initargs)))

(defgeneric change-class (instance new-class &rest initargs &key &allow-other-keys)
  (:documentation "Changes the class of INSTANCE to NEW-CLASS in place, keeping the values of slots both classes share, then calls UPDATE-INSTANCE-FOR-DIFFERENT-CLASS with INITARGS."))
(defmethod change-class ((instance t) (new-class symbol) &rest initargs)
  (apply #'change-class instance (find-class new-class) initargs))

(defun %change-class (instance new-class initargs)
  (%ensure-current-instance instance)
  (%ensure-finalized new-class)
  (let* ((old-class (class-of instance))
         (fresh (%allocate-instance new-class (%instance-flags instance)))
         (old-names (%instance-slot-names old-class)))
    (%swap-instance-slots instance fresh)
    ;; FRESH is now a copy of the instance as it was (its class and values)
    (dolist (n (%instance-slot-names new-class))
      (cond ((%memq n old-names)
             (let ((loc (%slot-location old-class n)))
               (%instance-set instance (%slot-location new-class n) (%instance-ref fresh loc))))
            ;; a slot the old class shares (:allocation :class) keeps its value (CLHS 7.2.1)
            ((and (slot-exists-p fresh n) (slot-boundp fresh n))
             (%instance-set instance (%slot-location new-class n) (slot-value fresh n)))))
    (%bump-epoch)
    (apply #'update-instance-for-different-class fresh instance initargs)
    instance))

(defmethod change-class ((instance standard-object) (new-class standard-class) &rest initargs)
  (%change-class instance new-class initargs))
(defmethod change-class ((instance standard-object) (new-class funcallable-standard-class) &rest initargs)
  (%change-class instance new-class initargs))

;;; ------------------------------------------------------------------
;;; WITH-SLOTS, WITH-ACCESSORS

(defmacro with-slots (slot-entries instance-form &body body)
  "Evaluates BODY with each of SLOT-ENTRIES (a slot name, or (variable slot-name)) making the variable stand for that slot of the value of INSTANCE-FORM, readable and SETF-able."
  (let ((in (gensym "INSTANCE")))
    `(let ((,in ,instance-form))
       (declare (ignorable ,in))
       (symbol-macrolet ,(%mapcar1 #'(lambda (e)
                                       (if (symbolp e)
                                           `(,e (slot-value ,in ',e))
                                           `(,(car e) (slot-value ,in ',(cadr e)))))
                                   slot-entries)
         ,@body))))

(defmacro with-accessors (slot-entries instance-form &body body)
  "Evaluates BODY with each of SLOT-ENTRIES, (variable accessor), making the variable stand for (accessor instance) on the value of INSTANCE-FORM; SETF of the variable calls the accessor's writer."
  (let ((in (gensym "INSTANCE")))
    `(let ((,in ,instance-form))
       (declare (ignorable ,in))
       (symbol-macrolet ,(%mapcar1 #'(lambda (e) `(,(car e) (,(cadr e) ,in))) slot-entries)
         ,@body))))

;;; ------------------------------------------------------------------
;;; FIND-METHOD, ADD-METHOD, REMOVE-METHOD and friends

(defun %gf-designator (gf)
  (if (%generic-function-p gf) gf (error 'type-error :datum gf :expected-type 'generic-function)))

(defun find-method (generic-function qualifiers specializers &optional (errorp t))
  "The method of GENERIC-FUNCTION with exactly QUALIFIERS and SPECIALIZERS; when there is none, signals an error if ERRORP is true, else returns NIL."
  (let* ((gf (%gf-designator generic-function))
         (nreq (%gf.nreq gf)))
    (if (not (= (%list-length specializers) nreq))
        (error 'simple-error
               :format-control "The generic function ~S takes ~D required argument~A; was asked to find a method with specializers ~S"
               :format-arguments (list gf nreq (if (= nreq 1) "" "s") specializers)))
    (let* ((specs (%mapcar1 #'%resolve-specializer specializers))
           (m (%find-method-1 gf qualifiers specs)))
      (if (and (null m) errorp)
          (error 'simple-error :format-control "There is no method on ~S with qualifiers ~S and specializers ~S."
                               :format-arguments (list gf qualifiers (%mapcar1 #'%specializer-name specs))))
      m)))

(defun add-method (generic-function method)
  "Adds METHOD to GENERIC-FUNCTION, replacing any method with the same qualifiers and specializers; returns the generic function."
  (%add-method (%gf-designator generic-function) method))

(defun remove-method (generic-function method)
  "Removes METHOD from GENERIC-FUNCTION; returns the generic function."
  (%remove-method (%gf-designator generic-function) method))

(defun function-keywords (method)
  "The keyword parameters of METHOD, and whether it accepts any keyword (&allow-other-keys)."
  (let ((info (%method-info method)))
    (values (if (eq (nth 3 info) :none) nil (nth 3 info)) (nth 4 info))))

(defun method-function (method)
  ;; a method made by MAKE-METHOD-LAMBDA (mop.lisp) keeps the function its method lambda made
  (or (%plist-get (%method.plist method) :method-function nil)
      (%method.fast-function method)
      (let ((f (%method.function method)))
        #'(lambda (args next-methods)
            (declare (ignore next-methods))
            (apply f (list method) args args)))))

;;; ------------------------------------------------------------------
;;; PRINT-OBJECT. The printer prints every instance through %PRINT-INSTANCE, which calls it.

(defvar *current-print-depth* 0) ; the printer's depth (a C variable once the printer defines it)

(defun %print-unreadable (object stream type identity body)
  (if *print-readably* (error 'print-not-readable :object object))
  (write-string "#<" stream)
  (if type
      (progn (let ((*print-circle* nil)) (prin1 (type-of object) stream))
             (if (or body identity) (write-string " " stream))))
  (if body (funcall body))
  (if identity
      (progn (if body (write-string " " stream))
             (write-string "{" stream)
             (write-string (%address-string object) stream)
             (write-string "}" stream)))
  (write-string ">" stream)
  nil)

(if (not (macro-function 'print-unreadable-object))
    (progn
      (defun %print-unreadable-object (object stream type identity body)
        (%print-unreadable object (cond ((null stream) *standard-output*) ((eq stream t) *terminal-io*) (t stream))
                           type identity body))
      (defmacro print-unreadable-object ((object stream &key type identity) &body body)
        `(%print-unreadable-object ,object ,stream ,type ,identity
                                   ,(if body `(function (lambda () ,@body)) nil)))))

(defgeneric print-object (object stream)
  (:documentation "Generic function that prints OBJECT on STREAM; the printer calls it, and methods on it define how instances of a class print."))

(defun %print-foreign-instance (object stream)
  ;; instances other layers made with %MAKE-INSTANCE: their printers, or #<INSTANCE {...}>
  (dolist (p *instance-printers*)
    (if (and (not (%class-p (%instance-layout object))) (funcall (car p) object))
        (return-from %print-foreign-instance (funcall (cdr p) object stream))))
  (if *print-readably* (error 'print-not-readable :object object))
  (write-string "#<INSTANCE" stream)
  (%write-address object stream)
  (write-string ">" stream))

(defmethod print-object ((object t) stream)
  (if (%instance-p object)
      (%print-foreign-instance object stream)
      (write object :stream stream))
  object)

(defmethod print-object ((object standard-object) stream)
  (%print-unreadable object stream t t nil)
  object)

(defmethod print-object ((object condition) stream)
  (if (and *print-readably* *print-escape*) (error 'print-not-readable :object object))
  (%print-condition-object object stream)
  object)

(defmethod print-object ((object restart) stream)
  (%print-restart object stream)
  object)

(defmethod print-object ((class class) stream)
  (%print-unreadable class stream t nil
                     #'(lambda () (%prin1-qualified (%class-name class) stream)))
  class)

(defmethod print-object ((gf generic-function) stream)
  (%print-unreadable gf stream t nil
                     #'(lambda ()
                         (%prin1-qualified (%gf.name gf) stream)
                         (write-string " (" stream)
                         (prin1 (%list-length (%gf.methods gf)) stream)
                         (write-string ")" stream)))
  gf)

(defmethod print-object ((m standard-method) stream)
  (%print-unreadable m stream t t
                     #'(lambda ()
                         (let ((gf (%method.gf m)))
                           (if gf
                               (progn (%prin1-qualified (%gf.name gf) stream)
                                      (write-string " " stream)))
                           (dolist (q (%method.qualifiers m))
                             (prin1 q stream)
                             (write-string " " stream))
                           (prin1 (%mapcar1 #'%specializer-name (%method.specializers m)) stream))))
  m)

(defmethod print-object ((s slot-definition) stream)
  (%print-unreadable s stream t nil #'(lambda () (%prin1-qualified (%slotd.name s) stream)))
  s)

(defmethod print-object ((s eql-specializer) stream)
  (%print-unreadable s stream t nil #'(lambda () (prin1 (%eqls.object s) stream)))
  s)

(defmethod print-object ((object structure-object) stream)
  (%print-structure object stream)
  object)

(defun %print-structure (object stream)
  ;; #S(NAME :SLOT value ...), with *PRINT-LEVEL* and *PRINT-LENGTH*
  (let ((depth (if (integerp *current-print-depth*) *current-print-depth* 0)))
    (if (and *print-level* (not *print-readably*) (>= depth *print-level*))
        (write-string "#" stream)
        (let ((class (%instance-layout object)) (n 0))
          (write-string "#S(" stream)
          (prin1 (%class-name class) stream)
          (let ((*current-print-depth* (1+ depth)))
            (dolist (s (%class-effective-slots class))
              (if (and *print-length* (not *print-readably*) (>= n *print-length*))
                  (progn (write-string " ..." stream) (return)))
              (write-string " " stream)
              (prin1 (intern (symbol-name (%slot-definition-name s)) "KEYWORD") stream)
              (write-string " " stream)
              (let ((v (%instance-ref object (%slot-definition-location s))))
                (cond ((eq v +slot-unbound+) (write-string "#<unbound>" stream))
                      (*print-escape* (prin1 v stream))
                      (t (princ v stream))))
              (setq n (1+ n))))
          (write-string ")" stream)))))

(defun %print-instance (object stream)
  (print-object object stream))

;;; ------------------------------------------------------------------
;;; DESCRIBE (CLHS 25.1.4). DESCRIBE calls DESCRIBE-OBJECT; the method on T shows built-in
;;; objects with the DESCRIBE defined before this file when there is one (macros.lisp).

(defgeneric describe-object (object stream)
  (:documentation "Generic function called by DESCRIBE to print the description of OBJECT on STREAM; define methods on it for your own classes."))

(defvar *describe-built-in* (if (fboundp 'describe) (fdefinition 'describe) nil))

(defun describe (object &optional stream)
  "Prints a description of OBJECT (its type, value, documentation and parts) to STREAM, default *STANDARD-OUTPUT*. Returns no values."
  (let ((stream (cond ((null stream) *standard-output*) ((eq stream t) *terminal-io*) (t stream))))
    (fresh-line stream)
    (describe-object object stream)
    (values)))

(defun %clos-pad-right (string width stream)
  (let ((n 0))
    (write-string string stream)
    (tagbody
     count
       (if (null (ignore-errors (char string n))) (go pad))
       (setq n (1+ n))
       (go count)
     pad
       (if (>= n width) (go end))
       (write-string " " stream)
       (setq n (1+ n))
       (go pad)
     end)))

(defun %clos-describe-header (object stream kind)
  (prin1 object stream)
  (terpri stream)
  (write-string "  [" stream)
  (write-string kind stream)
  (write-string "]" stream)
  (terpri stream))

(defun %describe-slots (object stream)
  (let ((class (class-of object)) (instance-slots nil) (class-slots nil))
    (dolist (s (%class-effective-slots class))
      (if (consp (%slot-definition-location s))
          (setq class-slots (cons s class-slots))
          (setq instance-slots (cons s instance-slots))))
    (terpri stream)
    (flet ((show (title slots)
             (if slots
                 (progn
                   (write-string title stream)
                   (terpri stream)
                   (dolist (s (nreverse-boot slots))
                     (let ((name (%slot-definition-name s)))
                       (write-string "  " stream)
                       (%clos-pad-right (let ((*package* (find-package "KEYWORD"))) (princ-to-string name))
                                        31 stream)
                       (write-string "= " stream)
                       (if (slot-boundp object name)
                           (prin1 (slot-value object name) stream)
                           (write-string "#<unbound slot>" stream))
                       (terpri stream)))))))
      (show "Slots with :CLASS allocation:" class-slots)
      (show "Slots with :INSTANCE allocation:" instance-slots))))

(defmethod describe-object ((object t) stream)
  (if *describe-built-in*
      (funcall *describe-built-in* object stream)
      (%clos-describe-header object stream
                             (string-downcase (let ((*package* (find-package "KEYWORD")))
                                                (princ-to-string (let ((ty (type-of object)))
                                                                   (if (consp ty) (car ty) ty)))))))
  (values))

(defmethod describe-object ((object standard-object) stream)
  (%clos-describe-header object stream "standard-object")
  (%describe-slots object stream)
  (values))

(defmethod describe-object ((object structure-object) stream)
  (%clos-describe-header object stream "structure-object")
  (%describe-slots object stream)
  (values))

(defmethod describe-object ((object condition) stream)
  (%clos-describe-header object stream "condition")
  (%describe-slots object stream)
  (values))

(defun %class-names-string (classes)
  (let ((s (make-string-output-stream)) (first t))
    (dolist (c classes)
      (if (not first) (write-string ", " s))
      (setq first nil)
      (prin1 (%class-name c) s))
    (get-output-stream-string s)))

(defmethod describe-object ((class class) stream)
  (%clos-describe-header class stream "standard-object")
  (terpri stream)
  (let ((doc (%class.documentation class)))
    (if doc (format stream "Documentation:~%  ~A~%" doc)))
  (if (%class-finalized-p class)
      (format stream "Class precedence-list: ~A~%" (%class-names-string (%class-cpl class))))
  (if (%class-direct-superclasses class)
      (format stream "Direct superclasses: ~A~%" (%class-names-string (%class-direct-superclasses class))))
  (if (%class-direct-subclasses class)
      (format stream "Direct subclasses: ~A~%" (%class-names-string (%class-direct-subclasses class)))
      (format stream "No subclasses.~%"))
  (if (%class-direct-slots class)
      (progn
        (format stream "Direct slots:~%")
        (dolist (s (%class-direct-slots class))
          (format stream "  ~S~%" (%slot-definition-name s))
          (if (%slot-definition-initargs s)
              (format stream "    Initargs: ~A~%" (%class-names-string-of (%slot-definition-initargs s))))
          (if (%slot-definition-initfunction s)
              (format stream "    Initform: ~S~%" (%slotd.initform s)))
          (if (%slotd.readers s)
              (format stream "    Readers: ~A~%" (%class-names-string-of (%slotd.readers s))))
          (if (%slotd.writers s)
              (format stream "    Writers: ~A~%" (%class-names-string-of (%slotd.writers s))))))
      (format stream "No direct slots.~%"))
  (values))

(defun %class-names-string-of (objects)
  (let ((s (make-string-output-stream)) (first t))
    (dolist (o objects)
      (if (not first) (write-string ", " s))
      (setq first nil)
      (prin1 o s))
    (get-output-stream-string s)))

(defmethod describe-object ((gf generic-function) stream)
  (%clos-describe-header gf stream "generic-function")
  (terpri stream)
  (let ((doc (%gf.documentation gf)))
    (if doc (format stream "Documentation:~%  ~A~%" doc)))
  (format stream "Lambda-list: ~S~%" (%gf.lambda-list gf))
  (format stream "Method-combination: ~A~%" (car (%gf.method-combination gf)))
  (if (%gf.methods gf)
      (progn
        (format stream "Methods:~%")
        (dolist (m (reverse-boot (%gf.methods gf)))
          (format stream "  ~S~%" (append (list (%gf.name gf)) (%method.qualifiers m)
                                          (list (%mapcar1 #'%specializer-name (%method.specializers m)))))))
      (format stream "No methods.~%"))
  (values))

;;; ------------------------------------------------------------------
;;; The session: what a reset restores, and what LIST-DEFINITIONS shows

(defun %clos-snapshot ()
  ;; the boot state of every class's subclass and method lists, of every generic function's
  ;; methods, and of the EQL specializers; the restorer puts them back
  (let ((classes nil) (gfs nil) (eqls (%hash-table-entries *eql-specializers*))
        (boot-gfs *generic-functions*))
    (maphash #'(lambda (name c)
                 (declare (ignore name))
                 (setq classes (cons (list c (%class.direct-subclasses c) (%class.direct-methods c)) classes)))
             *class-table*)
    (dolist (gf *generic-functions*)
      (setq gfs (cons (list gf (%gf.methods gf) (%gf.initial-methods gf)) gfs)))
    (setq eqls (%mapcar1 #'(lambda (e) (list (car e) (cdr e) (%eqls.direct-methods (cdr e)))) eqls))
    ;; what the session did not change is only compared: a reset after a few definitions touches
    ;; the classes and generic functions they changed
    #'(lambda ()
        (dolist (c classes)
          (let ((class (car c)))
            (unless (and (eq (%class.direct-subclasses class) (cadr c))
                         (eq (%class.direct-methods class) (caddr c))
                         (null (%class.initargs-cache class)))
              (%set-class.direct-subclasses class (cadr c))
              (%set-class.direct-methods class (caddr c))
              (%set-class.initargs-cache class nil))))
        (dolist (g gfs)
          (let ((gf (car g)))
            (if (and (eq (%gf.methods gf) (cadr g)) (eq (%gf.initial-methods gf) (caddr g)))
                ;; the epoch goes back with the reset, so a cache may carry the stamp it will have:
                ;; emptied, it keeps no class of the session either
                (if (%gf.cache gf) (%set-gf.cache gf nil))
                (progn
                  (%set-gf.methods gf (cadr g))
                  (%set-gf.initial-methods gf (caddr g))
                  (%update-gf-dispatch gf)))))
        (clrhash *eql-specializers*)
        (dolist (e eqls)
          (setf (gethash (car e) *eql-specializers*) (cadr e))
          (%set-eqls.direct-methods (cadr e) (caddr e)))
        (setq *generic-functions* boot-gfs)
        (setq *initargs-epoch* (1+ *initargs-epoch*))
        (%bump-epoch))))

(defun %method-detail (m)
  (let ((s (make-string-output-stream)))
    (dolist (q (%method.qualifiers m)) (prin1 q s) (write-string " " s))
    ;; no specializers (a method of no arguments) reads as (), as SBCL prints the method
    (let ((specs (%mapcar1 #'%specializer-name (%method.specializers m))))
      (if specs (prin1 specs s) (write-string "()" s)))
    (get-output-stream-string s)))

(defun %clos-definitions (sym)
  ;; entries (kind detail &optional name) for LIST-DEFINITIONS: the class or structure SYM
  ;; names, the methods of the generic function SYM names, and the methods of other generic
  ;; functions specialised on the class SYM names
  (let ((entries nil) (c (gethash sym *class-table*)))
    (if c
        (setq entries (cons (list (if (eq (%class-kind c) :structure) :structure :class) "") entries)))
    (if (and (fboundp sym) (%generic-function-p (fdefinition sym)))
        (dolist (m (reverse-boot (%gf.methods (fdefinition sym))))
          (setq entries (cons (list :method (%method-detail m)) entries))))
    (if (and (fboundp (list 'setf sym)) (%generic-function-p (fdefinition (list 'setf sym))))
        (dolist (m (reverse-boot (%gf.methods (fdefinition (list 'setf sym)))))
          (setq entries (cons (list :method (%method-detail m) (list 'setf sym)) entries))))
    (if c
        (dolist (m (reverse-boot (%class.direct-methods c)))
          (let* ((gf (%method.gf m)) (name (and gf (%gf.name gf)))
                 (base (if (consp name) (cadr name) name)))
            (if (and gf (symbolp base) (not (eq base sym))
                     (or (null (symbol-package base)) (%boot-symbol-p base)))
                (setq entries (cons (list :method (%method-detail m) name) entries))))))
    (nreverse-boot entries)))

;;; ------------------------------------------------------------------
;;; MAKE-LOAD-FORM, INVALID-METHOD-ERROR, METHOD-COMBINATION-ERROR

(defgeneric make-load-form (object &optional environment)
  (:documentation "Generic function returning forms that recreate OBJECT when a compiled file is loaded: a creation form and an optional initialization form."))

(defun %no-load-form (object)
  (error 'simple-error :format-control "don't know how to dump ~S (default MAKE-LOAD-FORM method called)."
                       :format-arguments (list object)))

(defmethod make-load-form ((object standard-object) &optional environment)
  (declare (ignore environment))
  (%no-load-form object))
(defmethod make-load-form ((object structure-object) &optional environment)
  (declare (ignore environment))
  (%no-load-form object))
(defmethod make-load-form ((object condition) &optional environment)
  (declare (ignore environment))
  (%no-load-form object))
(defmethod make-load-form ((class class) &optional environment)
  (declare (ignore environment))
  (let ((name (%class-name class)))
    (if (and name (eq (find-class name nil) class))
        `(find-class ',name)
        (error 'simple-error :format-control "Can't use anonymous or undefined class as constant: ~S"
                             :format-arguments (list class)))))

(defun make-load-form-saving-slots (object &key (slot-names nil slot-names-p) environment)
  "Creation and initialization forms for MAKE-LOAD-FORM that rebuild OBJECT with the same values in SLOT-NAMES (default all slots)."
  (declare (ignore environment))
  (let* ((class (class-of object))
         (names (if slot-names-p slot-names (%mapcar1 #'%slot-definition-name (%class-effective-slots class))))
         (sets nil))
    (dolist (n names)
      (if (slot-boundp object n)
          (setq sets (cons `(setf (slot-value ,object ',n) ',(slot-value object n)) sets))
          (setq sets (cons `(slot-makunbound ,object ',n) sets))))
    (values `(allocate-instance (find-class ',(%class-name class)))
            `(progn ,@(nreverse-boot sets)))))

(defun invalid-method-error (method format-control &rest args)
  "Signals an error about METHOD being unsuitable for its method combination; the message is FORMAT-CONTROL applied to ARGS."
  (error 'simple-error
         :format-control "invalid method error for ~S:~%~?"
         :format-arguments (list method format-control args)))

(defun method-combination-error (format-control &rest args)
  "Signals an error about the method combination; the message is FORMAT-CONTROL applied to ARGS."
  (error 'simple-error
         :format-control "method combination error in CLOS dispatch:~%~?"
         :format-arguments (list format-control args)))

;;; DOCUMENTATION and (SETF DOCUMENTATION) are generic functions (CLHS 25.2): methods and classes
;;; keep their documentation in a slot, everything else as macros.lisp says.

(defun %class-documentation (class)
  ;; the classes of CL's built-in types keep theirs in a C table (runtime/docs.c)
  (or (%class.documentation class)
      (let ((name (%class.name class)))
        (if (and name (symbolp name) (eq (find-class name nil) class))
            (sys::%builtin-documentation name 'type)))))

(fmakunbound 'documentation)
(fmakunbound '(setf documentation))
(defgeneric documentation (x doc-type)
  (:documentation "The documentation string of X for the kind DOC-TYPE (FUNCTION, VARIABLE, TYPE, STRUCTURE, SETF, COMPILER-MACRO, METHOD-COMBINATION, T), or NIL; SETF-able."))
(defgeneric (setf documentation) (new-value x doc-type))
(defmethod documentation ((x t) doc-type) (%documentation-1 x doc-type))
(defmethod (setf documentation) (new-value (x t) doc-type) (%set-documentation-1 new-value x doc-type))
(defmethod documentation ((x standard-method) (doc-type (eql t))) (%method.documentation x))
(defmethod (setf documentation) (new-value (x standard-method) (doc-type (eql t)))
  (%set-method.documentation x new-value)
  new-value)
(defmethod documentation ((x class) (doc-type (eql t))) (%class-documentation x))
(defmethod documentation ((x class) (doc-type (eql 'type))) (%class-documentation x))
(defmethod documentation ((x generic-function) (doc-type (eql t)))
  ;; CL's own generic functions keep their docstrings in a C table (runtime/docs.c)
  (or (%documentation-1 x t)
      (let ((name (%gf.name x)))
        (if (and name (symbolp name)) (sys::%builtin-documentation name 'function)))))
(defmethod (setf documentation) (new-value (x class) (doc-type (eql t)))
  (%set-class.documentation x new-value)
  new-value)
(defmethod (setf documentation) (new-value (x class) (doc-type (eql 'type)))
  (%set-class.documentation x new-value)
  new-value)

;;; ADD-METHOD, REMOVE-METHOD, FIND-METHOD, COMPUTE-APPLICABLE-METHODS, METHOD-QUALIFIERS and
;;; FUNCTION-KEYWORDS are standard generic functions (CLHS 7.7). Each gets one method, on T so
;;; that bad arguments meet the same checks as before, which calls the function defined above.
(setf (symbol-function '%std-add-method) #'add-method
      (symbol-function '%std-remove-method) #'remove-method
      (symbol-function '%std-find-method) #'find-method
      (symbol-function '%std-compute-applicable-methods) #'compute-applicable-methods
      (symbol-function '%std-method-qualifiers) #'method-qualifiers
      (symbol-function '%std-function-keywords) #'function-keywords)
(dolist (f '(add-method remove-method find-method compute-applicable-methods method-qualifiers function-keywords))
  (fmakunbound f))
(defgeneric add-method (generic-function method))
(defmethod add-method ((generic-function t) (method t)) (%std-add-method generic-function method))
(defgeneric remove-method (generic-function method))
(defmethod remove-method ((generic-function t) (method t)) (%std-remove-method generic-function method))
(defgeneric find-method (generic-function qualifiers specializers &optional errorp))
(defmethod find-method ((generic-function t) qualifiers specializers &optional (errorp t))
  (%std-find-method generic-function qualifiers specializers errorp))
(defgeneric compute-applicable-methods (generic-function arguments))
(defmethod compute-applicable-methods ((generic-function t) arguments)
  (%std-compute-applicable-methods generic-function arguments))
(defgeneric method-qualifiers (method))
(defmethod method-qualifiers ((method t)) (%std-method-qualifiers method))
(defgeneric function-keywords (method))
(defmethod function-keywords ((method t)) (%std-function-keywords method))

;;; From here on, DEFINE-CONDITION's :reader, :writer and :accessor define methods on generic
;;; functions specialised on the condition class, as in SBCL: a library can then use the same
;;; name as an accessor of a class and of a condition, or add methods of its own.
(defun %define-condition-accessor (fname class-name slot kind)
  (%add-accessor-method fname (find-class class-name) slot kind)
  fname)
