;;;; boot.lisp: the first macros, written with only DEFMACRO, DEFUN, backquote and C primitives.

(defmacro in-package (name)
  `(eval-when (:compile-toplevel :load-toplevel :execute)
     (setq *package* (sys::%find-package-or-lose ',name))))

(in-package "SYSTEM")

(defmacro when (test &body body)
  "Evaluates BODY when TEST is true and returns its values; otherwise NIL."
  `(if ,test (progn ,@body) nil))
(defmacro unless (test &body body)
  "Evaluates BODY when TEST is false and returns its values; otherwise NIL."
  `(if ,test nil (progn ,@body)))

(defmacro cond (&rest clauses)
  "Tries each of CLAUSES, (test form...), in turn: the first whose test is true has its forms evaluated and their values returned (the test's value when there are none). NIL when no test succeeds."
  (if (null clauses)
      nil
      (let ((clause (car clauses)))
        (if (not (consp clause))
            (error 'simple-program-error :format-control "Malformed COND clause: ~S"
                                         :format-arguments (list clause)))
        (if (null (cdr clause))
            (let ((g (gensym)))
              `(let ((,g ,(car clause)))
                 (if ,g ,g (cond ,@(cdr clauses)))))
            (if (eq (car clause) t)
                `(progn ,@(cdr clause))
                `(if ,(car clause)
                     (progn ,@(cdr clause))
                     (cond ,@(cdr clauses))))))))

(defmacro and (&rest forms)
  "Evaluates FORMS from left to right, stopping at the first that yields NIL; returns the values of the last form, NIL if one failed, or T when there are no forms."
  (cond ((null forms) t)
        ((null (cdr forms)) (car forms))
        (t `(if ,(car forms) (and ,@(cdr forms)) nil))))

(defmacro or (&rest forms)
  "Evaluates FORMS from left to right and returns the values of the first that yields true (only its first value, except for the last form), or NIL when none does."
  (cond ((null forms) nil)
        ((null (cdr forms)) (car forms))
        (t (let ((g (gensym)))
             `(let ((,g ,(car forms)))
                (if ,g ,g (or ,@(cdr forms))))))))

(defmacro prog1 (first &body body)
  "Evaluates FIRST and then BODY, and returns the primary value of FIRST."
  (let ((g (gensym)))
    `(let ((,g ,first)) ,@body ,g)))

(defmacro prog2 (first second &body body)
  "Evaluates FIRST, SECOND and then BODY, and returns the primary value of SECOND."
  `(progn ,first (prog1 ,second ,@body)))

(defmacro return (&optional value)
  "Returns VALUE (default NIL) from the innermost block named NIL, as (RETURN-FROM NIL VALUE)."
  `(return-from nil ,value))

(defmacro dolist-boot ((var list) &body body)
  (let ((g (gensym)))
    `(let ((,g ,list))
       (tagbody
        top
          (if (null ,g) (go end))
          (let ((,var (car ,g))) ,@body)
          (setq ,g (cdr ,g))
          (go top)
        end))))

(defun nreverse-boot (list)
  (let ((result nil))
    (tagbody
     top
       (if (null list) (go end))
       (let ((next (cdr list)))
         (rplacd list result)
         (setq result list)
         (setq list next))
       (go top)
     end)
    result))

(defmacro declaim (&rest specs)
  "Makes the declaration SPECS hold globally, as PROCLAIM does, also at compile time."
  `(eval-when (:compile-toplevel :load-toplevel :execute)
     ,@(let ((r nil)) (dolist-boot (s specs) (setq r (cons `(proclaim ',s) r))) (nreverse-boot r))))

(defmacro defvar (var &optional (value nil valuep) doc)
  "Defines VAR as a special variable, setting it to VALUE only when it has no value yet, with optional documentation DOC. Returns VAR."
  ;; COMPILE-FILE proclaims VAR special for the rest of the file, without evaluating VALUE
  `(progn
     (eval-when (:compile-toplevel) (sys::%compiler-defvar ',var))
     (sys::%proclaim-special ',var)
     ,@(if valuep `((unless (boundp ',var) (set ',var ,value))))
     ,@(if doc `((sys::%put ',var 'sys::%variable-documentation ,doc)))
     (sys::%note-definition 'defvar ',var)
     ',var))

(defmacro defparameter (var value &optional doc)
  "Defines VAR as a special variable and always sets it to VALUE, with optional documentation DOC. Returns VAR."
  `(progn
     (eval-when (:compile-toplevel) (sys::%compiler-defvar ',var))
     (sys::%proclaim-special ',var)
     (set ',var ,value)
     ,@(if doc `((sys::%put ',var 'sys::%variable-documentation ,doc)))
     (sys::%note-definition 'defparameter ',var)
     ',var))

(defmacro defconstant (name value &optional doc)
  "Defines NAME as a global constant whose value is VALUE, with optional documentation DOC. Returns NAME."
  ;; evaluated by COMPILE-FILE too, so that the rest of the file may use the value (CLHS DEFCONSTANT)
  `(eval-when (:compile-toplevel :load-toplevel :execute)
     (sys::%defconstant ',name ,value)
     ,@(if doc `((sys::%put ',name 'sys::%variable-documentation ,doc)))
     (sys::%note-definition 'defconstant ',name)
     ',name))

(defun sys::%note-definition (kind name)
  (let ((hook sys::*definition-hook*))
    (if hook (funcall hook kind name))))

(defmacro psetq (&rest pairs &environment env)
  "Assigns each variable in PAIRS (var value ...) its value, all values being computed before any assignment. Returns NIL."
  ;; evaluate all values, then assign; a symbol macro among the variables makes it PSETF
  (let ((all pairs) (bindings nil) (sets nil) (macro nil))
    (tagbody
     top
       (if (null pairs) (go end))
       (if (null (cdr pairs))
           (error 'simple-program-error :format-control "Odd number of arguments to PSETQ"))
       (if (multiple-value-call #'(lambda (&optional x expanded) x expanded)
             (macroexpand-1 (car pairs) env))
           (setq macro t))
       (let ((g (gensym)))
         (setq bindings (cons (list g (cadr pairs)) bindings))
         (setq sets (cons `(setq ,(car pairs) ,g) sets)))
       (setq pairs (cddr pairs))
       (go top)
     end)
    (if macro
        `(psetf ,@all)
        `(let ,(nreverse-boot bindings) ,@(nreverse-boot sets) nil))))

(defmacro multiple-value-bind (vars value-form &body body)
  "Evaluates VALUE-FORM and binds VARS to its values (NIL for missing ones), then evaluates BODY."
  (let ((rest (gensym)))
    `(multiple-value-call #'(lambda (&optional ,@vars &rest ,rest)
                              (declare (ignore ,rest))
                              ,@body)
       ,value-form)))

(defmacro multiple-value-list (form)
  "A list of all the values that FORM returns."
  `(multiple-value-call #'list ,form))

(defmacro nth-value (n form)
  "The value at index N (from 0) among the values FORM returns, or NIL."
  `(nth ,n (multiple-value-list ,form)))

(defmacro destructuring-bind (lambda-list expression &body body)
  "Evaluates EXPRESSION and binds the variables of LAMBDA-LIST (a tree-shaped lambda list) to its parts, then evaluates BODY."
  `(sys::%destructuring-bind ,lambda-list ,expression ,@body))

(defun sys::%split-declarations (body)
  (let ((decls nil))
    (tagbody
     top
       (if (and (consp body) (consp (car body)) (eq (caar body) 'declare))
           (progn (setq decls (cons (car body) decls))
                  (setq body (cdr body))
                  (go top))))
    (values (nreverse-boot decls) body)))

(defun nth-value-1-boot (body)
  (multiple-value-bind (decls forms) (sys::%split-declarations body)
    (declare (ignore decls))
    forms))

(defun sys::%special-declarations (body)
  ;; The SPECIAL declarations among BODY's, which cover DOLIST's result form too (as in SBCL;
  ;; a type declaration of the variable would not hold for the NIL it is bound to there).
  (let ((specs nil))
    (dolist-boot (d (sys::%split-declarations body))
      (dolist-boot (spec (cdr d))
        (if (and (consp spec) (eq (car spec) 'special)) (setq specs (cons spec specs)))))
    (if specs (list (cons 'declare (nreverse-boot specs))) nil)))

(defmacro dolist ((var list &optional result) &body body)
  "Evaluates BODY with VAR bound to each element of LIST in turn, then returns RESULT (evaluated with VAR bound to NIL). An implicit block NIL surrounds it."
  (let ((g (gensym)) (top (gensym)) (end (gensym)))
    `(block nil
       (let ((,g ,list))
         (tagbody
          ,top
            (if (endp ,g) (go ,end))
            (let ((,var (car ,g)))
              ;; as SBCL: a DOLIST whose variable goes unused is not worth a warning
              (declare (ignorable ,var))
              ,@(sys::%split-declarations body)
              (tagbody ,@(nth-value-1-boot body)))
            (setq ,g (cdr ,g))
            (go ,top)
          ,end))
       ,@(if result `((let ((,var nil)) (declare (ignorable ,var)) ,@(sys::%special-declarations body) ,result))
             '(nil)))))

(defmacro dotimes ((var count &optional result) &body body)
  "Evaluates BODY with VAR bound to each integer from 0 below COUNT, then returns RESULT. An implicit block NIL surrounds it."
  (let ((n (gensym)) (top (gensym)) (end (gensym)))
    `(block nil
       (let ((,n ,count) (,var 0))
         (declare (ignorable ,n))
         ,@(sys::%split-declarations body)
         (tagbody
          ,top
            (if (>= ,var ,n) (go ,end))
            (tagbody ,@(nth-value-1-boot body))
            (setq ,var (1+ ,var))
            (go ,top)
          ,end)
         ,result))))

(defun sys::%do-expand (bindings end body sequential)
  (let ((vars nil) (steps nil) (top (gensym)) (done (gensym)))
    (dolist (b bindings)
      (if (consp b)
          (progn
            (setq vars (cons (if (cdr b) (list (car b) (cadr b)) (list (car b))) vars))
            (if (cddr b) (setq steps (cons (car b) (cons (caddr b) steps)))))
          (setq vars (cons (list b) vars))))
    (let ((step-pairs nil))
      ;; steps was built reversed as value/var pairs; rebuild in order
      (let ((s steps))
        (tagbody
         top
           (if (null s) (go end))
           (setq step-pairs (cons (car s) (cons (cadr s) step-pairs)))
           (setq s (cddr s))
           (go top)
         end))
      (multiple-value-bind (decls forms) (sys::%split-declarations body)
        `(block nil
           (,(if sequential 'let* 'let) ,(nreverse-boot vars)
            ,@decls
            (tagbody
             ,top
               (if ,(car end) (go ,done))
               (tagbody ,@forms)
               ;; one variable stepped needs no PSETQ (its temporary costs a LET each turn)
               (,(if (or sequential (null (cddr step-pairs))) 'setq 'psetq) ,@step-pairs)
               (go ,top)
             ,done)
            (return-from nil (progn ,@(cdr end)))))))))

(defmacro do (bindings (end-test &rest result) &body body)
  "Iterates: binds BINDINGS, (var init step), in parallel, then repeatedly tests END-TEST, runs BODY and updates the variables in parallel with their steps; when END-TEST is true, evaluates RESULT and returns its values. An implicit block NIL surrounds it."
  (sys::%do-expand bindings (cons end-test result) body nil))

(defmacro do* (bindings (end-test &rest result) &body body)
  "Like DO, but the variables are bound and stepped one after another, so each may use the ones before it."
  (sys::%do-expand bindings (cons end-test result) body t))

(defmacro case (keyform &rest clauses)
  (let ((k (gensym)))
    `(let ((,k ,keyform))
       (cond
         ,@(let ((r nil))
             (dolist (c clauses)
               (let ((keys (car c)))
                 (setq r (cons
                          (cond ((or (eq keys t) (eq keys 'otherwise))
                                 `(t nil ,@(cdr c)))
                                ((listp keys)
                                 `((or ,@(let ((tests nil))
                                           (dolist (key keys) (setq tests (cons `(eql ,k ',key) tests)))
                                           (nreverse-boot tests)))
                                   nil ,@(cdr c)))
                                (t `((eql ,k ',keys) nil ,@(cdr c))))
                          r))))
             (nreverse-boot r))))))

(defun sys::%case-keys (clauses)
  (let ((keys nil))
    (dolist (c clauses)
      (if (listp (car c))
          (dolist (k (car c)) (setq keys (cons k keys)))
          (setq keys (cons (car c) keys))))
    (nreverse-boot keys)))

(defmacro ecase (keyform &rest clauses)
  (let ((k (gensym)))
    `(let ((,k ,keyform))
       (case ,k
         ,@clauses
         (otherwise
          (error 'type-error :datum ,k :expected-type '(member ,@(sys::%case-keys clauses))))))))

;;; ------------------------------------------------------------------
;;; SETF: places and their expansions (CLHS 5.1)

(defun sys::%setf-expander (symbol) (get symbol 'sys::%setf-expander))

(defun get-setf-expansion (place &optional environment)
  "The five values describing how to read and write PLACE in ENVIRONMENT: temporary variables, their value forms, store variables, the storing form and the reading form."
  (cond
    ((symbolp place)
     (multiple-value-bind (expansion expanded) (macroexpand-1 place environment)
       (if expanded
           (get-setf-expansion expansion environment)
           (let ((store (gensym "NEW")))
             (values nil nil (list store) `(setq ,place ,store) place)))))
    ((not (consp place))
     (error 'simple-error :format-control "~S is not a valid place." :format-arguments (list place)))
    (t
     (let* ((op (car place))
            (expander (and (symbolp op)
                           (not (sys::%local-function-p op environment))
                           (sys::%setf-expander op))))
       (if expander
           (funcall expander place environment)
           (multiple-value-bind (expansion expanded)
               (if (and (symbolp op) (not (sys::%local-function-p op environment)))
                   (macroexpand-1 place environment)
                   (values place nil))
             (if expanded
                 (get-setf-expansion expansion environment)
                 (let ((temps nil) (vals nil) (store (gensym "NEW")))
                   (dolist (arg (cdr place))
                     (let ((g (gensym)))
                       (setq temps (cons g temps))
                       (setq vals (cons arg vals))))
                   (setq temps (nreverse-boot temps))
                   (setq vals (nreverse-boot vals))
                   (values temps vals (list store)
                           `(funcall #'(setf ,op) ,store ,@temps)
                           `(,op ,@temps))))))))))

(defun sys::%local-function-p (name env)
  (declare (ignore name env))
  nil)

(defun sys::%expand-setf-pair (place value env)
  (if (symbolp place)
      (multiple-value-bind (expansion expanded) (macroexpand-1 place env)
        (if expanded
            (sys::%expand-setf-pair expansion value env)
            `(setq ,place ,value)))
      (multiple-value-bind (temps vals stores store-form) (get-setf-expansion place env)
        ;; (SETF (VALUES) form) has no store variable at all: the general case below
        (cond ((and (null temps) (consp store-form) (eq (car store-form) 'funcall)
                    stores (null (cdr stores)))
               `(let ((,(car stores) ,value)) ,store-form))
              ((and stores (null (cdr stores)))
               ;; one store variable: a plain binding (no MULTIPLE-VALUE-BIND closure)
               `(let* (,@(sys::%zip temps vals) (,(car stores) ,value)) ,store-form))
              (t
               `(let* (,@(sys::%zip temps vals))
                  (multiple-value-bind ,stores ,value
                    ,store-form)))))))

(defun sys::%zip (a b)
  (let ((r nil))
    (tagbody
     top
       (if (null a) (go end))
       (setq r (cons (list (car a) (car b)) r))
       (setq a (cdr a) b (cdr b))
       (go top)
     end)
    (nreverse-boot r)))

(defmacro setf (&rest pairs &environment env)
  "Stores each value of PAIRS (place value ...) into its place, in order, and returns the last value. A place is a variable or an accessor form such as (CAR x) or (GETHASH k h)."
  (cond ((null pairs) nil)
        ((null (cdr pairs))
         (error 'simple-program-error :format-control "Odd number of arguments to SETF: ~S"
                                      :format-arguments (list pairs)))
        ((null (cddr pairs)) (sys::%expand-setf-pair (car pairs) (cadr pairs) env))
        (t (let ((forms nil))
             (tagbody
              top
                (if (null pairs) (go end))
                (if (null (cdr pairs))
                    (error 'simple-program-error :format-control "Odd number of arguments to SETF"))
                (setq forms (cons (sys::%expand-setf-pair (car pairs) (cadr pairs) env) forms))
                (setq pairs (cddr pairs))
                (go top)
              end)
             `(progn ,@(nreverse-boot forms))))))

(defun sys::%split-doc-decls (body)
  ;; (values doc declarations forms) of a body that may start with a documentation string
  (let ((doc nil) (decls nil))
    (tagbody
     top
       (if (and (stringp (car body)) (cdr body) (null doc))
           (progn (setq doc (car body)) (setq body (cdr body)) (go top)))
       (if (and (consp (car body)) (eq (car (car body)) 'declare))
           (progn (setq decls (cons (car body) decls)) (setq body (cdr body)) (go top))))
    (values doc (nreverse-boot decls) body)))

(defmacro define-setf-expander (access-fn lambda-list &body body)
  "Defines how SETF and the other place macros handle forms (ACCESS-FN ...): BODY, run with LAMBDA-LIST bound to the form's arguments, returns the five values of a setf expansion."
  (let ((form (gensym)) (env (gensym)))
    (multiple-value-bind (doc decls forms) (sys::%split-doc-decls body)
      ;; known to COMPILE-FILE for the rest of the file (CLHS 3.2.3.1.1)
      `(eval-when (:compile-toplevel :load-toplevel :execute)
         (sys::%put ',access-fn 'sys::%setf-expander
                    #'(lambda (,form ,env)
                        (declare (ignorable ,env))
                        (destructuring-bind ,(sys::%strip-environment lambda-list env) (cdr ,form)
                          ,@decls
                          (block ,access-fn ,@forms))))
         ,@(if doc `((setf (documentation ',access-fn 'setf) ,doc)))
         ',access-fn))))

(defun sys::%strip-environment (lambda-list env-var)
  ;; replace &environment e with a binding of e to the expander's environment
  (let ((r nil) (envname nil))
    (tagbody
     top
       (if (atom lambda-list) (go end))
       (if (eq (car lambda-list) '&environment)
           (progn (setq envname (cadr lambda-list))
                  (setq lambda-list (cddr lambda-list)))
           (progn (setq r (cons (car lambda-list) r))
                  (setq lambda-list (cdr lambda-list))))
       (go top)
     end)
    (let ((ll (nreverse-boot r)))
      (if lambda-list (setq ll (append ll lambda-list)))
      (if envname
          (append ll (list '&aux (list envname env-var)))
          ll))))

(defmacro defsetf (access-fn &rest rest)
  "Defines how to SETF a form (ACCESS-FN ...): the short form names an updating function that takes the arguments and then the new value; the long form is a lambda list, store variables and a body that builds the update form."
  (if (and rest (symbolp (car rest)) (car rest))
      ;; short form: (defsetf access update-fn [doc])
      (let ((update (car rest)))
        `(define-setf-expander ,access-fn (&rest args)
           ,@(if (stringp (cadr rest)) (list (cadr rest)))
           (let ((temps nil) (store (gensym "NEW")))
             (dolist (a args) (setq temps (cons (gensym) temps)))
             (setq temps (nreverse temps))
             (values temps args (list store)
                     (append (list ',update) temps (list store))
                     (cons ',access-fn temps)))))
      ;; long form: (defsetf access lambda-list (store-vars) body...)
      (let ((lambda-list (car rest)) (stores (cadr rest)))
        (multiple-value-bind (doc decls body) (sys::%split-doc-decls (cddr rest))
          (let ((args (gensym)))
            `(define-setf-expander ,access-fn (&rest ,args)
               ,@(if doc (list doc))
               (let* ((temps (mapcar #'(lambda (a) (declare (ignore a)) (gensym)) ,args))
                      (store-syms (mapcar #'(lambda (s) (declare (ignore s)) (gensym "NEW")) ',stores)))
                 (values temps ,args store-syms
                         (apply #'(lambda (,@stores ,@(sys::%strip-environment lambda-list nil))
                                    ,@decls
                                    (block ,access-fn ,@body))
                                (append store-syms temps))
                         (cons ',access-fn temps)))))))))

(defun (setf car) (v c) (rplaca c v) v)
(defun (setf cdr) (v c) (rplacd c v) v)
(defun (setf first) (v c) (rplaca c v) v)
(defun (setf rest) (v c) (rplacd c v) v)
(defun (setf caar) (v c) (rplaca (car c) v) v)
(defun (setf cadr) (v c) (rplaca (cdr c) v) v)
(defun (setf cdar) (v c) (rplacd (car c) v) v)
(defun (setf cddr) (v c) (rplacd (cdr c) v) v)
(defun (setf caddr) (v c) (rplaca (cddr c) v) v)
(defun (setf cdddr) (v c) (rplacd (cddr c) v) v)
(defun (setf second) (v c) (rplaca (cdr c) v) v)
(defun (setf third) (v c) (rplaca (cddr c) v) v)
(defun (setf fourth) (v c) (rplaca (cdddr c) v) v)
(defun (setf fifth) (v c) (rplaca (nthcdr 4 c) v) v)
(defun (setf sixth) (v c) (rplaca (nthcdr 5 c) v) v)
(defun (setf seventh) (v c) (rplaca (nthcdr 6 c) v) v)
(defun (setf eighth) (v c) (rplaca (nthcdr 7 c) v) v)
(defun (setf ninth) (v c) (rplaca (nthcdr 8 c) v) v)
(defun (setf tenth) (v c) (rplaca (nthcdr 9 c) v) v)
(defun (setf nth) (v n list) (rplaca (nthcdr n list) v) v)
(defun (setf symbol-value) (v s) (set s v))
(defun (setf symbol-function) (v s) (sys::%set-fdefinition s v))
(defun (setf fdefinition) (v name) (sys::%set-fdefinition name v))
(defun (setf macro-function) (v s &optional env) (declare (ignore env)) (sys::%set-macro-function s v))
(defun (setf symbol-plist) (v s) (sys::%set-symbol-plist s v))
(defun (setf get) (v s indicator &optional default) (declare (ignore default)) (sys::%put s indicator v))
(defun (setf gethash) (v key table &optional default) (declare (ignore default)) (sys::%puthash key table v))

;;; (setf (values place...) form), CLHS 5.1.2.3: the first store variable of each place takes
;;; one value; a place's other store variables are bound to NIL.
(sys::%put 'values 'sys::%setf-expander
  #'(lambda (form env)
      (let ((temps nil) (vals nil) (stores nil) (store-forms nil) (accesses nil))
        (dolist (place (cdr form))
          (multiple-value-bind (ts vs ss sf af) (get-setf-expansion place env)
            (setq temps (append temps ts) vals (append vals vs))
            (setq stores (append stores (list (car ss))))
            (setq store-forms (append store-forms (list (if (cdr ss) `(let ,(cdr ss) ,sf) sf))))
            (setq accesses (append accesses (list af)))))
        (values temps vals stores `(progn ,@store-forms (values ,@stores)) `(values ,@accesses)))))

;;; (setf (the type place) value), CLHS 5.1.2.6
(sys::%put 'the 'sys::%setf-expander
  #'(lambda (form env)
      (let ((type (cadr form)))
        (multiple-value-bind (ts vs ss sf af) (get-setf-expansion (caddr form) env)
          (let ((news nil))
            (dolist (s ss) (setq news (cons (gensym "NEW") news)))
            (setq news (nreverse-boot news))
            (values ts vs news
                    `(multiple-value-bind ,ss (the ,type (values ,@news)) ,sf)
                    `(the ,type ,af)))))))

;;; (setf (apply #'name args... list) value), CLHS 5.1.2.5: calls the setf function of NAME
(sys::%put 'apply 'sys::%setf-expander
  #'(lambda (form env)
      (declare (ignore env))
      (let ((fn (cadr form)) (temps nil) (store (gensym "NEW")))
        (if (not (and (consp fn) (eq (car fn) 'function) (consp (cdr fn)) (symbolp (cadr fn))))
            (error 'simple-error :format-control "~S is not a valid APPLY place: the function must be #'symbol."
                                 :format-arguments (list form)))
        (dolist (a (cddr form)) (setq temps (cons (gensym) temps)))
        (setq temps (nreverse-boot temps))
        (values temps (cddr form) (list store)
                `(apply #'(setf ,(cadr fn)) ,store ,@temps)
                `(apply ,fn ,@temps)))))

(defmacro sys::%modify-place (place env fn-form)
  ;; internal helper: not used directly
  (declare (ignore place env fn-form))
  nil)

(defun sys::%update-place (place env updater)
  ;; Expand PLACE and return a form that stores (funcall UPDATER access-form) into it.
  (multiple-value-bind (temps vals stores store-form access-form) (get-setf-expansion place env)
    `(let* (,@(sys::%zip temps vals)
            (,(car stores) ,(funcall updater access-form)))
       ,store-form)))

(defun sys::%update-place-by (place env op delta)
  ;; CLHS 5.1.3: the place's subforms, then DELTA, and only then the place is read, so
  ;; (incf x (setf x 1)) adds to the new value of X.
  (multiple-value-bind (temps vals stores store-form access-form) (get-setf-expansion place env)
    (let ((d (if (numberp delta) delta (gensym "DELTA"))))
      `(let* (,@(sys::%zip temps vals)
              ,@(if (numberp delta) nil (list (list d delta)))
              (,(car stores) (,op ,access-form ,d)))
         ,store-form))))

(defmacro incf (place &optional (delta 1) &environment env)
  "Increases the number stored in PLACE by DELTA (default 1) and returns the new value."
  (sys::%update-place-by place env '+ delta))

(defmacro decf (place &optional (delta 1) &environment env)
  "Decreases the number stored in PLACE by DELTA (default 1) and returns the new value."
  (sys::%update-place-by place env '- delta))

(defmacro push (item place &environment env)
  "Stores (CONS ITEM old-value) into PLACE and returns the new list."
  (let ((g (gensym)))
    `(let ((,g ,item))
       ,(sys::%update-place place env #'(lambda (access) `(cons ,g ,access))))))

(defmacro pop (place &environment env)
  "Removes the first element of the list stored in PLACE and returns it."
  (multiple-value-bind (temps vals stores store-form access-form) (get-setf-expansion place env)
    (let ((g (gensym)))
      `(let* (,@(sys::%zip temps vals)
              (,g ,access-form)
              (,(car stores) (cdr ,g)))
         ,store-form
         (car ,g)))))

(defun sys::%nest-mvbs (stores-list value-forms body)
  ;; (multiple-value-bind stores1 value1 (multiple-value-bind stores2 value2 ... body))
  (if (null stores-list)
      body
      `(multiple-value-bind ,(car stores-list) ,(car value-forms)
         ,(sys::%nest-mvbs (cdr stores-list) (cdr value-forms) body))))

(defmacro rotatef (&rest places &environment env)
  "Shifts the values of PLACES one place to the left, the first going to the last; returns NIL. With two places it swaps them."
  (if (null (cdr places))
      (if places
          (multiple-value-call #'(lambda (temps vals stores store-form access-form)
                                   (declare (ignore stores store-form access-form))
                                   `(let* (,@(sys::%zip temps vals)) nil))
            (get-setf-expansion (car places) env))
          nil)
      (let ((bindings nil) (stores nil) (store-forms nil) (accesses nil))
        (dolist (p places)
          (multiple-value-bind (temps vals s sf a) (get-setf-expansion p env)
            (setq bindings (append bindings (sys::%zip temps vals)))
            (setq stores (append stores (list s)))
            (setq store-forms (append store-forms (list sf)))
            (setq accesses (append accesses (list a)))))
        `(let* (,@bindings)
           ,(sys::%nest-mvbs stores (append (cdr accesses) (list (car accesses)))
                             `(progn ,@store-forms nil))))))

(defmacro shiftf (&rest places-and-value &environment env)
  "Shifts values left through PLACES-AND-VALUE: each place receives the value of the one after it, the last receives the new value, and the old value of the first place is returned."
  (let* ((places (butlast-boot places-and-value))
         (value (car (last places-and-value)))
         (bindings nil) (stores nil) (store-forms nil) (accesses nil) (olds nil))
    (dolist (p places)
      (multiple-value-bind (temps vals s sf a) (get-setf-expansion p env)
        (setq bindings (append bindings (sys::%zip temps vals)))
        (setq stores (append stores (list s)))
        (setq store-forms (append store-forms (list sf)))
        (setq accesses (append accesses (list a)))))
    (dolist (s (car stores)) (setq olds (cons (gensym "OLD") olds)))
    `(let* (,@bindings)
       ,(sys::%nest-mvbs (cons olds stores) (append accesses (list value))
                         `(progn ,@store-forms (values ,@olds))))))

(defun butlast-boot (list)
  (let ((r nil))
    (tagbody
     top
       (if (null (cdr list)) (go end))
       (setq r (cons (car list) r))
       (setq list (cdr list))
       (go top)
     end)
    (nreverse-boot r)))

(defmacro multiple-value-setq (vars form)
  "Assigns the values of FORM to the variables VARS (NIL to those without a value); returns the first value."
  ;; CLHS: (values (setf (values var...) form)), so symbol macros among VARS are places
  (if vars
      `(values (setf (values ,@vars) ,form))
      `(values ,form)))

(defmacro define-modify-macro (name lambda-list function &optional doc)
  "Defines a macro NAME that reads a place, applies FUNCTION to its value and the macro's LAMBDA-LIST arguments, and stores the result back, as INCF does for +."
  (declare (ignore doc))
  (let ((place (gensym "PLACE")) (env (gensym "ENV"))
        (args (let ((r nil))
                (dolist (x lambda-list)
                  (if (not (member-boot x '(&optional &rest &key &aux)))
                      (setq r (cons (if (consp x) (car x) x) r))))
                (nreverse-boot r)))
        (rest (let ((tail (member-boot '&rest lambda-list))) (if tail (cadr tail)))))
    `(defmacro ,name (,place ,@lambda-list &environment ,env)
       (sys::%update-place ,place ,env
                           #'(lambda (access)
                               ,(if rest
                                    ``(,',function ,access ,,@(butlast-boot args) ,@,rest)
                                    ``(,',function ,access ,,@args)))))))

(defun member-boot (x list)
  (tagbody
   top
     (if (null list) (return-from member-boot nil))
     (if (eq x (car list)) (return-from member-boot list))
     (setq list (cdr list))
     (go top)))
