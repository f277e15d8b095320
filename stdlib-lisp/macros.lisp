;;;; macros.lisp: the remaining standard macros and small functions: CASE ECASE CCASE, PROG PROG*,
;;;; TIME, TRACE UNTRACE, DEFINE-SYMBOL-MACRO, DEFINE-COMPILER-MACRO, WITH-COMPILATION-UNIT, STEP,
;;;; CONSTANTLY COMPLEMENT, APROPOS, DESCRIBE, DOCUMENTATION, ROOM, ED, DRIBBLE, and the decoding
;;;; and encoding of universal times.
;;;;
;;;; The expanders use only boot.lisp, conditions.lisp and C primitives; the expansions and the
;;;; run-time functions use standard functions freely.

(in-package "SYSTEM")

(defun %mac-rev (list)
  (let ((r nil))
    (tagbody
     top
       (if (atom list) (go end))
       (setq r (cons (car list) r))
       (setq list (cdr list))
       (go top)
     end)
    r))

(defun %mac-assoc (key alist)
  (dolist (cell alist nil)
    (if (and (consp cell) (eq (car cell) key)) (return cell))))

(defun %mac-mapcar (fn list)
  (let ((r nil))
    (dolist (x list) (setq r (cons (funcall fn x) r)))
    (%mac-rev r)))

;;; ------------------------------------------------------------------
;;; CASE ECASE CCASE (CLHS 5.3)

(define-condition case-failure (type-error)
  ((name :initarg :name :reader case-failure-name)
   (possibilities :initarg :possibilities :reader case-failure-possibilities))
  (:report (lambda (c s)
             (if (case-failure-possibilities c)
                 (format s "~S fell through ~S expression. Wanted one of ~S."
                         (type-error-datum c) (case-failure-name c) (case-failure-possibilities c))
                 (format s "The value~%  ~S~%is not of type~%  ~S"
                         (type-error-datum c) (type-error-expected-type c))))))

(defun %case-clauses (name clauses key errorp)
  ;; the COND clauses for CASE-like macros; ERRORP: no otherwise clause allowed
  (let ((result nil) (keys nil) (rest clauses))
    (tagbody
     top
       (if (null rest) (go end))
       (let ((clause (car rest)))
         (if (atom clause)
             (error 'simple-program-error :format-control "Bad ~S clause: ~S"
                                          :format-arguments (list name clause)))
         (let ((k (car clause)) (body (or (cdr clause) '(nil))))
           (cond ((and (not errorp) (or (eq k t) (eq k 'otherwise)))
                  (if (cdr rest)
                      (error 'simple-program-error
                             :format-control "Bad ~S clause:~%  ~S~%~S allowed as the key designator only in the final otherwise-clause, not in a normal-clause. Use (~S) instead, or move the clause to the correct position."
                             :format-arguments (list name clause k k)))
                  (setq result (cons `(t ,@body) result)))
                 ((listp k)
                  (dolist (x k) (setq keys (cons x keys)))
                  (if k
                      (setq result
                            (cons `((or ,@(%mac-mapcar #'(lambda (x) `(eql ,key ',x)) k)) ,@body)
                                  result))))
                 (t
                  (setq keys (cons k keys))
                  (setq result (cons `((eql ,key ',k) ,@body) result))))))
       (setq rest (cdr rest))
       (go top)
     end)
    (values (%mac-rev result) (%mac-rev keys))))

(defmacro case (keyform &rest clauses)
  "Evaluates KEYFORM and runs the first of CLAUSES whose key (or list of keys) contains the value by EQL; a final T or OTHERWISE clause catches the rest. NIL when nothing matches."
  (let ((k (gensym "KEY")))
    `(let ((,k ,keyform))
       (declare (ignorable ,k))
       (cond ,@(%case-clauses 'case clauses k nil)))))

(defmacro ecase (keyform &rest clauses)
  "Like CASE with no otherwise clause, but signals a TYPE-ERROR when no clause matches."
  (let ((k (gensym "KEY")))
    (multiple-value-bind (conds keys) (%case-clauses 'ecase clauses k t)
      `(let ((,k ,keyform))
         (cond ,@conds
               (t (error 'case-failure :name 'ecase :datum ,k
                                       :expected-type '(member ,@keys)
                                       :possibilities ',keys)))))))

(defmacro ccase (keyplace &rest clauses &environment env)
  "Like CASE with no otherwise clause, but signals a correctable error when no clause matches, offering to store a new value in KEYPLACE and retry."
  (let ((k (gensym "KEY")) (block (gensym "CCASE")) (again (gensym "AGAIN")) (v (gensym "NEW")))
    (multiple-value-bind (conds keys) (%case-clauses 'ccase clauses k t)
      (multiple-value-bind (temps vals stores store-form access) (get-setf-expansion keyplace env)
        `(let* (,@(sys::%zip temps vals))
           (block ,block
             (tagbody
              ,again
                (let ((,k ,access))
                  (return-from ,block
                    (cond ,@conds
                          (t (restart-case
                                 (error 'case-failure :name 'ccase :datum ,k
                                                      :expected-type '(member ,@keys)
                                                      :possibilities ',keys)
                               (store-value (,v)
                                 :report (lambda (stream)
                                           (format stream "Supply a new value for ~S." ',keyplace))
                                 :interactive (lambda () (list (%prompt-for-value ',keyplace)))
                                 (let ((,(car stores) ,v)) ,store-form)
                                 (go ,again))))))))))))))

;;; ------------------------------------------------------------------
;;; PROG PROG*

(defun %prog-expand (let-op bindings body)
  (multiple-value-bind (decls forms) (sys::%split-declarations body)
    `(block nil
       (,let-op ,bindings
         ,@decls
         (tagbody ,@forms)))))

(defmacro prog (bindings &body body)
  "Binds BINDINGS in parallel as LET does, then runs BODY as a TAGBODY, inside a block NIL."
  (%prog-expand 'let bindings body))
(defmacro prog* (bindings &body body)
  "Like PROG, but binds BINDINGS one after another as LET* does."
  (%prog-expand 'let* bindings body))

;;; ------------------------------------------------------------------
;;; Small SETF-family macros missing from the boot file; defined here only when no other
;;; module has (a later module's definition replaces these).

(if (not (macro-function 'psetf))
    ;; places' subforms and values are evaluated left to right, then all stores happen
    (defmacro psetf (&rest pairs &environment env)
      "Like SETF, but computes every new value before storing any of them. Returns NIL."
      (let ((lets nil) (stores nil) (rest pairs))
        (tagbody
         top
           (if (null rest) (go end))
           (if (null (cdr rest))
               (error 'simple-program-error :format-control "Odd number of arguments to PSETF"))
           (multiple-value-bind (temps vals news store-form) (get-setf-expansion (car rest) env)
             (setq lets (cons (list (sys::%zip temps vals) news (cadr rest)) lets))
             (setq stores (cons store-form stores)))
           (setq rest (cddr rest))
           (go top)
         end)
        (let ((body `(progn ,@(%mac-rev stores) nil)))
          (dolist (l lets body)
            (setq body `(let* ,(first l) (multiple-value-bind ,(second l) ,(third l) ,body))))))))

(if (not (macro-function 'remf))
    (defmacro remf (place indicator &environment env)
      (multiple-value-bind (temps vals stores store-form access) (get-setf-expansion place env)
        (let ((ind (gensym "IND")) (prev (gensym "PREV")) (l (gensym "L")))
          `(let* (,@(sys::%zip temps vals) (,ind ,indicator))
             (do ((,prev nil ,l) (,l ,access (cddr ,l)))
                 ((atom ,l) nil)
               (if (eq (car ,l) ,ind)
                   (progn
                     (if ,prev
                         (rplacd (cdr ,prev) (cddr ,l))
                         (let ((,(car stores) (cddr ,l))) ,store-form))
                     (return t)))))))))

(if (not (macro-function 'pushnew))
    (defmacro pushnew (item place &rest keys &environment env)
      (let ((g (gensym "ITEM")))
        `(let ((,g ,item))
           ,(sys::%update-place place env
                                #'(lambda (access) `(adjoin ,g ,access ,@keys)))))))

(if (not (macro-function 'with-hash-table-iterator))
    (defmacro with-hash-table-iterator ((name hash-table) &body body)
      "Evaluates BODY with NAME defined as a local macro that returns the next entry of HASH-TABLE on each call: true, the key and the value, or NIL when none are left."
      (let ((snap (gensym "SNAP")) (i (gensym "I")) (n (gensym "N")) (fn (gensym "NEXT")))
        `(let* ((,snap (sys::%hash-table-snapshot ,hash-table))
                (,i 0)
                (,n (length ,snap)))
           (flet ((,fn ()
                    (if (< ,i ,n)
                        (multiple-value-prog1
                            (values t (svref ,snap ,i) (svref ,snap (1+ ,i)))
                          (setq ,i (+ ,i 2)))
                        nil)))
             ;; NAME is a local macro (CLHS WITH-HASH-TABLE-ITERATOR)
             (macrolet ((,name () '(,fn)))
               ,@body))))))

;;; ------------------------------------------------------------------
;;; DEFINE-SYMBOL-MACRO, DEFINE-COMPILER-MACRO, WITH-COMPILATION-UNIT, STEP

(defmacro define-symbol-macro (symbol expansion)
  "Makes SYMBOL, wherever it is not lexically bound, stand for the form EXPANSION; SETQ of it becomes SETF of the expansion."
  `(eval-when (:compile-toplevel :load-toplevel :execute)
     (sys::%define-symbol-macro ',symbol ',expansion)
     ',symbol))

(defun compiler-macro-function (name &optional environment)
  "The compiler macro function of NAME in ENVIRONMENT, or NIL; SETF-able."
  (declare (ignore environment))
  (if (consp name)
      (get (cadr name) '%setf-compiler-macro)
      (get name '%compiler-macro)))

(defun (setf compiler-macro-function) (function name &optional environment)
  (declare (ignore environment))
  (if (consp name)
      (if function (sys::%put (cadr name) '%setf-compiler-macro function)
          (remprop (cadr name) '%setf-compiler-macro))
      (if function (sys::%put name '%compiler-macro function)
          (remprop name '%compiler-macro)))
  function)

(defun %compiler-macro-expand (expander form env)
  ;; the analysis calls this for a call of a function with a compiler macro: the expansion, or
  ;; FORM itself when the expander signals an error (reported as SBCL's compiler does)
  (handler-case (funcall *macroexpand-hook* expander form env)
    (error (c)
      (warn "Error during compiler-macroexpansion of ~S. Use ~S to intercept.~%~%~A"
            (car form) '*break-on-signals* c)
      form)))

(defun %parse-macro-lambda-list (lambda-list)
  ;; split &whole and &environment off: (values whole env rest-of-lambda-list)
  (let ((whole nil) (env nil) (r nil) (ll lambda-list))
    (if (and (consp ll) (eq (car ll) '&whole))
        (progn (setq whole (cadr ll)) (setq ll (cddr ll))))
    (tagbody
     top
       (if (atom ll) (go end))
       (if (eq (car ll) '&environment)
           (progn (setq env (cadr ll)) (setq ll (cddr ll)))
           (progn (setq r (cons (car ll) r)) (setq ll (cdr ll))))
       (go top)
     end)
    (values whole env (if ll (append (%mac-rev r) ll) (%mac-rev r)))))

(defmacro define-compiler-macro (name lambda-list &body body)
  "Defines a compiler macro for the function NAME: an optional rewriting of calls to it (and of FUNCALL of #'NAME or 'NAME), with LAMBDA-LIST and BODY as for DEFMACRO; &WHOLE is the whole form."
  (multiple-value-bind (whole env ll) (%parse-macro-lambda-list lambda-list)
    (multiple-value-bind (decls forms) (sys::%split-declarations body)
      (let ((form (gensym "FORM")) (e (gensym "ENV")) (args (gensym "ARGS"))
            (doc (if (and (stringp (car forms)) (cdr forms)) (car forms) nil)))
        (if doc (setq forms (cdr forms)))
        ;; defined at compile time too, for the rest of a file COMPILE-FILE processes
        `(eval-when (:compile-toplevel :load-toplevel :execute)
           (setf (compiler-macro-function ',name)
                 #'(lambda (,form ,e)
                     (declare (ignorable ,e))
                     (let* ((,args (if (and (eq (car ,form) 'funcall) (consp (cadr ,form))
                                            (member (car (cadr ,form)) '(function quote)))
                                       (cddr ,form)
                                       (cdr ,form)))
                            ,@(if whole `((,whole ,form)))
                            ,@(if env `((,env ,e))))
                       (block ,(if (consp name) (cadr name) name)
                         (destructuring-bind ,ll ,args
                           ,@decls
                           ,@forms)))))
           ,@(if doc `((setf (documentation ',name 'compiler-macro) ,doc)))
           ',name)))))

(defmacro with-compilation-unit ((&key override &allow-other-keys) &body body)
  "Evaluates BODY as one compilation unit, so that warnings about undefined functions are deferred to its end."
  ;; the undefined functions and variables met inside are reported at the end of the outermost
  ;; unit (stdlib-lisp/warnings.lisp); :OVERRIDE true makes this one a unit of its own
  `(%call-with-compilation-unit #'(lambda () ,@body) ,override))

(defmacro step (form)
  "Evaluates FORM and returns its values; tinycl has no single-stepper, so no steps are shown."
  form)

;;; ------------------------------------------------------------------
;;; CONSTANTLY COMPLEMENT

(defun constantly (value)
  "A function that takes any arguments and always returns VALUE."
  #'(lambda (&rest arguments) (declare (ignore arguments)) value))

(defun complement (function)
  "A function that takes the same arguments as FUNCTION and returns the boolean opposite of its result."
  #'(lambda (&rest arguments) (not (apply function arguments))))

;;; ------------------------------------------------------------------
;;; TIME

(defmacro time (form)
  "Evaluates FORM, prints the time and memory it took on *TRACE-OUTPUT*, and returns its values."
  `(%time #'(lambda () ,form)))

(defun %bytes-consed ()
  (if (fboundp 'sys::%bytes-allocated) (funcall 'sys::%bytes-allocated) 0))

(defun %time (thunk)
  (let* ((real0 (get-internal-real-time))
         (run0 (get-internal-run-time))
         (bytes0 (%bytes-consed))
         (values (multiple-value-list (funcall thunk)))
         (run1 (get-internal-run-time))
         (real1 (get-internal-real-time))
         (bytes1 (%bytes-consed))
         (real (/ (- real1 real0) internal-time-units-per-second))
         (run (/ (- run1 run0) internal-time-units-per-second)))
    (format *trace-output*
            "~&Evaluation took:~%  ~,3F seconds of real time~%  ~,6F seconds of total run time (~,6F user, ~,6F system)~%  ~,2F% CPU~%  ~:D bytes consed~%  ~%"
            real run run 0 (if (zerop real) 100 (* 100 (/ run real))) (max 0 (- bytes1 bytes0)))
    (values-list values)))

;;; ------------------------------------------------------------------
;;; TRACE UNTRACE

(defvar *traced-functions* nil)   ; ((name wrapper original macrop) ...), most recent first
(defvar *trace-depth* 0)

(defun %trace-indent (depth stream)
  (dotimes (i (* 2 (1+ depth))) (write-char #\Space stream)))

(defun %trace-entry (name)
  (dolist (e *traced-functions* nil)
    (if (equal (car e) name) (return e))))

(defun %trace-system-name-p (name)
  ;; a function of a locked package (COMMON-LISP, tinycl's own), which tinycl's code calls too
  (let ((sym (if (consp name) (second name) name)))
    (and (symbolp sym) (symbol-package sym) (package-locked-p (symbol-package sym)))))

(defun %make-trace-wrapper (name original)
  (let ((system (%trace-system-name-p name)))
  #'(lambda (&rest arguments)
      ;; tinycl's own Lisp code calls CAR and the like too: of those functions only the user's
      ;; calls are shown (a user's function is shown whoever calls it)
      (if (and system (%trace-caller-system-p))
          (apply original arguments)
      (let ((depth *trace-depth*))
        (%trace-indent depth *trace-output*)
        (format *trace-output* "~D: ~S~%" depth (cons name arguments))
        (let ((values (let ((*trace-depth* (1+ depth)))
                        (multiple-value-list (apply original arguments)))))
          (%trace-indent depth *trace-output*)
          (format *trace-output* "~D: ~S returned" depth name)
          (dolist (v values) (format *trace-output* " ~S" v))
          (terpri *trace-output*)
          (values-list values)))))))

(defun %untrace-1 (name)
  (let ((e (%trace-entry name)))
    (if e
        (progn
          (if (nth 3 e)
              (if (eq (macro-function name) (nth 1 e))
                  (tinycl::without-package-locks (setf (macro-function name) (nth 2 e))))
              (if (and (fboundp name) (eq (fdefinition name) (nth 1 e)))
                  (tinycl::without-package-locks (setf (fdefinition name) (nth 2 e)))))
          (setq *traced-functions*
                (let ((r nil))
                  (dolist (x *traced-functions*) (if (not (eq x e)) (setq r (cons x r))))
                  (%mac-rev r)))
          t)
        nil)))

(defun %trace-1 (name)
  (if (%trace-entry name)
      (progn (warn "~S is already TRACE'd, untracing it first." name)
             (%untrace-1 name)))
  (cond ((and (symbolp name) (macro-function name))
         (let* ((original (macro-function name))
                (wrapper (%make-trace-wrapper name original)))
           (tinycl::without-package-locks (setf (macro-function name) wrapper))
           (setq *traced-functions* (cons (list name wrapper original t) *traced-functions*))
           name))
        ((and (symbolp name) (special-operator-p name))
         (warn "~S is a special operator, not tracing." name)
         nil)
        ((fboundp name)
         (let* ((original (fdefinition name))
                (wrapper (%make-trace-wrapper name original)))
           (tinycl::without-package-locks (setf (fdefinition name) wrapper))
           (setq *traced-functions* (cons (list name wrapper original nil) *traced-functions*))
           name))
        (t (warn "~S is undefined, not tracing." name)
           nil)))

(defun %trace (names)
  (if (null names)
      (%mac-rev (%mac-mapcar #'car *traced-functions*))
      (let ((r nil))
        (dolist (n names)
          (if (%trace-1 n) (setq r (cons n r))))
        (%mac-rev r))))

(defun %untrace (names)
  (if (null names)
      (progn (dolist (e *traced-functions*) (%untrace-1 (car e))) t)
      (progn (dolist (n names) (%untrace-1 n)) t)))

(defmacro trace (&rest names)
  "Makes each function in NAMES print its arguments and values on *TRACE-OUTPUT* when called; without NAMES, returns the list of traced functions."
  `(%trace ',names))
(defmacro untrace (&rest names)
  "Stops tracing the functions in NAMES, or every traced function when none are given."
  `(%untrace ',names))

;;; ------------------------------------------------------------------
;;; DOCUMENTATION

(defvar *function-object-documentation* nil) ; an EQ hash table, made on first use

(defun %doc-alist-get (symbol doc-type)
  (let ((cell (%mac-assoc doc-type (get symbol '%documentation))))
    (if cell (values (cdr cell) t) (values nil nil))))

(defun %doc-alist-set (symbol doc-type value)
  (let ((alist (get symbol '%documentation)))
    (let ((cell (%mac-assoc doc-type alist)))
      (if cell
          (rplacd cell value)
          (sys::%put symbol '%documentation (cons (cons doc-type value) alist)))))
  value)

(defun %function-object-doc (function)
  (multiple-value-bind (doc found)
      (if *function-object-documentation*
          (gethash function *function-object-documentation*)
          (values nil nil))
    (cond (found doc)
          ((sys::%function-documentation function))
          ;; a CL function whose docstring lives in a C table (runtime/docs.c)
          (t (let ((name (sys::%function-name function)))
               (if (and name (symbolp name)) (sys::%builtin-documentation name 'function)))))))

(defun %documentation-1 (x doc-type)
  (cond ((functionp x)
         (%function-object-doc x))
        ((and (consp x) (eq (car x) 'setf) (consp (cdr x)))
         (multiple-value-bind (doc found) (%doc-alist-get (cadr x) 'setf-function)
           (cond (found doc)
                 ((fboundp x) (%function-object-doc (fdefinition x)))
                 (t nil))))
        ((symbolp x)
         ;; each kind falls back on the C tables of CL's own names (runtime/docs.c)
         (cond ((eq doc-type 'variable)
                (let ((doc (get x '%variable-documentation '%absent)))
                  (if (eq doc '%absent) (sys::%builtin-documentation x 'variable) doc)))
               ((eq doc-type 'function)
                (multiple-value-bind (doc found) (%doc-alist-get x 'function)
                  (cond (found doc)
                        ((special-operator-p x) (sys::%builtin-documentation x 'function))
                        ((macro-function x)
                         (or (%function-object-doc (macro-function x))
                             (sys::%builtin-documentation x 'function)))
                        ((fboundp x)
                         (or (%function-object-doc (fdefinition x))
                             (sys::%builtin-documentation x 'function)))
                        (t nil))))
               (t (multiple-value-bind (doc found) (%doc-alist-get x doc-type)
                    (cond (found doc)
                          ;; DEFTYPE keeps its documentation string on the symbol
                          ((eq doc-type 'type)
                           (or (get x 'sys::%type-documentation) (sys::%builtin-documentation x 'type)))
                          (t nil))))))
        ((packagep x) (sys::%package-documentation x))
        (t nil)))

(defun %set-documentation-1 (new-value x doc-type)
  (cond ((functionp x)
         (if (null *function-object-documentation*)
             (setq *function-object-documentation* (make-hash-table :test 'eq)))
         (setf (gethash x *function-object-documentation*) new-value))
        ((and (consp x) (eq (car x) 'setf) (consp (cdr x)))
         (%doc-alist-set (cadr x) 'setf-function new-value))
        ((symbolp x)
         (if (eq doc-type 'variable)
             (sys::%put x '%variable-documentation new-value)
             (%doc-alist-set x doc-type new-value)))
        ((packagep x) (sys::%set-package-documentation x new-value))
        (t (error 'simple-error :format-control "Can't set the documentation of ~S."
                                :format-arguments (list x))))
  new-value)

;; CLOS makes these generic functions with the two above as their default methods
(defun documentation (x doc-type) (%documentation-1 x doc-type))
(defun (setf documentation) (new-value x doc-type) (%set-documentation-1 new-value x doc-type))

;;; ------------------------------------------------------------------
;;; DESCRIBE

(defun %describe-type-label (object)
  (cond ((null object) "null")
        ((symbolp object) "symbol")
        ((consp object) (if (null (cdr (last object))) "list" "cons"))
        ((functionp object) "compiled function")
        ((integerp object) (if (typep object 'fixnum) "fixnum" "bignum"))
        ((numberp object)
         (let ((type (type-of object)))
           (string-downcase (symbol-name (if (consp type) (car type) type)))))
        ((hash-table-p object) "hash-table")
        ((packagep object) "package")
        ((stringp object) (if (typep object 'simple-string) "simple-string" "string"))
        ((characterp object)
         (if (typep object 'standard-char) "standard-char" "character"))
        ((typep object 'simple-vector) "simple-vector")
        ((vectorp object) "vector")
        ((arrayp object) "array")
        (t (let ((type (type-of object)))
             (string-downcase (princ-to-string (if (consp type) (car type) type)))))))

(defun %describe-documentation (doc stream indent)
  (if doc
      (progn
        (%describe-spaces indent stream)
        (format stream "Documentation:~%")
        (%describe-spaces (+ indent 2) stream)
        (let ((in (make-string-input-stream doc)))
          (do ((c (read-char in nil nil) (read-char in nil nil)))
              ((null c))
            (write-char c stream)
            (if (eql c #\Newline) (%describe-spaces (+ indent 2) stream))))
        (terpri stream))))

(defun %describe-lambda-list (function stream indent)
  ;; the Lambda-list: line, when the lambda list is known
  (multiple-value-bind (ll error) (ignore-errors (sys::%function-lambda-list function))
    (if (and (not error) (not (eq ll :unknown)))
        (progn (%describe-spaces indent stream)
               (format stream "Lambda-list: ~S~%" ll)))))

(defun %describe-spaces (n stream)
  (dotimes (i n) (write-char #\Space stream)))

(defun %describe-symbol (symbol stream)
  ;; variable
  (cond ((and (sys::%symbol-special-p symbol) (not (sys::%constant-form-p symbol)))
         (format stream "~%~A names a special variable:~%" symbol)
         (if (boundp symbol)
             (format stream "  Value: ~S~%" (symbol-value symbol))
             (format stream "  Currently unbound.~%"))
         (%describe-documentation (documentation symbol 'variable) stream 2))
        ((and (boundp symbol) (sys::%constant-form-p symbol))
         (format stream "~%~A names a constant variable:~%  Value: ~S~%" symbol (symbol-value symbol))
         (%describe-documentation (documentation symbol 'variable) stream 2))
        ((boundp symbol)
         (format stream "~%~A names an undefined variable:~%  Value: ~S~%" symbol (symbol-value symbol))))
  ;; function
  (cond ((special-operator-p symbol)
         (format stream "~%~A names a special operator:~%" symbol)
         (let ((f (fdefinition symbol)))
           (if (not (eq f (fdefinition 'sys::%special-operator-called)))
               (ignore-errors (%describe-lambda-list f stream 2))))
         (%describe-documentation (documentation symbol 'function) stream 2))
        ((macro-function symbol)
         (format stream "~%~A names a macro:~%" symbol)
         (%describe-lambda-list (macro-function symbol) stream 2)
         (%describe-documentation (documentation symbol 'function) stream 2))
        ((fboundp symbol)
         (format stream "~%~A names a compiled function:~%" symbol)
         (%describe-lambda-list (fdefinition symbol) stream 2)
         (%describe-documentation (documentation symbol 'function) stream 2)))
  (if (and (fboundp (list 'setf symbol)) (not (special-operator-p symbol)))
      (progn
        (format stream "~%~A names a compiled function:~%" (list 'setf symbol))
        (%describe-lambda-list (fdefinition (list 'setf symbol)) stream 2)
        (%describe-documentation (documentation (list 'setf symbol) 'function) stream 2)))
  ;; type
  (let ((class (if (fboundp 'find-class) (find-class symbol nil))))
    (cond (class
           (format stream "~%~A names the ~(~A~) ~S:~%" symbol (class-name (class-of class)) class)
           (%describe-documentation (documentation symbol 'type) stream 2))
          ((or (get symbol 'sys::%deftype-expander) (sys::%known-type-p symbol))
           (format stream "~%~A names a type-specifier:~%" symbol)
           (%describe-documentation (documentation symbol 'type) stream 2))))
  ;; plist
  (let ((plist (symbol-plist symbol)) (shown nil))
    (do ((p plist (cddr p))) ((atom p))
      (if (not (and (symbolp (car p)) (eq (symbol-package (car p)) (find-package "SYSTEM"))))
          (progn
            (if (not shown) (progn (format stream "~%Symbol-plist:~%") (setq shown t)))
            (format stream "  ~S -> ~S~%" (car p) (cadr p)))))))

(defun describe (object &optional (stream *standard-output*))
  (let ((stream (cond ((eq stream t) *terminal-io*) ((null stream) *standard-output*) (t stream))))
    (fresh-line stream)
    (if (and (symbolp object) (not (keywordp object)))
        (let ((*package* (find-package "KEYWORD"))) (format stream "~S~%" object))
        (format stream "~S~%" object))
    (format stream "  [~A]~%" (%describe-type-label object))
    (cond ((symbolp object) (%describe-symbol object stream))
          ((functionp object)
           (format stream "~%~%")
           (%describe-lambda-list object stream 0)
           (%describe-documentation (documentation object t) stream 0))
          ((stringp object)
           (format stream "~%Element-type: ~S~%Length: ~D~%" (array-element-type object) (length object)))
          ((characterp object)
           (format stream "~%Char-code: ~D~%Char-name: ~A~%" (char-code object) (char-name object)))
          ((hash-table-p object)
           (format stream "~%Occupancy: ~,1F~%Rehash-threshold: ~S~%Rehash-size: ~S~%Size: ~D~%Synchronized: no~%"
                   (if (zerop (hash-table-size object)) 0
                       (float (/ (hash-table-count object) (hash-table-size object))))
                   (hash-table-rehash-threshold object) (hash-table-rehash-size object)
                   (hash-table-size object)))
          ((packagep object)
           (let ((doc (documentation object t)))
             (if doc (progn (format stream "~%~%Documentation:~%  ~A~%" doc)) (terpri stream)))
           (if (package-nicknames object)
               (format stream "Nicknames: ~{~A~^, ~}~%" (package-nicknames object)))
           (if (package-use-list object)
               (format stream "Use-list: ~{~A~^, ~}~%" (mapcar #'package-name (package-use-list object))))
           (if (package-used-by-list object)
               (format stream "Used-by-list: ~{~A~^, ~}~%"
                       (mapcar #'package-name (package-used-by-list object))))
           (let ((external nil) (internal 0))
             ;; entries of SYS::%PACKAGE-SYMBOLS: (symbol status . package)
             (dolist (e (sys::%package-symbols object t t nil))
               (cond ((eq (cadr e) :external) (push (car e) external))
                     ((eq (cadr e) :internal) (incf internal))))
             (if external
                 (format stream "Exports: ~{~A~^, ~}~%"
                         (sort (mapcar #'symbol-name external) #'string<)))
             (format stream "~D internal symbol~:P.~%" internal)))
          ((and (arrayp object) (not (stringp object)))
           (format stream "~%Element-type: ~S~%" (array-element-type object))
           (if (vectorp object)
               (format stream "Length: ~D~%" (length object))
               (format stream "Dimensions: ~S~%" (array-dimensions object)))))
    (values)))

;;; ------------------------------------------------------------------
;;; APROPOS

(defun apropos-list (string &optional package external-only)
  "A list of the symbols whose name contains STRING, from PACKAGE or all packages (only external ones with EXTERNAL-ONLY)."
  ;; the symbols whose names contain STRING (case-insensitively), sorted by name
  (let ((name (string string)) (result nil))
    (flet ((consider (symbol)
             (if (search name (symbol-name symbol) :test #'char-equal)
                 (push symbol result))))
      ;; entries of SYS::%PACKAGE-SYMBOLS: (symbol status . package)
      (cond (package
             (dolist (e (sys::%package-symbols package (not external-only) t (not external-only)))
               (consider (car e))))
            (external-only
             (dolist (p (list-all-packages))
               (dolist (e (sys::%package-symbols p nil t nil)) (consider (car e)))))
            (t (dolist (s (sys::%all-present-symbols)) (consider s)))))
    (sort (remove-duplicates result) #'string< :key #'symbol-name)))

(defun apropos (string &optional package external-only)
  "Prints each symbol whose name contains STRING, from PACKAGE or all packages (only external ones with EXTERNAL-ONLY), with what it names. Returns no values."
  (dolist (s (apropos-list string package external-only))
    (fresh-line)
    (prin1 s)
    (if (boundp s) (format t " = ~S" (symbol-value s)))
    (if (fboundp s) (write-string " (fbound)"))
    (terpri))
  (values))

;;; ------------------------------------------------------------------
;;; ROOM ED DRIBBLE

(defun room (&optional (verbosity :default))
  "Prints information about memory use; VERBOSITY (T, NIL or :DEFAULT) chooses how much."
  (declare (ignore verbosity))
  (format t "Dynamic space usage is:   ~:D bytes.~%" (sys::%heap-size))
  (format t "Control and binding stack usage is for the current thread only.~%")
  (format t "Garbage collection is currently enabled.~%")
  (values))

(defun ed (&optional x)
  "Would start an editor on X (a pathname, a string or a function name); tinycl has no editor, so it signals an error."
  (declare (ignore x))
  (error 'simple-error :format-control "ED is not available: tinycl has no editor."))

(defun dribble (&optional pathname &key (if-exists :append))
  "Would copy the interactive session to the file PATHNAME; tinycl does not record sessions, so it does nothing and returns NIL."
  (declare (ignore pathname if-exists))
  nil)

;;; DISASSEMBLE INSPECT (CLHS 25.2): tinycl has no native code to show, and no interactive
;;; inspector; both still accept what the standard says they accept.

(defun disassemble (fn)
  "Print a note about FN (tinycl has no native compiler, so no machine code to show); NIL."
  (let ((function
          (cond ((functionp fn) fn)
                ((and (consp fn) (eq (car fn) 'lambda)) (coerce fn 'function))
                ((and (symbolp fn) (macro-function fn)) (macro-function fn))
                ((or (symbolp fn)
                     (and (consp fn) (eq (car fn) 'setf) (consp (cdr fn)) (symbolp (cadr fn))
                          (null (cddr fn))))
                 (fdefinition fn))
                (t (error 'type-error :datum fn
                                      :expected-type '(or function symbol (cons (eql setf) (cons symbol null))))))))
    (format t "~&; ~S: tinycl has no native compiler; there is no machine code to show.~%"
            function)
    nil))

(defun inspect (object)
  "Describe OBJECT (tinycl has no interactive inspector)."
  (describe object)
  (values))

;;; LONG-SITE-NAME SHORT-SITE-NAME (CLHS 25.2): the site is not known.
(defun long-site-name ()
  "The long name of this computer's site, or NIL when unknown."
  nil)
(defun short-site-name ()
  "The short name of this computer's site, or NIL when unknown."
  nil)

;;; ------------------------------------------------------------------
;;; Universal time (CLHS 25.1.4)

(defun %local-time-zone (universal-time)
  ;; (values hours-west-of-greenwich-without-dst daylight-saving-p) for the local time zone;
  ;; UTC unless the runtime provides SYS::%TIME-ZONE
  (if (fboundp 'sys::%time-zone)
      (funcall 'sys::%time-zone universal-time)
      (values 0 nil)))

(defun %days-from-civil (year month day)
  ;; days since 1970-01-01 of a proleptic Gregorian date
  (let* ((y (if (<= month 2) (- year 1) year))
         (era (floor y 400))
         (yoe (- y (* era 400)))
         (doy (+ (floor (+ (* 153 (+ month (if (> month 2) -3 9))) 2) 5) (- day 1)))
         (doe (+ (* yoe 365) (floor yoe 4) (- (floor yoe 100)) doy)))
    (+ (* era 146097) doe -719468)))

(defun %civil-from-days (z)
  ;; (values year month day) of the day Z days after 1970-01-01
  (let* ((z (+ z 719468))
         (era (floor z 146097))
         (doe (- z (* era 146097)))
         (yoe (floor (- (+ doe (floor doe 36524)) (floor doe 1460) (floor doe 146096)) 365))
         (y (+ yoe (* era 400)))
         (doy (- doe (+ (* 365 yoe) (floor yoe 4) (- (floor yoe 100)))))
         (mp (floor (+ (* 5 doy) 2) 153))
         (d (+ (- doy (floor (+ (* 153 mp) 2) 5)) 1))
         (m (if (< mp 10) (+ mp 3) (- mp 9))))
    (values (if (<= m 2) (+ y 1) y) m d)))

(defconstant +days-1900-to-1970+ 25567)

(defun decode-universal-time (universal-time &optional (time-zone nil tz-p))
  "The nine values of UNIVERSAL-TIME as calendar time: second, minute, hour, date, month, year, day of week (0 is Monday), daylight-saving flag and time zone, for TIME-ZONE or the local zone."
  (if (not (and (integerp universal-time) (>= universal-time 0)))
      (error 'type-error :datum universal-time :expected-type 'unsigned-byte))
  (let ((zone time-zone) (dst nil))
    (if (not tz-p)
        (multiple-value-setq (zone dst) (%local-time-zone universal-time)))
    (if (not (and (rationalp zone) (<= -24 zone 24)))
        (error 'type-error :datum zone :expected-type '(rational -24 24)))
    (let ((local (- universal-time (* (- zone (if dst 1 0)) 3600))))
      (multiple-value-bind (days secs) (floor local 86400)
        (multiple-value-bind (hour rem) (floor secs 3600)
          (multiple-value-bind (minute second) (floor rem 60)
            (multiple-value-bind (year month date) (%civil-from-days (- days +days-1900-to-1970+))
              (values second minute hour date month year (mod days 7) dst zone))))))))

(defun get-decoded-time ()
  "The current time as the nine values of DECODE-UNIVERSAL-TIME."
  (decode-universal-time (get-universal-time)))

(defun %full-year (year)
  (if (< year 100)
      (let* ((current (nth-value 5 (decode-universal-time (get-universal-time) 0)))
             (low (- current 50)))
        (+ low (mod (- year low) 100)))
      year))

(defun encode-universal-time (second minute hour date month year &optional (time-zone nil tz-p))
  "The universal time for the calendar time SECOND, MINUTE, HOUR, DATE, MONTH and YEAR, in TIME-ZONE (hours west of Greenwich) or the local zone."
  (let* ((year (%full-year year))
         (days (+ (%days-from-civil year month date) +days-1900-to-1970+))
         (local (+ second (* 60 minute) (* 3600 hour) (* 86400 days))))
    (if tz-p
        (+ local (* time-zone 3600))
        (multiple-value-bind (zone dst) (%local-time-zone (+ local 0))
          (declare (ignore dst))
          ;; guess with the standard offset, then correct for daylight saving at that instant
          (let ((guess (+ local (* zone 3600))))
            (multiple-value-bind (zone2 dst2) (%local-time-zone guess)
              (+ local (* (- zone2 (if dst2 1 0)) 3600))))))))
