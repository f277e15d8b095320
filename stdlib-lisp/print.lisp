;;;; print.lisp: printer functions written in Lisp (CLHS 22): PPRINT-LOGICAL-BLOCK and its local
;;;; macros, pprint dispatch tables, PRINT-UNREADABLE-OBJECT. The printer and the layout engine of
;;;; the pretty printer are C (runtime/printer.c).

(in-package "SYSTEM")

;;; ------------------------------------------------------------------
;;; PPRINT-LOGICAL-BLOCK
;;; The body runs with *LOGICAL-BLOCK-STATE* bound to (stream list count tag): PPRINT-POP and
;;; PPRINT-EXIT-IF-LIST-EXHAUSTED read it and leave the block by throwing to TAG. (A dynamic
;;; binding instead of MACROLET; the same behaviour for code that uses them inside the block.)

(defvar *logical-block-state* nil)

(defmacro pprint-logical-block ((stream-symbol object &key (prefix nil prefix-p)
                                                     (per-line-prefix nil per-line-p)
                                                     (suffix ""))
                                &body body)
  "Evaluates BODY to print OBJECT, usually a list, as one logical block on the stream named STREAM-SYMBOL, with PREFIX, PER-LINE-PREFIX and SUFFIX around it; circularity and *PRINT-LENGTH* are handled through PPRINT-POP."
  (when (and prefix-p per-line-p)
    (error 'simple-program-error
           :format-control "PPRINT-LOGICAL-BLOCK: both :PREFIX and :PER-LINE-PREFIX were given"
           :format-arguments nil))
  (let ((var (cond ((eq stream-symbol nil) '*standard-output*)
                   ((eq stream-symbol t) '*terminal-io*)
                   (t stream-symbol)))
        (list (gensym "LIST"))
        (tag (gensym "TAG")))
    `(%pprint-logical-block ,var ,object
                            ,(if per-line-p per-line-prefix (if prefix-p prefix ""))
                            ,(if per-line-p t nil)
                            ,suffix
                            (function
                             (lambda (,var ,list)
                               (declare (ignorable ,var))
                               (let* ((,tag (list nil))
                                      (*logical-block-state* (list ,var ,list 0 ,tag)))
                                 (catch ,tag ,@body nil)))))))

(defun %no-logical-block (name)
  (error 'simple-program-error :format-control "~S used outside PPRINT-LOGICAL-BLOCK"
                               :format-arguments (list name)))

(defun %pprint-pop ()
  (let ((st *logical-block-state*))
    (if (null st) (%no-logical-block 'pprint-pop))
    (if (%pprint-pop-check (first st) (second st) (third st))
        (throw (fourth st) nil))
    (setf (third st) (1+ (third st)))
    (let ((l (second st)))
      (setf (second st) (cdr l))
      (car l))))

(defun %pprint-exit-if-list-exhausted ()
  (let ((st *logical-block-state*))
    (if (null st) (%no-logical-block 'pprint-exit-if-list-exhausted))
    (if (null (second st)) (throw (fourth st) nil))
    nil))

(defmacro pprint-pop ()
  "Inside PPRINT-LOGICAL-BLOCK, returns the next element of the list being printed, printing ... or . rest instead when the length limit or a dotted tail is reached."
  '(%pprint-pop))

(defmacro pprint-exit-if-list-exhausted ()
  "Inside PPRINT-LOGICAL-BLOCK, ends the block when the list being printed has no elements left."
  '(%pprint-exit-if-list-exhausted))

;;; ------------------------------------------------------------------
;;; Pprint dispatch tables. A table is an instance whose slot 0 holds its entries, each
;;; (type-specifier priority function), highest priority first. The C printer consults the
;;; current table (through %PPRINT-DISPATCH-LOOKUP) only when it has entries; the standard
;;; layouts of code and data are built into the printer.

(defvar *pprint-dispatch-layout* (make-symbol "PPRINT-DISPATCH-TABLE"))

(defun %make-pprint-dispatch-table (entries)
  (let ((table (%make-instance *pprint-dispatch-layout* (%ppd.nslots))))
    (%set-ppd.entries table entries)
    table))

(defun %pprint-dispatch-table-p (x)
  (and (%instance-p x) (eq (%instance-layout x) *pprint-dispatch-layout*)))

(defun %pprint-entries (table)
  (cond ((null table) nil)
        ((%pprint-dispatch-table-p table) (%ppd.entries table))
        (t (error 'type-error :datum table :expected-type '(or null (satisfies %pprint-dispatch-table-p))))))

(defun %pprint-type-matches (object type)
  (cond ((and (consp type) (eq (car type) 'cons) (consp (cdr type)))
         ;; (cons car-type [cdr-type]) without needing the full type system
         (and (consp object)
              (%pprint-type-matches (car object) (cadr type))
              (or (null (cddr type)) (%pprint-type-matches (cdr object) (caddr type)))))
        ((and (consp type) (eq (car type) 'member))
         (if (%memq-eql object (cdr type)) t nil))
        ((and (consp type) (eq (car type) 'eql))
         (eql object (cadr type)))
        ((eq type t) t)
        ((eq type 'cons) (consp object))
        ((fboundp 'typep) (funcall 'typep object type))
        (t nil)))

(defun %memq-eql (x list)
  (tagbody
   top
     (if (null list) (return-from %memq-eql nil))
     (if (eql x (car list)) (return-from %memq-eql list))
     (setq list (cdr list))
     (go top)))

(defun %pprint-dispatch-lookup (object table)
  (dolist (e (%pprint-entries table) nil)
    (if (%pprint-type-matches object (car e))
        (return-from %pprint-dispatch-lookup (caddr e)))))

(defun %default-pprint (stream object)
  (%output-object object stream))

(defun copy-pprint-dispatch (&optional (table *print-pprint-dispatch*))
  "A copy of the pprint dispatch TABLE (default the current one; NIL means the initial table)."
  (%make-pprint-dispatch-table (let ((r nil))
                                 (dolist (e (%pprint-entries table)) (setq r (cons (copy-list e) r)))
                                 (nreverse-boot r))))

(defun pprint-dispatch (object &optional (table *print-pprint-dispatch*))
  "The function TABLE would use to pretty-print OBJECT, and whether one was found there."
  (let ((fn (%pprint-dispatch-lookup object table)))
    (if fn
        (values fn t)
        (values #'%default-pprint nil))))

(defun set-pprint-dispatch (type-specifier function &optional (priority 0) (table *print-pprint-dispatch*))
  "Makes FUNCTION print objects of TYPE-SPECIFIER in the pprint dispatch TABLE, with PRIORITY; a NIL function removes the entry. Returns NIL."
  (unless (realp priority)
    (error 'type-error :datum priority :expected-type 'real))
  (unless (%pprint-dispatch-table-p table)
    (error 'type-error :datum table :expected-type '(satisfies %pprint-dispatch-table-p)))
  (let ((kept nil))
    (dolist (e (%ppd.entries table))
      (unless (equal (car e) type-specifier) (setq kept (cons e kept))))
    (setq kept (nreverse-boot kept))
    (when function
      ;; insert after the entries of higher or equal priority
      (let ((before nil) (after kept))
        (tagbody
         top
           (if (and after (>= (cadr (car after)) priority))
               (progn (setq before (cons (car after) before))
                      (setq after (cdr after))
                      (go top))))
        (setq kept (append (nreverse-boot before) (cons (list type-specifier priority function) after)))))
    (%set-ppd.entries table kept))
  nil)

(setq *print-pprint-dispatch* (%make-pprint-dispatch-table nil))

(setq *instance-printers*
      (cons (cons #'%pprint-dispatch-table-p
                  #'(lambda (x stream)
                      (write-string "#<SB-PRETTY:PPRINT-DISPATCH-TABLE" stream)
                      (%write-address x stream)
                      (write-string ">" stream)))
            *instance-printers*))

;;; ------------------------------------------------------------------
;;; PRINT-UNREADABLE-OBJECT

(defun %print-unreadable-object (object stream type identity body)
  (let ((stream (cond ((null stream) *standard-output*)
                      ((eq stream t) *terminal-io*)
                      (t stream))))
    (when *print-readably*
      (error 'print-not-readable :object object))
    (flet ((description ()
             (when type
               (write (type-of object) :stream stream :circle nil :level nil :length nil)
               (write-char #\Space stream))
             (when body (funcall body))
             (when identity
               (when (or body (not type)) (write-char #\Space stream))
               (write-char #\{ stream)
               (write-string (%address-string object) stream)
               (write-char #\} stream))))
      (if (and *print-pretty* (%pretty-stream-p stream))
          (pprint-logical-block (stream nil :prefix "#<" :suffix ">")
            (description))
          (progn
            (write-string "#<" stream)
            (description)
            (write-char #\> stream))))
    nil))

(defmacro print-unreadable-object ((object stream &key type identity) &body body)
  "Prints OBJECT on STREAM in #<...> form: BODY prints the contents, TYPE adds the type name first and IDENTITY an address after. Returns NIL."
  `(%print-unreadable-object ,object ,stream ,type ,identity
                             ,(if body `(function (lambda () ,@body)) nil)))

;;; ------------------------------------------------------------------
;;; WITH-STANDARD-IO-SYNTAX (CLHS 23.2): the printer and reader variables at their standard
;;; values, as SBCL binds them (*print-pretty* is NIL there, *print-readably* T).

(defvar *standard-pprint-dispatch* (%make-pprint-dispatch-table nil))

(defmacro with-standard-io-syntax (&body body)
  "Evaluates BODY with the printer and reader variables bound to their standard values, so that what is printed can be read back the same way."
  `(let ((*package* (find-package "COMMON-LISP-USER"))
         (*print-array* t) (*print-base* 10) (*print-case* :upcase) (*print-circle* nil)
         (*print-escape* t) (*print-gensym* t) (*print-length* nil) (*print-level* nil)
         (*print-lines* nil) (*print-miser-width* nil) (*print-pprint-dispatch* *standard-pprint-dispatch*)
         (*print-pretty* nil) (*print-radix* nil) (*print-readably* t) (*print-right-margin* nil)
         (*read-base* 10) (*read-default-float-format* 'single-float) (*read-eval* t)
         (*read-suppress* nil) (*readtable* (copy-readtable nil)))
     ,@body))
