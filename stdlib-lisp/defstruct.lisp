;;;; defstruct.lisp: DEFSTRUCT (CLHS 8): structure classes (instances flagged as structures, so
;;;; that EQUALP compares them slot by slot), list and vector structures (:TYPE), keyword and BOA
;;;; constructors, :INCLUDE with slot overrides, printing as #S(...) and reading #S(...) back,
;;;; redefinition as SBCL allows it (an incompatible change is a continuable error).
;;;; Structure classes are CLOS classes (clos.lisp): methods specialise on them, TYPEP works.

(in-package "SYSTEM")

;;; A description is a list (name type named offset slots constructors predicate copier include
;;; conc-name doc print) kept in *STRUCTURE-DESCRIPTIONS*; a slot is a list
;;; (name initform type read-only accessor index). TYPE is NIL for a structure class, else
;;; LIST, VECTOR or (VECTOR element-type); INDEX is the slot's place in the instance or the
;;; list or vector (name markers and initial offsets included).

(defvar *structure-descriptions* (make-hash-table :test 'eq)
  "Every structure, by name: its description.")

(defun %sd-name (d) (nth 0 d))
(defun %sd-type (d) (nth 1 d))
(defun %sd-named (d) (nth 2 d))
(defun %sd-slots (d) (nth 4 d))
(defun %sd-constructors (d) (nth 5 d))
(defun %sd-length (d) (nth 11 d))

(defun %struct-error (name fmt &rest args)
  (error 'simple-program-error :format-control "~A in DEFSTRUCT ~S."
                               :format-arguments (list (apply #'format nil fmt args) name)))

(defun %symbolicate (&rest parts)
  (let ((s (make-string-output-stream)))
    (dolist (p parts) (write-string (if (symbolp p) (symbol-name p) p) s))
    (intern (get-output-stream-string s))))

(defun %accessor-name (conc-name slot-name)
  ;; CONC-NAME NIL (:CONC-NAME given without a name, or NIL) means the slot name itself, in
  ;; its own package; a string prefix interns the result in the current package.
  (if conc-name (%symbolicate conc-name slot-name) slot-name))

(defun %keywordize (sym) (intern (symbol-name sym) "KEYWORD"))

(defun %parse-struct-slot (name spec)
  ;; -> (name initform type read-only)
  (cond ((symbolp spec) (list spec nil t nil))
        ((and (consp spec) (symbolp (car spec)))
         (let ((type t) (read-only nil) (opts (cddr spec)))
           (tagbody
            top
              (if (null opts) (go end))
              (if (null (cdr opts)) (%struct-error name "Odd-length slot options ~S" spec))
              (cond ((eq (car opts) :type) (setq type (cadr opts)))
                    ((eq (car opts) :read-only) (setq read-only (if (cadr opts) t nil)))
                    (t (%struct-error name "Unknown slot option ~S in ~S" (car opts) spec)))
              (setq opts (cddr opts))
              (go top)
            end)
           (list (car spec) (cadr spec) type read-only)))
        (t (%struct-error name "~S is not a slot description" spec))))

(defun %parse-defstruct (name-and-options slot-specs)
  (let* ((name (if (consp name-and-options) (car name-and-options) name-and-options))
         (options (if (consp name-and-options) (cdr name-and-options) nil))
         (conc-name :default) (constructors nil) (no-constructor nil) (copier :default)
         (predicate :default) (include nil) (type nil) (named nil) (offset 0) (print nil)
         (doc nil) (seen nil))
    (if (not (and name (symbolp name)))
        (error 'simple-program-error :format-control "~S is not a legal structure name." :format-arguments (list name)))
    (if (stringp (car slot-specs)) (progn (setq doc (car slot-specs)) (setq slot-specs (cdr slot-specs))))
    (dolist (o options)
      (let ((key (if (consp o) (car o) o)) (args (if (consp o) (cdr o) nil)))
        (if (and (not (eq key :constructor)) (%memq key seen))
            (%struct-error name "More than one ~S option" key))
        (setq seen (cons key seen))
        (cond ((eq key :conc-name)
               ;; no argument or NIL: the accessors are named by the slot names themselves
               (setq conc-name (if (or (null args) (null (car args))) nil (string (car args)))))
              ((eq key :constructor)
               (cond ((null args) (setq constructors (append constructors (list (list (%symbolicate "MAKE-" name))))))
                     ((null (car args)) (setq no-constructor t))
                     (t (setq constructors (append constructors (list args))))))
              ((eq key :copier) (setq copier (if args (car args) :default)))
              ((eq key :predicate) (setq predicate (if args (car args) :default)))
              ((eq key :include)
               (if (null args) (%struct-error name ":INCLUDE needs a structure name"))
               (setq include args))
              ((eq key :print-function) (setq print (cons :print-function (car args))))
              ((eq key :print-object) (setq print (cons :print-object (car args))))
              ((eq key :type) (setq type (car args))
               (if (not (or (eq type 'list) (eq type 'vector)
                            (and (consp type) (eq (car type) 'vector))))
                   (%struct-error name "~S is not a valid :TYPE" type)))
              ((eq key :named) (setq named t))
              ((eq key :initial-offset) (setq offset (car args))
               (if (not (and (integerp offset) (>= offset 0)))
                   (%struct-error name "~S is not a valid :INITIAL-OFFSET" offset)))
              (t (%struct-error name "Unknown option ~S" o)))))
    (if (and no-constructor constructors)
        (error 'simple-error :format-control "(:CONSTRUCTOR NIL) combined with other :CONSTRUCTORs"))
    (if (and (null constructors) (not no-constructor))
        (setq constructors (list (list (%symbolicate "MAKE-" name)))))
    (if (and (%memq :initial-offset seen) (null type))
        (%struct-error name ":INITIAL-OFFSET requires :TYPE"))
    (if (and named (null type)) (setq named nil))
    (if (null type) (setq named t))
    (if (and print type) (%struct-error name "~S requires a structure class (no :TYPE)" (car print)))
    (if (eq conc-name :default) (setq conc-name (%symbolicate name "-")))
    (if (and conc-name (symbolp conc-name)) (setq conc-name (symbol-name conc-name)))
    (if (eq copier :default) (setq copier (%symbolicate "COPY-" name)))
    (if (eq predicate :default) (setq predicate (if named (%symbolicate name "-P") nil)))
    ;; these two are SIMPLE-ERRORs, as in SBCL (CLHS DEFSTRUCT leaves the type to the implementation)
    (if (and predicate (not named))
        (error 'simple-error :format-control "A :PREDICATE needs a named structure in DEFSTRUCT ~S."
                             :format-arguments (list name)))
    (if (and named (consp type) (consp (cdr type))
             (not (eq (cadr type) '*)) (not (typep name (cadr type))))
        (error 'simple-error :format-control "DEFSTRUCT ~S is :NAMED, but its :TYPE ~S cannot hold the name."
                             :format-arguments (list name type)))
    ;; slots: included ones (with overrides) first
    (let ((parent (and include (gethash (car include) *structure-descriptions*)))
          (slots nil) (index 0) (names nil))
      (if (and include (null parent))
          (error 'simple-error :format-control "Structure ~S cannot :INCLUDE ~S, which is not a defined structure."
                               :format-arguments (list name (car include))))
      (if (and parent (not (equal (%sd-type parent) type)))
          (error 'simple-error :format-control ":TYPE option mismatch between structures ~S and ~S."
                               :format-arguments (list name (car include))))
      (if parent
          (progn
            (setq index (%sd-length parent))
            (dolist (ps (%sd-slots parent))
              (let ((override nil))
                (dolist (o (cdr include))
                  (if (eq (if (consp o) (car o) o) (car ps)) (setq override (%parse-struct-slot name o))))
                (setq slots (append slots
                                    (list (list (car ps)
                                                (if override (cadr override) (cadr ps))
                                                (if (and override (not (eq (caddr override) t))) (caddr override) (caddr ps))
                                                (if override (or (nth 3 override) (nth 3 ps)) (nth 3 ps))
                                                (%accessor-name conc-name (car ps))
                                                (nth 5 ps)))))
                (setq names (cons (car ps) names))))))
      (if type (setq index (+ index offset)))
      (let ((name-index (if (and type named) index nil)))
        (if name-index (setq index (1+ index)))
        (dolist (spec slot-specs)
          (let ((s (%parse-struct-slot name spec)))
            (if (%memq (car s) names)
                (%struct-error name "Duplicate slot name ~S" (car s)))
            (setq names (cons (car s) names))
            (setq slots (append slots (list (append s (list (%accessor-name conc-name (car s)) index)))))
            (setq index (1+ index))))
        ;; (name type named offset slots constructors predicate copier include conc-name doc length name-index print)
        (list name type named offset slots constructors predicate copier (car include) conc-name doc index
              name-index print)))))

;;; ------------------------------------------------------------------
;;; Constructors

(defun %boa-lambda-list (ll slots)
  ;; slot initforms become the defaults of &optional and &key parameters without one
  (let ((state :req) (r nil))
    (dolist (x ll)
      (cond ((%memq x '(&optional &rest &key &aux &allow-other-keys &body))
             (setq state x) (setq r (cons x r)))
            ((%memq state '(&optional &key))
             (let* ((var (if (consp x) (car x) x))
                    (v (if (consp var) (cadr var) var))
                    (slot (%cl-assq v slots)))
               (if (and slot (or (symbolp x) (null (cdr x))))
                   (setq r (cons (list var (cadr slot)) r))
                   (setq r (cons x r)))))
            ((eq state '&aux)
             (if (or (symbolp x) (null (cdr x)))
                 (setq r (cons (list (if (consp x) (car x) x) '+slot-unbound+) r))
                 (setq r (cons x r))))
            (t (setq r (cons x r)))))
    (nreverse-boot r)))

(defun %mapcar2-boot (fn a b)
  (let ((r nil))
    (tagbody
     top
       (if (or (null a) (null b)) (go end))
       (setq r (cons (funcall fn (car a) (car b)) r))
       (setq a (cdr a) b (cdr b))
       (go top)
     end)
    (nreverse-boot r)))

(defun %lambda-list-variables (ll)
  (let ((vars nil))
    (dolist (x ll)
      (if (not (%memq x '(&optional &rest &key &aux &allow-other-keys &body)))
          (let ((v (if (consp x) (car x) x)))
            (if (consp v) (setq v (cadr v)))
            (setq vars (cons v vars))
            (if (and (consp x) (cddr x)) (setq vars (cons (caddr x) vars))))))
    vars))

(defun %slot-value-forms (slots vars &optional keyword-vars)
  ;; for each slot: its variable when the constructor binds one, else its initform;
  ;; KEYWORD-VARS: the variables of a keyword constructor, one per slot
  (%mapcar2-boot #'(lambda (s kv)
                     (let ((value (cond (kv kv) ((%memq (car s) vars) (car s)) (t (cadr s)))))
                       (if (eq (caddr s) t)
                           value
                           `(%check-slot-type ,value ',(caddr s) ',(car s)))))
                 slots (or keyword-vars (%mapcar1 #'(lambda (s) (declare (ignore s)) nil) slots))))

;; %CHECK-SLOT-TYPE (value type slot), in C (runtime/types.c), calls this when VALUE is not of TYPE
(defun %slot-type-error (value type slot)
  (error 'simple-type-error :datum value :expected-type type
                            :format-control "The value ~S is not of type ~S (slot ~S)."
                            :format-arguments (list value type slot)))

(defun %typed-make-form (d value-forms)
  ;; the list or vector of a typed structure: offsets are NIL, the name marker the name
  (let ((cells nil) (len (%sd-length d)))
    (dotimes (i len) (setq cells (cons nil cells)))
    (let ((cur (%typed-template d)))
      (dolist (e cur)
        (let ((cell (nthcdr (car e) cells)))
          (rplaca cell (if (eq (cadr e) :name) `',(caddr e) nil))))
      (let ((slots (%sd-slots d)) (forms value-forms))
        (dolist (s slots)
          (rplaca (nthcdr (nth 5 s) cells) (car forms))
          (setq forms (cdr forms)))))
    (let ((type (%sd-type d)))
      (cond ((eq type 'list) `(list ,@cells))
            ((eq type 'vector) `(vector ,@cells))
            (t `(make-array ,len :element-type ',(cadr type) :initial-contents (list ,@cells)))))))

(defun %typed-template (d)
  ;; the name markers of D and of the structures it includes: ((index :name name) ...)
  (let ((r nil) (x d))
    (tagbody
     top
       (if (null x) (go end))
       (if (nth 12 x) (setq r (cons (list (nth 12 x) :name (%sd-name x)) r)))
       (setq x (and (nth 8 x) (gethash (nth 8 x) *structure-descriptions*)))
       (go top)
     end)
    r))

(defun %constructor-forms (d class-var)
  (let ((slots (%sd-slots d)) (forms nil))
    (dolist (c (%sd-constructors d))
      (let* ((cname (car c))
             (boa (cdr c))
             ;; keyword constructors bind uninterned variables, as SBCL: an initform does not
             ;; see the other slots
             (kvars (if boa nil (%mapcar1 #'(lambda (s) (make-symbol (symbol-name (car s)))) slots)))
             (ll (if boa
                     (%boa-lambda-list (car boa) slots)
                     (cons '&key (%mapcar2-boot #'(lambda (s v) (list (list (%keywordize (car s)) v) (cadr s)))
                                                slots kvars))))
             (values (if boa
                         (%slot-value-forms slots (%lambda-list-variables ll))
                         (%slot-value-forms slots nil kvars))))
        (setq forms
              (cons `(%define-structure-function
                      ',cname
                      (function (named-lambda ,cname ,ll
                                  ,(if (%sd-type d)
                                       (%typed-make-form d values)
                                       `(%make-structure ,class-var ,@values)))))
                    forms))))
    (nreverse-boot forms)))

;;; ------------------------------------------------------------------
;;; Accessors, predicate, copier

(defun %accessor-forms (d class-var)
  ;; parameters named in the package the structure is defined in, for the lambda lists shown
  (let ((forms nil) (type (%sd-type d)) (instance (intern "INSTANCE")) (value (intern "VALUE")))
    (dolist (s (%sd-slots d))
      (let ((acc (nth 4 s)) (index (nth 5 s)) (slot-type (caddr s)))
        (setq forms
              (cons `(%define-structure-function
                      ',acc
                      (function (named-lambda ,acc (,instance)
                                  ,(cond ((null type) `(%structure-ref ,instance ,class-var ,index))
                                         ((eq type 'list) `(nth ,index ,instance))
                                         (t `(aref ,instance ,index))))))
                    forms))
        (if (not (nth 3 s))
            (setq forms
                  (cons `(%define-structure-function
                          '(setf ,acc)
                          (function (named-lambda (setf ,acc) (,value ,instance)
                                      ,@(if (not (eq slot-type t))
                                            `((%check-slot-type ,value ',slot-type ',(car s))))
                                      ,(cond ((null type) `(%structure-set ,value ,instance ,class-var ,index))
                                             ((eq type 'list) `(setf (nth ,index ,instance) ,value))
                                             (t `(setf (aref ,instance ,index) ,value))))))
                        forms)))))
    (nreverse-boot forms)))

(defun %predicate-copier-forms (d class-var)
  (let ((forms nil) (type (%sd-type d)) (pred (nth 6 d)) (copier (nth 7 d))
        (object (intern "OBJECT")) (instance (intern "INSTANCE")))
    (if pred
        (setq forms
              (cons `(%define-structure-function
                      ',pred
                      (function (named-lambda ,pred (,object)
                                  ,(let ((ni (nth 12 d)))
                                     (cond ((null type) `(%structure-typep ,object ,class-var))
                                           ((eq type 'list)
                                            `(and (listp ,object) (eq (nth ,ni ,object) ',(%sd-name d))
                                                  (if (nthcdr ,ni ,object) t nil)))
                                           (t `(and (vectorp ,object) (> (length ,object) ,ni)
                                                    (eq (aref ,object ,ni) ',(%sd-name d)))))))))
                    forms)))
    (if copier
        (setq forms
              (cons `(%define-structure-function
                      ',copier
                      (function (named-lambda ,copier (,instance)
                                  ,(cond ((null type)
                                          `(%copy-instance (%structure-check ,instance ,class-var)))
                                         ((eq type 'list) `(copy-list ,instance))
                                         (t `(copy-seq ,instance))))))
                    forms)))
    forms))

(defun %define-structure-function (name function)
  (%set-fdefinition name function)
  name)

;;; ------------------------------------------------------------------
;;; The structure class

(defun %same-structure-layout-p (class parent-class d)
  ;; whether CLASS (an existing structure class) can take the new definition D in place
  (let ((old (%plist-get (%class-plist class) :structure nil)))
    (and old
         (eq (car (%class-direct-superclasses class)) parent-class)
         (= (%list-length (%sd-slots old)) (%list-length (%sd-slots d)))
         (%cl-every2 #'(lambda (a b) (and (eq (car a) (car b)) (equal (caddr a) (caddr b))
                                          (eq (nth 3 a) (nth 3 b))))
                     (%sd-slots old) (%sd-slots d)))))

(defun %define-structure (d)
  ;; make or update the structure class of description D; returns the class
  (let* ((name (%sd-name d))
         (old (gethash name *class-table*))
         (parent (if (nth 8 d) (find-class (nth 8 d)) *structure-object-class*))
         (class nil))
    (cond ((and old (eq (%class-kind old) :structure) (%same-structure-layout-p old parent d))
           (setq class old))
          (t
           (if (and old (eq (%class-kind old) :structure))
               (progn
                 (if (not (= (%class-instance-size old) (%list-length (%sd-slots d))))
                     (warn "change in instance length of class ~S:~%  current length: ~D~%  new length: ~D"
                           name (%class-instance-size old) (%list-length (%sd-slots d))))
                 (cerror "Use the new definition of ~S, invalidating already-loaded code and instances."
                         'simple-error
                         :format-control "attempt to redefine the STRUCTURE-OBJECT class ~S incompatibly with the current definition"
                         :format-arguments (list name))))
           (if (and old (not (eq (%class-kind old) :structure)))
               (error 'simple-error :format-control "~S already names a ~A class; it cannot become a structure."
                                    :format-arguments (list name (string-downcase (symbol-name (%class-kind old))))))
           (setq class (%make-class-object name :structure))
           (%set-instance-layout class (%metaclass-for-kind :structure))
           (if old
               ;; the old class leaves the hierarchy; its instances keep it
               (%set-direct-superclasses old nil))))
    (let ((own nil) (parent-slots (if (nth 8 d) (%list-length (%sd-slots (gethash (nth 8 d) *structure-descriptions*))) 0))
          (i 0))
      ;; the class's direct slots are its own; included ones come from the parent class
      (dolist (s (%sd-slots d))
        (if (>= i parent-slots) (setq own (cons s own)))
        (setq i (1+ i)))
      (%set-class.direct-slots class
                     (%mapcar1 #'(lambda (s)
                                   (let ((sd (%make-slot-definition (car s) (list (%keywordize (car s)))
                                                                    (cadr s) nil (list (nth 4 s)) nil
                                                                    :instance (caddr s) nil)))
                                     (%set-slotd.read-only sd (nth 3 s))
                                     sd))
                               (nreverse-boot own))))
    (%set-class.documentation class (nth 10 d))
    (%set-class.plist class (list :structure d))
    (%set-direct-superclasses class (list parent))
    (setf (gethash name *class-table*) class)
    (%finalize-class class)
    ;; a name that named no class: no cached dispatch can change (see %SHAPE-CLASS)
    (if old (%bump-epoch))
    class))

(defun %class-instance-size (c) (%class.instance-size c))

(defun %expand-defstruct (name-and-options slot-specs)
  (let* ((d (%parse-defstruct name-and-options slot-specs))
         (name (%sd-name d))
         (class-var (gensym "CLASS"))
         (print (nth 13 d)))
    `(progn
       (%register-structure ',d)
       ,(if (%sd-type d)
            `(let ((,class-var nil))
               (declare (ignorable ,class-var))
               ,@(%constructor-forms d class-var)
               ,@(%accessor-forms d class-var)
               ,@(%predicate-copier-forms d class-var))
            `(let ((,class-var (%define-structure ',d)))
               ,@(%constructor-forms d class-var)
               ,@(%accessor-forms d class-var)
               ,@(%predicate-copier-forms d class-var)))
       ,@(if print
             (let ((o (gensym "OBJECT")) (s (gensym "STREAM"))
                   (fn (if (and (consp (cdr print)) (eq (car (cdr print)) 'lambda))
                           `(function ,(cdr print))
                           `(function ,(cdr print)))))
               `((defmethod print-object ((,o ,name) ,s)
                   ,(if (eq (car print) :print-object)
                        `(funcall ,fn ,o ,s)
                        `(funcall ,fn ,o ,s *current-print-depth*))
                   ,o))))
       (%note-definition 'defstruct ',name)
       ',name)))

(defun %register-structure (d)
  (%check-definition-lock (%sd-name d))
  (if (nth 10 d)
      (progn (%set-documentation (%sd-name d) 'structure (nth 10 d))
             (if (null (%sd-type d)) (%set-documentation (%sd-name d) 'type (nth 10 d)))))
  (setf (gethash (%sd-name d) *structure-descriptions*) d))

(defmacro defstruct (name-and-options &rest slot-descriptions)
  "Defines a structure type from NAME-AND-OPTIONS and SLOT-DESCRIPTIONS: a constructor (MAKE-name), a predicate (name-P), a copier (COPY-name) and an accessor per slot (name-slot). Returns the name."
  ;; COMPILE-FILE defines the whole structure at compile time (CLHS DEFSTRUCT asks for its type,
  ;; its :INCLUDE and its places; tinycl has one environment, so the functions come with them)
  `(eval-when (:compile-toplevel :load-toplevel :execute)
     (sys::%check-type-name-free ',(if (consp name-and-options) (car name-and-options) name-and-options))
     ,(%expand-defstruct name-and-options slot-descriptions)))

(defun copy-structure (structure)
  "A shallow copy of the structure instance STRUCTURE: a new instance with the same slot values."
  (if (not (and (%instance-p structure) (= (%instance-flags structure) (%flag.structure))))
      (error 'type-error :datum structure :expected-type 'structure-object))
  (%copy-instance structure))

;;; ------------------------------------------------------------------
;;; #S(name :slot value ...)

(defun %read-structure (list)
  (let* ((name (car list))
         (d (and (symbolp name) (gethash name *structure-descriptions*)))
         (ctor (and d (dolist (c (%sd-constructors d) nil) (if (null (cdr c)) (return (car c)))))))
    (if (or (null d) (%sd-type d))
        (error 'simple-reader-error :format-control "~S is not a defined structure type."
                                    :format-arguments (list name)))
    (if (null ctor)
        (error 'simple-reader-error :format-control "The ~S structure does not have a default constructor."
                                    :format-arguments (list name)))
    (let ((args nil) (x (cdr list)))
      (tagbody
       top
         (if (null x) (go end))
         ;; slot names are string designators (CLHS 2.4.8.13)
         (if (or (not (or (symbolp (car x)) (stringp (car x)) (characterp (car x)))) (null (cdr x)))
             (error 'simple-reader-error :format-control "Malformed #S syntax: ~S" :format-arguments (list list)))
         (setq args (cons (cadr x) (cons (intern (string (car x)) "KEYWORD") args)))
         (setq x (cddr x))
         (go top)
       end)
      (apply ctor (nreverse-boot args)))))
