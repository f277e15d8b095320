;;;; loop.lisp: the LOOP macro (CLHS 6.1), simple and extended forms.
;;;;
;;;; The expander parses the clauses into these pieces, then assembles
;;;;
;;;;   (block NAME
;;;;     (let (GROUP-1 bindings) (declare (ignorable ...)) GROUP-1 inits
;;;;       (let (GROUP-2 ...) ...
;;;;         (tagbody
;;;;            PROLOGUE...        ; initially forms
;;;;            BEFORE...          ; first-iteration stepping and termination tests
;;;;          %loop-next
;;;;            BODY...            ; main clauses
;;;;            AFTER...           ; stepping and tests of the following iterations
;;;;            (go %loop-next)
;;;;          %loop-end
;;;;            EPILOGUE...        ; finally forms
;;;;            FINAL...))))       ; (return-from NAME result), if any
;;;;
;;;; Every FOR/AS clause (with its AND-joined siblings) and every WITH clause opens a new binding
;;;; group, so later clauses see the variables of earlier ones.  Each FOR clause is described by a
;;;; step specification: the termination test before stepping, the variable steps (done in
;;;; parallel within an AND group), the test after stepping and the "pseudo" steps of internal
;;;; variables, once for the first iteration and once for the others.
;;;;
;;;; The expander uses only boot.lisp, conditions.lisp and C primitives.

(in-package "SYSTEM")

;;; ------------------------------------------------------------------
;;; Small private list helpers

(defun %lp-rev (list)
  (let ((r nil))
    (tagbody
     top
       (if (atom list) (go end))
       (setq r (cons (car list) r))
       (setq list (cdr list))
       (go top)
     end)
    r))

(defun %lp-memq (x list)
  (tagbody
   top
     (if (atom list) (return-from %lp-memq nil))
     (if (eq x (car list)) (return-from %lp-memq list))
     (setq list (cdr list))
     (go top)))

(defun %lp-name-in (tok names)
  ;; TOK is a symbol whose name is one of the strings NAMES (LOOP keywords are compared by name)
  (if (symbolp tok)
      (let ((name (symbol-name tok)))
        (tagbody
         top
           (if (null names) (return-from %lp-name-in nil))
           (if (equal name (car names)) (return-from %lp-name-in (car names)))
           (setq names (cdr names))
           (go top)))
      nil))

(defun %lp-is (tok name)
  (and (symbolp tok) (equal (symbol-name tok) name)))

(defun %lp-leaves (pattern)
  ;; the variables of a destructuring pattern, NIL placeholders omitted
  (cond ((null pattern) nil)
        ((symbolp pattern) (list pattern))
        ((consp pattern) (append (%lp-leaves (car pattern)) (%lp-leaves (cdr pattern))))
        (t nil)))

;;; ------------------------------------------------------------------
;;; Expansion state (bound by %LOOP-EXPAND)

(defvar *lp-source* nil)        ; the tokens not yet parsed
(defvar *lp-context* nil)       ; the tokens from the start of the current clause
(defvar *lp-whole* nil)         ; the whole LOOP form, for messages
(defvar *lp-name* nil)          ; the block name
(defvar *lp-groups* nil)        ; binding groups, innermost first: (bindings inits wrappers)
(defvar *lp-pend-bindings* nil) ; the group being built (reversed)
(defvar *lp-pend-inits* nil)
(defvar *lp-pend-wrappers* nil)
(defvar *lp-prologue* nil)      ; all the following are reversed
(defvar *lp-before* nil)
(defvar *lp-body* nil)
(defvar *lp-after* nil)
(defvar *lp-epilogue* nil)
(defvar *lp-final* nil)
(defvar *lp-emitted-body* nil)  ; a main clause has been seen: FOR may no longer follow
(defvar *lp-inside-cond* nil)
(defvar *lp-vars* nil)          ; every variable bound, for the duplicate check
(defvar *lp-ignorable* nil)     ; ignorable variables of the group being built
(defvar *lp-accums* nil)        ; accumulators: (name class var head tail flag)
(defvar *lp-booleans* nil)      ; ALWAYS, NEVER or THEREIS was seen
(defvar *lp-it-var* nil)

;;; ------------------------------------------------------------------
;;; Errors

(defun %lp-context-string ()
  (let ((s "") (first t) (stop (if (consp *lp-source*) (cdr *lp-source*) nil)) (l *lp-context*))
    (tagbody
     top
       (if (or (atom l) (eq l stop)) (go end))
       (setq s (if first (format nil "~S" (car l)) (format nil "~A ~S" s (car l))))
       (setq first nil)
       (setq l (cdr l))
       (go top)
     end)
    s))

(defun %lp-error (control &rest args)
  (error 'simple-program-error
         :format-control "~A~%current LOOP context: ~A."
         :format-arguments (list (apply #'format nil control args) (%lp-context-string))))

;;; ------------------------------------------------------------------
;;; Tokens

(defun %lp-peek () (car *lp-source*))

(defun %lp-pop ()
  (if (null *lp-source*)
      (%lp-error "LOOP source code ran out when another token was expected."))
  (let ((tok (car *lp-source*)))
    (setq *lp-source* (cdr *lp-source*))
    tok))

(defun %lp-get-form ()
  (if (null *lp-source*)
      (%lp-error "LOOP code ran out where a form was expected."))
  (%lp-pop))

(defun %lp-get-compound-forms ()
  ;; one or more compound forms (DO, INITIALLY, FINALLY)
  (if (null *lp-source*)
      (%lp-error "LOOP code ran out where a form was expected."))
  (if (atom (%lp-peek))
      (%lp-error "A compound form was expected, but ~S found." (%lp-peek)))
  (let ((forms nil))
    (tagbody
     top
       (if (or (null *lp-source*) (atom (%lp-peek))) (go end))
       (setq forms (cons (%lp-pop) forms))
       (go top)
     end)
    (%lp-rev forms)))

(defun %lp-next-is (name)
  (and *lp-source* (%lp-is (%lp-peek) name)))

;;; ------------------------------------------------------------------
;;; Types

(defvar *lp-type-symbols*
  '(array atom bignum bit bit-vector character compiled-function complex cons double-float
    fixnum float function hash-table integer keyword list long-float nil null number package
    pathname random-state ratio rational readtable sequence short-float simple-array
    simple-bit-vector simple-string simple-vector single-float standard-char stream string
    base-char symbol t vector))

(defun %lp-simple-type (tok)
  ;; the type named by TOK in the position of a simple type spec, or :none
  (cond ((not (symbolp tok)) :none)
        ((%lp-memq tok *lp-type-symbols*) tok)
        ((%lp-is tok "FIXNUM") 'fixnum)
        ((%lp-is tok "FLOAT") 'float)
        ((%lp-is tok "T") t)
        ((%lp-is tok "NIL") nil)
        (t :none)))

(defun %lp-destructuring-type-p (spec)
  (cond ((null spec) t)
        ((symbolp spec) (not (eq (%lp-simple-type spec) :none)))
        ((consp spec) (and (%lp-destructuring-type-p (car spec)) (%lp-destructuring-type-p (cdr spec))))
        (t nil)))

(defun %lp-optional-type (var)
  ;; parse an optional type spec after VAR; returns the type or NIL
  (if (null *lp-source*)
      (return-from %lp-optional-type nil))
  (let ((tok (%lp-peek)))
    (cond ((%lp-is tok "OF-TYPE")
           (%lp-pop)
           (%lp-pop))
          ((symbolp tok)
           (let ((type (%lp-simple-type tok)))
             (if (eq type :none)
                 nil
                 (progn (%lp-pop) type))))
          ((and (consp var) (consp tok) (%lp-destructuring-type-p tok))
           (%lp-pop))
          ((consp var)
           (%lp-error "~S found where a LOOP keyword, LOOP type keyword, or LOOP type specifier was expected." tok))
          (t (%lp-error "~S found where a LOOP keyword or LOOP type keyword was expected." tok)))))

(defun %lp-type-default (type)
  ;; the initial value of a variable of TYPE bound without a value (CLHS 6.1.1.4)
  (let ((head (if (consp type) (car type) type)))
    (cond ((%lp-memq head '(fixnum integer bit number rational real bignum ratio
                            unsigned-byte signed-byte mod))
           0)
          ((%lp-memq head '(float single-float short-float)) 0.0)
          ((%lp-memq head '(double-float long-float)) 0.0d0)
          (t nil))))

(defun %lp-subtype (type part)
  ;; the type of the car (PART = :car) or cdr of a destructuring type spec
  (if (consp type)
      (if (eq part :car) (car type) (cdr type))
      type))

;;; ------------------------------------------------------------------
;;; Variables and binding groups

(defun %lp-bind (var init)
  (setq *lp-pend-bindings* (cons (list var init) *lp-pend-bindings*))
  (setq *lp-ignorable* (cons var *lp-ignorable*))
  var)

(defun %lp-note-var (var)
  (if (or (not (symbolp var)) (keywordp var) (eq var t))
      (%lp-error "~S is not a valid LOOP variable." var))
  (if (%lp-memq var *lp-vars*)
      (%lp-error "Duplicated variable ~S" var))
  (setq *lp-vars* (cons var *lp-vars*)))

(defun %lp-make-var (var init init-p type)
  ;; bind VAR (a symbol, NIL or a destructuring pattern) in the current group.
  ;; Without INIT-P the variables get the default of their type.
  (cond ((null var)
         (if init-p (%lp-bind (gensym "LOOP-IGNORE-") init))
         nil)
        ((symbolp var)
         (%lp-note-var var)
         (%lp-bind var (if init-p init (%lp-type-default type))))
        ((consp var)
         (if init-p
             (let ((temp (gensym "LOOP-DESTRUCTURE-")))
               (%lp-bind temp init)
               (%lp-make-pattern-vars var type)
               (setq *lp-pend-inits* (append (%lp-rev (%lp-desetq var temp)) *lp-pend-inits*)))
             (%lp-make-pattern-vars var type)))
        (t (%lp-error "~S is not a valid LOOP variable." var))))

(defun %lp-make-pattern-vars (pattern type)
  (cond ((null pattern) nil)
        ((symbolp pattern) (%lp-make-var pattern nil nil type))
        ((consp pattern)
         (%lp-make-pattern-vars (car pattern) (%lp-subtype type :car))
         (%lp-make-pattern-vars (cdr pattern) (%lp-subtype type :cdr)))
        (t (%lp-error "~S is not a valid LOOP variable." pattern))))

(defun %lp-bind-block ()
  ;; close the group being built
  (if (or *lp-pend-bindings* *lp-pend-inits* *lp-pend-wrappers*)
      (setq *lp-groups* (cons (list (%lp-rev *lp-pend-bindings*)
                                    (%lp-rev *lp-pend-inits*)
                                    *lp-pend-wrappers*
                                    *lp-ignorable*)
                              *lp-groups*)))
  (setq *lp-pend-bindings* nil *lp-pend-inits* nil *lp-pend-wrappers* nil *lp-ignorable* nil))

;;; ------------------------------------------------------------------
;;; Destructuring assignment

(defun %lp-desetq (pattern value)
  ;; forms that assign VALUE's parts to the variables of PATTERN
  (cond ((null pattern) nil)
        ((symbolp pattern) (list (list 'setq pattern value)))
        ((consp pattern)
         (let ((g (gensym "LOOP-DESETQ-")))
           (list `(let ((,g ,value))
                    ,@(%lp-desetq-list pattern g)))))
        (t nil)))

(defun %lp-desetq-list (pattern g)
  (let ((forms nil))
    (tagbody
     top
       (setq forms (append (%lp-rev (%lp-desetq (car pattern) `(car ,g))) forms))
       (let ((rest (cdr pattern)))
         (cond ((null rest) (go end))
               ((atom rest)
                (setq forms (append (%lp-rev (%lp-desetq rest `(cdr ,g))) forms))
                (go end))
               (t
                (if (%lp-leaves rest)
                    (setq forms (cons `(setq ,g (cdr ,g)) forms))
                    (go end))
                (setq pattern rest)
                (go top))))
     end)
    (%lp-rev forms)))

(defun %lp-parallel-setq (pairs)
  ;; PAIRS: ((pattern value) ...) assigned as if in parallel
  (cond ((null pairs) nil)
        ((null (cdr pairs)) (%lp-desetq (car (car pairs)) (cadr (car pairs))))
        (t
         (let ((temps nil) (sets nil))
           (dolist (p pairs)
             (if (car p)
                 (let ((g (gensym "LOOP-STEP-")))
                   (setq temps (cons (list g (cadr p)) temps))
                   (setq sets (append (%lp-rev (%lp-desetq (car p) g)) sets)))
                 (setq temps (cons (list (gensym "LOOP-IGNORE-") (cadr p)) temps))))
           (list `(let ,(%lp-rev temps)
                    ,@(%lp-rev sets)))))))

(defun %lp-end-test (tests)
  (cond ((null tests) nil)
        ((null (cdr tests)) (list `(if ,(car tests) (go %loop-end))))
        (t (list `(if (or ,@tests) (go %loop-end))))))

;;; ------------------------------------------------------------------
;;; Emitting code

(defun %lp-emit-body (form)
  (setq *lp-emitted-body* t)
  (setq *lp-body* (cons form *lp-body*)))

(defun %lp-pseudo-body (form)
  ;; WHILE/UNTIL: part of the stepping until the first main clause
  (if *lp-emitted-body*
      (setq *lp-body* (cons form *lp-body*))
      (progn
        (setq *lp-before* (cons form *lp-before*))
        (setq *lp-after* (cons form *lp-after*)))))

(defun %lp-emit-final (form)
  (setq *lp-final* (cons `(return-from ,*lp-name* ,form) *lp-final*)))

(defun %lp-disallow-conditional (what)
  (if *lp-inside-cond*
      (%lp-error "The LOOP ~A clause is not permitted inside a conditional." what)))

;;; ------------------------------------------------------------------
;;; The clauses

(defun %lp-parse-clauses ()
  ;; NAMED must come first
  (if (%lp-next-is "NAMED")
      (progn
        (setq *lp-context* *lp-source*)
        (%lp-pop)
        (let ((name (%lp-pop)))
          (if (not (symbolp name)) (%lp-error "~S is not a valid LOOP name." name))
          (setq *lp-name* name))))
  (tagbody
   top
     (if (null *lp-source*) (go end))
     (setq *lp-context* *lp-source*)
     (%lp-clause)
     (go top)
   end))

(defun %lp-clause ()
  (let ((tok (%lp-peek)))
    (if (not (symbolp tok))
        (%lp-error "~S found where a LOOP keyword was expected." tok))
    (let ((kw (%lp-name-in tok '("FOR" "AS" "WITH" "INITIALLY" "FINALLY" "DO" "DOING" "RETURN"
                                 "COLLECT" "COLLECTING" "APPEND" "APPENDING" "NCONC" "NCONCING"
                                 "COUNT" "COUNTING" "SUM" "SUMMING" "MAXIMIZE" "MAXIMIZING"
                                 "MINIMIZE" "MINIMIZING" "WHILE" "UNTIL" "REPEAT" "ALWAYS"
                                 "NEVER" "THEREIS" "WHEN" "IF" "UNLESS" "NAMED" "AND" "ELSE"
                                 "END"))))
      (cond ((null kw) (%lp-error "unknown LOOP keyword: ~S" tok))
            ((or (equal kw "FOR") (equal kw "AS")) (%lp-pop) (%lp-do-for))
            ((equal kw "WITH") (%lp-pop) (%lp-do-with))
            ((equal kw "INITIALLY")
             (%lp-pop)
             (setq *lp-prologue* (append (%lp-rev (%lp-get-compound-forms)) *lp-prologue*)))
            ((equal kw "FINALLY")
             (%lp-pop)
             (setq *lp-epilogue* (append (%lp-rev (%lp-get-compound-forms)) *lp-epilogue*)))
            ((equal kw "WHILE")
             (%lp-pop)
             (%lp-pseudo-body `(if ,(%lp-get-form) nil (go %loop-end))))
            ((equal kw "UNTIL")
             (%lp-pop)
             (%lp-pseudo-body `(if ,(%lp-get-form) (go %loop-end))))
            ((equal kw "REPEAT") (%lp-pop) (%lp-do-repeat))
            ((equal kw "NAMED")
             (%lp-pop)
             (%lp-error "The NAMED ~S clause occurs too late." (%lp-peek)))
            ((or (equal kw "AND") (equal kw "ELSE") (equal kw "END"))
             (if (equal kw "END")
                 (%lp-error "unknown LOOP keyword: ~S" tok)
                 (%lp-error "secondary clause misplaced at top level in LOOP macro: ~S ~S ..."
                            tok (cadr *lp-source*))))
            ((%lp-name-in tok '("ALWAYS" "NEVER" "THEREIS"))
             (%lp-pop)
             (%lp-emit-body (%lp-do-boolean kw)))
            (t
             ;; DO, RETURN, accumulations and conditionals
             (dolist (form (%lp-selectable-clause nil))
               (%lp-emit-body form)))))))

(defun %lp-selectable-clause (first-in-cond)
  ;; parse one clause allowed inside a conditional; returns its forms
  (let ((tok (%lp-pop)))
    (if (not (symbolp tok))
        (%lp-error "~S found where a LOOP keyword was expected." tok))
    ;; IT right after the first clause of a conditional names the test's value
    (if (and first-in-cond *lp-source* (%lp-is (%lp-peek) "IT"))
        (setq *lp-source* (cons (%lp-it-var) (cdr *lp-source*))))
    (let ((kw (%lp-name-in tok '("DO" "DOING" "RETURN" "COLLECT" "COLLECTING" "APPEND" "APPENDING"
                                 "NCONC" "NCONCING" "COUNT" "COUNTING" "SUM" "SUMMING"
                                 "MAXIMIZE" "MAXIMIZING" "MINIMIZE" "MINIMIZING"
                                 "WHEN" "IF" "UNLESS"))))
      (let ((forms
              (cond ((null kw)
                     (if (%lp-name-in tok '("FOR" "AS" "WITH" "INITIALLY" "FINALLY" "WHILE" "UNTIL"
                                            "REPEAT" "ALWAYS" "NEVER" "THEREIS" "NAMED"))
                         (%lp-error "The LOOP ~A clause is not permitted inside a conditional."
                                    (symbol-name tok))
                         (%lp-error "unknown LOOP keyword: ~S" tok)))
                    ((or (equal kw "DO") (equal kw "DOING")) (%lp-get-compound-forms))
                    ((equal kw "RETURN") (list `(return-from ,*lp-name* ,(%lp-get-form))))
                    ((%lp-name-in tok '("WHEN" "IF")) (list (%lp-do-conditional nil)))
                    ((equal kw "UNLESS") (list (%lp-do-conditional t)))
                    (t (list (%lp-do-accumulation kw))))))
        forms))))

(defun %lp-it-var ()
  (if (null *lp-it-var*)
      (progn (setq *lp-it-var* (gensym "LOOP-IT-"))
             (%lp-bind *lp-it-var* nil)))
  *lp-it-var*)

;;; WHEN / IF / UNLESS

(defun %lp-do-conditional (negate)
  (let ((test (%lp-get-form))
        (*lp-inside-cond* t)
        (then nil) (else nil) (uses-it nil))
    ;; the first clause may use IT
    (if (null *lp-source*) (%lp-error "LOOP source code ran out when another token was expected."))
    (setq uses-it (and (symbolp (car *lp-source*)) (consp (cdr *lp-source*))
                       (%lp-is (cadr *lp-source*) "IT")))
    (setq then (%lp-clause-chain t))
    (if (%lp-next-is "ELSE")
        (progn
          (%lp-pop)
          (setq else (%lp-clause-chain nil))))
    (if (%lp-next-is "END") (%lp-pop))
    (let ((test-form (if uses-it `(setq ,*lp-it-var* ,test) test)))
      (if negate
          (if else
              `(if ,test-form (progn ,@else) (progn ,@then))
              `(if ,test-form nil (progn ,@then)))
          (if else
              `(if ,test-form (progn ,@then) (progn ,@else))
              `(if ,test-form (progn ,@then)))))))

(defun %lp-clause-chain (first)
  ;; clause {AND clause}*
  (if (null *lp-source*) (%lp-error "LOOP source code ran out when another token was expected."))
  (let ((forms (%lp-rev (%lp-selectable-clause first))))
    (tagbody
     top
       (if (not (%lp-next-is "AND")) (go end))
       (%lp-pop)
       (if (null *lp-source*) (%lp-error "LOOP source code ran out when another token was expected."))
       (setq forms (append (%lp-rev (%lp-selectable-clause nil)) forms))
       (go top)
     end)
    (%lp-rev forms)))

;;; ALWAYS / NEVER / THEREIS

(defun %lp-do-boolean (kw)
  (%lp-disallow-conditional kw)
  (dolist (a *lp-accums*)
    (if (null (car a))
        (%lp-error "This LOOP clause is not permitted with anonymous collectors.")))
  (setq *lp-booleans* t)
  (let ((form (%lp-get-form)))
    (cond ((equal kw "ALWAYS")
           (%lp-emit-final t)
           `(if ,form nil (return-from ,*lp-name* nil)))
          ((equal kw "NEVER")
           (%lp-emit-final t)
           `(if ,form (return-from ,*lp-name* nil)))
          (t
           (let ((g (gensym "LOOP-THEREIS-")))
             (%lp-emit-final nil)
             `(let ((,g ,form))
                (if ,g (return-from ,*lp-name* ,g))))))))

;;; REPEAT

(defun %lp-do-repeat ()
  (%lp-disallow-conditional "REPEAT")
  (let ((form (%lp-get-form))
        (var (gensym "LOOP-REPEAT-")))
    ;; counting down a real by 1 while it is positive makes (ceiling form) iterations
    (%lp-bind var form)
    (let ((step `(if (<= ,var 0) (go %loop-end) (setq ,var (1- ,var)))))
      (setq *lp-before* (cons step *lp-before*))
      (setq *lp-after* (cons step *lp-after*)))))

;;; Accumulation: COLLECT APPEND NCONC COUNT SUM MAXIMIZE MINIMIZE

(defun %lp-accum-class (kw)
  (cond ((%lp-memq-string kw '("COLLECT" "COLLECTING" "APPEND" "APPENDING" "NCONC" "NCONCING")) 'list)
        ((%lp-memq-string kw '("COUNT" "COUNTING" "SUM" "SUMMING")) 'sum)
        (t 'max)))

(defun %lp-memq-string (s list)
  (dolist (x list nil) (if (equal x s) (return t))))

(defun %lp-kind-name (kw)
  (cond ((%lp-memq-string kw '("COLLECT" "COLLECTING")) 'collect)
        ((%lp-memq-string kw '("APPEND" "APPENDING")) 'append)
        ((%lp-memq-string kw '("NCONC" "NCONCING")) 'nconc)
        ((%lp-memq-string kw '("COUNT" "COUNTING")) 'count)
        ((%lp-memq-string kw '("SUM" "SUMMING")) 'sum)
        ((%lp-memq-string kw '("MAXIMIZE" "MAXIMIZING")) 'maximize)
        (t 'minimize)))

(defun %lp-find-accum (name)
  (dolist (a *lp-accums* nil)
    (if (eq (car a) name) (return a))))

(defun %lp-get-accum (name class kind type)
  ;; the accumulator record (name class var head tail flag) for NAME, created if needed
  (let ((a (%lp-find-accum name)))
    (if a
        (progn
          (if (not (eq (cadr a) class))
              (if name
                  (%lp-error "incompatible kinds of LOOP value accumulation specified for collecting INTO ~S: ~S and ~S"
                             name (nth 6 a) kind)
                  (%lp-error "incompatible kinds of LOOP value accumulation specified for collecting as the value of the LOOP: ~S and ~S"
                             (nth 6 a) kind)))
          a)
        (progn
          (if (and (null name) *lp-booleans*)
              (%lp-error "This anonymous collection LOOP clause is not permitted with aggregate booleans."))
          (if name
              (progn
                (if (or (not (symbolp name)) (keywordp name))
                    (%lp-error "~S is not a valid variable for INTO." name))
                (if (%lp-memq name *lp-vars*)
                    (%lp-error "Duplicated variable ~S in INTO clause" name))
                (setq *lp-vars* (cons name *lp-vars*))))
          (let ((var (or name (gensym "LOOP-ACCUM-"))) (head nil) (tail nil) (flag nil))
            (cond ((eq class 'list)
                   (setq head (gensym "LOOP-LIST-HEAD-") tail (gensym "LOOP-LIST-TAIL-"))
                   (%lp-bind head '(list nil))
                   (%lp-bind tail nil)
                   (setq *lp-pend-inits* (cons `(setq ,tail ,head) *lp-pend-inits*))
                   (if name (%lp-bind name nil)))
                  ((eq class 'sum)
                   (%lp-bind var (or (%lp-type-default type) 0)))
                  ((and (%lp-memq type '(fixnum)))
                   (%lp-bind var (if (eq kind 'maximize) 'most-negative-fixnum 'most-positive-fixnum)))
                  (t
                   (setq flag (gensym "LOOP-MAXMIN-FLAG-"))
                   (%lp-bind var (or (%lp-type-default type) 0))
                   (%lp-bind flag nil)))
            (setq a (list name class var head tail flag kind))
            (setq *lp-accums* (cons a *lp-accums*))
            (if (null name)
                (%lp-emit-final (if (eq class 'list) `(cdr ,head) var)))
            a)))))

(defun %lp-do-accumulation (kw)
  (let* ((form (%lp-get-form))
         (name nil) (type nil)
         (kind (%lp-kind-name kw))
         (class (%lp-accum-class kw)))
    (if (%lp-next-is "INTO")
        (progn (%lp-pop) (setq name (%lp-pop))))
    (setq type (%lp-optional-type name))
    (let* ((a (%lp-get-accum name class kind type))
           (var (nth 2 a)) (head (nth 3 a)) (tail (nth 4 a)) (flag (nth 5 a)))
      (cond ((eq class 'list)
             (let ((update
                     (if (eq kind 'collect)
                         `(rplacd ,tail (setq ,tail (list ,form)))
                         (let ((g (gensym "LOOP-ACCUM-")))
                           `(let ((,g ,(if (eq kind 'append) `(copy-list ,form) form)))
                              (if ,g (progn (rplacd ,tail ,g) (setq ,tail (last ,g)))))))))
               (if name
                   `(progn ,update (setq ,name (cdr ,head)))
                   update)))
            ((eq kind 'count) `(if ,form (setq ,var (1+ ,var))))
            ((eq kind 'sum) `(setq ,var (+ ,var ,form)))
            (t
             (let ((g (gensym "LOOP-MAXMIN-"))
                   (test (if (eq kind 'maximize) '> '<)))
               (if flag
                   `(let ((,g ,form))
                      (if (or (not ,flag) (,test ,g ,var))
                          (setq ,flag t ,var ,g)))
                   `(let ((,g ,form))
                      (if (,test ,g ,var) (setq ,var ,g))))))))))

;;; WITH

(defun %lp-do-with ()
  (tagbody
   top
     (let* ((var (%lp-pop))
            (type (%lp-optional-type var)))
       (if (%lp-next-is "=")
           (progn (%lp-pop)
                  (%lp-make-var var (%lp-get-form) t type))
           (%lp-make-var var nil nil type)))
     (if (%lp-next-is "AND")
         (progn (%lp-pop) (go top))))
  (%lp-bind-block))

;;; FOR / AS

(defun %lp-do-for ()
  (%lp-disallow-conditional "FOR")
  (let ((specs nil))
    (tagbody
     top
       (let* ((var (%lp-pop))
              (type (%lp-optional-type var)))
         (if (and var (not (symbolp var)) (not (consp var)))
             (%lp-error "~S is not a valid LOOP variable." var))
         (if (null *lp-source*)
             (%lp-error "LOOP source code ran out when another token was expected."))
         (let* ((tok (%lp-pop))
                (kw (%lp-name-in tok '("IN" "ON" "=" "ACROSS" "BEING" "FROM" "DOWNFROM" "UPFROM"
                                       "TO" "DOWNTO" "UPTO" "BELOW" "ABOVE" "BY"))))
           (setq specs
                 (cons (cond ((null kw)
                              (%lp-error "~S is an unknown keyword in FOR or AS clause in LOOP." tok))
                             ((equal kw "IN") (%lp-for-in var type))
                             ((equal kw "ON") (%lp-for-on var type))
                             ((equal kw "=") (%lp-for-equals var type))
                             ((equal kw "ACROSS") (%lp-for-across var type))
                             ((equal kw "BEING") (%lp-for-being var type))
                             (t (setq *lp-source* (cons tok *lp-source*))
                                (%lp-for-arithmetic var type)))
                       specs))))
       (if (%lp-next-is "AND")
           (progn (%lp-pop) (go top))))
    (if *lp-emitted-body*
        (%lp-error "iteration in LOOP follows body code"))
    (setq specs (%lp-rev specs))
    ;; spec: (pre steps post pseudo first-pre first-steps first-post first-pseudo)
    (let ((pre nil) (steps nil) (post nil) (pseudo nil)
          (fpre nil) (fsteps nil) (fpost nil) (fpseudo nil))
      (dolist (s specs)
        (if (nth 0 s) (setq pre (cons (nth 0 s) pre)))
        (setq steps (append steps (nth 1 s)))
        (if (nth 2 s) (setq post (cons (nth 2 s) post)))
        (setq pseudo (append pseudo (nth 3 s)))
        (if (nth 4 s) (setq fpre (cons (nth 4 s) fpre)))
        (setq fsteps (append fsteps (nth 5 s)))
        (if (nth 6 s) (setq fpost (cons (nth 6 s) fpost)))
        (setq fpseudo (append fpseudo (nth 7 s))))
      (dolist (f (append (%lp-end-test (%lp-rev fpre))
                         (%lp-parallel-setq fsteps)
                         (%lp-end-test (%lp-rev fpost))
                         (%lp-parallel-setq fpseudo)))
        (setq *lp-before* (cons f *lp-before*)))
      (dolist (f (append (%lp-end-test (%lp-rev pre))
                         (%lp-parallel-setq steps)
                         (%lp-end-test (%lp-rev post))
                         (%lp-parallel-setq pseudo)))
        (setq *lp-after* (cons f *lp-after*))))
    (%lp-bind-block)))

(defun %lp-spec (pre steps post pseudo)
  (list pre steps post pseudo pre steps post pseudo))

(defun %lp-list-step (by lv)
  ;; the form that advances the list in LV, given the BY form (or NIL)
  (cond ((null by) `(cdr ,lv))
        ((and (consp by) (%lp-memq (car by) '(function quote))
              (consp (cdr by)) (symbolp (cadr by)) (null (cddr by)))
         `(,(cadr by) ,lv))
        (t (let ((g (gensym "LOOP-BY-")))
             (%lp-bind g by)
             `(funcall ,g ,lv)))))

(defun %lp-optional-by ()
  (if (%lp-next-is "BY")
      (progn (%lp-pop) (%lp-get-form))
      nil))

(defun %lp-for-in (var type)
  (let ((form (%lp-get-form))
        (lv (gensym "LOOP-LIST-")))
    (%lp-make-var var nil nil type)
    (%lp-bind lv form)
    (let ((step (%lp-list-step (%lp-optional-by) lv)))
      (%lp-spec `(endp ,lv) (list (list var `(car ,lv))) nil (list (list lv step))))))

(defun %lp-for-on (var type)
  (let ((form (%lp-get-form)))
    (if (and var (symbolp var))
        ;; the user's variable is the list: the first test comes after the (empty) steps
        (progn
          (%lp-make-var var form t type)
          (let ((step (%lp-list-step (%lp-optional-by) var)))
            (list nil (list (list var step)) `(atom ,var) nil
                  nil nil `(atom ,var) nil)))
        (let ((lv (gensym "LOOP-LIST-")))
          (%lp-make-var var nil nil type)
          (%lp-bind lv form)
          (let ((step (%lp-list-step (%lp-optional-by) lv)))
            (%lp-spec `(atom ,lv) (list (list var lv)) nil (list (list lv step))))))))

(defun %lp-for-equals (var type)
  (let ((form (%lp-get-form)))
    (%lp-make-var var nil nil type)
    (if (%lp-next-is "THEN")
        (progn
          (%lp-pop)
          (let ((then (%lp-get-form)))
            (list nil (list (list var then)) nil nil
                  nil (list (list var form)) nil nil)))
        (%lp-spec nil (list (list var form)) nil nil))))

(defun %lp-for-across (var type)
  (let ((form (%lp-get-form))
        (vec (gensym "LOOP-ACROSS-VECTOR-"))
        (index (gensym "LOOP-ACROSS-INDEX-"))
        (limit (gensym "LOOP-ACROSS-LIMIT-")))
    (%lp-make-var var nil nil type)
    (%lp-bind vec form)
    (%lp-bind index 0)
    (%lp-bind limit 0)
    (setq *lp-pend-inits* (cons `(setq ,limit (length ,vec)) *lp-pend-inits*))
    (%lp-spec `(>= ,index ,limit) (list (list var `(aref ,vec ,index))) nil
              (list (list index `(1+ ,index))))))

;;; Arithmetic: FROM DOWNFROM UPFROM TO DOWNTO UPTO BELOW ABOVE BY

(defun %lp-for-arithmetic (var type)
  (let ((start nil) (start-p nil) (limit nil) (limit-p nil) (by nil) (by-p nil)
        (dir nil) (inclusive nil) (order nil)
        (v (or var (gensym "LOOP-VAR-"))))
    (if (consp var) (%lp-error "Destructuring is not valid for numeric iteration: ~S" var))
    (tagbody
     top
       (if (null *lp-source*) (go end))
       (let* ((tok (%lp-peek))
              (kw (%lp-name-in tok '("FROM" "DOWNFROM" "UPFROM" "TO" "DOWNTO" "UPTO" "BELOW"
                                     "ABOVE" "BY")))
              (new-dir nil))
         (if (null kw) (go end))
         (%lp-pop)
         (cond ((%lp-memq-string kw '("FROM" "DOWNFROM" "UPFROM"))
                (if start-p (%lp-error "A ~A prepositional phrase occurs multiply for some LOOP clause." kw))
                (setq start (%lp-get-form) start-p t)
                (setq order (cons :start order))
                (cond ((equal kw "DOWNFROM") (setq new-dir :down))
                      ((equal kw "UPFROM") (setq new-dir :up))))
               ((equal kw "BY")
                (if by-p (%lp-error "A ~A prepositional phrase occurs multiply for some LOOP clause." kw))
                (setq by (%lp-get-form) by-p t)
                (setq order (cons :by order)))
               (t
                (if limit-p
                    (%lp-error "Preposition ~A was used when some other preposition has subsumed it." kw))
                (setq limit (%lp-get-form) limit-p t)
                (setq order (cons :limit order))
                (setq inclusive (%lp-memq-string kw '("TO" "DOWNTO" "UPTO")))
                (cond ((%lp-memq-string kw '("DOWNTO" "ABOVE")) (setq new-dir :down))
                      ((%lp-memq-string kw '("UPTO" "BELOW")) (setq new-dir :up)))))
         (if new-dir
             (if (and dir (not (eq dir new-dir)))
                 (%lp-error "conflicting stepping directions in LOOP sequencing path")
                 (setq dir new-dir))))
       (go top)
     end)
    (if (null dir) (setq dir :up))
    (if (and (not start-p) (eq dir :down))
        (%lp-error "don't know where to start stepping"))
    ;; bind in the order written
    (let ((limit-var limit) (by-var (if by-p by 1)))
      (if (not start-p)
          (progn (if var (%lp-note-var var)) (%lp-bind v 0)))
      (dolist (what (%lp-rev order))
        (cond ((eq what :start)
               (if var (%lp-note-var var))
               (%lp-bind v start))
              ((eq what :limit)
               (if (not (numberp limit))
                   (progn (setq limit-var (gensym "LOOP-LIMIT-"))
                          (%lp-bind limit-var limit))))
              (t
               (if (not (numberp by))
                   (progn (setq by-var (gensym "LOOP-STEP-BY-"))
                          (%lp-bind by-var by))))))
      (let ((test (if limit-p
                      (if (eq dir :up)
                          (if inclusive `(> ,v ,limit-var) `(>= ,v ,limit-var))
                          (if inclusive `(< ,v ,limit-var) `(<= ,v ,limit-var)))
                      nil))
            (step (if (eq dir :up)
                      (if (eql by-var 1) `(1+ ,v) `(+ ,v ,by-var))
                      (if (eql by-var 1) `(1- ,v) `(- ,v ,by-var)))))
        (list nil (list (list v step)) test nil
              nil nil test nil)))))

;;; BEING: hash tables and packages

(defun %lp-for-being (var type)
  (if (or (%lp-next-is "EACH") (%lp-next-is "THE")) (%lp-pop))
  (let* ((tok (%lp-pop))
         (path (%lp-name-in tok '("HASH-KEY" "HASH-KEYS" "HASH-VALUE" "HASH-VALUES"
                                  "SYMBOL" "SYMBOLS" "PRESENT-SYMBOL" "PRESENT-SYMBOLS"
                                  "EXTERNAL-SYMBOL" "EXTERNAL-SYMBOLS"))))
    (cond ((null path)
           (%lp-error "~S is not the name of a LOOP iteration path." tok))
          ((%lp-memq-string path '("HASH-KEY" "HASH-KEYS" "HASH-VALUE" "HASH-VALUES"))
           (%lp-for-hash var type (%lp-memq-string path '("HASH-KEY" "HASH-KEYS"))))
          (t (%lp-for-symbols var type
                              (cond ((%lp-memq-string path '("SYMBOL" "SYMBOLS"))
                                     '(:internal :external :inherited))
                                    ((%lp-memq-string path '("PRESENT-SYMBOL" "PRESENT-SYMBOLS"))
                                     '(:internal :external))
                                    (t '(:external))))))))

(defun %lp-for-hash (var type keys-p)
  (let ((table nil) (table-p nil) (other nil) (other-p nil))
    (tagbody
     top
       (cond ((or (%lp-next-is "OF") (%lp-next-is "IN"))
              (if table-p (%lp-error "Too many prepositions!"))
              (%lp-pop)
              (setq table (%lp-get-form) table-p t)
              (go top))
             ((%lp-next-is "USING")
              (if other-p (%lp-error "Too many prepositions!"))
              (%lp-pop)
              (let ((spec (%lp-pop)))
                (if (not (and (consp spec) (consp (cdr spec)) (null (cddr spec))
                              (%lp-is (car spec) (if keys-p "HASH-VALUE" "HASH-KEY"))))
                    (%lp-error "Bad USING phrase in hash-table iteration: ~S" spec))
                (setq other (cadr spec) other-p t))
              (go top))))
    (if (not table-p)
        (%lp-error "A hash-table iteration needs an OF or IN phrase."))
    (let ((snap (gensym "LOOP-HASH-"))
          (index (gensym "LOOP-HASH-INDEX-"))
          (limit (gensym "LOOP-HASH-LIMIT-"))
          (key-pat (if keys-p var other))
          (value-pat (if keys-p other var)))
      (%lp-make-var var nil nil type)
      (if other-p (%lp-make-var other nil nil nil))
      (%lp-bind snap `(sys::%hash-table-snapshot ,table))
      (%lp-bind index 0)
      (%lp-bind limit 0)
      (setq *lp-pend-inits* (cons `(setq ,limit (length ,snap)) *lp-pend-inits*))
      ;; like WITH-HASH-TABLE-ITERATOR and MULTIPLE-VALUE-SETQ: simple variables are set by the
      ;; test (to NIL when the table is exhausted), destructuring patterns afterwards
      (let ((key (if (and key-pat (symbolp key-pat)) key-pat
                     (if key-pat (%lp-bind (gensym "LOOP-HASH-KEY-") nil) nil)))
            (value (if (and value-pat (symbolp value-pat)) value-pat
                       (if value-pat (%lp-bind (gensym "LOOP-HASH-VALUE-") nil) nil)))
            (sets nil) (clears nil) (pseudo nil))
        (if key (setq sets (cons `(setq ,key (svref ,snap ,index)) sets)
                      clears (cons `(setq ,key nil) clears)))
        (if value (setq sets (cons `(setq ,value (svref ,snap (1+ ,index))) sets)
                        clears (cons `(setq ,value nil) clears)))
        (if (consp key-pat) (setq pseudo (cons (list key-pat key) pseudo)))
        (if (consp value-pat) (setq pseudo (cons (list value-pat value) pseudo)))
        (%lp-spec nil nil
                  `(if (< ,index ,limit)
                       (progn ,@(%lp-rev sets) (setq ,index (+ ,index 2)) nil)
                       (progn ,@(%lp-rev clears) t))
                  (%lp-rev pseudo))))))

(defun %lp-for-symbols (var type kinds)
  (let ((package '*package*))
    (if (or (%lp-next-is "OF") (%lp-next-is "IN"))
        (progn (%lp-pop) (setq package (%lp-get-form))))
    (let ((next (gensym "LOOP-SYMBOL-NEXT-"))
          (more (gensym "LOOP-SYMBOL-MORE-"))
          (sym (gensym "LOOP-SYMBOL-")))
      (%lp-make-var var nil nil type)
      (%lp-bind more nil)
      (if (and var (symbolp var)) (setq sym var) (%lp-bind sym nil))
      (setq *lp-pend-wrappers*
            (cons `(with-package-iterator (,next ,package ,@kinds)) *lp-pend-wrappers*))
      (%lp-spec nil nil `(not (multiple-value-setq (,more ,sym) (,next)))
                (if (consp var) (list (list var sym)) nil)))))

;;; ------------------------------------------------------------------
;;; Assembly

(defun %loop-expand (whole body)
  (let ((*lp-source* body) (*lp-context* body) (*lp-whole* whole) (*lp-name* nil)
        (*lp-groups* nil) (*lp-pend-bindings* nil) (*lp-pend-inits* nil) (*lp-pend-wrappers* nil)
        (*lp-prologue* nil) (*lp-before* nil) (*lp-body* nil) (*lp-after* nil)
        (*lp-epilogue* nil) (*lp-final* nil) (*lp-emitted-body* nil) (*lp-inside-cond* nil)
        (*lp-vars* nil) (*lp-ignorable* nil) (*lp-accums* nil) (*lp-booleans* nil)
        (*lp-it-var* nil))
    (%lp-parse-clauses)
    (%lp-bind-block)
    (let ((inner `(tagbody
                     ,@(%lp-rev *lp-prologue*)
                     ,@(%lp-rev *lp-before*)
                   %loop-next
                     ,@(%lp-rev *lp-body*)
                     ,@(%lp-rev *lp-after*)
                     (go %loop-next)
                   %loop-end
                     ,@(%lp-rev *lp-epilogue*)
                     ,@(%lp-rev *lp-final*))))
      (dolist (g *lp-groups*)
        (let ((bindings (car g)) (inits (cadr g)) (wrappers (caddr g)) (ignorable (cadddr g)))
          (dolist (w wrappers)
            (setq inner (append w (list inner))))
          (setq inner
                (if bindings
                    `(let ,bindings
                       (declare (ignorable ,@ignorable))
                       ,@inits
                       ,inner)
                    `(progn ,@inits ,inner)))))
      `(block ,*lp-name* ,inner))))

(defmacro loop (&whole whole &rest body)
  "The iteration macro: a simple LOOP repeats its forms forever; extended LOOP builds the iteration from clauses such as FOR, WITH, WHILE, UNTIL, DO, COLLECT, SUM, COUNT, APPEND, MAXIMIZE, RETURN and FINALLY."
  (if (and body (symbolp (car body)))
      (%loop-expand whole body)
      (let ((tag (gensym "LOOP-")))
        `(block nil
           (tagbody
            ,tag
              (progn ,@body)
              (go ,tag))))))

(defmacro loop-finish ()
  "Inside an extended LOOP, ends the iteration normally: the epilogue runs and the accumulated result is returned."
  '(go %loop-end))
