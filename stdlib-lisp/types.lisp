;;;; types.lisp: types (CLHS chapter 4): typecase, deftype, check-type, and type helpers written in Lisp.
;;;; TYPEP, SUBTYPEP, TYPE-OF and COERCE are in C (runtime/types.c); DEFTYPE stores an expander
;;;; function of (form environment) under the symbol property SYS::%DEFTYPE-EXPANDER.

(in-package "SYSTEM")

;;; ------------------------------------------------------------------
;;; DEFTYPE

(defun sys::%deftype-lambda-list (lambda-list)
  "Rewrite a DEFTYPE lambda list: &optional and &key parameters without a default get
the default '* (CLHS 3.4.8); &whole and &environment are taken out.
Returns the new lambda list, the &whole variable and the &environment variable."
  (let ((out nil) (mode :required) (whole nil) (env nil) (l lambda-list))
    (tagbody
     top
       (if (atom l) (go end))
       (let ((p (car l)))
         (cond ((eq p '&whole) (setq whole (cadr l)) (setq l (cdr l)))
               ((eq p '&environment) (setq env (cadr l)) (setq l (cdr l)))
               ((or (eq p '&optional) (eq p '&key)) (setq mode :defaulted) (setq out (cons p out)))
               ((member-boot p '(&rest &body &aux &allow-other-keys))
                (setq mode :required)
                (setq out (cons p out)))
               ((and (eq mode :defaulted) (symbolp p)) (setq out (cons (list p ''*) out)))
               ((and (eq mode :defaulted) (consp p) (null (cdr p)))
                (setq out (cons (list (car p) ''*) out)))
               (t (setq out (cons p out)))))
       (setq l (cdr l))
       (go top)
     end)
    (values (if l (append (nreverse-boot out) l) (nreverse-boot out)) whole env)))

(defmacro deftype (name lambda-list &body body)
  "Define NAME as a type specifier that expands as BODY computes from the arguments."
  (multiple-value-bind (ll whole-var env-var) (sys::%deftype-lambda-list lambda-list)
    (let* ((form (gensym "FORM")) (env (gensym "ENV"))
           (doc (if (and (typep (car body) 'string) (cdr body)) (car body)))
           (forms (if doc (cdr body) body))
           (decls nil))
      ;; the body is in an implicit block named NAME, inside its declarations
      (do () ((not (and (consp (car forms)) (eq (caar forms) 'declare))))
        (setq decls (cons (car forms) decls))
        (setq forms (cdr forms)))
      ;; a type of the file COMPILE-FILE processes is known to the rest of it (CLHS DEFTYPE)
      `(eval-when (:compile-toplevel :load-toplevel :execute)
         (sys::%check-type-name-free ',name)
         (sys::%put ',name 'sys::%deftype-expander
                    #'(lambda (,form ,env)
                        (declare (ignorable ,env))
                        (let (,@(if whole-var `((,whole-var ,form)))
                              ,@(if env-var `((,env-var ,env))))
                          (destructuring-bind ,ll (cdr ,form)
                            ,@(reverse decls)
                            (block ,name ,@forms)))))
         ,@(if doc `((sys::%put ',name 'sys::%type-documentation ,doc)))
         (sys::%note-definition 'deftype ',name)
         ',name))))

;;; ------------------------------------------------------------------
;;; TYPECASE, ETYPECASE, CTYPECASE

(defun sys::%typecase-clauses (key clauses)
  ;; the COND clauses testing KEY against each clause's type
  (let ((r nil))
    (dolist (c clauses)
      (if (not (consp c))
          (error 'simple-program-error :format-control "Malformed TYPECASE clause: ~S"
                                       :format-arguments (list c)))
      (setq r (cons (if (eq (car c) 'otherwise)
                        `(t (progn ,@(cdr c)))
                        `((typep ,key ',(car c)) (progn ,@(cdr c))))
                    r)))
    (nreverse-boot r)))

(defun sys::%typecase-types (clauses)
  (let ((r nil))
    (dolist (c clauses)
      (if (and (consp c) (not (eq (car c) 'otherwise)))
          (setq r (cons (car c) r))))
    (nreverse-boot r)))

(defmacro typecase (keyform &rest clauses)
  "Evaluates KEYFORM and runs the first of CLAUSES whose type the value belongs to; a final T or OTHERWISE clause catches the rest. NIL when nothing matches."
  (let ((k (gensym)))
    `(let ((,k ,keyform))
       (cond ,@(sys::%typecase-clauses k clauses)))))

(defun sys::%case-failure (datum expected name types)
  (error 'simple-type-error :datum datum :expected-type expected
                            :format-control "~S fell through ~S expression.~%Wanted one of ~S."
                            :format-arguments (list datum name types)))

(defmacro etypecase (keyform &rest clauses)
  "Like TYPECASE with no otherwise clause, but signals a TYPE-ERROR when no clause matches."
  (let ((k (gensym)) (types (sys::%typecase-types clauses)))
    `(let ((,k ,keyform))
       (cond ,@(sys::%typecase-clauses k clauses)
             (t (sys::%case-failure ,k '(or ,@types) 'etypecase ',types))))))

(defun sys::%read-store-value ()
  (format *query-io* "~&Enter a form to be evaluated: ")
  (finish-output *query-io*)
  (list (eval (read *query-io*))))

(defun sys::%case-failure-store-value (datum expected name types place)
  ;; signal the CTYPECASE failure with a STORE-VALUE restart; return the value supplied
  (restart-case (sys::%case-failure datum expected name types)
    (store-value (value)
      :report (lambda (stream) (format stream "Supply a new value for ~S." place))
      :interactive sys::%read-store-value
      value)))

(defmacro ctypecase (keyplace &rest clauses)
  "Like TYPECASE with no otherwise clause, but signals a correctable error when no clause matches, offering to store a new value in KEYPLACE and retry."
  (if (not (or (symbolp keyplace) (consp keyplace)))
      ;; a literal is no place: give the restart a variable to store into
      (let ((v (gensym))) (return-from ctypecase `(let ((,v ,keyplace)) (ctypecase ,v ,@clauses)))))
  (let ((k (gensym)) (block (gensym)) (again (gensym)) (types (sys::%typecase-types clauses)))
    `(block ,block
       (tagbody
        ,again
          (let ((,k ,keyplace))
            (return-from ,block
              (cond ,@(sys::%typecase-clauses k clauses)
                    (t (setf ,keyplace
                             (sys::%case-failure-store-value ,k '(or ,@types) 'ctypecase ',types ',keyplace))
                       (go ,again)))))))))

;;; ------------------------------------------------------------------
;;; CHECK-TYPE

(defun sys::%check-type-error (place value type type-string)
  ;; signal the CHECK-TYPE error with a STORE-VALUE restart; return the value supplied
  (restart-case
      (if type-string
          (error 'simple-type-error :datum value :expected-type type
                                    :format-control "The value of ~S is ~S, which is not ~A."
                                    :format-arguments (list place value type-string))
          (error 'simple-type-error :datum value :expected-type type
                                    :format-control "The value of ~S is ~S, which is not of type ~S."
                                    :format-arguments (list place value type)))
    (store-value (value)
      :report (lambda (stream) (format stream "Supply a new value for ~S." place))
      :interactive sys::%read-store-value
      value)))

(defmacro check-type (place type &optional type-string)
  "Signal a correctable TYPE-ERROR unless the value of PLACE is of TYPE."
  (let ((v (gensym)))
    `(do ((,v ,place ,place))
         ((typep ,v ',type) nil)
       (setf ,place (sys::%check-type-error ',place ,v ',type ,type-string)))))

;;; ------------------------------------------------------------------
;;; Class names as types. TYPEP and SUBTYPEP (in C) ask these when a type name is not
;;; built in; CLOS may redefine them to cover its classes too.

(defun sys::%class-name-p (name)
  "Whether NAME names a class (a condition class until CLOS is loaded)."
  (or (and (boundp 'sys::*condition-classes*) (gethash name sys::*condition-classes*) t)
      (and (fboundp 'find-class) (find-class name nil) t)))

(defun sys::%class-subtypep (name1 name2)
  "T if class NAME1 is a subclass of NAME2, NIL if not, :UNKNOWN if either is not known here."
  (let ((a (and (boundp 'sys::*condition-classes*) (gethash name1 sys::*condition-classes*)))
        (b (and (boundp 'sys::*condition-classes*) (gethash name2 sys::*condition-classes*))))
    (if (and a b) (sys::%subclassp a b) :unknown)))
