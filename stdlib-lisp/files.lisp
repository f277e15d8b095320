;;;; files.lisp: streams, files and LOAD in Lisp (CLHS chapters 19-21): the file and stream
;;;; condition types, WITH-OPEN-FILE and friends, Y-OR-N-P, LOAD, COMPILE-FILE. The machinery is
;;;; in C (runtime/stream.c, pathname.c, load.c); this file uses only boot macros, the condition
;;;; system and primitives.

(in-package "SYSTEM")

;;; ------------------------------------------------------------------
;;; Conditions (C signals them with a ready-made message and their slots)

(define-condition simple-file-error (simple-condition file-error) ())
(setf (gethash 'file-error *simple-variants*) 'simple-file-error)
(define-condition file-does-not-exist (simple-file-error) ())
(define-condition file-exists (simple-file-error) ())
(define-condition delete-file-error (simple-file-error) ())
;; a file operation or path the session's access policy refuses (runtime/access.c): the pathname
;; is the resolved one, OPERATION names the function ("OPEN", "DELETE-FILE", ...), OPTION the
;; command-line option that would allow it ("--allow-read /etc"), or NIL when none would
(define-condition tinycl:access-denied (simple-file-error)
  ((operation :initarg :operation :initform nil :reader tinycl::access-denied-operation)
   (option :initarg :option :initform nil :reader tinycl::access-denied-option)))
(export '(tinycl::access-denied-operation tinycl::access-denied-option) "TINYCL")

(define-condition simple-stream-error (simple-condition stream-error) ())
(setf (gethash 'stream-error *simple-variants*) 'simple-stream-error)
(define-condition closed-stream-error (simple-stream-error) ())

(define-condition no-namestring-error (simple-file-error) ())

(define-condition input-error-in-load (simple-condition reader-error)
  ((condition :initarg :condition :reader input-error-in-load-condition)))

;;; ------------------------------------------------------------------
;;; Stream macros

(defmacro with-open-stream ((var stream) &body body)
  "Evaluates BODY with VAR bound to the value of STREAM and closes that stream afterwards, even on a non-local exit."
  (multiple-value-bind (decls forms) (%split-declarations body)
    `(let ((,var ,stream))
       ,@decls
       (unwind-protect (progn ,@forms)
         (when ,var (close ,var))))))

(defmacro with-open-file ((stream filespec &rest options) &body body)
  "Evaluates BODY with STREAM bound to the stream OPEN returns for FILESPEC and OPTIONS, and closes it afterwards, even on a non-local exit."
  (multiple-value-bind (decls forms) (%split-declarations body)
    (let ((abortp (gensym "ABORTP")))
      `(let ((,stream (open ,filespec ,@options))
             (,abortp t))
         ,@decls
         (unwind-protect
              (multiple-value-prog1 (progn ,@forms) (setq ,abortp nil))
           (when ,stream (close ,stream :abort ,abortp)))))))

(defmacro with-input-from-string ((var string &key index (start 0) end) &body body)
  "Evaluates BODY with VAR bound to an input stream reading STRING from START to END; when INDEX is a place, it receives the position where reading stopped."
  (multiple-value-bind (decls forms) (%split-declarations body)
    `(let ((,var (make-string-input-stream ,string ,start ,end)))
       ,@decls
       (unwind-protect
            (multiple-value-prog1 (progn ,@forms)
              ,@(if index `((setf ,index (%string-input-stream-index ,var)))))
         (close ,var)))))

(defmacro with-output-to-string ((var &optional string-form &key (element-type ''character)) &body body)
  "Evaluates BODY with VAR bound to a stream whose output is collected; returns the string made, or, when STRING-FORM gives a string with a fill pointer, appends to it and returns BODY's values."
  (multiple-value-bind (decls forms) (%split-declarations body)
    (if string-form
        ;; the element type is evaluated, though a given string decides what is written
        `(let ((,var (prog1 (%make-fill-pointer-output-stream ,string-form) ,element-type)))
           ,@decls
           (unwind-protect (progn ,@forms) (close ,var)))
        `(let ((,var (make-string-output-stream :element-type ,element-type)))
           ,@decls
           (unwind-protect (progn ,@forms (get-output-stream-string ,var))
             (close ,var))))))

;;; ------------------------------------------------------------------
;;; Queries (as SBCL: the answer is read from *QUERY-IO*)

(defun %print-query (hint format-string arguments)
  (fresh-line *query-io*)
  (when format-string
    (apply #'format *query-io* format-string arguments)
    (write-char #\Space *query-io*))
  (write-string hint *query-io*)
  (write-char #\Space *query-io*)
  (finish-output *query-io*))

(defun %clarify-query (yes no)
  (fresh-line *query-io*)
  (write-string "Please type \"" *query-io*)
  (write-string yes *query-io*)
  (write-string "\" for yes or \"" *query-io*)
  (write-string no *query-io*)
  (write-string "\" for no." *query-io*)
  (terpri *query-io*))

(defun y-or-n-p (&optional format-string &rest arguments)
  "Asks a yes-or-no question (FORMAT-STRING with ARGUMENTS) on *QUERY-IO* and reads a one-letter answer; true for y, false for n."
  (tagbody
   top
     (%print-query "(y or n)" format-string arguments)
     (clear-input *query-io*)
     (let ((c (read-char *query-io*)))
       (clear-input *query-io*)
       (cond ((or (eql c #\y) (eql c #\Y)) (return-from y-or-n-p t))
             ((or (eql c #\n) (eql c #\N)) (return-from y-or-n-p nil))))
     (%clarify-query "y" "n")
     (go top)))

(defun yes-or-no-p (&optional format-string &rest arguments)
  "Asks a question (FORMAT-STRING with ARGUMENTS) on *QUERY-IO* and waits for the answer yes or no typed in full; true for yes."
  (write-char #\Bel *query-io*)        ; SBCL beeps before asking
  (tagbody
   top
     (%print-query "(yes or no)" format-string arguments)
     (let ((line (read-line *query-io*)))
       (cond ((%query-answer-p line "yes") (return-from yes-or-no-p t))
             ((%query-answer-p line "no") (return-from yes-or-no-p nil))))
     (%clarify-query "yes" "no")
     (go top)))

;;; ------------------------------------------------------------------
;;; LOAD

(defun %file-error (pathname control &rest arguments)
  (error 'simple-file-error :pathname pathname :format-control control :format-arguments arguments))

(defun %load-from-stream (stream print)
  ;; errors of the reader while a form is being read become INPUT-ERROR-IN-LOAD (a READER-ERROR)
  (flet ((wrap (c)
           (when *load-reading*
             (setq *load-reading* nil)
             (error 'input-error-in-load
                    :stream stream :condition c
                    :format-control "READ error during LOAD:~%~%    ~A~%~%      Line: ~D~%~%      Stream: ~S"
                    :format-arguments (list c (%stream-line stream) stream)))))
    (handler-bind ((reader-error #'wrap)
                   (end-of-file #'wrap))
      ;; a file is a compilation unit: a function defined further down is not undefined
      (with-compilation-unit () (%load-stream stream print)))))

(defun %load-source-file (pathname truename verbose print external-format)
  (let ((*load-pathname* pathname)
        (*load-truename* truename)
        (*source-file* (namestring truename)))
    (let ((*load-depth* (1+ *load-depth*)))
      (when verbose
        (fresh-line *standard-output*)
        (%load-semicolons *standard-output*)
        (format *standard-output* " loading ~S~%" truename))
      (with-open-file (stream truename :external-format external-format)
        (%load-from-stream stream print)))))

(defun %probe-source (pathname)
  ;; PATHNAME if it exists, else (as CLHS allows) PATHNAME with type "lisp" when it has no type;
  ;; its truename as the second value
  (let ((truename (probe-file pathname)))
    (cond (truename (values pathname truename))
          ((null (pathname-type pathname))
           (let* ((p (make-pathname :type "lisp" :defaults pathname))
                  (truename (probe-file p)))
             (if truename (values p truename) nil)))
          (t nil))))

(defun load (filespec &key (verbose *load-verbose*) (print *load-print*) (if-does-not-exist t)
                           (external-format :default))
  "Loads FILESPEC, a source file or a stream, reading and evaluating each form in turn; returns T, or NIL when the file is missing and IF-DOES-NOT-EXIST is NIL. VERBOSE and PRINT report progress."
  (cond
    ((streamp filespec)
     (let* ((native (%stream-native-name filespec))
            (pathname (if native (pathname filespec) nil))
            (*load-pathname* pathname)
            (*load-truename* (if pathname (probe-file pathname) nil))
            (*load-depth* (1+ *load-depth*)))
       (when verbose
         (fresh-line *standard-output*)
         (%load-semicolons *standard-output*)
         (format *standard-output* " loading stream ~S~%" filespec))
       (%load-from-stream filespec print)))
    ((or (stringp filespec) (pathnamep filespec))
     (%check-access filespec :input "LOAD")
     (let ((pathname (merge-pathnames filespec)))
       (multiple-value-bind (source truename) (%probe-source pathname)
         (if (null source)
             (if if-does-not-exist
                 (%file-error pathname "Couldn't load ~S: file does not exist." (namestring pathname))
                 nil)
             (progn
               (if (and (null (pathname-name truename)) (null (pathname-type truename)))
                   (%file-error pathname "Can't LOAD a directory: ~S." truename))
               (if (%fasl-file-p truename)
                   (%load-compiled-file source truename verbose print)
                   (%load-source-file source truename verbose print external-format)))))))
    (t (error 'type-error :datum filespec :expected-type '(or string pathname stream)))))

;;; COMPILE-FILE and LOAD of a compiled file: compile-file.lisp.

;;; ------------------------------------------------------------------
;;; Logical pathnames (CLHS 19.3). The hosts live in SYS::*LOGICAL-HOSTS* (upper-case name ->
;;; the translations as given); parsing and printing logical namestrings are in
;;; runtime/logical.c. A fresh tinycl defines no logical host (SBCL defines SYS).

(defun %logical-host-or-lose (host)
  (or (sys::%logical-host-name host)
      (error 'simple-type-error :datum host :expected-type '(and string (satisfies logical-pathname-translations))
                                :format-control "logical host not yet defined: ~S"
                                :format-arguments (list host))))

(defun logical-pathname-translations (host)
  "The list of translations (from-wildcard to-wildcard) of the logical pathname HOST; SETF-able to define them."
  (values (gethash (%logical-host-or-lose host) sys::*logical-hosts*)))

(defun (setf logical-pathname-translations) (translations host)
  (unless (stringp host)
    (error 'type-error :datum host :expected-type 'string))
  (unless (and (listp translations)
               (every #'(lambda (x) (and (consp x) (consp (cdr x)))) translations))
    (error 'type-error :datum translations :expected-type 'list))
  (let ((name (string-upcase host)))
    (unless (and (plusp (length name))
                 (every #'(lambda (c) (or (alphanumericp c) (char= c #\-))) name))
      (error 'simple-type-error :datum host :expected-type 'string
                                :format-control "~S is not a valid logical host name."
                                :format-arguments (list host)))
    ;; the host exists (so its from-wildcards parse) before they are checked
    (let ((old (gethash name sys::*logical-hosts* :none)))
      (setf (gethash name sys::*logical-hosts*) nil)
      (handler-bind ((error #'(lambda (c) (declare (ignore c))
                                (if (eq old :none) (remhash name sys::*logical-hosts*)
                                    (setf (gethash name sys::*logical-hosts*) old)))))
        (dolist (tr translations)
          (%translation-from name (first tr))
          (pathname (second tr)))))
    (setf (gethash name sys::*logical-hosts*) translations)))

(defun %translation-from (host from)
  (if (pathnamep from) from (sys::%parse-logical-namestring host from)))

(defvar *logical-translations-directories* nil
  "Directories LOAD-LOGICAL-PATHNAME-TRANSLATIONS looks in for a file HOST.translations, besides SYS:SITE; (not defined in tinycl).")

(defun load-logical-pathname-translations (host)
  "Loads the translations of the logical pathname HOST if they are not defined yet; returns true when it loaded some."
  (unless (stringp host) (error 'type-error :datum host :expected-type 'string))
  (if (sys::%logical-host-name host)
      nil
      (let ((file (dolist (d *logical-translations-directories* nil)
                    (let ((f (probe-file (merge-pathnames (concatenate 'string (string-downcase host) ".translations") d))))
                      (if f (return f))))))
        (unless file
          (error 'simple-file-error :pathname host
                                    :format-control "Couldn't load logical pathname translations for host ~S: no ~A.translations file."
                                    :format-arguments (list host (string-downcase host))))
        (with-open-file (s file)
          (setf (logical-pathname-translations host) (read s)))
        t)))

(defun logical-pathname (pathspec)
  "The logical pathname denoted by PATHSPEC (a logical pathname, a logical namestring or a stream)."
  (let ((p (cond ((typep pathspec 'logical-pathname) pathspec)
                 ((stringp pathspec)
                  (let ((colon (position #\: pathspec)))
                    (if (null colon)
                        (error 'simple-type-error :datum pathspec :expected-type 'logical-pathname
                                                  :format-control "logical namestring does not specify a host: ~S"
                                                  :format-arguments (list pathspec)))
                    (let ((host (subseq pathspec 0 colon)))
                      (%logical-host-or-lose host)
                      (handler-case (sys::%parse-logical-namestring host (subseq pathspec (1+ colon)))
                        (parse-error (c)
                          (error 'simple-type-error :datum pathspec :expected-type 'logical-pathname
                                                    :format-control "~A" :format-arguments (list c)))))))
                 ((and (streamp pathspec) (typep pathspec 'file-stream)) (pathname pathspec))
                 ;; a stream must be a file stream opened on a logical pathname
                 (t (error 'type-error :datum pathspec :expected-type '(or logical-pathname string file-stream))))))
    (unless (typep p 'logical-pathname)
      (error 'simple-type-error :datum p :expected-type 'logical-pathname
                                :format-control "~S is not a logical pathname." :format-arguments (list p)))
    p))

(defun translate-logical-pathname (pathname &key)
  "The physical pathname for PATHNAME: a logical pathname is translated through the first of its host's translations whose from-wildcard it matches, again until the result is physical."
  (let ((p (pathname pathname)))
    (do ((depth 0 (1+ depth)))
        ((not (typep p 'logical-pathname)))
      (when (> depth 100)
        (error 'simple-file-error :pathname pathname :format-control "The translations of ~S loop."
                                  :format-arguments (list pathname)))
      (let ((host (pathname-host p)))
               (setq p (dolist (tr (logical-pathname-translations host)
                                   (error 'simple-file-error :pathname p :format-control "No translation for ~S."
                                                             :format-arguments (list p)))
                         (let ((from (%translation-from host (first tr))))
                           (when (pathname-match-p p from)
                             (return (translate-pathname p from (second tr)))))))))
    p))

;;; ------------------------------------------------------------------
;;; PROVIDE and REQUIRE (CLHS 24.1: deprecated but used). REQUIRE loads the given pathnames; with
;;; none, only modules already provided are known (tinycl has no contribs to find).

(defvar *modules* nil "The list of module names recorded by PROVIDE, which REQUIRE checks.")

(defun %module-provided-p (name)
  (dolist (m *modules* nil) (if (equal m name) (return t))))

(defun provide (module-name)
  "Adds MODULE-NAME to *MODULES* to record that the module has been loaded."
  (let ((name (%string-designator module-name)))
    (unless (%module-provided-p name) (setq *modules* (cons name *modules*)))
    t))

(defun require (module-name &optional pathnames)
  (let ((name (%string-designator module-name)))
    (cond ((%module-provided-p name) nil)
          (pathnames
           ;; the value is the list of the modules the loaded files provided
           (let ((old *modules*) (new nil))
             (dolist (p (if (and (listp pathnames) pathnames) pathnames (list pathnames)))
               (load p))
             (dolist (m *modules*) (unless (%memq m old) (setq new (cons m new))))
             (nreverse-boot new)))
          (t (error 'simple-error :format-control "Don't know how to ~S ~A."
                                  :format-arguments (list 'require name))))))
