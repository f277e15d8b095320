;;;; compile-file.lisp: COMPILE-FILE writes a compiled file, the file's top-level forms read and
;;;; analysed (runtime/fasl.c stores them with the image serialiser), and LOAD of such a file runs
;;;; them without reading or analysing anything.

(in-package "SYSTEM")

;;; A compiled file holds a vector of items, run in order by LOAD: a function of no arguments (a
;;; top-level form, analysed as the body of a lambda), or a cell (function . value) of a
;;; LOAD-TIME-VALUE form, whose value LOAD computes before the forms that use it run.

(defvar *fasl-ltv-cells* :none
  "While COMPILE-FILE analyses a form: the cells of its LOAD-TIME-VALUE forms, newest first (the
analyser reads this variable); :NONE otherwise, when LOAD-TIME-VALUE is evaluated at once.")

(defvar *fasl-constants* nil
  "While COMPILE-FILE runs: an EQ hash table from each literal rebuilt by MAKE-LOAD-FORM (or holding
one) to its load-time cell, so that the file makes each such object once.")

(defun %fasl-set-cell (cell value) (setf (cdr cell) value))

(defun %fasl-constant-form (x seen)
  ;; a form that makes an object similar to the literal X at load time
  (cond ((and (typep x '(or standard-object structure-object condition)) (not (typep x 'class)))
         x)                           ; self-evaluating: analysed as a literal, its own cell
        ((consp x)
         (when (gethash x seen)
           (error "A circular literal holding objects dumped by MAKE-LOAD-FORM cannot be compiled: ~S" x))
         (setf (gethash x seen) t)
         `(cons ,(%fasl-constant-form (car x) seen) ,(%fasl-constant-form (cdr x) seen)))
        ((simple-vector-p x)
         `(vector ,@(map 'list #'(lambda (e) (%fasl-constant-form e seen)) x)))
        (t `',x)))

(defun %fasl-constant-cell (object)
  ;; the analyser's question, under COMPILE-FILE, about a literal holding an instance: the cell
  ;; whose value LOAD computes, made once per object (CLHS 3.2.4.4)
  (or (gethash object *fasl-constants*)
      (let ((cell (cons nil nil)))
        (setf (cdr cell) cell)
        (setf (gethash object *fasl-constants*) cell)
        (let ((form (if (consp object) (%fasl-constant-form object (make-hash-table :test 'eq))
                        (if (simple-vector-p object) (%fasl-constant-form object (make-hash-table :test 'eq))
                            (multiple-value-bind (creation init) (make-load-form object)
                              (let ((o (gensym "OBJECT")))
                                ;; the cell has the object before its initialisation form, which
                                ;; may refer to it, runs
                                `(let ((,o ,creation))
                                   (%fasl-set-cell ',cell ,o)
                                   ,@(if init (list init))
                                   ,o)))))))
          (setf (car cell) (eval (list 'function (list 'lambda '() form))))
          (push cell *fasl-ltv-cells*)
          cell))))

(defvar *compile-file-items* nil "The items of the file being compiled, newest first.")
(defvar *compile-file-defined* nil "The names the file being compiled defines: (function . name) or (variable . name).")

;;; The defining macros say themselves what COMPILE-FILE does at compile time, with EVAL-WHEN in
;;; their expansions (CLHS 3.2.3.1.1): DEFMACRO, DEFSTRUCT, DEFCLASS, DEFTYPE, DEFCONSTANT, ... are
;;; evaluated then too; DEFUN, DEFMETHOD, DEFVAR and DEFPARAMETER only call these two, which note
;;; what the file defines.

(defun %compiler-defun (name)
  ;; NAME is a function the file defines: no undefined-function warning for it
  (push (cons 'function name) *compile-file-defined*)
  name)

(defun %compiler-defvar (name)
  ;; NAME is a variable the file defines: special for the rest of the file, no warning
  (proclaim (list 'special name))
  (push (cons 'variable name) *compile-file-defined*)
  name)

(defun %compile-time-eval (form)
  ;; what runs at compile time is not part of the definition being recorded: its load-time
  ;; part, analysed for the file, is (as when the source is loaded)
  (let ((*fasl-ltv-cells* :none) (paused (%xref-pause)))
    (unwind-protect (eval form)
      (when paused (%xref-definition-end paused nil)))))

(defvar *compile-file-item-locations* nil
  "The source location of each item of the file being compiled, newest first: LOAD gives it to the
definitions the item makes, as it would when it loads the source.")

(defun %compile-emit (form)
  ;; analyse FORM now, as the body of a function LOAD calls
  (let ((*fasl-ltv-cells* nil))
    (let ((fn (eval (list 'function (list 'lambda '() form))))
          (loc (%source-location)))
      (dolist (cell (reverse *fasl-ltv-cells*))
        (push cell *compile-file-items*)
        (push loc *compile-file-item-locations*))
      (push fn *compile-file-items*)
      (push loc *compile-file-item-locations*))))

(defvar *compile-file-context* nil
  "While COMPILE-FILE processes the body of a top-level MACROLET, SYMBOL-MACROLET or LOCALLY: the
heads of those forms, innermost first, so that each form of the body is expanded, evaluated and
analysed inside them (CLHS 3.2.3.1).")

(defun %compile-wrap (form)
  ;; FORM inside the MACROLET, SYMBOL-MACROLET and LOCALLY forms it was found in
  (dolist (w *compile-file-context* form)
    (setq form (append w (list form)))))

(defmacro %compile-expand-here (form &environment env)
  ;; expanded inside the wrappers: FORM's expansion in their environment, as two values
  (multiple-value-bind (expansion expanded) (macroexpand-1 form env)
    `(values ',expansion ',expanded)))

(defun %compile-macroexpand-1 (form)
  (if *compile-file-context*
      (let ((*fasl-ltv-cells* :none) (paused (%xref-pause)))
        ;; the wrappers are not part of a definition being recorded
        (unwind-protect (eval (%compile-wrap (list '%compile-expand-here form)))
          (when paused (%xref-definition-end paused nil))))
      (macroexpand-1 form)))

(defvar *compile-xref-paused* nil
  "While COMPILE-FILE analyses a form of a definition inside top-level MACROLET (...) forms: the
recording of the definition, paused until %COMPILE-RESUME, inside them, is expanded.")

(defmacro %compile-resume (form)
  ;; the definition's own code starts here: what the local macros of the wrappers call is no
  ;; part of it (as when the source is loaded)
  (let ((paused *compile-xref-paused*))
    (setq *compile-xref-paused* nil)
    (when paused (%xref-definition-end paused nil)))
  form)

(defun %compile-emit-wrapped (form)
  ;; FORM, inside the wrappers it was found in, analysed for LOAD
  (let ((paused (and *compile-file-context* (%xref-pause))))
    (if paused
        (let ((*compile-xref-paused* paused))
          (unwind-protect (%compile-emit (%compile-wrap (list '%compile-resume form)))
            (when *compile-xref-paused* (%xref-definition-end *compile-xref-paused* nil))))
        (%compile-emit (%compile-wrap form)))))

(defun %compile-body-in (head body compile-time-too)
  ;; the body of a top-level MACROLET, SYMBOL-MACROLET or LOCALLY: its declarations go with HEAD,
  ;; and each of its forms is a top-level form inside it
  (let ((decls nil))
    (loop (if (and (consp (car body)) (eq (caar body) 'declare))
              (push (pop body) decls)
              (return)))
    (let ((*compile-file-context* (cons (append head (nreverse decls)) *compile-file-context*)))
      (dolist (f body) (%compile-top-level f compile-time-too)))))

(defun %compile-eval-when (form compile-time-too)
  ;; CLHS 3.2.3.1, figure 3-7
  (let* ((situations (cadr form))
         (ct (or (%memq :compile-toplevel situations) (%memq 'compile situations)))
         (lt (or (%memq :load-toplevel situations) (%memq 'load situations)))
         (ex (or (%memq :execute situations) (%memq 'eval situations)))
         (body (cddr form)))
    (cond ((and lt (or ct (and ex compile-time-too)))
           (dolist (f body) (%compile-top-level f t)))
          (lt (dolist (f body) (%compile-top-level f nil)))
          ((or ct (and ex compile-time-too))
           (%compile-time-eval (%compile-wrap (cons 'progn body)))))))

(defun %compile-top-level (form compile-time-too)
  ;; one top-level form, processed as CLHS 3.2.3.1 says
  (loop
    (when (and form (symbolp form))      ; a symbol macro's expansion is processed as well
      (multiple-value-bind (expansion expanded) (%compile-macroexpand-1 form)
        (unless expanded (return))
        (setq form expansion)))
    (unless (and (consp form) (symbolp (car form)))
      (return))
    (let ((head (car form)))
      (cond ((eq head 'progn)
             (dolist (f (cdr form)) (%compile-top-level f compile-time-too))
             (return-from %compile-top-level nil))
            ((eq head 'eval-when)
             (%compile-eval-when form compile-time-too)
             (return-from %compile-top-level nil))
            ((and (%memq head '(macrolet symbol-macrolet)) (consp (cdr form)))
             (%compile-body-in (list head (cadr form)) (cddr form) compile-time-too)
             (return-from %compile-top-level nil))
            ((eq head 'locally)
             (%compile-body-in (list 'locally) (cdr form) compile-time-too)
             (return-from %compile-top-level nil))
            ((special-operator-p head) (return))
            (t
             ;; a global or a local macro (of an enclosing MACROLET) expands
             (multiple-value-bind (expansion expanded) (%compile-macroexpand-1 form)
               (unless expanded (return))
               ;; a defining macro (DEFUN, DEFMETHOD, DEFVAR...) is expanded here, not by the
               ;; analyser: what its expansion calls and references is recorded under its name
               (let ((scope (%xref-definition-begin form)))
                 (when scope
                   (let ((ok nil))
                     (unwind-protect
                          (progn (%compile-top-level expansion compile-time-too) (setq ok t))
                       (%xref-definition-end scope ok)))
                   (return-from %compile-top-level nil)))
               (setq form expansion))))))
  (when compile-time-too (%compile-time-eval (%compile-wrap form)))
  (%compile-emit-wrapped form))

(defun %compile-forget-defined ()
  ;; a function or variable the file defines is not undefined because the file is not loaded yet
  (let ((refs (%take-undefined-references)) (keep nil))
    (dolist (r refs)
      (unless (member (cons (if (eql (svref r 0) 0) 'function 'variable) (svref r 1))
                      *compile-file-defined* :test #'equal)
        (push r keep)))
    (%restore-undefined-references (nreverse keep))))

;;; The cross-reference and source locations of a compiled file: recorded while it is compiled
;;; (each form placed as LOAD places it, %xref-form-begin), kept as its last item, and put back
;;; into the session's tables when it is loaded (%xref-install, runtime/xref_compile.c). The item
;;; is #(:xref names defs codes locations), compact: NAMES the names noted, once each; DEFS a
;;; definition's key and location, two slots each; CODES per definition the number of its notes,
;;; each note (+ (* 8 name-index) kind), the number of its sites, each site (+ (* (+ (* 8
;;; name-index) kind) 2^40) (* line 2^16) column); LOCATIONS each item's source location.

(defun %compile-xref-item (file mark)
  ;; the entries the file's forms recorded: changed since MARK (a %HASH-TABLE-MARK of the
  ;; cross-reference, taken in C, so that the stdlib's thousands of entries are not walked in
  ;; Lisp for each file), their locations naming FILE (the very string)
  (let ((index (make-hash-table :test 'eq)) (names nil) (n 0) (defs nil) (codes nil)
        (sites (%xref-sites)))
    (flet ((code (kind name)
             (+ kind (* 8 (or (gethash name index)
                              (progn (push name names)
                                     (setf (gethash name index) (prog1 n (incf n)))))))))
      (dolist (change (%hash-table-changes (%xref-table) mark))
        (let* ((key (car change)) (v (cdr change)) (loc (car v)))
          (when (and (consp loc) (eq (car loc) file))
            (push key defs)
            (push loc defs)
            (push (length (cdr v)) codes)
            (dolist (e (cdr v)) (push (code (car e) (cdr e)) codes))
            (let ((placed (remove-if-not
                           #'(lambda (s) (and (typep (caddr s) '(integer 0 (16777216)))
                                              (typep (cdddr s) '(integer 0 (65536)))))
                           (gethash key sites))))
              (push (length placed) codes)
              (dolist (s placed)
                (push (+ (* (code (car s) (cadr s)) 1099511627776) (* (caddr s) 65536) (cdddr s))
                      codes)))))))
    (vector :xref (coerce (nreverse names) 'simple-vector) (coerce (nreverse defs) 'simple-vector)
            (coerce (nreverse codes) 'simple-vector)
            (coerce (reverse *compile-file-item-locations*) 'simple-vector))))

(defun %fasl-xref-item-p (item)
  (and (simple-vector-p item) (= (length item) 5) (eq (svref item 0) :xref)))

(defun %compile-report-error (c)
  (format *error-output* "~&; caught ERROR:~%;   ~A~%" c))

(defun compile-file (input-file &key output-file (verbose *compile-verbose*) (print *compile-print*)
                                     (external-format :default) trace-file block-compile
                                     emit-cfasl entry-points)
  "Compiles the source file INPUT-FILE: its forms are read, their compile-time parts evaluated (EVAL-WHEN, DEFMACRO, IN-PACKAGE, ...) and the rest analysed and written to OUTPUT-FILE (default COMPILE-FILE-PATHNAME, type fasl), which LOAD runs without reading or analysing. Returns the output's truename (NIL when the file could not be read), whether there were warnings, and whether there were errors or warnings other than style warnings."
  (declare (ignore trace-file block-compile emit-cfasl entry-points))
  (%check-access input-file :input "COMPILE-FILE")
  (let* ((pathname (merge-pathnames input-file))
         (found (%probe-source pathname)))
    (if (null found)
        (%file-error pathname "Couldn't compile ~S: file does not exist." (namestring pathname)))
    (let* ((truename (probe-file found))
           (output (if output-file
                       (compile-file-pathname found :output-file output-file)
                       (compile-file-pathname found)))
           (*compile-file-pathname* pathname)
           (*compile-file-truename* truename)
           (*package* *package*)
           (*readtable* *readtable*)
           (*compile-file-items* nil)
           (*compile-file-item-locations* nil)
           (xref-file (namestring truename))
           (xref-outer (%xref-save-state))
           (xref-mark (%hash-table-mark (%xref-table)))
           (*compile-file-defined* nil)
           (*fasl-constants* (make-hash-table :test 'eq))
           (warnings-p nil) (failure-p nil) (aborted nil))
      (%check-access output :output "COMPILE-FILE")
      (when verbose
        (format *standard-output* "~&; compiling file ~S~%" (namestring truename)))
      (unwind-protect
        (handler-bind ((warning #'(lambda (c)
                                    (setq warnings-p t)
                                    (unless (typep c 'style-warning) (setq failure-p t)))))
          (with-compilation-unit ()
            (with-open-file (stream truename :external-format external-format)
              (let ((eof (list nil)))
                (loop
                  ;; each form gets its place, as LOAD gives it (restored below)
                  (%xref-form-begin stream xref-file)
                  (let ((form (handler-case (let ((*load-reading* nil)) (read stream nil eof))
                                (error (c)
                                  (%compile-report-error c)
                                  (setq aborted t warnings-p t failure-p t)
                                  eof))))
                    (when (eq form eof) (return))
                    (when print
                      (let ((*print-length* 2) (*print-level* 2))
                        (format *standard-output* "~&; processing ~S~%" form)))
                    (handler-case (%compile-top-level form nil)
                      (error (c)
                        (%compile-report-error c)
                        (setq warnings-p t failure-p t)
                        ;; as SBCL: the form signals the error when the file is loaded
                        (%compile-emit (list 'error "Compile-time error: ~A" (princ-to-string c)))))))))
            (%compile-forget-defined)))
        (%xref-restore-state xref-outer))
      (if aborted
          (values nil t t)
          (progn
            (ensure-directories-exist output)
            (%fasl-write output (coerce (reverse (cons (%compile-xref-item xref-file xref-mark) *compile-file-items*))
                                        'simple-vector))
            (let ((out (truename output)))
              (when verbose
                (format *standard-output* "~&; wrote ~A~%" (namestring out)))
              (values out warnings-p failure-p)))))))

(defun %load-compiled-file (pathname truename verbose print &optional items pending)
  ;; LOAD of a file COMPILE-FILE wrote: run its items in order (ITEMS and PENDING: what
  ;; %FASL-READ gave the system loader, which read the file before deciding to load it)
  (let ((*load-pathname* pathname)
        (*load-truename* truename)
        (*package* *package*)
        (*readtable* *readtable*)
        (*load-depth* (1+ *load-depth*)))
    (when verbose
      (fresh-line *standard-output*)
      (%load-semicolons *standard-output*)
      (format *standard-output* " loading ~S~%" truename))
    (unless items (multiple-value-setq (items pending) (%fasl-read truename)))
    (let* ((n (length items))
           (xref (and (> n 0) (%fasl-xref-item-p (svref items (1- n))) (svref items (1- n))))
           (locations (and xref (svref xref 4)))
           (outer (%xref-save-state)))
      (when xref (decf n))
      (unwind-protect
           (dotimes (i n)
             (when pending (setq pending (%fasl-resolve items pending)))
             ;; the definitions the item makes are where its form was in the source
             (when locations (%set-source-location (svref locations i)))
             (let ((item (svref items i)))
               (if (consp item)
                   (setf (cdr item) (funcall (car item)))
                   (let ((values (multiple-value-list (funcall item))))
                     (when print
                       (fresh-line *standard-output*)
                       (%load-semicolons *standard-output*)
                       (format *standard-output* " ~{~S~^, ~}~%" values))))))
        (%xref-restore-state outer))
      (when pending (setq pending (%fasl-resolve items pending)))
      (when pending
        (error 'simple-file-error :pathname truename
                                  :format-control "The compiled file ~A needs the package ~S, which does not exist."
                                  :format-arguments (list (namestring truename) (cadr (first pending)))))
      (when xref (%xref-install xref)))
    t))
