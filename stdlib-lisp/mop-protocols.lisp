;;;; mop-protocols.lisp: the intercessory half of the metaobject protocol (AMOP chapter 5): the
;;;; generic functions through which tinycl's CLOS lets a program's metaclass (a subclass of
;;;; STANDARD-CLASS or FUNCALLABLE-STANDARD-CLASS) or generic function class (a subclass of
;;;; STANDARD-GENERIC-FUNCTION) change what it does.
;;;;
;;;; - Class initialization: MAKE-INSTANCE of a metaclass makes a class from AMOP's class
;;;;   initargs, REINITIALIZE-INSTANCE of a class changes it; DEFCLASS and ENSURE-CLASS (through
;;;;   ENSURE-CLASS-USING-CLASS, mop.lisp) of a class whose metaclass is a program's go through them,
;;;;   and so do those of STANDARD-CLASS itself while a program's method on INITIALIZE-INSTANCE,
;;;;   SHARED-INITIALIZE or REINITIALIZE-INSTANCE applies to such a class.
;;;; - The class finalization protocol: a class whose metaclass is a program's is finalized by
;;;;   COMPUTE-CLASS-PRECEDENCE-LIST, COMPUTE-SLOTS (COMPUTE-EFFECTIVE-SLOT-DEFINITION,
;;;;   EFFECTIVE-SLOT-DEFINITION-CLASS) and COMPUTE-DEFAULT-INITARGS; its direct slots are made by
;;;;   DIRECT-SLOT-DEFINITION-CLASS from canonicalized slot plists, with the slot options DEFCLASS
;;;;   does not know passed as initargs. A class to which a program's method on
;;;;   FINALIZE-INHERITANCE applies is finalized by calling it.
;;;; - The slot access protocol: SLOT-VALUE, (SETF SLOT-VALUE), SLOT-BOUNDP and SLOT-MAKUNBOUND
;;;;   of an instance call SLOT-VALUE-USING-CLASS and its kin when a method of the program's on
;;;;   one of them applies to its class (of a program's metaclass, or of STANDARD-CLASS itself);
;;;;   the class is flagged (INST_SLOT_PROTOCOL, runtime/clos.c), and accessor methods and
;;;;   MAKE-INSTANCE then leave their direct paths.
;;;; - The generic function invocation protocol: a generic function of a program's class runs
;;;;   what COMPUTE-DISCRIMINATING-FUNCTION returns when a method of the program's applies to it,
;;;;   and on a dispatch-cache miss calls COMPUTE-APPLICABLE-METHODS(-USING-CLASSES) and
;;;;   COMPUTE-EFFECTIVE-METHOD (CALL-METHOD forms for every method combination) when methods of
;;;;   the program's apply.
;;;; - ENSURE-GENERIC-FUNCTION-USING-CLASS (mop.lisp) is called by DEFMETHOD too while a method
;;;;   of the program's on it exists.
;;;;
;;;; Everything else keeps the direct paths of clos.lisp and runtime/clos.c: what takes the
;;;; protocol is decided once per class (at finalization, and again when a method is added to or
;;;; removed from one of these generic functions) and per generic function (when its methods
;;;; change), as SBCL decides, never per access.

(in-package "TINYCL-MOP")

;;; ------------------------------------------------------------------
;;; Which metaobjects take the protocol

(defvar *system-metaclasses*
  (mapcar #'find-class '(standard-class funcallable-standard-class built-in-class structure-class
                         sys::condition-class forward-referenced-class))
  "The metaclasses whose classes tinycl finalizes and accesses directly.")

(defun %program-metaclass-p (metaclass)
  (and metaclass (not (member metaclass *system-metaclasses* :test #'eq))))

(defun %program-gf-class-p (gf)
  (not (eq (sys::%instance-layout gf) sys::*standard-generic-function-class*)))

(defvar *program-slot-methods-p* nil
  "Whether a method of the program's on SLOT-VALUE-USING-CLASS or its kin exists: until then,
finalizing a class of STANDARD-CLASS or FUNCALLABLE-STANDARD-CLASS does not look for one.")

(defvar *slot-protocol-system-metaclasses*
  (list (find-class 'standard-class) (find-class 'funcallable-standard-class)))

(defvar *standard-protocol-methods* nil
  "The methods of the protocol's generic functions that tinycl defines.")

(defmacro %define-standard-method (name &rest rest)
  `(push (defmethod ,name ,@rest) *standard-protocol-methods*))

(defun %program-method-applies-p (protocol-gf object &optional (position 0))
  ;; whether a method of PROTOCOL-GF other than tinycl's applies to OBJECT, the argument at
  ;; POSITION, judged by its specializer there
  (let ((cpl nil))
    (dolist (m (generic-function-methods protocol-gf) nil)
      (unless (member m *standard-protocol-methods* :test #'eq)
        (let ((s (nth position (method-specializers m))))
          (when (if (typep s 'eql-specializer)
                    (eql (eql-specializer-object s) object)
                    (member s (or cpl (setq cpl (class-precedence-list (class-of object)))) :test #'eq))
            (return t)))))))

;;; ------------------------------------------------------------------
;;; Slot definitions are made by MAKE-INSTANCE of the class these generic functions name, with the
;;; initargs of AMOP 5.4.2 (:name, :initargs, :initform, :initfunction, :readers, :writers,
;;; :allocation, :type, :documentation); the slots of SLOT-DEFINITION take them here.

(let ((defaults '((sys::initargs nil) (sys::initform nil) (sys::initfunction nil) (sys::readers nil)
                  (sys::writers nil) (sys::allocation :instance) (type t) (documentation nil)
                  (sys::location nil) (sys::read-only nil))))
  (dolist (d (class-direct-slots (find-class 'slot-definition)))
    (let* ((name (slot-definition-name d)) (default (assoc name defaults)))
      (unless (member name '(sys::location sys::read-only))
        (sys::%set-slotd.initargs d (list (intern (symbol-name name) "KEYWORD"))))
      (when default
        (let ((value (second default)))
          (sys::%set-slotd.initform d `',value)
          (sys::%set-slotd.initfunction d #'(lambda () value))))))
  (sys::%finalize-class (find-class 'slot-definition))
  (sys::%bump-epoch))

(defgeneric direct-slot-definition-class (class &rest initargs)
  (:documentation "The class of the direct slot definition of CLASS that INITARGS (a canonicalized slot specification) describe."))
(%define-standard-method direct-slot-definition-class ((class class) &rest initargs)
  (declare (ignore initargs))
  (find-class 'standard-direct-slot-definition))

(defgeneric effective-slot-definition-class (class &rest initargs)
  (:documentation "The class of the effective slot definition of CLASS that INITARGS describe."))
(%define-standard-method effective-slot-definition-class ((class class) &rest initargs)
  (declare (ignore initargs))
  (find-class 'standard-effective-slot-definition))

(defun %make-direct-slot-definitions (class slots)
  ;; canonicalized slot plists (DEFCLASS with a program's metaclass, ENSURE-CLASS) become direct
  ;; slot definitions; slot definitions stay as they are
  (mapcar #'(lambda (s)
              (if (consp s)
                  (apply #'make-instance (apply #'direct-slot-definition-class class s) s)
                  s))
          slots))

(setq sys::*direct-slot-definition-maker* #'%make-direct-slot-definitions)

;;; ------------------------------------------------------------------
;;; Class finalization (AMOP 5.5.2 and the generic functions' pages)

(defgeneric compute-class-precedence-list (class)
  (:documentation "The class precedence list of CLASS, computed from its direct superclasses."))
(%define-standard-method compute-class-precedence-list ((class class))
  (sys::%compute-cpl class))

(defgeneric compute-effective-slot-definition (class name direct-slot-definitions)
  (:documentation "The effective slot definition of the slot NAME of CLASS from its DIRECT-SLOT-DEFINITIONS, most specific first."))

(defun %effective-slot-initargs (name direct-slot-definitions)
  ;; CLHS 7.5.3: the most specific definition gives the allocation, the initform, the type and
  ;; the documentation; the initargs accumulate
  (let ((initargs nil) (initform nil) (initfunction nil) (type nil) (doc nil)
        (allocation (slot-definition-allocation (first direct-slot-definitions))))
    (dolist (d direct-slot-definitions)
      (dolist (a (slot-definition-initargs d)) (pushnew a initargs))
      (when (and (null initfunction) (slot-definition-initfunction d))
        (setq initfunction (slot-definition-initfunction d) initform (slot-definition-initform d)))
      (unless type (setq type (slot-definition-type d)))
      (unless doc (setq doc (sys::%slotd.documentation d))))
    (list :name name :initargs (nreverse initargs) :initform initform :initfunction initfunction
          :allocation allocation :type (or type t) :documentation doc)))

(%define-standard-method compute-effective-slot-definition ((class class) name direct-slot-definitions)
  (let ((initargs (%effective-slot-initargs name direct-slot-definitions)))
    (apply #'make-instance (apply #'effective-slot-definition-class class initargs) initargs)))

(defgeneric compute-slots (class)
  (:documentation "The effective slot definitions of CLASS, computed from the direct slots of its class precedence list."))

(%define-standard-method compute-slots ((class class))
  ;; one per name, least specific classes' slots first (the order SBCL gives them)
  (let* ((cpl (or (class-precedence-list class) (compute-class-precedence-list class)))
         (names nil))
    (dolist (c (reverse cpl))
      (dolist (d (class-direct-slots c)) (pushnew (slot-definition-name d) names)))
    (mapcar #'(lambda (name)
                (compute-effective-slot-definition
                 class name
                 (loop for c in cpl
                       for d = (find name (class-direct-slots c) :key #'slot-definition-name)
                       when d collect d)))
            (nreverse names))))

(defun %class-slot-cell (class name)
  ;; the cell of a shared slot: the one its most specific direct definition keeps, as the
  ;; standard finalization does; a fresh one for a slot no direct definition has
  (let ((d (dolist (c (class-precedence-list class) nil)
             (let ((d (find name (class-direct-slots c) :key #'slot-definition-name)))
               (when d (return (and (eq (slot-definition-allocation d) :class) d)))))))
    (cond ((null d) (cons name sys::+slot-unbound+))
          ((consp (sys::%slotd.location d)) (sys::%slotd.location d))
          (t (sys::%set-slotd.location d (cons name sys::+slot-unbound+))))))

(%define-standard-method compute-slots :around ((class class))
  ;; the locations (AMOP: the standard :around method assigns them): instance slots get
  ;; consecutive indices, shared slots their class's cell; any other allocation a program gives
  ;; a slot is stored in the instance as well
  (let ((slots (call-next-method)) (index 0) (names nil))
    (unless (listp slots)
      (error "COMPUTE-SLOTS of ~S returned ~S, not a list of effective slot definitions." class slots))
    (dolist (s slots slots)
      (unless (typep s 'slot-definition)
        (error "COMPUTE-SLOTS of ~S returned ~S, which is not an effective slot definition." class s))
      (when (member (slot-definition-name s) names)
        (error "COMPUTE-SLOTS of ~S returned two slots named ~S." class (slot-definition-name s)))
      (push (slot-definition-name s) names)
      (if (eq (slot-definition-allocation s) :class)
          (sys::%set-slotd.location s (%class-slot-cell class (slot-definition-name s)))
          (progn (sys::%set-slotd.location s index) (incf index))))))

(defgeneric compute-default-initargs (class)
  (:documentation "The default initargs of CLASS, its own and inherited, as ((key form function) ...)."))
(%define-standard-method compute-default-initargs ((class class))
  (sys::%compute-default-initargs class))

(defun %finalize-by-protocol (class)
  ;; SYS::*CLASS-FINALIZER*: the finalization of a class whose metaclass is a program's; a class
  ;; of STANDARD-CLASS is finalized directly, and flagged when a method of the program's on
  ;; SLOT-VALUE-USING-CLASS or its kin applies to it
  (when (and *program-slot-methods-p* (not (%program-metaclass-p (sys::%instance-layout class)))
             (%slot-protocol-candidate-p class))
    (%update-slot-protocol-flag class))
  (when (%program-metaclass-p (sys::%instance-layout class))
    (let ((cpl (compute-class-precedence-list class)))
      (unless (and (consp cpl) (eq (car cpl) class) (every #'classp cpl))
        (error "COMPUTE-CLASS-PRECEDENCE-LIST of ~S returned ~S, not a list of classes headed by it." class cpl))
      (sys::%set-class.cpl class cpl))
    (let ((slots (compute-slots class)))
      (sys::%set-class.slots class slots)
      (sys::%set-class.instance-size class
                                     (count-if #'integerp slots :key #'slot-definition-location)))
    (sys::%set-class.default-initargs class (compute-default-initargs class))
    (%update-slot-protocol-flag class)
    t))

(setq sys::*class-finalizer* #'%finalize-by-protocol)

;;; FINALIZE-INHERITANCE is a generic function, its standard method what it was (clos.lisp). A
;;; class is finalized when it is defined, once its superclasses are (or when they become so):
;;; by calling FINALIZE-INHERITANCE when a method of the program's on it applies to the class,
;;; directly otherwise. An unfinalized class is finalized by calling it when it is first needed
;;; (MAKE-INSTANCE, CLASS-PROTOTYPE, closer-mop's ENSURE-FINALIZED).
(setf (symbol-function 'sys::%finalize-inheritance) #'finalize-inheritance)
(fmakunbound 'finalize-inheritance)
(defgeneric finalize-inheritance (class)
  (:documentation "Computes the class precedence list, the slots and the default initargs of CLASS, whose superclasses must all be defined."))
(%define-standard-method finalize-inheritance ((class class))
  (sys::%finalize-inheritance class))

(defun %generic-finalization-p (class)
  ;; SYS::*GENERIC-FINALIZATION-P*
  (%program-method-applies-p #'finalize-inheritance class))

(setq sys::*generic-finalization-p* #'%generic-finalization-p)

;;; ------------------------------------------------------------------
;;; MAKE-INSTANCE of a metaclass (STANDARD-CLASS or a subclass) makes an anonymous class from
;;; AMOP's class initargs (5.4.1); DEFCLASS and ENSURE-CLASS make named ones without it.

(defun %shape-class-from-initargs (class supers slots default-initargs documentation)
  ;; CLASS, an instance of a metaclass, gets the definition AMOP's class initargs give
  (let* ((meta (class-of class))
         (funcallable (subtypep meta 'funcallable-standard-class)))
    (unless (or (subtypep meta 'standard-class) funcallable)
      (error "~S is not STANDARD-CLASS, FUNCALLABLE-STANDARD-CLASS or a subclass of one: it makes no classes." meta))
    (sys::%shape-class class meta (if funcallable :funcallable :standard)
                       (or (mapcar #'(lambda (s) (if (classp s) s (find-class s))) supers)
                           (list (find-class (if funcallable 'funcallable-standard-object 'standard-object))))
                       (mapcar #'(lambda (s) (if (typep s 'slot-definition) s (%canonical-slot s))) slots)
                       (%canonical-default-initargs default-initargs) documentation nil nil)))

(defmethod initialize-instance :after ((class class) &key name direct-superclasses direct-slots
                                                            direct-default-initargs documentation)
  ;; the instance ALLOCATE-INSTANCE made becomes a class metaobject: its slots of CLASS empty,
  ;; those of its metaclass as SHARED-INITIALIZE left them
  (sys::%set-instance-flags class (sys::%flag.class))
  (dotimes (i (sys::%class.nslots))
    (when (eq (sys::%instance-ref class i) sys::+slot-unbound+) (sys::%instance-set class i nil)))
  (sys::%set-class.version class 0)
  (sys::%set-class.instance-size class 0)
  (sys::%set-class.name class name)
  (%shape-class-from-initargs class direct-superclasses direct-slots direct-default-initargs documentation))

(defun %redefine-class-from-initargs (class &key (name nil name-p) (direct-superclasses nil supers-p)
                                                 (direct-slots nil slots-p)
                                                 (direct-default-initargs nil default-initargs-p)
                                                 (documentation nil documentation-p) &allow-other-keys)
  ;; REINITIALIZE-INSTANCE of a class (mop.lisp's :after method): the initargs given replace
  ;; those parts of its definition, the others stay
  (when name-p (sys::%set-class.name class name))
  (when (or supers-p slots-p default-initargs-p documentation-p)
    (%shape-class-from-initargs
     class (if supers-p direct-superclasses (class-direct-superclasses class))
     (if slots-p direct-slots (class-direct-slots class))
     (if default-initargs-p direct-default-initargs (class-direct-default-initargs class))
     (if documentation-p documentation (sys::%class.documentation class)))))

(defun %define-class-by-protocol (name class meta supers direct-slots default-initargs doc other-initargs)
  ;; SYS::*CLASS-INITIALIZER*: DEFCLASS and ENSURE-CLASS of a class whose metaclass is a
  ;; program's make it with MAKE-INSTANCE of the metaclass, or redefine it (or a forward
  ;; referenced class of the name) with REINITIALIZE-INSTANCE, as ENSURE-CLASS-USING-CLASS does,
  ;; so that the metaclass's methods on those run; the other class options are initargs (and
  ;; :NAME for a new class only: a class redefined keeps its name, and SBCL's
  ;; REINITIALIZE-INSTANCE is not given one)
  (let ((initargs (list* :direct-superclasses supers :direct-slots direct-slots
                         :direct-default-initargs default-initargs :documentation doc other-initargs)))
    (if class
        (progn (sys::%adopt-metaclass class meta)
               (apply #'reinitialize-instance class initargs))
        (setq class (apply #'make-instance meta :name name initargs)))
    (setf (gethash name sys::*class-table*) class)
    (sys::%set-documentation name 'type doc)
    ;; registered, the class is finalized by FINALIZE-INHERITANCE when a method of the
    ;; program's on it applies (%SHAPE-CLASS left it for now)
    (when (and (%generic-finalization-p class) (sys::%finalizable-p class))
      (finalize-inheritance class)
      (sys::%initialize-class-slots class)
      (sys::%bump-epoch))
    class))

(setq sys::*class-initializer* #'%define-class-by-protocol)

;;; ------------------------------------------------------------------
;;; Slot access (AMOP 5.5.x, "Instance structure protocol")

(defgeneric slot-value-using-class (class object slot)
  (:documentation "The value of the slot SLOT (an effective slot definition) of OBJECT, an instance of CLASS; what SLOT-VALUE calls when a method of the program's applies."))
(defgeneric (setf slot-value-using-class) (new-value class object slot))
(defgeneric slot-boundp-using-class (class object slot)
  (:documentation "Whether the slot SLOT (an effective slot definition) of OBJECT, an instance of CLASS, is bound."))
(defgeneric slot-makunbound-using-class (class object slot)
  (:documentation "Makes the slot SLOT (an effective slot definition) of OBJECT unbound; returns OBJECT."))

(%define-standard-method slot-value-using-class ((class class) object (slot slot-definition))
  (sys::%standard-slot-access 'slot-value object (slot-definition-name slot) nil))
(%define-standard-method (setf slot-value-using-class) (new-value (class class) object (slot slot-definition))
  (sys::%standard-slot-access 'setf object (slot-definition-name slot) new-value))
(%define-standard-method slot-boundp-using-class ((class class) object (slot slot-definition))
  (sys::%standard-slot-access 'slot-boundp object (slot-definition-name slot) nil))
(%define-standard-method slot-makunbound-using-class ((class class) object (slot slot-definition))
  (sys::%standard-slot-access 'slot-makunbound object (slot-definition-name slot) nil))

(defun %slot-protocol-candidate-p (class)
  ;; whether the slots of CLASS's instances may take the protocol: those of a program's
  ;; metaclass, and those of STANDARD-CLASS and FUNCALLABLE-STANDARD-CLASS but metaobjects
  ;; (whose slots tinycl reads itself, and whose readers the protocol calls)
  (let ((meta (sys::%instance-layout class)))
    (or (%program-metaclass-p meta)
        (and (member meta *slot-protocol-system-metaclasses* :test #'eq)
             (not (member (find-class 'metaobject) (sys::%class-cpl class) :test #'eq))))))

(defun %slot-protocol-applies-p (class)
  ;; whether a method of the program's on one of the four applies to instances of CLASS (the
  ;; class being their argument CLASS)
  (and (%slot-protocol-candidate-p class)
       (or (%program-method-applies-p #'slot-value-using-class class)
           (%program-method-applies-p #'(setf slot-value-using-class) class 1)
           (%program-method-applies-p #'slot-boundp-using-class class)
           (%program-method-applies-p #'slot-makunbound-using-class class))))

(defun %update-slot-protocol-flag (class)
  (let* ((flags (sys::%instance-flags class))
         (new (if (%slot-protocol-applies-p class)
                  (logior flags (sys::%flag.slot-protocol))
                  (logandc2 flags (sys::%flag.slot-protocol)))))
    (unless (= new flags)
      (sys::%set-instance-flags class new)
      ;; accessor methods' direct paths and MAKE-INSTANCE's fast path were decided with the flag
      (sys::%bump-epoch))))

(defun sys::%slot-protocol (operation object slot-name new-value)
  ;; what runtime/clos.c calls for SLOT-VALUE (OPERATION SLOT-VALUE), (SETF SLOT-VALUE) (SETF),
  ;; SLOT-BOUNDP and SLOT-MAKUNBOUND of an instance of a flagged class
  (sys::%ensure-current-instance object)
  (let* ((class (class-of object))
         (slot (find slot-name (class-slots class) :key #'slot-definition-name :test #'eq)))
    (cond ((null slot)
           (if (eq operation 'setf)
               (slot-missing class object slot-name 'setf new-value)
               (slot-missing class object slot-name operation)))
          ((eq operation 'slot-value) (slot-value-using-class class object slot))
          ((eq operation 'setf) (setf (slot-value-using-class class object slot) new-value))
          ((eq operation 'slot-boundp) (slot-boundp-using-class class object slot))
          (t (slot-makunbound-using-class class object slot)))))

(defun %all-classes ()
  ;; every class reachable from T through the direct subclasses
  (let ((seen (make-hash-table :test 'eq)) (pending (list (find-class 't))))
    (loop while pending
          do (let ((c (pop pending)))
               (unless (gethash c seen)
                 (setf (gethash c seen) t)
                 (setq pending (append (class-direct-subclasses c) pending)))))
    (loop for c being the hash-keys of seen collect c)))

;;; ------------------------------------------------------------------
;;; Generic function invocation (AMOP 5.6)

(defgeneric compute-applicable-methods-using-classes (generic-function classes)
  (:documentation "The methods of GENERIC-FUNCTION applicable to arguments of CLASSES, most specific first, and T; or NIL and NIL when an EQL specializer makes the classes alone insufficient."))
(%define-standard-method compute-applicable-methods-using-classes ((gf generic-function) classes)
  (%applicable-methods-using-classes gf classes))
(push (find-method #'compute-applicable-methods nil (list (find-class 't) (find-class 't)))
      *standard-protocol-methods*)

(defgeneric compute-effective-method (generic-function method-combination methods)
  (:documentation "A form that runs METHODS (applicable, most specific first) as GENERIC-FUNCTION's METHOD-COMBINATION combines them, with CALL-METHOD and MAKE-METHOD."))
(%define-standard-method compute-effective-method ((gf generic-function) mc methods)
  (declare (ignore mc))
  (let* ((spec (sys::%gf.method-combination gf))
         (type (gethash (car spec) sys::*method-combination-types*)))
    (cond ((eq (car spec) 'standard) (%standard-effective-method-form gf methods))
          ((null type)
           (error "The method combination ~S of ~S is not defined." (car spec) gf))
          ((eq (car type) :long)
           ;; the form the long form's body returns, inside the binding of its :ARGUMENTS
           (let ((result (funcall (cadr type) gf methods (cdr spec))))
             (if (cadr result) (funcall (cadr result) (car result)) (car result))))
          (t
           ;; a short form (+, AND, LIST, ... or a program's): the :AROUND methods around the
           ;; operator applied to the primary methods' values
           (let* ((groups (sys::%short-method-groups gf methods (car spec) (cdr spec)))
                  (main (if (cdr groups)
                            (sys::%short-combination-form type (cdr groups))
                            `(sys::%no-primary-method ',gf ,sys::*emf-args*))))
             (if (car groups)
                 `(call-method ,(caar groups) (,@(cdar groups) (make-method ,main)))
                 main))))))

(defun %emf-from-form (gf methods form)
  ;; an effective method (as %MAKE-EMF makes them) running FORM
  (sys::%long-emf gf methods #'(lambda (g ms options) (declare (ignore g ms options)) (list form)) nil))

(defun %gf-miss-by-protocol (gf args)
  ;; SYS::*GF-MISS-HOOK*: the slow path of a call of a generic function of a program's class.
  ;; The effective method is cached by the classes of the arguments unless the applicable
  ;; methods came from a method of the program's on COMPUTE-APPLICABLE-METHODS, or from
  ;; COMPUTE-APPLICABLE-METHODS-USING-CLASSES declining (AMOP 5.6.2).
  (let ((nreq (sys::%gf-nreq gf)) (cacheable t))
    (when (< (length args) nreq)
      (error 'simple-program-error :format-control "The function~%  ~S~%requires at least ~D argument~:P."
                                   :format-arguments (list gf nreq nreq)))
    (let ((methods
            (cond ((%program-method-applies-p #'compute-applicable-methods gf)
                   (setq cacheable nil)
                   (compute-applicable-methods gf args))
                  ((%program-method-applies-p #'compute-applicable-methods-using-classes gf)
                   (multiple-value-bind (methods ok)
                       (compute-applicable-methods-using-classes gf (mapcar #'class-of (subseq args 0 nreq)))
                     (if ok
                         methods
                         (progn (setq cacheable nil) (compute-applicable-methods gf args)))))
                  (t (sys::%applicable-methods gf args)))))
      (if (null methods)
          #'(lambda (&rest a) (apply #'no-applicable-method gf a))
          (let ((emf (if (%program-method-applies-p #'compute-effective-method gf)
                         (%emf-from-form gf methods
                                         (compute-effective-method gf (generic-function-method-combination gf)
                                                                   methods))
                         (sys::%make-emf gf methods args))))
            (when cacheable (sys::%gf-cache-add gf args emf))
            emf)))))

(setq sys::*gf-miss-hook* #'%gf-miss-by-protocol)

(defgeneric compute-discriminating-function (generic-function)
  (:documentation "The function GENERIC-FUNCTION runs when called."))
(%define-standard-method compute-discriminating-function ((gf generic-function))
  ;; tinycl's own dispatch (runtime/clos.c), also for a generic function running another function
  #'(lambda (&rest args) (apply #'sys::%standard-dispatch gf args)))

(defun %install-discriminating-function (gf)
  ;; a generic function of a program's class runs what COMPUTE-DISCRIMINATING-FUNCTION returns
  ;; when a method of the program's applies; any other dispatches in runtime/clos.c
  (when (and (sys::%generic-function-p gf) (%program-gf-class-p gf))
    (if (%program-method-applies-p #'compute-discriminating-function gf)
        (let ((f (compute-discriminating-function gf)))
          (unless (functionp f)
            (error "COMPUTE-DISCRIMINATING-FUNCTION of ~S returned ~S, not a function." gf f))
          (sys::%set-funcallable-instance-function gf f)
          (sys::%set-generic-flag gf nil))
        (sys::%set-generic-flag gf t))))

;;; ------------------------------------------------------------------
;;; Initialization of classes of STANDARD-CLASS

;;; Classes of STANDARD-CLASS and FUNCALLABLE-STANDARD-CLASS are made directly, not by
;;; MAKE-INSTANCE, until a program defines a method on INITIALIZE-INSTANCE, SHARED-INITIALIZE or
;;; REINITIALIZE-INSTANCE that applies to such a class (specialised on STANDARD-CLASS, CLASS,
;;; STANDARD-OBJECT, T, ... or an EQL specializer of one): SYS::*STANDARD-CLASS-INITIALIZER-P*
;;; then sends DEFCLASS and ENSURE-CLASS of them through %DEFINE-CLASS-BY-PROTOCOL, as a
;;; program's metaclass goes, so that the method runs. Decided again when methods of those three
;;; generic functions change, never per class.

(defvar *class-initialization-gfs*
  (list #'initialize-instance #'shared-initialize #'reinitialize-instance))

(defvar *standard-class-specializers*
  (remove-duplicates (append (class-precedence-list (find-class 'standard-class))
                             (class-precedence-list (find-class 'funcallable-standard-class))))
  "The classes a method must be specialised on to apply to a class of STANDARD-CLASS or FUNCALLABLE-STANDARD-CLASS.")

(defun %standard-class-initialization-method-p (method)
  ;; whether METHOD, of one of *CLASS-INITIALIZATION-GFS*, is the program's and applies to some
  ;; class of STANDARD-CLASS or FUNCALLABLE-STANDARD-CLASS
  (let ((s (first (method-specializers method))))
    (and (if (typep s 'eql-specializer)
             (let ((o (eql-specializer-object s)))
               (and (classp o) (member (class-of o) *slot-protocol-system-metaclasses* :test #'eq)))
             (member s *standard-class-specializers* :test #'eq))
         (not (member method *standard-protocol-methods* :test #'eq)))))

(defun %update-standard-class-initializer ()
  (setq sys::*standard-class-initializer-p*
        (dolist (g *class-initialization-gfs* nil)
          (when (some #'%standard-class-initialization-method-p (generic-function-methods g))
            (return t))))
  (%update-defclass-slot-plists))

;;; DEFCLASS of a class of STANDARD-CLASS or FUNCALLABLE-STANDARD-CLASS makes its direct slot
;;; definitions while loading, and gives them to ENSURE-CLASS as they are: none of tinycl's own
;;; methods reads them as plists. While a program's method on ENSURE-CLASS-USING-CLASS exists,
;;; or one on the initialization of such a class (above), DEFCLASS gives ENSURE-CLASS slot plists
;;; instead, as AMOP and SBCL do, so that the method can read them with GETF: the hook is
;;; switched when those methods change, so that DEFCLASS without them pays nothing.

(defvar *program-ensure-class-methods-p* nil)

(defun %update-defclass-slot-plists ()
  (setq sys::*ensure-class-hook*
        (if (or *program-ensure-class-methods-p* sys::*standard-class-initializer-p*)
            #'%defclass-by-ensure-class-with-plists
            #'%defclass-by-ensure-class)))

;;; tinycl's own methods on them (clos.lisp's, mop.lisp's and this file's) are the standard
;;; ones, and so are ENSURE-GENERIC-FUNCTION-USING-CLASS's (mop.lisp)
(dolist (g (list* #'ensure-generic-function-using-class #'ensure-class-using-class
                  *class-initialization-gfs*))
  (dolist (m (generic-function-methods g))
    (pushnew m *standard-protocol-methods*)))

;;; ------------------------------------------------------------------
;;; Changes of the protocol's generic functions and of a program's generic functions

(defvar *slot-access-gfs*
  (list #'slot-value-using-class #'(setf slot-value-using-class) #'slot-boundp-using-class
        #'slot-makunbound-using-class))

(defvar *protocol-watched-gfs*
  (append *slot-access-gfs* *class-initialization-gfs*
          (list #'compute-discriminating-function #'ensure-generic-function-using-class
                #'ensure-class-using-class))
  "The generic functions whose methods decide what takes the protocol: one test per change of any generic function.")

;;; each is marked in its plist, so that the test costs the same however many are watched
(dolist (g *protocol-watched-gfs*)
  (sys::%set-gf.plist g (list* '%protocol-watched t (sys::%gf.plist g))))

(defun %protocol-methods-changed (gf)
  ;; SYS::*METHODS-CHANGED-HOOK*: after ADD-METHOD, REMOVE-METHOD or a redefinition of GF
  (when (getf (sys::%gf.plist gf) '%protocol-watched)
    (cond ((member gf *slot-access-gfs* :test #'eq)
           (setq *program-slot-methods-p*
                 (dolist (g *slot-access-gfs* nil)
                   (when (set-difference (generic-function-methods g) *standard-protocol-methods*)
                     (return t))))
           (dolist (c (%all-classes))
             (when (and (sys::%class-finalized-p c) (%slot-protocol-candidate-p c))
               (%update-slot-protocol-flag c))))
          ((eq gf #'compute-discriminating-function)
           (dolist (g sys::*generic-functions*) (%install-discriminating-function g)))
          ((eq gf #'ensure-generic-function-using-class)
           (setq sys::*program-ensure-gf-methods-p*
                 (if (set-difference (generic-function-methods gf) *standard-protocol-methods*) t nil)))
          ((eq gf #'ensure-class-using-class)
           (setq *program-ensure-class-methods-p*
                 (if (set-difference (generic-function-methods gf) *standard-protocol-methods*) t nil))
           (%update-defclass-slot-plists))
          (t (%update-standard-class-initializer))))
  (when (%program-gf-class-p gf) (%install-discriminating-function gf)))

(setq sys::*methods-changed-hook* #'%protocol-methods-changed)

;;; REINITIALIZE-INSTANCE of a generic function takes the initargs of AMOP 5.4.4 (and
;;; ENSURE-GENERIC-FUNCTION's :DECLARE); its other initargs go to the slots of its class.
(defmethod reinitialize-instance ((gf generic-function) &rest initargs
                                  &key (lambda-list nil lambda-list-p) (documentation nil documentation-p)
                                       (method-combination nil method-combination-p)
                                       (argument-precedence-order nil argument-precedence-order-p)
                                       (declarations nil declarations-p) ((:declare declare-option) nil declare-p)
                                       (method-class nil method-class-p) (name nil name-p))
  (declare (ignore initargs))
  (when lambda-list-p
    (sys::%check-gf-lambda-list lambda-list (generic-function-name gf))
    (let ((info (sys::%parse-lambda-list-info lambda-list)))
      (dolist (m (generic-function-methods gf))
        (unless (sys::%lambda-lists-congruent-p info (sys::%method-info m))
          (error "New lambda-list ~S is incompatible with existing methods of ~S." lambda-list gf))))
    (sys::%set-gf.plist gf (sys::%remove-lambda-list-marker (sys::%gf.plist gf)))
    (sys::%set-gf-lambda-list gf lambda-list))
  (when documentation-p
    (sys::%set-gf.documentation gf documentation)
    (sys::%set-documentation gf t documentation))
  (when method-combination-p
    (sys::%set-gf.method-combination
     gf (sys::%canonical-method-combination
         (if (typep method-combination 'method-combination)
             (cons (slot-value method-combination 'sys::type-name) (slot-value method-combination 'sys::options))
             method-combination))))
  (when argument-precedence-order-p
    (let ((required (%required-names (generic-function-lambda-list gf))))
      (unless (and (= (length required) (length argument-precedence-order))
                   (null (set-exclusive-or required argument-precedence-order)))
        (error "The argument precedence order ~S is not a permutation of the required parameters ~S of ~S."
               argument-precedence-order required gf))
      (sys::%set-gf.apo gf (mapcar #'(lambda (v) (position v required)) argument-precedence-order))))
  (when declarations-p (sys::%set-gf.declarations gf declarations))
  (when declare-p (sys::%set-gf.declarations gf declare-option))
  (when method-class-p (sys::%set-gf.method-class gf (sys::%coerce-to-class method-class)))
  (when name-p (sys::%set-gf.name gf name))
  (sys::%methods-changed gf)
  (call-next-method))

(in-package "COMMON-LISP-USER")
