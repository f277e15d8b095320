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
;;; Condition classes. A class is an instance whose layout is *CLASS-LAYOUT*; its slots:
;;; 0 name, 1 direct superclass names, 2 class precedence list (class objects),
;;; 3 direct slot specs, 4 default initargs, 5 report, 6 documentation, 7 effective slots,
;;; 8 kind (:condition or :restart).
;;; A slot spec is a list (name initargs initfunction readers writers).
;;; CLOS-lite later makes these classes ordinary CLOS classes with the same information.

(defvar *class-layout* (make-symbol "CONDITION-CLASS"))
(defvar *condition-classes* (make-hash-table :test 'eq))

(defun %class-p (x) (and (%instance-p x) (eq (%instance-layout x) *class-layout*)))
(defun %class-name (c) (%instance-ref c 0))
(defun %class-cpl (c) (%instance-ref c 2))
(defun %class-effective-slots (c) (%instance-ref c 7))
(defun %class-report (c) (%instance-ref c 5))
(defun %class-default-initargs (c) (%instance-ref c 4))

(defun %find-condition-class (name &optional (errorp t))
  (let ((c (gethash name *condition-classes*)))
    (if (and (null c) errorp)
        (error 'simple-type-error :datum name :expected-type '(satisfies condition-type-p)
                                  :format-control "~S is not a condition type."
                                  :format-arguments (list name)))
    c))

;;; The class precedence list, as CLOS computes it: a topological sort of the classes and
;;; their local precedence orders, ties broken by the rightmost direct subclass rule.
(defun %compute-cpl (class supers)
  (let ((classes (list class)) (pending (%mapcar1 #'%find-condition-class supers)))
    ;; collect every superclass
    (tagbody
     top
       (if (null pending) (go end))
       (let ((c (car pending)))
         (setq pending (cdr pending))
         (if (not (%memq c classes))
             (progn
               (setq classes (append classes (list c)))
               (setq pending (append pending (%mapcar1 #'%find-condition-class (%instance-ref c 1)))))))
       (go top)
     end)
    ;; local precedence constraints: each class before its supers, supers in order
    (let ((constraints nil))
      (dolist (c classes)
        (let ((prev c)
              (ss (if (eq c class)
                      (%mapcar1 #'%find-condition-class supers)
                      (%mapcar1 #'%find-condition-class (%instance-ref c 1)))))
          (dolist (s ss)
            (setq constraints (cons (cons prev s) constraints))
            (setq prev s))))
      (let ((result nil) (remaining classes))
        (tagbody
         top
           (if (null remaining) (go end))
           (let ((candidates nil))
             (dolist (c remaining)
               (let ((blocked nil))
                 (dolist (k constraints)
                   (if (and (eq (cdr k) c) (%memq (car k) remaining)) (setq blocked t)))
                 (if (not blocked) (setq candidates (cons c candidates)))))
             (setq candidates (nreverse-boot candidates))
             (if (null candidates)
                 (error 'simple-error :format-control "Inconsistent class precedence for ~S"
                                      :format-arguments (list (%class-name class))))
             (let ((chosen (car candidates)))
               (if (cdr candidates)
                   ;; choose the candidate that is a direct superclass of the rightmost class in result
                   (let ((r (reverse-boot result)))
                     (tagbody
                      scan
                        (if (null r) (go done))
                        (let ((direct (%mapcar1 #'%find-condition-class (%instance-ref (car r) 1))))
                          (dolist (cand candidates)
                            (if (%memq cand direct) (progn (setq chosen cand) (go done)))))
                        (setq r (cdr r))
                        (go scan)
                      done)))
               (setq result (append result (list chosen)))
               (setq remaining (%remove-eq chosen remaining))))
           (go top)
         end)
        result))))

(defun reverse-boot (list)
  (let ((r nil)) (dolist (x list) (setq r (cons x r))) r))

(defun %remove-eq (x list)
  (let ((r nil)) (dolist (y list) (if (not (eq x y)) (setq r (cons y r)))) (nreverse-boot r)))

(defun %effective-slots (cpl)
  ;; most specific class first; a slot name appears once, initargs accumulate
  (let ((result nil))
    (dolist (c cpl)
      (dolist (spec (%instance-ref c 3))
        (let ((existing nil))
          (dolist (r result) (if (eq (car r) (car spec)) (setq existing r)))
          (if existing
              (progn
                (setf (cadr existing) (append (cadr existing) (cadr spec)))
                (if (null (caddr existing)) (setf (caddr existing) (caddr spec))))
              (setq result (append result (list (list (car spec) (cadr spec) (caddr spec)))))))))
    result))

(defun %ensure-condition-class (name supers slot-specs default-initargs report doc &optional (kind :condition))
  (let ((c (or (gethash name *condition-classes*) (%make-instance *class-layout* 9))))
    (%instance-set c 0 name)
    (%instance-set c 1 supers)
    (%instance-set c 3 slot-specs)
    (%instance-set c 4 default-initargs)
    (%instance-set c 5 report)
    (%instance-set c 6 doc)
    (%instance-set c 8 kind)
    (setf (gethash name *condition-classes*) c)
    (%instance-set c 2 (%compute-cpl c supers))
    (%instance-set c 7 (%effective-slots (%instance-ref c 2)))
    c))

(defun %subclassp (class super) (if (%memq super (%class-cpl class)) t nil))

(defun condition-type-p (name)
  (let ((c (gethash name *condition-classes*)))
    (and c (eq (%instance-ref c 8) :condition))))

(defun %conditionp (x)
  (and (%instance-p x) (%class-p (%instance-layout x))
       (eq (%instance-ref (%instance-layout x) 8) :condition)))

;;; ------------------------------------------------------------------
;;; Making conditions and reading their slots

(defun %slot-index (object slot-name)
  (let ((i 0))
    (dolist (s (%class-effective-slots (%instance-layout object)))
      (if (eq (car s) slot-name) (return-from %slot-index i))
      (setq i (1+ i)))
    nil))

(defun %condition-slot-value (c slot)
  (let ((i (%slot-index c slot)))
    (cond ((null i) (error 'simple-error :format-control "The condition ~S has no slot ~S."
                                         :format-arguments (list c slot)))
          ((not (%instance-boundp c i))
           (error 'unbound-slot :name slot :instance c))
          (t (%instance-ref c i)))))

(defun %set-condition-slot-value (c slot value)
  (let ((i (%slot-index c slot)))
    (if (null i) (error 'simple-error :format-control "The condition ~S has no slot ~S."
                                      :format-arguments (list c slot)))
    (%instance-set c i value)))

(defun make-condition (type &rest initargs)
  (let* ((class (%find-condition-class type))
         (slots (%class-effective-slots class))
         (c (%make-instance class (%list-length slots) 2)))
    (if (not (eq (%instance-ref class 8) :condition))
        (error 'simple-type-error :datum type :expected-type '(satisfies condition-type-p)
                                  :format-control "~S is not a condition type." :format-arguments (list type)))
    ;; default initargs of the class and its superclasses, when not supplied
    (let ((all initargs))
      (dolist (k (%class-cpl class))
        (let ((d (%instance-ref k 4)))
          (tagbody
           top
             (if (null d) (go end))
             (if (eq (%plist-get all (car d) '%none) '%none)
                 (setq all (append all (list (car d) (funcall (cadr d))))))
             (setq d (cddr d))
             (go top)
           end)))
      (let ((i 0))
        (dolist (s slots)
          (let ((found '%none))
            (dolist (key (cadr s))
              (if (eq found '%none)
                  (let ((v (%plist-get all key '%none)))
                    (if (not (eq v '%none)) (setq found v)))))
            (cond ((not (eq found '%none)) (%instance-set c i found))
                  ((caddr s) (%instance-set c i (funcall (caddr s))))))
          (setq i (1+ i)))))
    c))

;;; ------------------------------------------------------------------
;;; DEFINE-CONDITION

(defun %parse-slot-spec (spec)
  ;; returns (name initargs initfunction-form readers writers)
  (if (symbolp spec)
      (list spec nil nil nil nil)
      (let ((name (car spec)) (options (cdr spec))
            (initargs nil) (initform nil) (readers nil) (writers nil))
        (tagbody
         top
           (if (null options) (go end))
           (let ((k (car options)) (v (cadr options)))
             (cond ((eq k :initarg) (setq initargs (append initargs (list v))))
                   ((eq k :initform) (setq initform (list 'function (list 'lambda nil v))))
                   ((eq k :reader) (setq readers (append readers (list v))))
                   ((eq k :writer) (setq writers (append writers (list v))))
                   ((eq k :accessor) (setq readers (append readers (list v)))
                                     (setq writers (append writers (list (list 'setf v)))))))
           (setq options (cddr options))
           (go top)
         end)
        (list name initargs initform readers writers))))

(defmacro define-condition (name parent-types slot-specs &rest options)
  (let ((parsed (%mapcar1 #'%parse-slot-spec slot-specs))
        (report nil) (default-initargs nil) (doc nil))
    (dolist (o options)
      (cond ((eq (car o) :report)
             (let ((r (cadr o)))
               (setq report (if (stringp r)
                                `(function (lambda (c s) (declare (ignore c)) (write-string ,r s)))
                                `(function ,r)))))
            ((eq (car o) :default-initargs)
             (let ((d (cdr o)) (forms nil))
               (tagbody
                top
                  (if (null d) (go end))
                  (setq forms (append forms (list (car d) `(function (lambda () ,(cadr d))))))
                  (setq d (cddr d))
                  (go top)
                end)
               (setq default-initargs (cons 'list forms))))
            ((eq (car o) :documentation) (setq doc (cadr o)))))
    `(progn
       (%ensure-condition-class
        ',name ',(or parent-types (if (eq name 'condition) nil '(condition)))
        (list ,@(%mapcar1 #'(lambda (p) `(list ',(car p) ',(cadr p) ,(caddr p))) parsed))
        ,default-initargs ,report ,doc)
       ,@(let ((defs nil))
           (dolist (p parsed)
             (dolist (r (nth 3 p))
               (setq defs (cons `(defun ,r (condition) (%condition-slot-value condition ',(car p))) defs)))
             (dolist (w (nth 4 p))
               (setq defs (cons `(defun ,w (value condition) (%set-condition-slot-value condition ',(car p) value)) defs))))
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
        (if (and (%slot-index c 'format-control) (%instance-boundp c (%slot-index c 'format-control)))
            (progn (write-string " " stream)
                   (prin1 (%instance-ref c (%slot-index c 'format-control)) stream)))
        (%write-address c stream)
        (write-string ">" stream))
      (%report-condition c stream)))

;;; Printers and type hooks for instances: other layers (defstruct, CLOS) add entries.
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
  (dolist (h *instance-typep-hooks*)
    (let ((r (funcall h object type)))
      (if (not (eq r :unknown)) (return-from %instance-typep r))))
  nil)

(defun %instance-type-of (object)
  (dolist (h *instance-type-of-hooks*)
    (let ((r (funcall h object)))
      (if r (return-from %instance-type-of r))))
  'standard-object)

(setq *instance-printers*
      (list (cons #'(lambda (x) (%class-p (%instance-layout x)))
                  #'(lambda (x s)
                      (let ((class (%instance-layout x)))
                        (if (eq (%instance-ref class 8) :restart)
                            (%print-restart x s)
                            (%print-condition-object x s)))))
            (cons #'%class-p
                  #'(lambda (x s)
                      (write-string "#<CONDITION-CLASS " s)
                      (prin1 (%class-name x) s)
                      (write-string ">" s)))))

(setq *instance-typep-hooks*
      (list #'(lambda (object type)
                (let ((layout (%instance-layout object)))
                  (if (and (symbolp type) (%class-p layout))
                      (let ((c (gethash type *condition-classes*)))
                        (if c (%subclassp layout c) :unknown))
                      :unknown)))))

(setq *instance-type-of-hooks*
      (list #'(lambda (object)
                (let ((layout (%instance-layout object)))
                  (cond ((%class-p layout) (%class-name layout))
                        ((%class-p object) 'condition-class)
                        (t nil))))))

;;; ------------------------------------------------------------------
;;; Handlers

(defvar *handler-clusters* nil)
(defvar *break-on-signals* nil)

(defun %type-matches (c type)
  (cond ((eq type t) t)
        ((null type) nil)
        ((symbolp type)
         (let ((cls (gethash type *condition-classes*)))
           (cond (cls (and (%instance-p c) (%class-p (%instance-layout c)) (%subclassp (%instance-layout c) cls)))
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
  `(let ((*handler-clusters*
           (cons (list ,@(%mapcar1 #'(lambda (b) `(cons ',(car b) ,(cadr b))) bindings))
                 *handler-clusters*)))
     ,@forms))

(defmacro handler-case (form &rest clauses)
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
                                                `(progn ,@body)))
                                        r)))
                        (setq ts (cdr ts)))
                      (nreverse-boot r)))))))))

(defmacro ignore-errors (&body forms)
  `(handler-case (progn ,@forms)
     (error (condition) (values nil condition))))

;;; ------------------------------------------------------------------
;;; Restarts. A restart is an instance whose layout is the class RESTART; slots:
;;; 0 name, 1 function, 2 report-function, 3 interactive-function, 4 test-function, 5 conditions

(defvar *restart-clusters* nil)

(defun %make-restart (name function &key report-function interactive-function test-function)
  (let ((r (%make-instance (%find-condition-class 'restart) 6)))
    (%instance-set r 0 name)
    (%instance-set r 1 function)
    (%instance-set r 2 report-function)
    (%instance-set r 3 interactive-function)
    (%instance-set r 4 test-function)
    (%instance-set r 5 nil)
    r))

(defun %restartp (x)
  (and (%instance-p x) (eq (%instance-layout x) (gethash 'restart *condition-classes*))))

(defun restart-name (restart) (%instance-ref restart 0))

(defun %print-restart (r stream)
  (if *print-escape*
      (progn (write-string "#<RESTART " stream)
             (prin1 (restart-name r) stream)
             (%write-address r stream)
             (write-string ">" stream))
      (let ((report (%instance-ref r 2)))
        (cond ((stringp report) (write-string report stream))
              (report (funcall report stream))
              (t (prin1 (restart-name r) stream))))))

(defun compute-restarts (&optional condition)
  (let ((result nil))
    (dolist (cluster *restart-clusters*)
      (dolist (r cluster)
        (let ((test (%instance-ref r 4)) (assoc (%instance-ref r 5)))
          (if (and (or (null test) (funcall test condition))
                   (or (null condition) (null assoc) (%memq condition assoc)))
              (setq result (cons r result))))))
    (nreverse-boot result)))

(defun find-restart (identifier &optional condition)
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
  (let ((r (%find-restart-or-lose restart nil)))
    (apply (%instance-ref r 1) arguments)))

(defun invoke-restart-interactively (restart)
  (let* ((r (%find-restart-or-lose restart nil))
         (interactive (%instance-ref r 3)))
    (apply (%instance-ref r 1) (if interactive (funcall interactive) nil))))

(defmacro restart-bind (bindings &body forms)
  `(let ((*restart-clusters*
           (cons (list ,@(%mapcar1 #'(lambda (b)
                                        `(%make-restart ',(car b) ,(cadr b) ,@(cddr b)))
                                    bindings))
                 *restart-clusters*)))
     ,@forms))

(defmacro with-condition-restarts (condition-form restarts-form &body forms)
  (let ((c (gensym)) (rs (gensym)))
    `(let ((,c ,condition-form) (,rs ,restarts-form))
       (dolist (r ,rs) (%instance-set r 5 (cons ,c (%instance-ref r 5))))
       (unwind-protect (progn ,@forms)
         (dolist (r ,rs) (%instance-set r 5 (%remove-eq ,c (%instance-ref r 5))))))))

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

(defmacro restart-case (restartable-form &rest clauses &environment env)
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
                                 (setq r (cons `(,(car p) #'(lambda (&rest temp) (setq ,args temp) (go ,(car ts)))
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
  `(restart-case (progn ,@forms)
     (,name ()
       :report (lambda (stream) (format stream ,format-control ,@format-arguments))
       (values nil t))))

(defun abort (&optional condition)
  (invoke-restart (%find-restart-or-lose 'abort condition))
  (error 'simple-control-error :format-control "ABORT restart failed to transfer control."))

(defun continue (&optional condition)
  (let ((r (find-restart 'continue condition))) (if r (invoke-restart r))))

(defun muffle-warning (&optional condition)
  (invoke-restart (%find-restart-or-lose 'muffle-warning condition))
  (error 'simple-control-error :format-control "MUFFLE-WARNING restart failed to transfer control."))

(defun store-value (value &optional condition)
  (let ((r (find-restart 'store-value condition))) (if r (invoke-restart r value))))

(defun use-value (value &optional condition)
  (let ((r (find-restart 'use-value condition))) (if r (invoke-restart r value))))

;;; ------------------------------------------------------------------
;;; ERROR, WARN, CERROR, the debugger

(defvar *debugger-hook* nil)

(defun %strip-internal-frames (frames)
  ;; drop the frames of the condition system itself from the top of a backtrace
  (tagbody
   top
     (if (and frames (consp (car frames))
              (%memq (caar frames) '(error cerror signal warn invoke-debugger break %signal-error
                                     %toplevel-abort %coerce-to-condition %repl-debugger)))
         (progn (setq frames (cdr frames)) (go top))))
  frames)

(defvar *interactive-debugger* nil
  "A function of one argument (the condition) that lets a person choose a restart; set by the REPL.")

(defun invoke-debugger (condition)
  (let ((hook *debugger-hook*))
    (if hook
        (let ((*debugger-hook* nil))
          (funcall hook condition hook))))
  (if *interactive-debugger*
      (funcall *interactive-debugger* condition))
  (%toplevel-abort condition (%strip-internal-frames (%backtrace 20))))

(defun error (datum &rest arguments)
  (let ((c (%coerce-to-condition datum arguments 'simple-error 'error)))
    (signal c)
    (invoke-debugger c)))

(defun cerror (continue-format-control datum &rest arguments)
  (let ((c (%coerce-to-condition datum arguments 'simple-error 'cerror)))
    (with-simple-restart (continue "~?" continue-format-control arguments)
      (with-condition-restarts c (list (find-restart 'continue))
        (error c)))
    nil))

(defun warn (datum &rest arguments)
  (let ((c (%coerce-to-condition datum arguments 'simple-warning 'warn)))
    (if (not (%type-matches c 'warning))
        (error 'simple-type-error :datum c :expected-type 'warning
                                  :format-control "~S is not a warning." :format-arguments (list c)))
    (restart-case (signal c)
      (muffle-warning () :report "Skip warning." (return-from warn nil)))
    (format *error-output* "~&WARNING: ~A~%" c)
    nil))

(defun break (&optional (format-control "Break") &rest format-arguments)
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
  (let ((class (gethash type *condition-classes*)))
    (cond ((null class) (setq type 'simple-error))
          ((and (not (eq (%plist-get initargs :format-control '%none) '%none))
                (not (%subclassp class (gethash 'simple-condition *condition-classes*))))
           (setq type (%simple-variant type))))
    (error (apply #'make-condition type initargs))))

;;; ------------------------------------------------------------------
;;; The standard condition types (CLHS 9.1)

(%ensure-condition-class 'condition nil nil nil nil nil)
(%ensure-condition-class 'restart nil nil nil nil nil :restart)

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
  (:report (lambda (c s) (format s "The slot ~S is unbound in the object ~S." (cell-error-name c)
                                 (unbound-slot-instance c)))))
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
(define-condition simple-control-error (simple-condition control-error) ())
(define-condition simple-reader-error (simple-condition reader-error) ())
(define-condition simple-reader-package-error (simple-condition reader-error package-error) ())
(setf (gethash 'program-error *simple-variants*) 'simple-program-error)
(setf (gethash 'control-error *simple-variants*) 'simple-control-error)
(setf (gethash 'reader-error *simple-variants*) 'simple-reader-error)

;;; ------------------------------------------------------------------
;;; ASSERT (CHECK-TYPE lives with the type system)

(defmacro assert (test-form &optional places datum &rest arguments)
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
