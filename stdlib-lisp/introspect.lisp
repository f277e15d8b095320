;;;; introspect.lisp: the answers of the session's introspection calls (tcl_describe_symbol,
;;;; tcl_apropos, tcl_macroexpand, tcl_find_definitions, the who-* cross-reference, tcl_inspect,
;;;; tcl_documentation), read from the interpreter's own tables and the cross-reference
;;;; runtime/xref.c records during analysis. Each %QUERY-... function leaves its answer in
;;;; *QUERY-REPORT* as (text subject items total): ITEMS are (kind name detail location) lists of
;;;; strings, LOCATION (file line column), (:eval call source) or NIL; src/session-introspect.c
;;;; turns it into C types.

(in-package "SYSTEM")

(defvar *query-report* nil "The answer of the last introspection call: (text subject items total).")
(defvar *query-item-limit* 200 "At most this many items in one answer; the rest are counted.")
(defvar *inspected* nil "(object) the last object inspect evaluated, or NIL.")

;;; The cross-reference table survives a reset as the session's other registries do: user
;;; entries go, entries made by loading systems stay (asdf.lisp keeps what a load adds). So do
;;; the compiled files' tables not decoded yet (%xref-deferred, runtime/xref_compile.c): a reset
;;; after a query put the notes and sites of the systems' files back undecoded.
(setq *session-snapshot-hooks*
      (cons #'(lambda () (%registry-restorer (%xref-table)))
            (cons #'(lambda () (%registry-restorer (%xref-sites)))
                  (cons #'(lambda () (%registry-restorer (%xref-deferred))) *session-snapshot-hooks*))))

(defun %query-report (text subject items &optional (total (length items)))
  (setq *query-report* (list text subject items total))
  (values))

(defun %bounded (object &optional (max 300))
  ;; printed within bounds, circle-safe
  (let ((s (let ((*print-length* 10) (*print-level* 4) (*print-circle* t) (*print-readably* nil)
                 (*print-pretty* nil))
             (prin1-to-string object))))
    (if (> (length s) max) (concatenate 'string (subseq s 0 max) "...") s)))

(defun %cap-items (items)
  ;; -> (values the first *query-item-limit* items, how many there were)
  (let ((n (length items)))
    (values (if (> n *query-item-limit*) (subseq items 0 *query-item-limit*) items) n)))

(defun %more-note (shown total)
  (if (< shown total) (format nil "~%... and ~D more (~D shown)" (- total shown) shown) ""))

;;; ------------------------------------------------------------------
;;; Names: a symbol named by a string, never interned by asking

(defun %query-package (package-name)
  (if (or (null package-name) (equal package-name "")) *package* (%find-package-or-lose package-name)))

(defun %symbol-name-case (name)
  ;; as the reader would take an unescaped name: |x| keeps its case, otherwise upcased
  (let ((n (length name)))
    (if (and (> n 1) (char= (char name 0) #\|) (char= (char name (1- n)) #\|))
        (subseq name 1 (1- n))
        (string-upcase name))))

(defun %query-symbol (text package-name)
  ;; "foo", "pkg:foo", "pkg::foo", ":key" -> the existing symbol, or an error saying what is missing
  (unless (and (stringp text) (> (length text) 0))
    (error 'simple-error :format-control "The symbol name must be a non-empty string."))
  (let* ((text (string-trim '(#\Space #\Tab #\Newline) text))
         (colon (position #\: text))
         (pkg (cond ((null colon) (%query-package package-name))
                    ((= colon 0) (find-package "KEYWORD"))
                    (t (%find-package-or-lose (%symbol-name-case (subseq text 0 colon))))))
         (name (%symbol-name-case (if colon (string-left-trim ":" (subseq text colon)) text))))
    (multiple-value-bind (sym status) (find-symbol name pkg)
      (if status
          sym
          (error 'simple-error :format-control "No symbol named ~S in package ~A."
                               :format-arguments (list name (package-name pkg)))))))

;;; ------------------------------------------------------------------
;;; Definitions and their source locations (keys of the cross-reference table)

(defun %definition-name (key) (cadr key))

(defun %definition-kind (key)
  (let ((k (car key)) (name (cadr key)))
    (case k
      ((defun function) (if (and (fboundp name) (%generic-function-p (fdefinition name))) "generic-function" "function"))
      (defgeneric "generic-function")
      (defmethod "method")
      ((defmacro define-modify-macro) "macro")
      ((defvar defparameter) "variable")
      (defconstant "constant")
      (defclass "class")
      (defstruct "structure")
      (define-condition "condition")
      (deftype "type")
      (define-compiler-macro "compiler-macro")
      ((defsetf define-setf-expander) "setf-expander")
      (define-symbol-macro "symbol-macro")
      (t (string-downcase (symbol-name k))))))

(defun %definition-live-p (key)
  ;; the definition a key names still exists (a removed one drops out of every answer)
  (let ((k (car key)) (name (cadr key)))
    (case k
      ((defun defgeneric define-modify-macro function)
       (and (fboundp name) (not (and (symbolp name) (macro-function name)))))
      (defmacro (and (symbolp name) (macro-function name) t))
      (defmethod (and (fboundp name) (%generic-function-p (fdefinition name))
                      (let ((specs (car (last key))) (quals (butlast (cddr key))))
                        (let ((found (ignore-errors
                                      (find-method (fdefinition name) quals
                                                   (mapcar #'(lambda (s) (if (symbolp s) (find-class s) s)) specs)
                                                   nil))))
                          (or found (some #'consp specs))))
                      t))
      ((defvar defparameter defconstant) (boundp name))
      ((defclass defstruct define-condition) (and (find-class name nil) t))
      (define-compiler-macro (and (compiler-macro-function name) t))
      (t t))))

(defun %definition-label (key)
  ;; how a definition is named as a caller: FOO, (METHOD FOO :AROUND (INTEGER)), (DEFVAR *X*)
  (let ((*print-readably* nil) (*print-pretty* nil))
    (case (car key)
      ((defun defgeneric defmacro function) (prin1-to-string (cadr key)))
      (defmethod (prin1-to-string (cons 'method (cdr key))))
      (t (prin1-to-string (list (car key) (cadr key)))))))

(defvar *session-call-label* "evaluation"
  "How a source location names the session call a definition was typed in (\"<label> N\"); the
front end that made the session words it (TclOptions.call_label).")

(defun %location-text (loc)
  (cond ((null loc) "no source location recorded")
        ((eq (car loc) :eval)
         (let* ((src (caddr loc)) (line (subseq src 0 (or (position #\Newline src) (length src)))))
           (format nil "~A ~D~@[ at line ~D~]~@[, column ~D~]: ~A~:[~;...~]" *session-call-label* (cadr loc)
                   (cadddr loc) (car (cddddr loc))
                   (if (> (length line) 60) (subseq line 0 60) line)
                   (or (> (length line) 60) (< (length line) (length src))))))
        (t (format nil "~A:~D:~D" (car loc) (cadr loc) (caddr loc)))))

(defun %definitions-named (sym)
  ;; -> ((key . location) ...) of the live definitions of SYM and (SETF SYM); a (FUNCTION name)
  ;; record (where fdefinition_set installed it) counts only when no defining form names it
  (let ((found nil))
    (maphash #'(lambda (key v)
                 (let ((name (cadr key)))
                   (when (and (or (eq name sym) (and (consp name) (eq (cadr name) sym)))
                              (%definition-live-p key))
                     (push (cons key (car v)) found))))
             (%xref-table))
    (setq found (remove-if #'(lambda (e)
                               (and (eq (car (car e)) 'function)
                                    (find-if #'(lambda (o) (and (member (car (car o)) '(defun defgeneric defmethod define-modify-macro))
                                                                (equal (cadr (car o)) (cadr (car e)))))
                                             found)))
                           found))
    (sort found #'string< :key #'(lambda (e) (%definition-label (car e))))))

(defun %builtin-definitions (sym recorded)
  ;; what C defines (primitives, special operators) has no source file
  (let ((kinds (mapcar #'(lambda (e) (car (car e))) (remove-if-not #'(lambda (e) (eq (cadr (car e)) sym)) recorded)))
        (out nil))
    (when (and (special-operator-p sym)) (push (list "special-operator" "built in (C special operator)") out))
    (when (and (fboundp sym) (not (special-operator-p sym))
               (not (intersection '(defun defmacro defgeneric function) kinds)))
      (push (list (if (macro-function sym) "macro" "function")
                  (if (%primitive-function-p (if (macro-function sym) (macro-function sym) (fdefinition sym)))
                      "built in (C primitive)"
                      "no source location recorded"))
            out))
    (when (and (boundp sym) (not (intersection '(defvar defparameter defconstant) kinds)) (not (keywordp sym))
               (not (member sym '(t nil))))
      (push (list (if (constantp sym) "constant" "variable") "built in") out))
    (when (and (find-class sym nil) (not (intersection '(defclass defstruct define-condition) kinds)))
      (push (list "class" "built in") out))
    (nreverse out)))

(defun %query-find-definitions (name package)
  (let* ((sym (%query-symbol name package))
         (recorded (%definitions-named sym))
         (items (append (mapcar #'(lambda (e) (list (%definition-kind (car e)) (%definition-label (car e))
                                                    "" (cdr e)))
                                recorded)
                        (mapcar #'(lambda (b) (list (car b) (%bounded sym) (cadr b) nil))
                                (%builtin-definitions sym recorded)))))
    (%query-report (if items
                      (format nil "~{~A~^~%~}"
                              (mapcar #'(lambda (i) (format nil "~A ~A: ~A" (car i) (cadr i)
                                                            (if (cadddr i) (%location-text (cadddr i))
                                                                (if (equal (caddr i) "") "no source location recorded"
                                                                    (caddr i)))))
                                      items))
                      (format nil "~A has no definitions." (%bounded sym)))
                  (%bounded sym) items)))

;;; ------------------------------------------------------------------
;;; The cross-reference: who-calls, who-references, who-sets, who-binds, who-macroexpands, calls-who

(defvar *xref-relations* '(("calls" . 0) ("references" . 1) ("sets" . 2) ("binds" . 3) ("macroexpands" . 4)))

(defun %internal-name-p (sym)
  ;; the stdlib's own %-functions that every definition's expansion calls (%DEFUN, %PUT, ...)
  (and (symbolp sym) (eq (symbol-package sym) (find-package "SYSTEM"))
       (> (length (symbol-name sym)) 0) (char= (char (symbol-name sym) 0) #\%)))

(defun %stdlib-location-p (loc)
  (and (consp loc) (stringp (car loc)) (> (length (car loc)) 12) (string= "stdlib-lisp/" (car loc) :end2 12)))

(defun %xref-complete-stdlib ()
  ;; The stdlib's functions and macros are analysed lazily at their first call, recording
  ;; nothing (the boot stays fast): the first cross-reference question analyses each of them
  ;; once more to record what it calls, references, sets, binds and macroexpands.
  (let ((todo nil))
    (maphash #'(lambda (key v)
                 (when (and (member (car key) '(defun defmacro)) (%stdlib-location-p (car v))
                            (every #'(lambda (e) (%internal-name-p (cdr e))) (cdr v)))
                   (let ((fn (if (eq (car key) 'defmacro)
                                 (and (symbolp (cadr key)) (macro-function (cadr key)))
                                 (and (fboundp (cadr key)) (fdefinition (cadr key))))))
                     (when fn (push (list key fn (car v)) todo)))))
             (%xref-table))
    (dolist (e todo)
      (ignore-errors (%xref-analyse (first e) (second e) (third e))))))

(defun %site-locations (key kind name loc)
  ;; the places in KEY's definition where it does KIND with NAME: LOC with each site's line and
  ;; column (in the file, or in the code of the session call); (LOC) when none was recorded
  (let ((out nil))
    (dolist (s (gethash key (%xref-sites)))
      (when (and (eql (car s) kind) (equal (cadr s) name))
        (push (if (and (consp loc) (eq (car loc) :eval))
                  (list :eval (cadr loc) (caddr loc) (caddr s) (cdddr s))
                  (list (car loc) (caddr s) (cdddr s)))
              out)))
    (if (and out (consp loc)) (nreverse out) (list loc))))

(defun %query-xref (relation name package)
  (let* ((sym (%query-symbol name package))
         (callees (equal relation "calls-who"))
         (kind (if callees 0 (cdr (assoc relation *xref-relations* :test #'equal))))
         (items nil))
    (unless kind (error 'simple-error :format-control "Unknown cross-reference relation ~S." :format-arguments (list relation)))
    (%xref-complete-stdlib)
    (maphash #'(lambda (key v)
                 (when (%definition-live-p key)
                   (if callees
                       (when (or (eq (cadr key) sym) (and (consp (cadr key)) (eq (cadr (cadr key)) sym)))
                         (dolist (e (cdr v))
                           (when (and (eql (car e) 0) (not (%internal-name-p (cdr e))))
                             (dolist (loc (%site-locations key 0 (cdr e) (car v)))
                               (push (list "calls" (%bounded (cdr e)) (%definition-label key) loc) items)))))
                       (dolist (e (cdr v))
                         (when (and (eql (car e) kind) (equal (cdr e) sym))
                           (dolist (loc (%site-locations key kind sym (car v)))
                             (push (list relation (%definition-label key) (%definition-kind key) loc) items))
                           (return))))))
             (%xref-table))
    (setq items (stable-sort (nreverse items) #'string< :key #'cadr))
    (multiple-value-bind (shown total) (%cap-items items)
      (%query-report
       (if shown
           (format nil "~{~A~^~%~}~A"
                   (mapcar #'(lambda (i) (format nil "~A (~A)" (cadr i) (%location-text (cadddr i)))) shown)
                   (%more-note (length shown) total))
           (format nil "No ~A recorded for ~A." (if callees "calls" (format nil "definitions that ~A it" (subseq relation 0 (1- (length relation))))) (%bounded sym)))
       (%bounded sym) shown total))))

;;; ------------------------------------------------------------------
;;; documentation

(defvar *doc-types* '(function variable type structure setf compiler-macro method-combination))

(defun %query-documentation (name package doc-type)
  (let* ((sym (%query-symbol name package))
         (types (if (and doc-type (not (equal doc-type "")))
                    (let ((d (find (string-upcase doc-type) *doc-types* :key #'symbol-name :test #'string=)))
                      (unless d
                        (error 'simple-error :format-control "Unknown doc_type ~S; use one of: function, variable, type, structure, setf, compiler-macro, method-combination."
                                             :format-arguments (list doc-type)))
                      (list d))
                    *doc-types*))
         (items nil))
    (dolist (d types)
      (let ((doc (ignore-errors (documentation sym d))))
        (when (stringp doc) (push (list (string-downcase (symbol-name d)) (%bounded sym) doc nil) items))))
    (setq items (nreverse items))
    (%query-report (if items
                      (format nil "~{~A~^~%~%~}" (mapcar #'(lambda (i) (format nil "[~A] ~A" (car i) (caddr i))) items))
                      (format nil "~A has no documentation~@[ of type ~A~]." (%bounded sym)
                              (and doc-type (not (equal doc-type "")) (string-downcase doc-type))))
                  (%bounded sym) items)))

;;; ------------------------------------------------------------------
;;; describe-symbol

(defun %doc-line (sym type)
  (let ((d (ignore-errors (documentation sym type)))) (if (stringp d) d "")))

(defun %location-of (sym kinds)
  (let ((e (find-if #'(lambda (e) (member (car (car e)) kinds)) (%definitions-named sym))))
    (and e (cdr e))))

(defun %class-detail (class)
  (let ((*print-readably* nil))
    (format nil "superclasses ~S; slots ~{~A~^; ~}"
            (mapcar #'class-name (ignore-errors (class-direct-superclasses class)))
            (mapcar #'(lambda (s)
                        (format nil "~S~@[ initargs ~S~]~@[ readers ~S~]~@[ type ~S~]"
                                (slot-definition-name s)
                                (ignore-errors (slot-definition-initargs s))
                                (let ((d (find (slot-definition-name s) (ignore-errors (class-direct-slots class))
                                               :key #'slot-definition-name)))
                                  (and d (ignore-errors (slot-definition-readers d))))
                                (let ((ty (ignore-errors (slot-definition-type s)))) (and ty (not (eq ty t)) ty))))
                    (ignore-errors (class-slots class))))))

(defun %symbol-aspects (sym)
  ;; -> items (kind name detail location), one per thing SYM names
  (let ((items nil) (name (%bounded sym)))
    (flet ((add (kind detail loc) (push (list kind name detail loc) items)))
      (cond ((special-operator-p sym)
             (add "special-operator" (%doc-line sym 'function) nil))
            ((macro-function sym)
             (add "macro" (format nil "~A~@[  ~A~]" (%lambda-list-string (macro-function sym) (symbol-package sym))
                                  (let ((d (%doc-line sym 'function))) (and (string/= d "") d)))
                  (%location-of sym '(defmacro define-modify-macro))))
            ((fboundp sym)
             (let ((f (fdefinition sym)))
               (if (%generic-function-p f)
                   (progn
                     (add "generic-function" (format nil "~A~@[  ~A~]" (%lambda-list-string f (symbol-package sym))
                                                     (let ((d (%doc-line sym 'function))) (and (string/= d "") d)))
                          (%location-of sym '(defgeneric defun)))
                     (dolist (m (generic-function-methods f))
                       (add "method" (%bounded (append (method-qualifiers m)
                                                       (list (mapcar #'(lambda (s) (if (typep s 'class) (class-name s) s))
                                                                     (method-specializers m)))))
                            nil)))
                   (add "function" (format nil "~A~@[  ~A~]" (%lambda-list-string f (symbol-package sym))
                                           (let ((d (%doc-line sym 'function))) (and (string/= d "") d)))
                        (%location-of sym '(defun)))))))
      (when (fboundp (list 'setf sym))
        (add "setf-function" (%lambda-list-string (fdefinition (list 'setf sym)) (symbol-package sym)) nil))
      (when (boundp sym)
        (add (if (constantp sym) "constant" "variable")
             (format nil "~A~@[  ~A~]" (%bounded (symbol-value sym) 200)
                     (let ((d (%doc-line sym 'variable))) (and (string/= d "") d)))
             (%location-of sym '(defvar defparameter defconstant))))
      (let ((class (find-class sym nil)))
        (when class
          (add (cond ((typep class 'structure-class) "structure")
                     ((ignore-errors (subtypep sym 'condition)) "condition")
                     (t "class"))
               (%class-detail class)
               (%location-of sym '(defclass defstruct define-condition)))))
      (when (and (not (find-class sym nil)) (ignore-errors (%location-of sym '(deftype))))
        (add "type" (%doc-line sym 'type) (%location-of sym '(deftype))))
      (let ((p (find-package sym)))
        (when p
          (add "package" (format nil "~A, ~D external symbols" (package-name p)
                                 (let ((n 0)) (do-external-symbols (s p) (declare (ignore s)) (incf n)) n))
               nil))))
    (nreverse items)))

(defun %query-describe-symbol (name package)
  (let* ((sym (%query-symbol name package))
         (items (%symbol-aspects sym))
         (*print-readably* nil))
    (%query-report
     (format nil "~A~%  home package: ~A~@[~%  status: ~(~A~)~]~{~%~A~}"
             (let ((*package* (find-package "KEYWORD"))) (prin1-to-string sym))
             (if (symbol-package sym) (package-name (symbol-package sym)) "none (uninterned)")
             (and (symbol-package sym) (nth-value 1 (find-symbol (symbol-name sym) (symbol-package sym))))
             (if items
                 (mapcar #'(lambda (i) (format nil "  [~A] ~A~@[~%      defined at ~A~]" (car i) (caddr i)
                                               (and (cadddr i) (%location-text (cadddr i)))))
                         items)
                 (list "  names nothing: no function, variable, class, type or package")))
     (%bounded sym) items)))

;;; ------------------------------------------------------------------
;;; apropos

(defun %symbol-kinds (sym)
  (let ((k nil))
    (cond ((special-operator-p sym) (push "special-operator" k))
          ((macro-function sym) (push "macro" k))
          ((fboundp sym) (push (if (%generic-function-p (fdefinition sym)) "generic-function" "function") k)))
    (when (boundp sym) (push (if (constantp sym) "constant" "variable") k))
    (when (find-class sym nil) (push "class" k))
    (when (find-package sym) (push "package" k))
    (nreverse k)))

(defun %query-apropos (query package external-only kinds)
  (unless (and (stringp query) (> (length query) 0))
    (error 'simple-error :format-control "The query must be a non-empty string."))
  (let* ((packages (if (and package (not (equal package ""))) (list (%find-package-or-lose package)) (list-all-packages)))
         (q (string-upcase query))
         (found nil))
    (dolist (p packages)
      (dolist (sym (%package-own-symbols p))
        (when (and (eq (symbol-package sym) p) (search q (symbol-name sym)))
          (let ((external (eq (nth-value 1 (find-symbol (symbol-name sym) p)) :external)))
            (when (or external (not external-only))
              (let ((ks (%symbol-kinds sym)))
                (when (or (null kinds) (intersection kinds ks :test #'string-equal))
                  (push (list sym ks) found))))))))
    (flet ((rank (e) (let ((n (symbol-name (car e))))
                       (cond ((string= n q) 0) ((eql (search q n) 0) 1) (t 2)))))
      (setq found (sort found #'(lambda (a b)
                                  (let ((ra (rank a)) (rb (rank b)))
                                    (or (< ra rb)
                                        (and (= ra rb)
                                             (let ((na (symbol-name (car a))) (nb (symbol-name (car b))))
                                               (or (string< na nb)
                                                   (and (string= na nb)
                                                        (string< (package-name (symbol-package (car a)))
                                                                 (package-name (symbol-package (car b))))))))))))))
    (let ((items (mapcar #'(lambda (e)
                             (list (format nil "~{~A~^ ~}" (cadr e))
                                   (let ((*package* (find-package "KEYWORD"))) (prin1-to-string (car e)))
                                   "" nil))
                         found)))
      (multiple-value-bind (shown total) (%cap-items items)
        (%query-report (if shown
                          (format nil "~{~A~^~%~}~A"
                                  (mapcar #'(lambda (i) (format nil "~A~@[ (~A)~]" (cadr i) (and (string/= (car i) "") (car i)))) shown)
                                  (%more-note (length shown) total))
                          (format nil "No symbols match ~S." query))
                      query shown total)))))

;;; ------------------------------------------------------------------
;;; macroexpand: once (MACROEXPAND-1), or everywhere as a code walker would

(defun %read-one-form (code)
  (let ((forms nil) (eof '#:eof))
    (with-input-from-string (in code)
      (do ((f (read in nil eof) (read in nil eof))) ((eq f eof)) (push f forms)))
    (cond ((null forms) (error 'simple-error :format-control "The code holds no form to expand."))
          ((cdr forms) (error 'simple-error :format-control "The code holds ~D forms; give one form to expand."
                                            :format-arguments (list (length forms))))
          (t (car forms)))))

;;; The walker's lexical environment: local macros (name . expander), local functions (which hide
;;; global macros), symbol macros (symbol . expansion) and variables (which hide symbol macros).
(defun %make-wenv (&optional macros functions symbol-macros) (list macros functions symbol-macros))
(defun %wenv-macros (env) (first env))
(defun %wenv-functions (env) (second env))
(defun %wenv-symbol-macros (env) (third env))

(defun %wenv-extend (env &key macros functions symbol-macros shadow-vars)
  (%make-wenv (append macros (%wenv-macros env))
              (append functions (%wenv-functions env))
              (append symbol-macros
                      (mapcar #'(lambda (v) (cons v '%shadowed)) shadow-vars)
                      (%wenv-symbol-macros env))))

(defun %walk-macro-1 (form env)
  ;; -> (values expansion expandedp) with local definitions in force
  (cond ((symbolp form)
         (let ((local (assoc form (%wenv-symbol-macros env))))
           (cond ((and local (eq (cdr local) '%shadowed)) (values form nil))
                 (local (values (cdr local) t))
                 (t (macroexpand-1 form)))))
        ((and (consp form) (symbolp (car form)))
         (let ((local (assoc (car form) (%wenv-macros env))))
           (cond (local (values (funcall (cdr local) form) t))
                 ((member (car form) (%wenv-functions env)) (values form nil))
                 ((special-operator-p (car form)) (values form nil))
                 (t (macroexpand-1 form)))))
        (t (values form nil))))

(defun %walk-body (forms env) (mapcar #'(lambda (f) (%walk f env)) forms))

(defun %walk-lambda-list (ll env)
  ;; default forms of optional, key and aux parameters are code; returns (values ll variables)
  (let ((vars nil) (out nil))
    (dolist (p ll)
      (cond ((member p lambda-list-keywords) (push p out))
            ((symbolp p) (push p vars) (push p out))
            ((consp p)
             (let ((var (if (consp (car p)) (cadr (car p)) (car p))))
               (push var vars)
               (if (caddr p) (push (caddr p) vars))
               (push (list* (car p) (if (cdr p) (list (%walk (cadr p) (%wenv-extend env :shadow-vars vars))) nil)
                            (cddr p))
                     out)))
            (t (push p out))))
    (values (nreverse out) vars)))

(defun %walk-lambda (ll body env)
  (multiple-value-bind (ll2 vars) (%walk-lambda-list ll env)
    (cons ll2 (%walk-body body (%wenv-extend env :shadow-vars vars)))))

(defun %walk-function-defs (defs env)
  (mapcar #'(lambda (d) (cons (car d) (%walk-lambda (cadr d) (cddr d) env))) defs))

(defun %local-macro-expander (def)
  ;; (name lambda-list . body) of MACROLET -> a function of the whole form
  (let* ((ll (cadr def)) (env-pos (position '&environment ll)))
    (when env-pos (setq ll (append (subseq ll 0 env-pos) (nthcdr (+ env-pos 2) ll))))
    (coerce `(lambda (%form) (destructuring-bind ,ll (cdr %form) ,@(cddr def))) 'function)))

(defun %walk (form env)
  (multiple-value-bind (exp expanded) (%walk-macro-1 form env)
    (cond (expanded (%walk exp env))
          ((atom form) form)
          ((not (symbolp (car form)))
           (if (and (consp (car form)) (eq (car (car form)) 'lambda))
               (cons (cons 'lambda (%walk-lambda (cadr (car form)) (cddr (car form)) env)) (%walk-body (cdr form) env))
               form))
          (t
           (let ((head (car form)))
             (case head
               ((quote go declare) form)
               (function (let ((f (cadr form)))
                           (cond ((and (consp f) (eq (car f) 'lambda))
                                  (list 'function (cons 'lambda (%walk-lambda (cadr f) (cddr f) env))))
                                 ((and (consp f) (member (car f) '(named-lambda macro-lambda)))
                                  ;; what DEFUN and DEFMACRO expand to: (named-lambda name lambda-list . body)
                                  (list 'function (list* (car f) (cadr f) (%walk-lambda (caddr f) (cdddr f) env))))
                                 (t form))))
               (lambda (cons 'lambda (%walk-lambda (cadr form) (cddr form) env)))
               ((let let*)
                (let ((vars nil) (bindings nil))
                  (dolist (b (cadr form))
                    (let ((var (if (consp b) (car b) b)))
                      (push (if (and (consp b) (cdr b))
                                (list var (%walk (cadr b) (if (eq head 'let*) (%wenv-extend env :shadow-vars vars) env)))
                                b)
                            bindings)
                      (push var vars)))
                  (list* head (nreverse bindings) (%walk-body (cddr form) (%wenv-extend env :shadow-vars vars)))))
               ((flet labels)
                (let ((inner (%wenv-extend env :functions (mapcar #'car (cadr form)))))
                  (list* head (%walk-function-defs (cadr form) (if (eq head 'labels) inner env))
                         (%walk-body (cddr form) inner))))
               (macrolet
                (let ((inner (%wenv-extend env :macros (mapcar #'(lambda (d) (cons (car d) (%local-macro-expander d)))
                                                               (cadr form)))))
                  (list* head (cadr form) (%walk-body (cddr form) inner))))
               (symbol-macrolet
                (let ((inner (%wenv-extend env :symbol-macros (mapcar #'(lambda (d) (cons (car d) (cadr d))) (cadr form)))))
                  (list* head (cadr form) (%walk-body (cddr form) inner))))
               ((block return-from the eval-when)
                (list* head (cadr form) (%walk-body (cddr form) env)))
               (tagbody (cons head (mapcar #'(lambda (f) (if (atom f) f (%walk f env))) (cdr form))))
               (setq (cons head (let ((i 0)) (mapcar #'(lambda (f) (prog1 (if (oddp i) (%walk f env) f) (incf i))) (cdr form)))))
               (load-time-value (list* head (%walk (cadr form) env) (cddr form)))
               (t (cons head (%walk-body (cdr form) env)))))))))

(defun %circular-p (x)
  ;; does the tree X contain a cycle through conses? (shared gensyms are not cycles)
  (let ((on-path (make-hash-table :test 'eq)) (done (make-hash-table :test 'eq)))
    (labels ((walk (y)
               ;; along the cdr chain by iteration (long lists), into cars by recursion
               (let ((chain nil))
                 (loop
                   (cond ((not (consp y)) (return nil))
                         ((gethash y on-path) (return-from %circular-p t))
                         ((gethash y done) (return nil))
                         (t (setf (gethash y on-path) t)
                            (push y chain)
                            (walk (car y))
                            (setq y (cdr y)))))
                 (dolist (c chain) (remhash c on-path) (setf (gethash c done) t)))))
      (walk x)
      nil)))

(defun %query-macroexpand (code package full)
  (let* ((*package* (%query-package package))
         (form (let ((*read-eval* nil)) (%read-one-form code))))   ; nothing is evaluated, not even #.
    (multiple-value-bind (exp expanded)
        (if full
            (let ((e (%walk form (%make-wenv)))) (values e (not (equal e form))))
            (macroexpand-1 form))
      (let ((text (let ((*print-pretty* t) (*print-right-margin* 100) (*print-circle* (%circular-p exp))
                        (*print-readably* nil) (*print-level* 100) (*print-length* 5000))   ; bounded
                    (prin1-to-string exp))))
        (when (> (length text) 50000)
          (setq text (format nil "~A~%... (expansion cut at 50000 of ~D characters)" (subseq text 0 50000) (length text))))
        (%query-report text (if expanded "expanded" "not a macro form")
                      (list (list (if expanded "expanded" "unchanged") "" "" nil)))))))

;;; ------------------------------------------------------------------
;;; inspect: an object taken apart into numbered parts; a path of part numbers drills down

(defun %inspect-parts (x)
  ;; -> (values type-description parts) where parts are (label . object)
  (cond ((and (consp x) (ignore-errors (list-length x)) (null (cdr (last x))))
         (values (format nil "a proper list of ~D elements" (length x))
                 (let ((i -1)) (mapcar #'(lambda (e) (cons (format nil "~D" (incf i)) e)) x))))
        ((consp x) (values (if (ignore-errors (list-length x)) "a cons (dotted)" "a circular list")
                           (list (cons "car" (car x)) (cons "cdr" (cdr x)))))
        ((stringp x) (values (format nil "a string of ~D characters" (length x)) nil))
        ((vectorp x) (values (format nil "a vector of ~D elements~@[ (fill pointer ~D)~]" (length x)
                                     (and (array-has-fill-pointer-p x) (fill-pointer x)))
                             (let ((out nil)) (dotimes (i (min (length x) 10000) (nreverse out))
                                                (push (cons (format nil "~D" i) (aref x i)) out)))))
        ((arrayp x) (values (format nil "an array of dimensions ~S" (array-dimensions x))
                            (let ((out nil)) (dotimes (i (min (array-total-size x) 10000) (nreverse out))
                                               (push (cons (format nil "~D" i) (row-major-aref x i)) out)))))
        ((hash-table-p x)
         (values (format nil "a hash table (test ~S) of ~D entries" (hash-table-test x) (hash-table-count x))
                 (let ((out nil))
                   (maphash #'(lambda (k v) (push (cons (%bounded k 80) v) out)) x)
                   (nreverse out))))
        ((symbolp x)
         (values "a symbol"
                 (append (list (cons "name" (symbol-name x)) (cons "package" (symbol-package x)))
                         (if (boundp x) (list (cons "value" (symbol-value x))))
                         (if (and (fboundp x) (not (special-operator-p x))) (list (cons "function" (fdefinition x))))
                         (list (cons "plist" (symbol-plist x))))))
        ((functionp x)
         (values "a function"
                 (append (list (cons "name" (%function-name x))
                               (cons "lambda-list" (%function-lambda-list x))
                               (cons "documentation" (%function-documentation x)))
                         (mapcar #'(lambda (v) (cons (format nil "closure variable ~A" (%bounded (car v) 60)) (cdr v)))
                                 (%closure-variables x)))))
        ((packagep x)
         (values "a package"
                 (list (cons "name" (package-name x)) (cons "nicknames" (package-nicknames x))
                       (cons "use-list" (package-use-list x)))))
        ((or (typep x 'structure-object) (typep x 'standard-object) (typep x 'condition))
         (values (format nil "an instance of ~S" (class-name (class-of x)))
                 (mapcar #'(lambda (s)
                             (let ((n (slot-definition-name s)))
                               (cons (symbol-name n) (if (slot-boundp x n) (slot-value x n) '|#<unbound>|))))
                         (ignore-errors (class-slots (class-of x))))))
        ((complexp x) (values "a complex number" (list (cons "realpart" (realpart x)) (cons "imagpart" (imagpart x)))))
        ((typep x 'ratio) (values "a ratio" (list (cons "numerator" (numerator x)) (cons "denominator" (denominator x)))))
        (t (values (format nil "~(~A~)" (%bounded (type-of x) 80)) nil))))

(defun %query-inspect (code package path)
  (when code
    (let ((*package* (%query-package package)))
      (setq *inspected* (list (eval (%read-one-form code))))))
  (unless *inspected*
    (error 'simple-error :format-control "Nothing has been inspected yet: give code to evaluate."))
  (let ((x (car *inspected*)) (trail nil))
    (dolist (i path)
      (multiple-value-bind (desc parts) (%inspect-parts x)
        (declare (ignore desc))
        (unless (and (integerp i) (<= 0 i) (< i (length parts)))
          (error 'simple-error :format-control "Path element ~S is not a part number of ~A (it has ~D part~:P)."
                               :format-arguments (list i (%bounded x 80) (length parts) (length parts))))
        (push (car (nth i parts)) trail)
        (setq x (cdr (nth i parts)))))
    (multiple-value-bind (desc parts) (%inspect-parts x)
      (let ((items (let ((i -1))
                     (mapcar #'(lambda (p) (list (format nil "~D" (incf i)) (car p) (%bounded (cdr p) 200) nil)) parts))))
        (multiple-value-bind (shown total) (%cap-items items)
          (%query-report
           (format nil "~A~%  ~A~@[~%  path: ~{~A~^ > ~}~]~{~%~A~}~A"
                   (%bounded x 300) desc (reverse trail)
                   (mapcar #'(lambda (i) (format nil "  [~A] ~A: ~A" (car i) (cadr i) (caddr i))) shown)
                   (%more-note (length shown) total))
           (format nil "~A" desc) shown total))))))
