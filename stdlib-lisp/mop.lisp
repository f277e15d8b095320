;;;; mop.lisp: the metaobject protocol as a package, TINYCL-MOP (nicknames SB-MOP and MOP, the
;;;; names SBCL, ABCL and Allegro give theirs), with the names AMOP and SBCL's SB-MOP export:
;;;; the metaobject classes, the class, slot-definition, generic-function, method and
;;;; specializer readers, and the functions of the protocol, over tinycl's own metaobjects
;;;; (clos.lisp). The readers answer for every class, generic function and method; ENSURE-CLASS
;;;; and ENSURE-GENERIC-FUNCTION define; a metaclass of the program's (a subclass of
;;;; STANDARD-CLASS, with slots and class options of its own) is accepted when
;;;; VALIDATE-SUPERCLASS agrees. mop-protocols.lisp defines the generic functions through which
;;;; tinycl's CLOS lets a program's metaclass or generic function class change its behaviour
;;;; (COMPUTE-SLOTS, SLOT-VALUE-USING-CLASS, COMPUTE-DISCRIMINATING-FUNCTION, ...).

(defpackage "TINYCL-MOP"
  (:use "COMMON-LISP")
  (:nicknames "SB-MOP" "MOP")
  (:import-from "SYSTEM"
   "DIRECT-SLOT-DEFINITION" "EFFECTIVE-SLOT-DEFINITION" "EQL-SPECIALIZER"
   "FORWARD-REFERENCED-CLASS" "FUNCALLABLE-STANDARD-CLASS" "FUNCALLABLE-STANDARD-OBJECT"
   "METAOBJECT" "SLOT-DEFINITION" "SPECIALIZER" "STANDARD-ACCESSOR-METHOD"
   "STANDARD-DIRECT-SLOT-DEFINITION" "STANDARD-EFFECTIVE-SLOT-DEFINITION"
   "STANDARD-READER-METHOD" "STANDARD-SLOT-DEFINITION" "STANDARD-WRITER-METHOD"
   "CLASS-DEFAULT-INITARGS" "CLASS-DIRECT-DEFAULT-INITARGS" "CLASS-DIRECT-SLOTS"
   "CLASS-DIRECT-SUBCLASSES" "CLASS-DIRECT-SUPERCLASSES" "CLASS-FINALIZED-P"
   "CLASS-PRECEDENCE-LIST" "CLASS-PROTOTYPE" "CLASS-SLOTS" "FINALIZE-INHERITANCE"
   "EQL-SPECIALIZER-OBJECT" "INTERN-EQL-SPECIALIZER" "GENERIC-FUNCTION-LAMBDA-LIST"
   "GENERIC-FUNCTION-METHODS" "GENERIC-FUNCTION-NAME" "METHOD-FUNCTION"
   "METHOD-GENERIC-FUNCTION" "METHOD-LAMBDA-LIST" "METHOD-SPECIALIZERS"
   "SLOT-DEFINITION-ALLOCATION" "SLOT-DEFINITION-INITARGS" "SLOT-DEFINITION-INITFORM"
   "SLOT-DEFINITION-INITFUNCTION" "SLOT-DEFINITION-LOCATION" "SLOT-DEFINITION-NAME"
   "SLOT-DEFINITION-READERS" "SLOT-DEFINITION-WRITERS" "SLOT-DEFINITION-TYPE"
   "SPECIALIZER-DIRECT-METHODS")
  (:export
   ;; metaobject classes
   "DIRECT-SLOT-DEFINITION" "EFFECTIVE-SLOT-DEFINITION" "EQL-SPECIALIZER"
   "FORWARD-REFERENCED-CLASS" "FUNCALLABLE-STANDARD-CLASS" "FUNCALLABLE-STANDARD-OBJECT"
   "METAOBJECT" "SLOT-DEFINITION" "SPECIALIZER" "STANDARD-ACCESSOR-METHOD"
   "STANDARD-DIRECT-SLOT-DEFINITION" "STANDARD-EFFECTIVE-SLOT-DEFINITION"
   "STANDARD-READER-METHOD" "STANDARD-SLOT-DEFINITION" "STANDARD-WRITER-METHOD"
   ;; readers and functions
   "ACCESSOR-METHOD-SLOT-DEFINITION" "ADD-DEPENDENT" "ADD-DIRECT-METHOD" "ADD-DIRECT-SUBCLASS"
   "CLASS-DEFAULT-INITARGS" "CLASS-DIRECT-DEFAULT-INITARGS" "CLASS-DIRECT-SLOTS"
   "CLASS-DIRECT-SUBCLASSES" "CLASS-DIRECT-SUPERCLASSES" "CLASS-FINALIZED-P"
   "CLASS-PRECEDENCE-LIST" "CLASS-PROTOTYPE" "CLASS-SLOTS"
   "COMPUTE-APPLICABLE-METHODS-USING-CLASSES" "COMPUTE-CLASS-PRECEDENCE-LIST"
   "COMPUTE-DEFAULT-INITARGS" "COMPUTE-DISCRIMINATING-FUNCTION" "COMPUTE-EFFECTIVE-METHOD"
   "COMPUTE-EFFECTIVE-SLOT-DEFINITION" "COMPUTE-SLOTS" "DIRECT-SLOT-DEFINITION-CLASS"
   "EFFECTIVE-SLOT-DEFINITION-CLASS" "ENSURE-CLASS" "ENSURE-CLASS-USING-CLASS"
   "ENSURE-GENERIC-FUNCTION" "ENSURE-GENERIC-FUNCTION-USING-CLASS" "EQL-SPECIALIZER-OBJECT"
   "EXTRACT-LAMBDA-LIST" "EXTRACT-SPECIALIZER-NAMES" "FINALIZE-INHERITANCE"
   "FIND-METHOD-COMBINATION" "FUNCALLABLE-STANDARD-INSTANCE-ACCESS"
   "GENERIC-FUNCTION-ARGUMENT-PRECEDENCE-ORDER" "GENERIC-FUNCTION-DECLARATIONS"
   "GENERIC-FUNCTION-LAMBDA-LIST" "GENERIC-FUNCTION-METHOD-CLASS"
   "GENERIC-FUNCTION-METHOD-COMBINATION" "GENERIC-FUNCTION-METHODS" "GENERIC-FUNCTION-NAME"
   "INTERN-EQL-SPECIALIZER" "MAKE-METHOD-LAMBDA" "MAP-DEPENDENTS" "METHOD-FUNCTION"
   "METHOD-GENERIC-FUNCTION" "METHOD-LAMBDA-LIST" "METHOD-SPECIALIZERS" "READER-METHOD-CLASS"
   "REMOVE-DEPENDENT" "REMOVE-DIRECT-METHOD" "REMOVE-DIRECT-SUBCLASS"
   "SET-FUNCALLABLE-INSTANCE-FUNCTION" "SLOT-BOUNDP-USING-CLASS" "SLOT-DEFINITION-ALLOCATION"
   "SLOT-DEFINITION-INITARGS" "SLOT-DEFINITION-INITFORM" "SLOT-DEFINITION-INITFUNCTION"
   "SLOT-DEFINITION-LOCATION" "SLOT-DEFINITION-NAME" "SLOT-DEFINITION-READERS"
   "SLOT-DEFINITION-WRITERS" "SLOT-DEFINITION-TYPE" "SLOT-MAKUNBOUND-USING-CLASS"
   "SLOT-VALUE-USING-CLASS" "SPECIALIZER-DIRECT-GENERIC-FUNCTIONS" "SPECIALIZER-DIRECT-METHODS"
   "STANDARD-INSTANCE-ACCESS" "UPDATE-DEPENDENT" "VALIDATE-SUPERCLASS" "WRITER-METHOD-CLASS"
   ;; in SBCL this one is SB-PCL:CLASSP (closer-mop imports it from there)
   "CLASSP"))

(in-package "TINYCL-MOP")

;;; ------------------------------------------------------------------
;;; Small helpers. Metaobject slots are reached by name (the names of clos.lisp's
;;; %DEFINE-SYSTEM-CLASS), never by position.

(defun classp (object)
  "Whether OBJECT is a class metaobject."
  (if (sys::%class-p object) t nil))

(defun %check-class (class)
  (if (sys::%class-p class) class (error 'type-error :datum class :expected-type 'class)))

(defun %check-gf (gf)
  (if (sys::%generic-function-p gf) gf (error 'type-error :datum gf :expected-type 'generic-function)))

(defun %check-method (m)
  (if (sys::%method-p m) m (error 'type-error :datum m :expected-type 'method)))

(defun %check-specializer (s)
  (if (or (sys::%class-p s) (sys::%eql-specializer-p s))
      s
      (error 'type-error :datum s :expected-type 'specializer)))

(defun %check-plain-instance (instance)
  ;; the slots of classes, generic functions, methods and slot definitions are read by the
  ;; runtime itself: writing them by position could break it, so that is refused
  (if (typep instance 'metaobject)
      (error "~S is a metaobject; its slots are not written by position." instance)
      instance))

(defun %required-names (lambda-list)
  (let ((r nil))
    (dolist (x lambda-list (nreverse r))
      (if (member x lambda-list-keywords) (return (nreverse r)))
      (push x r))))

;;; ------------------------------------------------------------------
;;; Generic function and method readers that clos.lisp does not define

(defun generic-function-argument-precedence-order (gf)
  "The required parameters of GF in the order its methods are ranked by."
  (let ((required (%required-names (generic-function-lambda-list (%check-gf gf)))))
    (mapcar #'(lambda (i) (nth i required)) (slot-value gf 'sys::argument-precedence-order))))

(defun generic-function-declarations (gf)
  "The declarations given to GF (the :DECLARE option of DEFGENERIC)."
  (slot-value (%check-gf gf) 'sys::declarations))

(defun generic-function-method-class (gf)
  "The class of the methods DEFMETHOD makes for GF."
  (slot-value (%check-gf gf) 'sys::method-class))

(defvar *method-combinations* (make-hash-table :test 'equal)
  "One method-combination object per (type . options).")

(defun %method-combination-object (spec)
  (or (gethash spec *method-combinations*)
      (let ((mc (sys::%allocate-instance (find-class 'method-combination) (sys::%flag.standard))))
        (setf (slot-value mc 'sys::type-name) (car spec)
              (slot-value mc 'sys::options) (cdr spec))
        (setf (gethash spec *method-combinations*) mc))))

(defun generic-function-method-combination (gf)
  "The method combination of GF, as a METHOD-COMBINATION metaobject."
  (%method-combination-object (slot-value (%check-gf gf) 'sys::method-combination)))

(defun find-method-combination (gf type-name options)
  "The method-combination metaobject for TYPE-NAME with OPTIONS (GF is not consulted)."
  (declare (ignore gf))
  (%method-combination-object (cons type-name options)))

(defmethod print-object ((mc method-combination) stream)
  (print-unreadable-object (mc stream :type t :identity t)
    (format stream "~S ~S" (slot-value mc 'sys::type-name) (slot-value mc 'sys::options))))

(defun accessor-method-slot-definition (method)
  "The direct slot definition an accessor METHOD (made by DEFCLASS) reads or writes."
  (let* ((m (%check-method method))
         (name (slot-value m 'sys::slot-name))
         (class (car (last (method-specializers m)))))
    (and name (sys::%class-p class)
         (find name (class-direct-slots class) :key #'slot-definition-name))))

(defun specializer-direct-generic-functions (specializer)
  "The generic functions with a method specialised on SPECIALIZER."
  (let ((r nil))
    (dolist (m (specializer-direct-methods specializer) (nreverse r))
      (let ((gf (method-generic-function m)))
        (if (and gf (not (member gf r))) (push gf r))))))

;;; ------------------------------------------------------------------
;;; Lambda lists of DEFMETHOD

(defun extract-lambda-list (specialized-lambda-list)
  "SPECIALIZED-LAMBDA-LIST without its specializers."
  (let ((r nil) (required t))
    (dolist (x specialized-lambda-list (nreverse r))
      (if (member x lambda-list-keywords) (setq required nil))
      (push (if (and required (consp x)) (car x) x) r))))

(defun extract-specializer-names (specialized-lambda-list)
  "The specializer names of the required parameters of SPECIALIZED-LAMBDA-LIST (T where none)."
  (let ((r nil))
    (dolist (x specialized-lambda-list (nreverse r))
      (if (member x lambda-list-keywords) (return (nreverse r)))
      (push (if (consp x) (cadr x) t) r))))

;;; ------------------------------------------------------------------
;;; Method selection by classes

(defun %class-applies-p (specializer class)
  ;; T, NIL, or :UNKNOWN (an EQL specializer whose object is of CLASS: the classes cannot tell)
  (cond ((sys::%class-p specializer)
         (if (member specializer (class-precedence-list (sys::%ensure-finalized class))) t nil))
        ((typep (eql-specializer-object specializer) class) :unknown)
        (t nil)))

(defun %applicable-methods-using-classes (generic-function classes)
  ;; the standard method of COMPUTE-APPLICABLE-METHODS-USING-CLASSES (mop-protocols.lisp)
  (let ((gf (%check-gf generic-function)) (applicable nil))
    (dolist (c classes) (%check-class c))
    (dolist (m (generic-function-methods gf))
      (let ((ok t))
        (loop for s in (method-specializers m)
              for c in classes
              do (let ((a (%class-applies-p s c)))
                   (cond ((eq a :unknown) (return-from %applicable-methods-using-classes
                                            (values nil nil)))
                         ((null a) (setq ok nil) (return)))))
        (if ok (push m applicable))))
    (values (sys::%cl-sort applicable
                           #'(lambda (a b)
                               (sys::%more-specific-p a b (slot-value gf 'sys::argument-precedence-order)
                                                      classes)))
            t)))

(defun %standard-effective-method-form (gf methods)
  ;; the standard method combination as a form of CALL-METHOD and MAKE-METHOD (the standard
  ;; method of COMPUTE-EFFECTIVE-METHOD, mop-protocols.lisp)
  (let ((around nil) (before nil) (primary nil) (after nil))
    (dolist (m methods)
      (let ((q (method-qualifiers m)))
        (cond ((null q) (push m primary))
              ((equal q '(:around)) (push m around))
              ((equal q '(:before)) (push m before))
              ((equal q '(:after)) (push m after))
              (t (sys::%invalid-qualifiers-error gf m)))))
    (setq around (nreverse around) before (nreverse before) primary (nreverse primary))
    (let ((main (cond
                  ((null primary) `(sys::%no-primary-method ',gf ,sys::*emf-args*))
                  ((or before after)
                    `(multiple-value-prog1
                         (progn ,@(mapcar #'(lambda (m) `(call-method ,m)) before)
                                (call-method ,(car primary) ,(cdr primary)))
                       ,@(mapcar #'(lambda (m) `(call-method ,m)) after)))
                  (t `(call-method ,(car primary) ,(cdr primary))))))
      (if around
          `(call-method ,(car around) (,@(cdr around) (make-method ,main)))
          main))))

(defgeneric make-method-lambda (generic-function method lambda-expression environment)
  (:documentation "A lambda expression of two parameters, the arguments and the next methods, for the method function of a method of GENERIC-FUNCTION whose lambda is LAMBDA-EXPRESSION, and initargs for the method. DEFMETHOD calls it when GENERIC-FUNCTION's method class is a program's."))

(defmethod make-method-lambda ((gf generic-function) method lambda-expression environment)
  ;; the method function tinycl makes of LAMBDA-EXPRESSION, called with the arguments and
  ;; the next methods (a list its CALL-NEXT-METHOD runs)
  (declare (ignore method environment))
  (unless (and (consp lambda-expression) (eq (car lambda-expression) 'lambda)
               (consp (cdr lambda-expression)) (listp (cadr lambda-expression)))
    (error "~S is not a lambda expression." lambda-expression))
  (let* ((ll (cadr lambda-expression))
         (fns (sys::%method-function-forms (generic-function-name gf) nil nil (%required-names ll) ll
                                           (cddr lambda-expression)))
         (args (gensym "ARGS")) (next (gensym "NEXT-METHODS")))
    (values (if (car fns)
                `(lambda (,args ,next)
                   (declare (ignore ,next))
                   (apply ,(car fns) ,args))
                `(lambda (,args ,next)
                   (apply ,(cadr fns) (cons nil ,next) ,args ,args)))
            nil)))

(defun %defmethod-by-method-lambda (gf name qualifiers spec body env)
  ;; SYS::*METHOD-LAMBDA-EXPANDER*: DEFMETHOD's expansion for GF, whose method class is a
  ;; program's: the method function is what MAKE-METHOD-LAMBDA returns for the method's lambda
  (let* ((ll (third spec))
         (doc (car (sys::%parse-body body t)))
         (lambda-expression `(lambda ,ll ,@body)))
    (multiple-value-bind (method-lambda initargs)
        (make-method-lambda gf (class-prototype (generic-function-method-class gf)) lambda-expression env)
      (unless (and (consp method-lambda) (eq (car method-lambda) 'lambda)
                   (consp (cdr method-lambda)) (listp (cadr method-lambda)))
        (error "MAKE-METHOD-LAMBDA of ~S returned ~S, which is not a lambda expression." gf method-lambda))
      (unless (%takes-two-arguments-p (cadr method-lambda))
        (error "MAKE-METHOD-LAMBDA of ~S returned ~S, whose lambda list does not take two arguments (the method's arguments and its next methods)."
               gf method-lambda))
      (unless (and (listp initargs) (ignore-errors (evenp (list-length initargs))))
        (error "MAKE-METHOD-LAMBDA of ~S returned ~S as the method's initargs, which is not a property list."
               gf initargs))
      `(%add-method-from-method-lambda ',name ',qualifiers (list ,@(second spec)) ',ll
                                       (function ,method-lambda) ',initargs ',doc))))

(defun %takes-two-arguments-p (lambda-list)
  (let ((required 0) (optional 0) (rest nil) (state :required))
    (dolist (x lambda-list)
      (case x
        (&optional (setq state :optional))
        ((&rest &body) (setq rest t) (setq state :other))
        ((&key &allow-other-keys &aux) (setq state :other))
        (t (case state (:required (incf required)) (:optional (incf optional))))))
    (and (<= required 2) (or rest (>= (+ required optional) 2)))))

(defun %add-method-from-method-lambda (name qualifiers specializers lambda-list method-function initargs doc)
  ;; a method whose function calls METHOD-FUNCTION with the arguments and the next methods
  (let* ((gf (if sys::*program-ensure-gf-methods-p*
                 (sys::%ensure-gf-of-method name (sys::%gf-lambda-list-from-method lambda-list))
                 (sys::%ensure-gf name (sys::%gf-lambda-list-from-method lambda-list))))
         (m (sys::%make-method (generic-function-method-class gf) qualifiers
                               (mapcar #'sys::%resolve-specializer specializers) lambda-list
                               #'(lambda (chain args &rest spread)
                                   (declare (ignore spread))
                                   (funcall method-function args (cdr chain)))
                               nil doc)))
    ;; METHOD-FUNCTION answers the function the method lambda made, as SBCL's does
    (sys::%set-method.plist m (list* :method-function method-function (sys::%method.plist m)))
    ;; the slots of the program's method class: the initargs, then their initforms
    (apply #'shared-initialize m t initargs)
    (sys::%add-method gf m)
    (sys::%note-definition 'defmethod name)
    m))

(setq sys::*method-lambda-expander* #'%defmethod-by-method-lambda)

;;; ------------------------------------------------------------------
;;; Classes

(defgeneric validate-superclass (class superclass)
  (:documentation "Whether SUPERCLASS may be a direct superclass of CLASS."))

(defmethod validate-superclass ((class class) (superclass class))
  (or (eq superclass (find-class 't))
      (eq (class-of class) (class-of superclass))
      (let ((a (class-of class)) (b (class-of superclass)))
        (and (member a (list (find-class 'standard-class) (find-class 'funcallable-standard-class)))
             (member b (list (find-class 'standard-class) (find-class 'funcallable-standard-class)))
             t))
      (eq (class-of superclass) (find-class 'forward-referenced-class))))

(defun reader-method-class (class direct-slot &rest initargs)
  "The class of the reader methods DEFCLASS makes."
  (declare (ignore class direct-slot initargs))
  (find-class 'standard-reader-method))

(defun writer-method-class (class direct-slot &rest initargs)
  "The class of the writer methods DEFCLASS makes."
  (declare (ignore class direct-slot initargs))
  (find-class 'standard-writer-method))

(defun add-direct-subclass (superclass subclass)
  "Records SUBCLASS as a direct subclass of SUPERCLASS."
  (%check-class subclass)
  (pushnew subclass (slot-value (%check-class superclass) 'sys::direct-subclasses))
  superclass)

(defun remove-direct-subclass (superclass subclass)
  "Forgets SUBCLASS as a direct subclass of SUPERCLASS."
  (setf (slot-value (%check-class superclass) 'sys::direct-subclasses)
        (remove subclass (slot-value superclass 'sys::direct-subclasses)))
  superclass)

(defun add-direct-method (specializer method)
  "Records METHOD as specialised on SPECIALIZER."
  (%check-method method)
  (pushnew method (slot-value (%check-specializer specializer) 'sys::direct-methods))
  specializer)

(defun remove-direct-method (specializer method)
  "Forgets METHOD as specialised on SPECIALIZER."
  (setf (slot-value (%check-specializer specializer) 'sys::direct-methods)
        (remove method (slot-value specializer 'sys::direct-methods)))
  specializer)

(defun %canonical-slot (spec)
  ;; a canonicalised slot specification (a plist, as AMOP's ENSURE-CLASS takes) or a symbol, as
  ;; a plist: %ENSURE-CLASS makes it a direct slot definition (mop-protocols.lisp)
  (unless (or (and spec (symbolp spec))
              (and (consp spec) (ignore-errors (evenp (list-length spec))) (getf spec :name)
                   (symbolp (getf spec :name))))
    (error "~S is not a canonicalized slot specification (a symbol, or a plist with :NAME)." spec))
  (if (symbolp spec) (list :name spec) spec))

(defun %canonical-default-initargs (initargs)
  ;; ((key form function) ...), as DEFCLASS gives them; a plist is accepted too
  (if (and initargs (symbolp (car initargs)))
      (loop for (k v) on initargs by #'cddr
            collect (list k v (let ((v v)) #'(lambda () v))))
      initargs))

;;; ENSURE-CLASS calls the generic ENSURE-CLASS-USING-CLASS with the current class of the name
;;; (NIL, a FORWARD-REFERENCED-CLASS or a class), whose standard methods (one for each, as AMOP
;;; has them) define or redefine it; DEFCLASS calls ENSURE-CLASS. Its :DIRECT-SLOTS are
;;; canonicalized slot plists, or (from DEFCLASS of a class of STANDARD-CLASS or
;;; FUNCALLABLE-STANDARD-CLASS, while no program's method could read them: mop-protocols.lisp)
;;; direct slot definitions, made while loading.

(defun ensure-class (name &rest args &key &allow-other-keys)
  "Defines or redefines the class NAME as DEFCLASS does, from canonicalised arguments, by ENSURE-CLASS-USING-CLASS; returns the class."
  (unless (and name (symbolp name))
    (error "~S is not a legal class name." name))
  (apply #'ensure-class-using-class (find-class name nil) name args))

(defgeneric ensure-class-using-class (class name &rest args &key &allow-other-keys)
  (:documentation "Defines the class NAME, whose current class is CLASS (NIL when there is none, or a forward referenced class), or redefines CLASS, from ENSURE-CLASS's arguments; returns the class."))

(defun %define-class (name args)
  ;; the standard methods of ENSURE-CLASS-USING-CLASS: define or redefine the class NAME
  (destructuring-bind (&key direct-superclasses direct-slots direct-default-initargs documentation
                            metaclass &allow-other-keys)
      args
    (dolist (s direct-superclasses)
      (unless (or (sys::%class-p s) (and s (symbolp s)))
        (error 'type-error :datum s :expected-type '(or class (and symbol (not null))))))
    (let ((supers (mapcar #'(lambda (s) (if (sys::%class-p s) (class-name s) s)) direct-superclasses))
          (meta (if (sys::%class-p metaclass) (class-name metaclass) metaclass)))
      (sys::%ensure-class-1 name supers
                            (mapcar #'(lambda (s) (if (typep s 'slot-definition) s (%canonical-slot s)))
                                    direct-slots)
                            (%canonical-default-initargs direct-default-initargs) documentation meta
                            ;; the other arguments are initargs of the metaclass
                            (loop for (k v) on args by #'cddr
                                  unless (member k '(:direct-superclasses :direct-slots :direct-default-initargs
                                                     :documentation :metaclass :name :environment))
                                    append (list k v))))))

(defmethod ensure-class-using-class ((class null) name &rest args)
  (%define-class name args))

(defmethod ensure-class-using-class ((class forward-referenced-class) name &rest args)
  (%define-class name args))

(defmethod ensure-class-using-class ((class class) name &rest args)
  (%define-class name args))

(defun %defclass-by-ensure-class (name superclasses direct-slots default-initargs doc metaclass other-initargs)
  ;; SYS::*ENSURE-CLASS-HOOK*: DEFCLASS's arguments as ENSURE-CLASS takes them
  (apply #'ensure-class name :direct-superclasses superclasses :direct-slots direct-slots
         :direct-default-initargs default-initargs :documentation doc
         :metaclass (or metaclass 'standard-class) other-initargs))

(setq sys::*ensure-class-hook* #'%defclass-by-ensure-class)

(defun %slot-definition-plist (d)
  ;; the canonicalized slot plist (AMOP 5.4.2) DEFCLASS would have made for the direct slot
  ;; definition D, with the keys SBCL's DEFCLASS gives: :INITFORM and :INITFUNCTION only when
  ;; the slot has an initform, :ALLOCATION, :TYPE and :DOCUMENTATION only when not the default
  (let ((doc (sys::%slotd.documentation d)) (type (sys::%slotd.type d))
        (allocation (sys::%slotd.allocation d)))
    (append (list :name (sys::%slotd.name d))
            (when (sys::%slotd.initfunction d)
              (list :initform (sys::%slotd.initform d) :initfunction (sys::%slotd.initfunction d)))
            (list :initargs (sys::%slotd.initargs d) :readers (sys::%slotd.readers d)
                  :writers (sys::%slotd.writers d))
            (unless (eq allocation :instance) (list :allocation allocation))
            (unless (eq type t) (list :type type))
            (when doc (list :documentation doc)))))

(defun %defclass-by-ensure-class-with-plists (name superclasses direct-slots default-initargs doc
                                              metaclass other-initargs)
  ;; SYS::*ENSURE-CLASS-HOOK* while a program's method on ENSURE-CLASS-USING-CLASS, or on the
  ;; initialization of a class of STANDARD-CLASS, may read the direct slots (mop-protocols.lisp
  ;; decides): the direct slot definitions DEFCLASS made while loading go as slot plists, as
  ;; AMOP and SBCL pass them; otherwise %DEFCLASS-BY-ENSURE-CLASS passes them as they are
  (%defclass-by-ensure-class name superclasses
                             (mapcar #'(lambda (s) (if (consp s) s (%slot-definition-plist s))) direct-slots)
                             default-initargs doc metaclass other-initargs))

;;; ENSURE-GENERIC-FUNCTION calls the generic ENSURE-GENERIC-FUNCTION-USING-CLASS with the
;;; current generic function of the name (NIL when there is none), and so do DEFGENERIC and
;;; DEFMETHOD of a new generic function (DEFMETHOD of an existing one as well, with its class as
;;; :GENERIC-FUNCTION-CLASS, while a program's method on it exists, as SBCL's does); its standard
;;; methods, one for NIL and one for a generic function as AMOP has them, make or update it.

(defgeneric ensure-generic-function-using-class (generic-function function-name &key &allow-other-keys)
  (:documentation "Defines the generic function FUNCTION-NAME, whose current generic function is GENERIC-FUNCTION (NIL when there is none), or updates GENERIC-FUNCTION, from ENSURE-GENERIC-FUNCTION's arguments; returns the generic function."))

(defmethod ensure-generic-function-using-class ((generic-function null) function-name &rest args
                                                &key &allow-other-keys)
  (apply #'sys::%ensure-generic-function-1 nil function-name args))

(defmethod ensure-generic-function-using-class ((generic-function generic-function) function-name
                                                &rest args &key &allow-other-keys)
  (apply #'sys::%ensure-generic-function-1 generic-function function-name args))

(setq sys::*ensure-gf-using-class* #'ensure-generic-function-using-class)

;;; ------------------------------------------------------------------
;;; Slot access

(defun standard-instance-access (instance location)
  "The value in slot LOCATION (a SLOT-DEFINITION-LOCATION) of INSTANCE."
  (sys::%instance-ref instance location))

(defun (setf standard-instance-access) (new-value instance location)
  (sys::%instance-set (%check-plain-instance instance) location new-value))

(defun funcallable-standard-instance-access (instance location)
  "The value in slot LOCATION of the funcallable INSTANCE."
  (sys::%instance-ref instance location))

(defun (setf funcallable-standard-instance-access) (new-value instance location)
  (sys::%instance-set (%check-plain-instance instance) location new-value))

(defun set-funcallable-instance-function (funcallable-instance function)
  "Makes FUNCTION what FUNCALLABLE-INSTANCE runs when called."
  (sys::%set-funcallable-instance-function funcallable-instance function))

;;; ------------------------------------------------------------------
;;; Dependents (AMOP 5.5): kept per metaobject. Once a program adds one, every change to a class
;;; (its redefinition, REINITIALIZE-INSTANCE) or to a generic function (ADD-METHOD, REMOVE-METHOD,
;;; REINITIALIZE-INSTANCE) calls UPDATE-DEPENDENT for each of the metaobject's dependents with the
;;; initargs of the change (ADD-METHOD or REMOVE-METHOD and the method for those two).

(defvar *dependents* (make-hash-table :test 'eq))

(defun %notify-dependents (metaobject initargs)
  (dolist (d (gethash metaobject *dependents*))
    (apply #'update-dependent metaobject d initargs)))

(defun add-dependent (metaobject dependent)
  "Records DEPENDENT as a dependent of METAOBJECT."
  (pushnew dependent (gethash metaobject *dependents*))
  (setf sys::*metaobject-changed-hook* #'%notify-dependents)
  metaobject)

(defun remove-dependent (metaobject dependent)
  "Forgets DEPENDENT as a dependent of METAOBJECT."
  (setf (gethash metaobject *dependents*) (remove dependent (gethash metaobject *dependents*)))
  metaobject)

(defun map-dependents (metaobject function)
  "Calls FUNCTION on each dependent of METAOBJECT."
  (dolist (d (gethash metaobject *dependents*) nil) (funcall function d)))

(defgeneric update-dependent (metaobject dependent &rest initargs)
  (:documentation "Tells DEPENDENT that METAOBJECT changed with INITARGS."))

(defmethod reinitialize-instance :after ((metaobject class) &rest initargs)
  ;; a change of definition first (mop-protocols.lisp), then the dependents
  (apply #'%redefine-class-from-initargs metaobject initargs)
  (when sys::*metaobject-changed-hook* (funcall sys::*metaobject-changed-hook* metaobject initargs)))

(defmethod reinitialize-instance :after ((metaobject generic-function) &rest initargs)
  (when sys::*metaobject-changed-hook* (funcall sys::*metaobject-changed-hook* metaobject initargs)))

(in-package "COMMON-LISP-USER")
