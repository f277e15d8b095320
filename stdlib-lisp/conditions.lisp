;;;; conditions.lisp: the condition system (CLHS chapter 9): condition classes, signalling, handlers, restarts.
;;;; Loaded right after boot.lisp, so it uses only boot macros and C primitives; its small list
;;;; helpers carry a % prefix. Once %SIGNAL-ERROR is defined, C-signalled errors come through here.

(in-package "SYSTEM")

;;; ------------------------------------------------------------------
;;; Small helpers (the full list library loads later)

(defun %mapcar1 (fn list)
  (let ((r nil))
    (dolist (x list) (setq r (cons (funcall fn x) r)))
    (nreverse-boot r)))

(defun %memq (x list)
  (tagbody
   top
     (if (null list) (return-from %memq nil))
     (if (eq x (car list)) (return-from %memq list))
     (setq list (cdr list))
     (go top)))

(defun %plist-get (plist key default)
  (tagbody
   top
     (if (null plist) (return-from %plist-get default))
     (if (eq (car plist) key) (return-from %plist-get (cadr plist)))
     (setq plist (cddr plist))
     (go top)))

(defun %list-length (list)
  (let ((n 0)) (dolist (x list) (declare (ignore x)) (setq n (1+ n))) n))

;;; ------------------------------------------------------------------
;;; Classes. Every class (the condition classes made here, and the standard, structure and
;;; built-in classes clos.lisp makes) is an instance flagged as a class metaobject. Its slots, and
;;; those of slot definitions, generic functions, methods, EQL specializers and restarts, are
;;; declared in runtime/lisp-abi.def; the build turns it into the accessor macros used here,
;;; (%class.name c), (%set-class.name c value), (%slotd.location s), ... (build/lisp-abi.lisp).
;;; A default initarg is a list (key form function).
;;; The metaclasses (CONDITION-CLASS, STANDARD-CLASS, ...) come with clos.lisp, which then
;;; gives the objects made here their classes.

(defvar *class-table* (make-hash-table :test 'eq)
  "Every named class: symbol -> class metaobject.")
(defvar *condition-classes* *class-table*) ; the older name of the same table

(defun %class-p (x) (%class-object-p x))
(defun %class-name (c) (%class.name c))
(defun %class-direct-superclasses (c) (%class.direct-supers c))
(defun %class-cpl (c) (%class.cpl c))
(defun %class-direct-slots (c) (%class.direct-slots c))
(defun %class-effective-slots (c) (%class.slots c))
(defun %class-direct-default-initargs (c) (%class.direct-default-initargs c))
(defun %class-default-initargs (c) (%class.default-initargs c))
(defun %class-kind (c) (%class.kind c))
(defun %class-direct-subclasses (c) (%class.direct-subclasses c))
(defun %class-plist (c) (%class.plist c))
(defun %class-report (c) (%plist-get (%class.plist c) :report nil))

(defun %make-class-object (name kind)
  (let ((c (%make-instance nil (%class.nslots) (%flag.class))))
    (%set-class.name c name)
    (let ((i 1))
      (tagbody
       top
         (if (>= i (%class.nslots)) (go end))
         (%instance-set c i nil)
         (setq i (1+ i))
         (go top)
       end))
    (%set-class.kind c kind)
    (%set-class.version c 0)
    (%set-class.instance-size c 0)
    c))

(defvar *class-finalizer* nil) ; mop-protocols.lisp: finalizes a class of a program's metaclass
                              ; through the MOP's generic functions and returns true, else NIL
(defvar *generic-finalization-p* nil) ; mop-protocols.lisp: whether a method of the program's on
                                     ; FINALIZE-INHERITANCE applies to a class, which is then
                                     ; finalized by calling it
(defvar *direct-slot-definition-class* nil)    ; the classes clos.lisp gives slot definitions
(defvar *effective-slot-definition-class* nil)
(defvar *condition-metaclass* nil)

(defun %make-slot-definition (name initargs initform initfunction readers writers allocation type doc)
  (let ((s (%make-instance *direct-slot-definition-class* (%slotd.nslots))))
    (%set-slotd.name s name)
    (%set-slotd.initargs s initargs)
    (%set-slotd.initform s initform)
    (%set-slotd.initfunction s initfunction)
    (%set-slotd.readers s readers)
    (%set-slotd.writers s writers)
    (%set-slotd.allocation s allocation)
    (%set-slotd.type s type)
    (%set-slotd.documentation s doc)
    (%set-slotd.location s nil)
    (%set-slotd.read-only s nil)
    s))

(defun %slot-definition-name (s) (%slotd.name s))
(defun %slot-definition-initargs (s) (%slotd.initargs s))
(defun %slot-definition-initfunction (s) (%slotd.initfunction s))
(defun %slot-definition-allocation (s) (%slotd.allocation s))
(defun %slot-definition-location (s) (%slotd.location s))

(defun %find-class-named (name)
  (gethash name *class-table*))

(defun %find-condition-class (name &optional (errorp t))
  (let ((c (gethash name *class-table*)))
    (if (and c (not (eq (%class-kind c) :condition))) (setq c nil))
    (if (and (null c) errorp)
        (error 'simple-type-error :datum name :expected-type '(satisfies condition-type-p)
                                  :format-control "~S is not a condition type."
                                  :format-arguments (list name)))
    c))

(defun reverse-boot (list)
  (let ((r nil)) (dolist (x list) (setq r (cons x r))) r))

(defun %remove-eq (x list)
  (let ((r nil)) (dolist (y list) (if (not (eq x y)) (setq r (cons y r)))) (nreverse-boot r)))

;;; The class precedence list (CLHS 4.3.5): a topological sort of the classes and their local
;;; precedence orders; among the classes free to come next, the one with a direct subclass
;;; rightmost in the list so far wins.
(defun %compute-cpl (class)
  ;; the order itself is computed by %CPL-ORDER (runtime/clos-cpl.c)
  (multiple-value-bind (cpl remaining) (%cpl-order class)
    (if remaining
        (error 'simple-error
               :format-control "Inconsistent precedence lists for the superclasses of ~S: ~S"
               :format-arguments (list (%class-name class) (%mapcar1 #'%class-name remaining)))
        cpl)))

;;; Effective slots (CLHS 7.5.3): one per name, in the order SBCL gives them (the least
;;; specific classes' slots first); the most specific definition gives the allocation, the
;;; initform and the documentation, the initargs accumulate. Instance slots get consecutive
;;; indices; a class slot shares the cell of the class that defines it.
;; %COMPUTE-SLOTS (runtime/clos-finalize.c): (class) -> the effective slot definitions and the
;; number of instance slots

(defun %compute-default-initargs (class)
  (let ((result nil) (keys nil))
    (dolist (c (%class-cpl class))
      (dolist (d (%class-direct-default-initargs c))
        (if (not (%memq (car d) keys))
            (progn (setq keys (cons (car d) keys))
                   (setq result (cons d result))))))
    (nreverse-boot result)))

(defun %instance-slot-names (class)
  (let ((r nil))
    (dolist (s (%class-effective-slots class))
      (if (integerp (%slot-definition-location s)) (setq r (cons (%slot-definition-name s) r))))
    (nreverse-boot r)))

(defun %class-forward-p (class)
  (dolist (c (%class-cpl class) nil)
    (if (eq (%class-kind c) :forward) (return-from %class-forward-p t))))

(defun %equal-names (a b)
  (tagbody
   top
     (if (and (null a) (null b)) (return-from %equal-names t))
     (if (or (null a) (null b) (not (eq (car a) (car b)))) (return-from %equal-names nil))
     (setq a (cdr a) b (cdr b))
     (go top)))

;;; Compute the precedence list, slots and default initargs of CLASS and of its subclasses.
;;; A class whose instance slots change gets a new version: its existing instances are
;;; brought up to date when next touched.
(defun %finalize-class (class)
  (let ((old-names (if (%class.finalized class) (%instance-slot-names class) :none)))
    (if (dolist (s (%class-direct-superclasses class) nil)
          (if (or (eq (%class-kind s) :forward) (not (%class.finalized s))) (return t)))
        (%set-class.finalized class nil)
        (progn
          (if (not (and *class-finalizer* (funcall *class-finalizer* class)))
              (progn
                (%set-class.cpl class (%compute-cpl class))
                (multiple-value-bind (slots size) (%compute-slots class)
                  (%set-class.slots class slots)
                  (%set-class.instance-size class size))
                (%set-class.default-initargs class (%compute-default-initargs class))))
          (%set-class.initargs-cache class nil)
          (%set-class.finalized class t)
          (if (and (not (eq old-names :none))
                   (not (%equal-names old-names (%instance-slot-names class))))
              (%make-instances-obsolete class old-names)))))
  (dolist (sub (%class-direct-subclasses class))
    ;; a subclass now finalizable, to which a program's method on FINALIZE-INHERITANCE applies,
    ;; is finalized by calling it
    (if (and *generic-finalization-p* (not (%class.finalized sub)) (%finalizable-p sub)
             (funcall *generic-finalization-p* sub))
        (finalize-inheritance sub)
        (%finalize-class sub)))
  class)

(defun %finalizable-p (class)
  ;; whether the direct superclasses of CLASS are all defined and finalized
  (dolist (s (%class-direct-superclasses class) t)
    (if (or (eq (%class-kind s) :forward) (not (%class.finalized s))) (return nil))))

(defun %make-instances-obsolete (class old-names)
  (let ((v (%class.version class)))
    (%set-class.obsolete-layouts class (cons (cons v old-names) (%class.obsolete-layouts class)))
    (%set-class.version class (1+ v))))

(defun %set-direct-superclasses (class supers)
  (dolist (old (%class-direct-superclasses class))
    (%set-class.direct-subclasses old (%remove-eq class (%class.direct-subclasses old))))
  (%set-class.direct-supers class supers)
  (dolist (s supers)
    (if (not (%memq class (%class.direct-subclasses s)))
        (%set-class.direct-subclasses s (append (%class.direct-subclasses s) (list class))))))

(defun %ensure-condition-class (name supers slot-defs default-initargs report doc)
  (if (fboundp '%check-definition-lock) (%check-definition-lock name))
  (if (and doc (fboundp '%set-documentation)) (%set-documentation name 'type doc))
  (let ((c (gethash name *class-table*)))
    (if (or (null c) (not (eq (%class-kind c) :condition)))
        (progn (setq c (%make-class-object name :condition))
               (%set-instance-layout c *condition-metaclass*)))
    (%set-class.direct-slots c slot-defs)
    (%set-class.direct-default-initargs c default-initargs)
    (%set-class.documentation c doc)
    (%set-class.plist c (if report (list :report report) nil))
    (%set-direct-superclasses c (%mapcar1 #'%find-condition-class supers))
    (setf (gethash name *class-table*) c)
    (%finalize-class c)
    c))

(defun %subclassp (class super) (if (%memq super (%class-cpl class)) t nil))

(defun condition-type-p (name)
  (let ((c (gethash name *class-table*)))
    (and c (eq (%class-kind c) :condition))))

(defun %conditionp (x)
  (and (%instance-p x) (%class-p (%instance-layout x))
       (eq (%class-kind (%instance-layout x)) :condition)))

;;; ------------------------------------------------------------------
;;; Making conditions and reading their slots

(defun %condition-slot-value (c slot)
  (if (not (%conditionp c))
      (error 'simple-type-error :datum c :expected-type 'condition
                                :format-control "The value ~S is not of type ~S."
                                :format-arguments (list c 'condition)))
  (slot-value c slot))

(defun %set-condition-slot-value (c slot value)
  (if (not (%conditionp c))
      (error 'simple-type-error :datum c :expected-type 'condition
                                :format-control "The value ~S is not of type ~S."
                                :format-arguments (list c 'condition)))
  (setf (slot-value c slot) value))

(defun %initialize-slots-from-initargs (object class initargs)
  ;; every effective slot: the leftmost of its initargs in the call, else its initform when unbound
  (dolist (s (%class-effective-slots class))
    (let ((found '%none) (loc (%slot-definition-location s)) (keys (%slot-definition-initargs s)))
      (if keys
          (do ((p initargs (cddr p))) ((or (atom p) (not (eq found '%none))))
            (if (%memq (car p) keys) (setq found (cadr p)))))
      (cond ((not (eq found '%none))
             (if (consp loc) (rplacd loc found) (%instance-set object loc found)))
            ((%slot-definition-initfunction s)
             (if (consp loc)
                 (if (eq (cdr loc) +slot-unbound+)
                     (rplacd loc (funcall (%slot-definition-initfunction s))))
                 (if (not (%instance-boundp object loc))
                     (%instance-set object loc (funcall (%slot-definition-initfunction s))))))))))

(defun %add-default-initargs (class initargs)
  (let ((all initargs) (extra nil))
    (dolist (d (%class-default-initargs class))
      (if (eq (%plist-get all (car d) '%none) '%none)
          (setq extra (cons (funcall (caddr d)) (cons (car d) extra)))))
    (if extra (append initargs (nreverse-boot extra)) initargs)))

(defun make-condition (type &rest initargs)
  "A new condition of TYPE with its slots filled from INITARGS, without signalling it."
  (let ((class (if (%class-p type) type (gethash type *class-table*))))
    (if (or (null class) (not (eq (%class-kind class) :condition)))
        (error 'simple-type-error :datum type :expected-type '(satisfies condition-type-p)
                                  :format-control "~S is not a condition type." :format-arguments (list type)))
    (let ((c (%allocate-instance class (%flag.condition))))
      (%initialize-slots-from-initargs c class (%add-default-initargs class initargs))
      c)))

;;; ------------------------------------------------------------------
;;; DEFINE-CONDITION

(defun %parse-slot-spec (spec)
  ;; -> a form that makes the direct slot definition, and the readers and writers
  (if (symbolp spec)
      (list `(%make-slot-definition ',spec nil nil nil nil nil :instance t nil) nil nil spec)
      (let ((name (car spec)) (options (cdr spec))
            (initargs nil) (initform nil) (initfunction nil) (readers nil) (writers nil)
            (allocation :instance) (type t) (doc nil))
        (tagbody
         top
           (if (null options) (go end))
           (let ((k (car options)) (v (cadr options)))
             (cond ((eq k :initarg) (setq initargs (append initargs (list v))))
                   ((eq k :initform) (setq initform v)
                                     (setq initfunction (list 'function (list 'lambda nil v))))
                   ((eq k :reader) (setq readers (append readers (list v))))
                   ((eq k :writer) (setq writers (append writers (list v))))
                   ((eq k :accessor) (setq readers (append readers (list v)))
                                     (setq writers (append writers (list (list 'setf v)))))
                   ((eq k :allocation) (setq allocation v))
                   ((eq k :type) (setq type v))
                   ((eq k :documentation) (setq doc v))))
           (setq options (cddr options))
           (go top)
         end)
        (list `(%make-slot-definition ',name ',initargs ',initform ,initfunction ',readers ',writers
                                      ',allocation ',type ',doc)
              readers writers name))))

(defun %parse-default-initargs (plist)
  (let ((forms nil))
    (tagbody
     top
       (if (null plist) (go end))
       (setq forms (cons `(list ',(car plist) ',(cadr plist) (function (lambda () ,(cadr plist)))) forms))
       (setq plist (cddr plist))
       (go top)
     end)
    (cons 'list (nreverse-boot forms))))

(defun %define-condition-accessor (fname class-name slot kind)
  ;; before CLOS boots, readers and writers are plain functions; clos.lisp redefines this so
  ;; that they are methods on generic functions, as in SBCL (a library may add its own methods)
  (declare (ignore class-name))
  (setf (fdefinition fname)
        (if (eq kind :reader)
            #'(lambda (condition) (%condition-slot-value condition slot))
            #'(lambda (value condition) (%set-condition-slot-value condition slot value))))
  fname)

(defmacro define-condition (name parent-types slot-specs &rest options)
  "Defines the condition type NAME with PARENT-TYPES and slots SLOT-SPECS (with :initarg, :initform, :reader...); OPTIONS include :report (a string or function printing the condition) and :documentation."
  (let ((parsed (%mapcar1 #'%parse-slot-spec slot-specs))
        (report nil) (default-initargs nil) (doc nil))
    (dolist (o options)
      (cond ((eq (car o) :report)
             (let ((r (cadr o)))
               (setq report (if (stringp r)
                                `(function (lambda (c s) (declare (ignore c)) (write-string ,r s)))
                                `(function ,r)))))
            ((eq (car o) :default-initargs)
             (setq default-initargs (%parse-default-initargs (cdr o))))
            ((eq (car o) :documentation) (setq doc (cadr o)))))
    ;; COMPILE-FILE defines the condition type at compile time too, for the rest of the file
    ;; (CLHS DEFINE-CONDITION: a type name and a parent of later definitions)
    `(eval-when (:compile-toplevel :load-toplevel :execute)
       (sys::%check-type-name-free ',name)
       (%ensure-condition-class
        ',name ',(or parent-types (if (eq name 'condition) nil '(condition)))
        (list ,@(%mapcar1 #'car parsed))
        ,default-initargs ,report ,doc)
       ,@(let ((defs nil))
           (dolist (p parsed)
             (dolist (r (nth 1 p))
               (setq defs (cons `(%define-condition-accessor ',r ',name ',(nth 3 p) :reader) defs)))
             (dolist (w (nth 2 p))
               (setq defs (cons `(%define-condition-accessor ',w ',name ',(nth 3 p) :writer) defs))))
           (nreverse-boot defs))
       (%note-definition 'define-condition ',name)
       ',name)))

;;; ------------------------------------------------------------------
;;; Printing and reporting

(defun %report-condition (c stream)
  (dolist (k (%class-cpl (%instance-layout c)))
    (let ((r (%class-report k)))
      (if r (return-from %report-condition (funcall r c stream)))))
  (format stream "Condition ~S was signalled." (%class-name (%instance-layout c))))

(defun %write-address (object stream)
  (write-string " {" stream)
  (write-string (%address-string object) stream)
  (write-string "}" stream))

(defun %print-condition-object (c stream)
  (if *print-escape*
      (progn
        (write-string "#<" stream)
        (prin1 (%class-name (%instance-layout c)) stream)
        (let ((loc (%slot-location (%instance-layout c) 'format-control)))
          (if (and (integerp loc) (%instance-boundp c loc))
              (progn (write-string " " stream)
                     (prin1 (%instance-ref c loc) stream))))
        (%write-address c stream)
        (write-string ">" stream))
      (%report-condition c stream)))

;;; Printers and type hooks for instances that are not CLOS objects (clos.lisp prints its
;;; objects with PRINT-OBJECT); other layers add entries.
(defvar *instance-printers* nil)     ; list of (predicate . printer)
(defvar *instance-typep-hooks* nil)  ; list of functions (object type) -> :unknown, t or nil
(defvar *instance-type-of-hooks* nil) ; list of functions (object) -> type or nil

(defun %print-instance (object stream)
  (dolist (p *instance-printers*)
    (if (funcall (car p) object) (return-from %print-instance (funcall (cdr p) object stream))))
  (write-string "#<INSTANCE" stream)
  (%write-address object stream)
  (write-string ">" stream))

(defun %instance-typep (object type)
  (let ((class (if (%class-p type) type (gethash type *class-table*))))
    (if class
        (%class-typep object class)
        (progn
          (dolist (h *instance-typep-hooks*)
            (let ((r (funcall h object type)))
              (if (not (eq r :unknown)) (return-from %instance-typep r))))
          nil))))

(defun %instance-type-of (object)
  (let ((layout (%instance-layout object)))
    ;; the class's name when that still names it, else the class itself (CLHS TYPE-OF)
    (if (%class-p layout)
        (return-from %instance-type-of
          (let ((name (%class-name layout)))
            (if (and name (symbolp name) (eq (gethash name *class-table*) layout)) name layout)))))
  (dolist (h *instance-type-of-hooks*)
    (let ((r (funcall h object)))
      (if r (return-from %instance-type-of r))))
  (if (%class-p object) 'condition-class 'standard-object))

(setq *instance-printers*
      (list (cons #'(lambda (x) (%class-p (%instance-layout x)))
                  #'(lambda (x s)
                      (let ((class (%instance-layout x)))
                        (cond ((eq (%class-name class) 'restart) (%print-restart x s))
                              ((eq (%class-kind class) :condition) (%print-condition-object x s))
                              (t (write-string "#<" s)
                                 (prin1 (%class-name class) s)
                                 (%write-address x s)
                                 (write-string ">" s))))))
            (cons #'%class-p
                  #'(lambda (x s)
                      (write-string "#<CONDITION-CLASS " s)
                      (prin1 (%class-name x) s)
                      (write-string ">" s)))))

;;; ------------------------------------------------------------------
;;; Handlers

(defvar *handler-clusters* nil)
(defvar *break-on-signals* nil)

(defun %type-matches (c type)
  (cond ((eq type t) t)
        ((null type) nil)
        ((symbolp type)
         (let ((cls (gethash type *class-table*)))
           (cond (cls (%class-typep c cls))
                 ((fboundp 'typep) (typep c type))
                 (t nil))))
        ((and (consp type) (eq (car type) 'or))
         (dolist (ty (cdr type) nil) (if (%type-matches c ty) (return-from %type-matches t))))
        ((and (consp type) (eq (car type) 'and))
         (dolist (ty (cdr type) t) (if (not (%type-matches c ty)) (return-from %type-matches nil))))
        ((and (consp type) (eq (car type) 'not)) (not (%type-matches c (cadr type))))
        ((fboundp 'typep) (typep c type))
        (t nil)))

(defun %coerce-to-condition (datum arguments default-type caller)
  (cond ((%conditionp datum)
         (if arguments
             (error 'simple-type-error :datum arguments :expected-type 'null
                                       :format-control "You may not supply additional arguments when giving ~S to ~S."
                                       :format-arguments (list datum caller)))
         datum)
        ((symbolp datum) (apply #'make-condition datum arguments))
        ((or (stringp datum) (functionp datum))
         (make-condition default-type :format-control datum :format-arguments arguments))
        (t (error 'simple-type-error :datum datum :expected-type '(or symbol string condition function)
                                     :format-control "Bad argument to ~S: ~S"
                                     :format-arguments (list caller datum)))))

(defun signal (datum &rest arguments)
  "Signals the condition made from DATUM and ARGUMENTS to the active handlers; returns NIL when none of them transfers control."
  (let ((c (%coerce-to-condition datum arguments 'simple-condition 'signal)))
    (if (and *break-on-signals* (%type-matches c *break-on-signals*))
        (let ((*break-on-signals* nil))
          (break "~A~%BREAK was entered because of *BREAK-ON-SIGNALS* (now rebound to NIL)." c)))
    (let ((clusters *handler-clusters*))
      (tagbody
       top
         (if (null clusters) (go end))
         (let ((cluster (car clusters)))
           (setq clusters (cdr clusters))
           ;; a handler runs with only the handlers outside its own cluster in force
           (let ((*handler-clusters* clusters))
             (dolist (h cluster)
               (if (%type-matches c (car h)) (funcall (cdr h) c)))))
         (go top)
       end))
    nil))

(defmacro handler-bind (bindings &body forms)
  "Evaluates FORMS with condition handlers established: each of BINDINGS, (type handler), calls the function HANDLER on a signalled condition of that type, without unwinding; a handler that returns declines."
  `(let ((*handler-clusters*
           (cons (list ,@(%mapcar1 #'(lambda (b) `(cons ',(car b) ,(cadr b))) bindings))
                 *handler-clusters*)))
     ,@forms))

(defmacro handler-case (form &rest clauses)
  "Evaluates FORM; when a condition of a clause's type is signalled, unwinds and evaluates that clause, (type ([var]) body...), returning its values. A :NO-ERROR clause receives FORM's values when nothing was signalled."
  (let ((no-error nil) (others nil))
    (dolist (c clauses)
      (if (eq (car c) :no-error) (setq no-error c) (setq others (append others (list c)))))
    (if no-error
        (let ((normal (gensym "NORMAL")) (err (gensym "ERROR")))
          `(block ,err
             (multiple-value-call #'(lambda ,(cadr no-error) ,@(cddr no-error))
               (block ,normal
                 (return-from ,err
                   (handler-case (return-from ,normal ,form)
                     ,@others))))))
        (let ((block (gensym "HANDLER-CASE")) (var (gensym "CONDITION"))
              (tags (%mapcar1 #'(lambda (c) (declare (ignore c)) (gensym "CLAUSE")) others)))
          `(block ,block
             (let ((,var nil))
               (declare (ignorable ,var))
               (tagbody
                  (return-from ,block
                    (handler-bind ,(let ((r nil) (ts tags))
                                     (dolist (c others)
                                       (setq r (cons `(,(car c) #'(lambda (temp) (setq ,var temp) (go ,(car ts)))) r))
                                       (setq ts (cdr ts)))
                                     (nreverse-boot r))
                      ,form))
                  ,@(let ((r nil) (ts tags))
                      (dolist (c others)
                        (let ((lambda-list (cadr c)) (body (cddr c)))
                          (setq r (cons (car ts) r))
                          (setq r (cons `(return-from ,block
                                           ,(if lambda-list
                                                `(let ((,(car lambda-list) ,var)) ,@body)
                                                `(let () ,@body)))
                                        r)))
                        (setq ts (cdr ts)))
                      (nreverse-boot r)))))))))

(defmacro ignore-errors (&body forms)
  "Evaluates FORMS and returns their values; if an ERROR is signalled, returns NIL and the condition instead."
  `(handler-case (progn ,@forms)
     (error (condition) (values nil condition))))

;;; ------------------------------------------------------------------
;;; Restarts. A restart is an instance of the structure class RESTART; its slots (name, function,
;;; report-function, interactive-function, test-function, conditions) are in runtime/lisp-abi.def.

(defvar *restart-clusters* nil)

(defvar *restart-class*
  (let ((c (%make-class-object 'restart :structure))
        (i 0))
    (%set-class.direct-slots c (%mapcar1 #'(lambda (name)
                                     (let ((s (%make-slot-definition name nil nil nil nil nil :instance t nil)))
                                       (%set-slotd.location s i)
                                       (setq i (1+ i))
                                       s))
                                 (%restart.slot-names)))
    (%set-class.slots c (%class.direct-slots c))
    (%set-class.cpl c (list c))
    (%set-class.finalized c t)
    (%set-class.instance-size c (%restart.nslots))
    (setf (gethash 'restart *class-table*) c)
    c))

(defun %make-restart (name function &key report-function interactive-function test-function)
  (let ((r (%allocate-instance *restart-class* (%flag.structure))))
    (%set-restart.name r name)
    (%set-restart.function r function)
    (%set-restart.report-function r report-function)
    (%set-restart.interactive-function r interactive-function)
    (%set-restart.test-function r test-function)
    (%set-restart.conditions r nil)
    r))

(defun %restartp (x)
  (and (%instance-p x) (eq (%instance-layout x) *restart-class*)))

(defun restart-name (restart)
  "The name of RESTART, a symbol or NIL."
  (%restart.name restart))

(defun %print-restart (r stream)
  (if *print-escape*
      (progn (write-string "#<RESTART " stream)
             (prin1 (restart-name r) stream)
             (%write-address r stream)
             (write-string ">" stream))
      (let ((report (%restart.report-function r)))
        (cond ((stringp report) (write-string report stream))
              (report (funcall report stream))
              (t (prin1 (restart-name r) stream))))))

(defun compute-restarts (&optional condition)
  "A list of the restarts currently active (for CONDITION when given), innermost first."
  (let ((result nil))
    (dolist (cluster *restart-clusters*)
      (dolist (r cluster)
        (let ((test (%restart.test-function r)) (assoc (%restart.conditions r)))
          (if (and (or (null test) (funcall test condition))
                   (or (null condition) (null assoc) (%memq condition assoc)))
              (setq result (cons r result))))))
    (nreverse-boot result)))

(defun find-restart (identifier &optional condition)
  "The most recent active restart named IDENTIFIER (or IDENTIFIER itself if it is a restart), for CONDITION when given; NIL when there is none."
  (dolist (r (compute-restarts condition) nil)
    (if (or (eq r identifier) (and (symbolp identifier) (eq (restart-name r) identifier)))
        (return-from find-restart r))))

(defun %find-restart-or-lose (identifier condition)
  (or (find-restart identifier condition)
      (if condition
          (error 'simple-control-error :format-control "No restart ~S is active for ~S."
                                       :format-arguments (list identifier condition))
          (error 'simple-control-error :format-control "No restart ~S is active."
                                       :format-arguments (list identifier)))))

(defun invoke-restart (restart &rest arguments)
  "Transfers control to RESTART (a restart or its name), calling its function with ARGUMENTS."
  (let ((r (%find-restart-or-lose restart nil)))
    (apply (%restart.function r) arguments)))

(defun invoke-restart-interactively (restart)
  "Invokes RESTART with arguments obtained from its interactive function (none when it has none)."
  (let* ((r (%find-restart-or-lose restart nil))
         (interactive (%restart.interactive-function r)))
    (apply (%restart.function r) (if interactive (funcall interactive) nil))))

(defmacro restart-bind (bindings &body forms)
  "Evaluates FORMS with restarts established: each of BINDINGS, (name function options...), runs FUNCTION when invoked, without unwinding first."
  `(let ((*restart-clusters*
           (cons (list ,@(%mapcar1 #'(lambda (b)
                                        `(%make-restart ',(car b) ,(cadr b) ,@(cddr b)))
                                    bindings))
                 *restart-clusters*)))
     ,@forms))

(defmacro with-condition-restarts (condition-form restarts-form &body forms)
  "Evaluates FORMS with the restarts listed by RESTARTS-FORM associated with the condition from CONDITION-FORM."
  (let ((c (gensym)) (rs (gensym)))
    `(let ((,c ,condition-form) (,rs ,restarts-form))
       (dolist (r ,rs) (%set-restart.conditions r (cons ,c (%restart.conditions r))))
       (unwind-protect (progn ,@forms)
         (dolist (r ,rs) (%set-restart.conditions r (%remove-eq ,c (%restart.conditions r))))))))

(defun %parse-restart-clause (clause)
  ;; (name lambda-list [:report r] [:interactive i] [:test t] . body)
  (let ((name (car clause)) (ll (cadr clause)) (rest (cddr clause))
        (report nil) (interactive nil) (test nil))
    (tagbody
     top
       (cond ((and (consp rest) (eq (car rest) :report))
              (let ((r (cadr rest)))
                (setq report (if (stringp r)
                                 `#'(lambda (s) (write-string ,r s))
                                 `#',r)))
              (setq rest (cddr rest)) (go top))
             ((and (consp rest) (eq (car rest) :interactive))
              (setq interactive `#',(cadr rest)) (setq rest (cddr rest)) (go top))
             ((and (consp rest) (eq (car rest) :test))
              (setq test `#',(cadr rest)) (setq rest (cddr rest)) (go top))))
    (list name ll report interactive test rest)))

(defun %restart-arity-check (name lambda-list var)
  ;; a form checking, before any unwinding, that the arguments in VAR suit the clause's LAMBDA-LIST,
  ;; so that a restart invoked with the wrong number of values leaves the restarts in place
  (let ((min 0) (max 0) (state :required))
    (dolist (p lambda-list)
      (cond ((%memq p '(&rest &body &key)) (setq max nil) (return))
            ((eq p '&optional) (setq state :optional))
            ((eq p '&aux) (return))
            ((%memq p lambda-list-keywords))
            (t (if (eq state :required) (setq min (1+ min)))
               (setq max (1+ max)))))
    `(%check-restart-arguments ',name ,var ,min ,max)))

(defun %check-restart-arguments (name arguments min max)
  (let ((n (length arguments)))
    (if (or (< n min) (and max (> n max)))
        (error 'restart-argument-error
               :format-control "The restart ~S takes ~A, not ~D."
               :format-arguments (list name
                                       (cond ((null max) (format nil "at least ~D argument~:P" min))
                                             ((eql min max) (format nil "~D argument~:P" min))
                                             (t (format nil "~D to ~D arguments" min max)))
                                       n)))))

(defmacro restart-case (restartable-form &rest clauses &environment env)
  "Evaluates RESTARTABLE-FORM with a restart for each of CLAUSES, (name lambda-list options... body...); invoking one unwinds to here and returns the values of its body."
  (let* ((block (gensym "RESTART-CASE")) (args (gensym "ARGS"))
         (parsed (%mapcar1 #'%parse-restart-clause clauses))
         (tags (%mapcar1 #'(lambda (c) (declare (ignore c)) (gensym "RESTART")) clauses))
         (expanded (macroexpand restartable-form env))
         (signalling (and (consp expanded) (%memq (car expanded) '(signal error cerror warn)))))
    `(block ,block
       (let ((,args nil))
         (declare (ignorable ,args))
         (tagbody
            (return-from ,block
              (restart-bind ,(let ((r nil) (ts tags))
                               (dolist (p parsed)
                                 (setq r (cons `(,(car p) #'(lambda (&rest temp)
                                                              ,(%restart-arity-check (car p) (cadr p) 'temp)
                                                              (setq ,args temp) (go ,(car ts)))
                                                 ,@(if (nth 2 p) `(:report-function ,(nth 2 p)))
                                                 ,@(if (nth 3 p) `(:interactive-function ,(nth 3 p)))
                                                 ,@(if (nth 4 p) `(:test-function ,(nth 4 p))))
                                               r))
                                 (setq ts (cdr ts)))
                               (nreverse-boot r))
                ,(if signalling
                     (let ((c (gensym "CONDITION")))
                       `(let ((,c ,(%signal-form-condition expanded)))
                          (with-condition-restarts ,c (car *restart-clusters*)
                            (,(car expanded) ,c ,@(if (eq (car expanded) 'cerror) (list (cadr expanded)))))))
                     restartable-form)))
            ,@(let ((r nil) (ts tags))
                (dolist (p parsed)
                  (setq r (cons (car ts) r))
                  (setq r (cons `(return-from ,block (apply #'(lambda ,(cadr p) ,@(nth 5 p)) ,args)) r))
                  (setq ts (cdr ts)))
                (nreverse-boot r)))))))

(defun %signal-form-condition (form)
  ;; the condition a (signal|error|warn|cerror datum args...) form would signal
  (let ((op (car form)))
    (if (eq op 'cerror)
        `(%coerce-to-condition ,(caddr form) (list ,@(cdddr form)) 'simple-error 'cerror)
        `(%coerce-to-condition ,(cadr form) (list ,@(cddr form))
                               ',(cond ((eq op 'warn) 'simple-warning)
                                       ((eq op 'signal) 'simple-condition)
                                       (t 'simple-error))
                               ',op))))

(defmacro with-simple-restart ((name format-control &rest format-arguments) &body forms)
  "Evaluates FORMS with a restart NAME, described by FORMAT-CONTROL and FORMAT-ARGUMENTS; invoking it returns NIL and T from this form."
  `(restart-case (progn ,@forms)
     (,name ()
       :report (lambda (stream) (format stream ,format-control ,@format-arguments))
       (values nil t))))

(defun abort (&optional condition)
  "Invokes the most recent ABORT restart (for CONDITION when given), ending the current operation; an error if there is none."
  (invoke-restart (%find-restart-or-lose 'abort condition))
  (error 'simple-control-error :format-control "ABORT restart failed to transfer control."))

(defun continue (&optional condition)
  "Invokes the most recent CONTINUE restart (for CONDITION when given); returns NIL when there is none."
  (let ((r (find-restart 'continue condition))) (if r (invoke-restart r))))

(defun muffle-warning (&optional condition)
  "Invokes the MUFFLE-WARNING restart established by WARN, so the warning is not printed; an error when there is none."
  (invoke-restart (%find-restart-or-lose 'muffle-warning condition))
  (error 'simple-control-error :format-control "MUFFLE-WARNING restart failed to transfer control."))

(defun store-value (value &optional condition)
  "Invokes the most recent STORE-VALUE restart (for CONDITION when given) with VALUE; returns NIL when there is none."
  (let ((r (find-restart 'store-value condition))) (if r (invoke-restart r value))))

(defun use-value (value &optional condition)
  "Invokes the most recent USE-VALUE restart (for CONDITION when given) with VALUE; returns NIL when there is none."
  (let ((r (find-restart 'use-value condition))) (if r (invoke-restart r value))))

;;; ------------------------------------------------------------------
;;; ERROR, WARN, CERROR, the debugger

(defvar *debugger-hook* nil)

(defun %frame-name (frame)
  ;; FRAME is (name . args), or ((name . args) . locals) as %BACKTRACE-LOCALS gives it
  (if (consp (car frame)) (caar frame) (car frame)))

(defun %strip-internal-frames (frames)
  ;; drop the frames of the condition system itself from the top of a backtrace
  (tagbody
   top
     (if (and frames (consp (car frames))
              (%memq (%frame-name (car frames)) '(error cerror signal warn invoke-debugger break %signal-error
                                     %toplevel-abort %coerce-to-condition %repl-debugger %agent-debugger
                                     %backtrace %backtrace-locals funcall apply)))
         (progn (setq frames (cdr frames)) (go top))))
  frames)

(defvar *interactive-debugger* nil
  "A function of one argument (the condition) that lets a person choose a restart; set by the REPL.")

(defun invoke-debugger (condition)
  "Enters the debugger with CONDITION, after calling *DEBUGGER-HOOK* if it is set. Never returns normally."
  (let ((hook *debugger-hook*))
    (if hook
        (let ((*debugger-hook* nil))
          (funcall hook condition hook))))
  (if *interactive-debugger*
      (funcall *interactive-debugger* condition))
  (%toplevel-abort condition (%strip-internal-frames (%backtrace 40))))

(defun error (datum &rest arguments)
  "Signals the condition made from DATUM and ARGUMENTS (a condition, a condition type with initargs, or a format control with arguments, which makes a SIMPLE-ERROR) and enters the debugger when no handler takes it. Never returns."
  (let ((c (%coerce-to-condition datum arguments 'simple-error 'error)))
    (signal c)
    (invoke-debugger c)))

(defun cerror (continue-format-control datum &rest arguments)
  "Signals an error like ERROR, but with a CONTINUE restart, described by CONTINUE-FORMAT-CONTROL, that returns NIL from CERROR."
  (let ((c (%coerce-to-condition datum arguments 'simple-error 'cerror)))
    (with-simple-restart (continue "~?" continue-format-control arguments)
      (with-condition-restarts c (list (find-restart 'continue))
        (error c)))
    nil))

(defun warn (datum &rest arguments)
  "Signals a warning made from DATUM and ARGUMENTS with a MUFFLE-WARNING restart; if nothing muffles it, prints it on *ERROR-OUTPUT*. Returns NIL."
  (let ((c (%coerce-to-condition datum arguments 'simple-warning 'warn)))
    (if (not (%type-matches c 'warning))
        (error 'simple-type-error :datum c :expected-type 'warning
                                  :format-control "~S is not a warning." :format-arguments (list c)))
    (restart-case (signal c)
      (muffle-warning () :report "Skip warning." (return-from warn nil)))
    (format *error-output* "~&WARNING: ~A~%" c)
    nil))

(defun break (&optional (format-control "Break") &rest format-arguments)
  "Prints the message made from FORMAT-CONTROL and FORMAT-ARGUMENTS and enters the debugger, with a CONTINUE restart that returns NIL."
  (with-simple-restart (continue "Return from BREAK.")
    (let ((*debugger-hook* nil))
      (invoke-debugger (make-condition 'simple-condition :format-control format-control
                                                         :format-arguments format-arguments))))
  nil)

;;; Errors signalled from C arrive here: TYPE with an initargs plist. A condition type
;;; without FORMAT-CONTROL slots given a message becomes its SIMPLE- variant.
(defvar *simple-variants* (make-hash-table :test 'eq))

(defun %simple-variant (type)
  (or (gethash type *simple-variants*)
      (let ((name (intern (format nil "SIMPLE-~A" (symbol-name type)) "SYSTEM")))
        (%ensure-condition-class name (list 'simple-condition type) nil nil nil nil)
        (setf (gethash type *simple-variants*) name))))

(defun %signal-error (type initargs)
  (let ((class (%find-condition-class type nil)))
    (cond ((null class) (setq type 'simple-error))
          ((and (not (eq (%plist-get initargs :format-control '%none) '%none))
                (not (%subclassp class (gethash 'simple-condition *class-table*))))
           (setq type (%simple-variant type))))
    (error (apply #'make-condition type initargs))))

;;; ------------------------------------------------------------------
;;; The standard condition types (CLHS 9.1)

(%ensure-condition-class 'condition nil nil nil nil nil)

(define-condition warning (condition) ())
(define-condition style-warning (warning) ())
(define-condition serious-condition (condition) ())
(define-condition error (serious-condition) ())
(define-condition simple-condition (condition)
  ((format-control :initarg :format-control :reader simple-condition-format-control :initform nil)
   (format-arguments :initarg :format-arguments :reader simple-condition-format-arguments :initform nil))
  (:report (lambda (c s)
             (apply #'format s (simple-condition-format-control c) (simple-condition-format-arguments c)))))
(define-condition simple-warning (simple-condition warning) ())
(define-condition simple-error (simple-condition error) ())
(define-condition storage-condition (serious-condition) ())
(define-condition type-error (error)
  ((datum :initarg :datum :reader type-error-datum)
   (expected-type :initarg :expected-type :reader type-error-expected-type))
  (:report (lambda (c s)
             (format s "The value ~S is not of type ~S" (type-error-datum c) (type-error-expected-type c)))))
(define-condition simple-type-error (simple-condition type-error) ())
(define-condition program-error (error) ())
(define-condition control-error (error) ())
(define-condition cell-error (error) ((name :initarg :name :reader cell-error-name)))
(define-condition unbound-variable (cell-error) ()
  (:report (lambda (c s) (format s "The variable ~S is unbound." (cell-error-name c)))))
(define-condition undefined-function (cell-error) ()
  (:report (lambda (c s) (format s "The function ~S is undefined." (cell-error-name c)))))
(define-condition unbound-slot (cell-error) ((instance :initarg :instance :reader unbound-slot-instance))
  (:report (lambda (c s)
             ;; the slot's name with its package, as SBCL
             (write-string "The slot " s)
             (let ((*package* (find-package "KEYWORD"))) (prin1 (cell-error-name c) s))
             (format s " is unbound in the object ~S." (unbound-slot-instance c)))))
(define-condition package-error (error) ((package :initarg :package :reader package-error-package)))
(define-condition stream-error (error) ((stream :initarg :stream :reader stream-error-stream)))
(define-condition end-of-file (stream-error) ()
  (:report (lambda (c s) (format s "end of file on ~S" (stream-error-stream c)))))
(define-condition parse-error (error) ())
(define-condition reader-error (parse-error stream-error) ())
(define-condition file-error (error) ((pathname :initarg :pathname :reader file-error-pathname))
  (:report (lambda (c s) (format s "error on file ~S" (file-error-pathname c)))))
(define-condition arithmetic-error (error)
  ((operation :initarg :operation :reader arithmetic-error-operation :initform nil)
   (operands :initarg :operands :reader arithmetic-error-operands :initform nil))
  (:report (lambda (c s)
             (format s "arithmetic error ~S signalled" (%class-name (%instance-layout c)))
             (if (arithmetic-error-operation c)
                 (format s "~%Operation was ~S."
                         (cons (arithmetic-error-operation c) (arithmetic-error-operands c)))))))
(define-condition division-by-zero (arithmetic-error) ())
(define-condition floating-point-overflow (arithmetic-error) ())
(define-condition floating-point-underflow (arithmetic-error) ())
(define-condition floating-point-inexact (arithmetic-error) ())
(define-condition floating-point-invalid-operation (arithmetic-error) ())
(define-condition print-not-readable (error) ((object :initarg :object :reader print-not-readable-object))
  (:report (lambda (c s) (format s "~S cannot be printed readably." (print-not-readable-object c)))))

;; internal types with messages
(define-condition simple-program-error (simple-condition program-error) ())
(define-condition restart-argument-error (simple-program-error) ()
  (:documentation "Signalled before any unwinding when a RESTART-CASE restart is invoked with the wrong number of arguments."))
(define-condition simple-control-error (simple-condition control-error) ())
(define-condition simple-reader-error (simple-condition reader-error) ())
(define-condition simple-reader-package-error (simple-condition reader-error package-error) ())
(setf (gethash 'program-error *simple-variants*) 'simple-program-error)
(setf (gethash 'control-error *simple-variants*) 'simple-control-error)
(setf (gethash 'reader-error *simple-variants*) 'simple-reader-error)
(define-condition simple-parse-error (simple-condition parse-error) ())
(setf (gethash 'parse-error *simple-variants*) 'simple-parse-error)

;;; ------------------------------------------------------------------
;;; ASSERT (CHECK-TYPE lives with the type system)

(defmacro assert (test-form &optional places datum &rest arguments)
  "Signals a correctable error when TEST-FORM is false; its CONTINUE restart lets the user give new values to PLACES and tries again. DATUM and ARGUMENTS make the condition as for ERROR."
  (let ((top (gensym "ASSERT")))
    `(tagbody
      ,top
        (unless ,test-form
          (restart-case
              ,(if datum
                   `(error ,datum ,@arguments)
                   `(error 'simple-error :format-control "The assertion ~S failed."
                                         :format-arguments '(,test-form)))
            (continue ()
              :report (lambda (stream)
                        (write-string ,(if places "Retry assertion with new values." "Retry assertion.") stream))
              ,@(%mapcar1 #'(lambda (p)
                              `(setf ,p (%prompt-for-value ',p)))
                          places)
              (go ,top)))))))

(defun %prompt-for-value (place)
  (format *query-io* "~&Type a form to be evaluated for ~S: " place)
  (finish-output *query-io*)
  (eval (read *query-io*)))

;;; The type a session shows for a condition: internal SYSTEM types show as their nearest
;;; standard ancestor (SYSTEM::SIMPLE-PROGRAM-ERROR shows as PROGRAM-ERROR).
(defun %condition-display-type (c)
  (if (not (%conditionp c))
      (type-of c)
      (let ((cpl (%class-cpl (%instance-layout c))))
        ;; a standard class shows itself; a SYSTEM class (SIMPLE-PROGRAM-ERROR) shows the first
        ;; standard class after SIMPLE-CONDITION in its precedence list
        (if (not (eq (symbol-package (%class-name (car cpl))) (find-package "SYSTEM")))
            (%class-name (car cpl))
            (dolist (k (cdr cpl) (%class-name (car cpl)))
              (let ((name (%class-name k)))
                (if (and (not (eq (symbol-package name) (find-package "SYSTEM")))
                         (not (eq name 'simple-condition)))
                    (return-from %condition-display-type name))))))))

;;; ------------------------------------------------------------------
;;; Errors while a macro expands inside code being analysed. As SBCL's compiler does, the
;;; analysis goes on: the error is reported on *ERROR-OUTPUT* and the form is replaced by one
;;; that signals COMPILED-PROGRAM-ERROR when it runs, so (defun f () (broken-macro)) defines F
;;; and calling F signals. runtime/analyze.c calls %EXPAND-OR-ERROR once the boot is over.

(define-condition compiled-program-error (program-error)
  ((form :initarg :form :reader %compiled-program-error-form)
   (message :initarg :message :reader %compiled-program-error-message))
  (:report (lambda (c s)
             (format s "Execution of a form compiled with errors.~%Form:~%  ~A~%Compilation error: ~A"
                     (%compiled-program-error-form c) (%compiled-program-error-message c)))))

(defun %signal-compiled-program-error (form-text message)
  (error 'compiled-program-error :form form-text :message message))

(defun %expand-or-error (expander form env)
  (handler-case (funcall *macroexpand-hook* expander form env)
    (error (c)
      (let* ((form-text (let ((*print-length* 5) (*print-level* 3) (*print-pretty* nil))
                          (prin1-to-string form)))
             (report (handler-case (princ-to-string c)
                       (error () (format nil "an error of type ~S" (type-of c)))))
             (message (format nil "during macroexpansion of ~A:~%  ~A" form-text report)))
        (format *error-output* "~&; caught ERROR:~%;   during macroexpansion of ~A:~%;   ~A~%"
                form-text report)
        `(%signal-compiled-program-error ,form-text ,message)))))

;;; ------------------------------------------------------------------
;;; (EXIT) where there is no process of one's own to end (TclOptions.exit_unavailable). The session
;;; signals this instead of ending the evaluation, so that code can handle it like any error. Its
;;; report is the front end's to word (TclOptions.exit_unavailable_report): it knows what to do
;;; instead.

(defvar *exit-not-available-report* "exit is not available in this session"
  "The report of TINYCL:EXIT-NOT-AVAILABLE, as the front end that made the session words it.")

(define-condition tinycl:exit-not-available (error) ()
  (:documentation "Signalled by EXIT and QUIT in a session that may not end its process.")
  (:report (lambda (c s)
             (declare (ignore c))
             (write-string *exit-not-available-report* s))))
