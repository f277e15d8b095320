;;;; asdf.lisp: systems. An ASDF-compatible loader written for tinycl (packages ASDF, ASDF-USER and
;;;; the part of UIOP that .asd files use), QUICKLISP-CLIENT (QL) over the same loader, and the
;;;; session's exact record of loaded systems (DESIGN.md section 7): versions, dependencies, .asd
;;;; paths, load times, and the packages and definitions each load made. A failed load records
;;;; nothing for the failed system; a plain reset clears the records but keeps the loaded code.
;;;;
;;;; tinycl has no compiler to files: "loading" a component loads its source. Systems are found in
;;;; ASDF:*CENTRAL-REGISTRY*, CL_SOURCE_REGISTRY, the current directory, ~/common-lisp/,
;;;; ~/.local/share/common-lisp/source/, ~/quicklisp/local-projects/ and Debian's
;;;; /usr/share/common-lisp/{systems,source}/.

(in-package "SYSTEM")

(defpackage "UIOP"
  (:use "COMMON-LISP")
  (:nicknames "UIOP/PACKAGE" "UIOP/UTILITY" "UIOP/OS" "UIOP/PATHNAME" "UIOP/FILESYSTEM"
              "UIOP/STREAM" "UIOP/VERSION" "UIOP/DRIVER")
  (:export "SYMBOL-CALL" "FIND-SYMBOL*" "FEATUREP" "GETENV" "GETCWD" "OS-UNIX-P" "OS-WINDOWS-P"
           "OS-MACOSX-P" "IMPLEMENTATION-TYPE" "OPERATING-SYSTEM" "LISP-VERSION-STRING"
           "PARSE-VERSION" "UNPARSE-VERSION" "VERSION<" "VERSION<=" "VERSION-COMPATIBLE-P"
           "READ-FILE-FORM" "READ-FILE-FORMS" "READ-FILE-STRING" "READ-FILE-LINES" "READ-FILE-LINE"
           "SLURP-STREAM-STRING" "SLURP-STREAM-LINES" "WITH-INPUT-FILE"
           "ENSURE-DIRECTORY-PATHNAME" "DIRECTORY-PATHNAME-P" "FILE-PATHNAME-P"
           "PATHNAME-DIRECTORY-PATHNAME" "PATHNAME-PARENT-DIRECTORY-PATHNAME"
           "PARSE-UNIX-NAMESTRING" "NATIVE-NAMESTRING" "PARSE-NATIVE-NAMESTRING" "UNIX-NAMESTRING"
           "SUBPATHNAME" "SUBPATHNAME*" "MERGE-PATHNAMES*" "ENSURE-PATHNAME" "ABSOLUTE-PATHNAME-P"
           "RELATIVE-PATHNAME-P" "FILE-EXISTS-P" "DIRECTORY-EXISTS-P" "PROBE-FILE*"
           "DIRECTORY-FILES" "SUBDIRECTORIES" "DELETE-FILE-IF-EXISTS"
           "STRCAT" "STRING-PREFIX-P" "STRING-SUFFIX-P" "STRING-ENCLOSED-P" "SPLIT-STRING" "STRIPLN"
           "EMPTYP" "ENSURE-LIST" "FIRST-CHAR" "LAST-CHAR" "IF-LET" "WHILE-COLLECTING"
           "WITH-UPGRADABILITY" "DEFINE-PACKAGE" "DEFINE-PACKAGE*" "COERCE-CLASS" "RUN-PROGRAM"
           "QUIT" "DIE" "NOT-IMPLEMENTED-ERROR" "PARAMETER-ERROR" "*STDOUT*" "*STDERR*"
           "ENSURE-GETHASH" "LIST-TO-HASH-SET" "REMOVE-PLIST-KEY" "REMOVE-PLIST-KEYS"
           "FRMT" "STANDARD-CASE-SYMBOL-NAME" "FIND-STANDARD-CASE-SYMBOL" "CALL-WITH-MUFFLED-CONDITIONS"
           "WITH-MUFFLED-CONDITIONS" "*UIOP-VERSION*"))

(defpackage "ASDF"
  (:use "COMMON-LISP" "UIOP")
  (:nicknames "ASDF/INTERFACE" "ASDF-UTILITIES" "ASDF/SYSTEM" "ASDF/COMPONENT" "ASDF/OPERATE"
              "ASDF/FIND-SYSTEM" "ASDF/DEFSYSTEM" "ASDF/OPERATION" "ASDF/LISP-ACTION")
  (:export
   ;; defining and finding systems
   "DEFSYSTEM" "FIND-SYSTEM" "LOCATE-SYSTEM" "REGISTERED-SYSTEMS" "REGISTERED-SYSTEM"
   "SYSTEM-REGISTERED-P" "ALREADY-LOADED-SYSTEMS" "COMPONENT-LOADED-P" "CLEAR-SYSTEM" "MAP-SYSTEMS"
   "REGISTER-PRELOADED-SYSTEM" "REGISTER-IMMUTABLE-SYSTEM" "LOAD-ASD" "FIND-COMPONENT"
   "*CENTRAL-REGISTRY*" "INITIALIZE-SOURCE-REGISTRY" "CLEAR-SOURCE-REGISTRY" "CLEAR-CONFIGURATION"
   "PRIMARY-SYSTEM-NAME" "COERCE-NAME" "ASDF-VERSION" "UPGRADE-ASDF" "APPLY-OUTPUT-TRANSLATIONS"
   "*ASDF-VERBOSE*" "*VERBOSE-OUT*" "*COMPILE-FILE-WARNINGS-BEHAVIOUR*"
   "*COMPILE-FILE-FAILURE-BEHAVIOUR*" "VERSION-SATISFIES"
   ;; operating
   "LOAD-SYSTEM" "LOAD-SYSTEMS" "COMPILE-SYSTEM" "TEST-SYSTEM" "REQUIRE-SYSTEM" "MAKE" "OPERATE" "OOS"
   "OPERATION" "LOAD-OP" "COMPILE-OP" "LOAD-SOURCE-OP" "PREPARE-OP" "PREPARE-SOURCE-OP" "TEST-OP"
   "DOWNWARD-OPERATION" "UPWARD-OPERATION" "SIDEWAY-OPERATION" "SELFWARD-OPERATION"
   "NON-PROPAGATING-OPERATION" "MAKE-OPERATION" "PERFORM" "PERFORM-WITH-RESTARTS" "OPERATION-DONE-P"
   "EXPLAIN" "INPUT-FILES" "OUTPUT-FILES" "COMPONENT-DEPENDS-ON"
   ;; components
   "COMPONENT" "SYSTEM" "MODULE" "PARENT-COMPONENT" "CHILD-COMPONENT" "SOURCE-FILE" "CL-SOURCE-FILE"
   "CL-SOURCE-FILE.CL" "CL-SOURCE-FILE.LSP" "C-SOURCE-FILE" "JAVA-SOURCE-FILE" "STATIC-FILE"
   "DOC-FILE" "HTML-FILE" "FILE-COMPONENT" "SOURCE-FILE-TYPE"
   "COMPONENT-NAME" "COMPONENT-VERSION" "COMPONENT-PARENT" "COMPONENT-SYSTEM" "COMPONENT-PATHNAME"
   "COMPONENT-RELATIVE-PATHNAME" "COMPONENT-CHILDREN" "MODULE-COMPONENTS" "COMPONENT-PROPERTY"
   "COMPONENT-FIND-PATH" "COMPONENT-IF-FEATURE" "COMPONENT-SIDEWAY-DEPENDENCIES"
   "COMPONENT-DESCRIPTION" "COMPONENT-LONG-DESCRIPTION"
   "SYSTEM-SOURCE-FILE" "SYSTEM-SOURCE-DIRECTORY" "SYSTEM-RELATIVE-PATHNAME" "SYSTEM-DEPENDS-ON"
   "SYSTEM-DEFSYSTEM-DEPENDS-ON" "SYSTEM-WEAKLY-DEPENDS-ON" "SYSTEM-DESCRIPTION"
   "SYSTEM-LONG-DESCRIPTION" "SYSTEM-AUTHOR" "SYSTEM-MAINTAINER" "SYSTEM-LICENSE" "SYSTEM-LICENCE"
   "SYSTEM-HOMEPAGE" "SYSTEM-MAILTO" "SYSTEM-LONG-NAME" "SYSTEM-SOURCE-CONTROL" "SYSTEM-BUG-TRACKER"
   ;; conditions
   "SYSTEM-DEFINITION-ERROR" "MISSING-COMPONENT" "MISSING-COMPONENT-OF-VERSION" "MISSING-DEPENDENCY"
   "MISSING-DEPENDENCY-OF-VERSION" "CIRCULAR-DEPENDENCY" "LOAD-SYSTEM-DEFINITION-ERROR"
   "OPERATION-ERROR" "COMPILE-ERROR" "COMPILE-FAILED" "COMPILE-WARNED" "COMPONENT-LOAD-ERROR"
   "ERROR-COMPONENT" "ERROR-OPERATION" "ERROR-CONDITION" "MISSING-REQUIRES" "MISSING-PARENT"
   "MISSING-REQUIRED-BY" "CIRCULAR-DEPENDENCY-COMPONENTS"))

(defpackage "ASDF-USER"
  (:use "COMMON-LISP" "UIOP" "ASDF"))

(defpackage "QUICKLISP-CLIENT"
  (:use "COMMON-LISP")
  (:nicknames "QL")
  (:export "QUICKLOAD" "SYSTEM-NOT-FOUND" "SYSTEM-NOT-FOUND-NAME" "*LOCAL-PROJECT-DIRECTORIES*"
           "REGISTER-LOCAL-PROJECTS" "WHERE-IS-SYSTEM" "SYSTEM-APROPOS" "SYSTEM-LIST" "LIST-LOCAL-SYSTEMS"
           "UNINSTALL" "UPDATE-CLIENT" "UPDATE-ALL-DISTS" "*QUICKLOAD-VERBOSE*"))

;;; The session's view of systems, from Lisp (CL-USER uses TINYCL). The session's API calls
;;; the internal functions behind these, so a user redefining one does not break them.
(export (list (intern "LIST-LOADED-SYSTEMS" "TINYCL") (intern "SYSTEM-LOADED-P" "TINYCL")
              (intern "SYSTEM-LOAD-TIME" "TINYCL") (intern "SYSTEM-DEPENDENCIES" "TINYCL")
              (intern "DESCRIBE-SYSTEM" "TINYCL") (intern "LIST-LOCAL-SYSTEMS" "TINYCL"))
        "TINYCL")

(defvar *system-report* nil "The last system report: (text . details), DETAILS a property list read by src/session.c.")

;; the features ASDF adds; .asd files test them (#+asdf3.1)
(dolist (f '(:asdf :asdf2 :asdf3 :asdf3.1 :asdf3.3))
  (pushnew f *features*))

;;; ==================================================================
;;; UIOP: the utilities .asd files and libraries use

(in-package "UIOP")

(defvar *uiop-version* "3.3.1")
(defvar *stdout* *standard-output*)
(defvar *stderr* *error-output*)

(defun find-symbol* (name package-designator &optional (error t))
  (let ((package (find-package package-designator)))
    (cond (package
           (multiple-value-bind (sym status) (find-symbol (string name) package)
             (cond (status (values sym status))
                   (error (error "There is no symbol ~A in package ~A." (string name) (package-name package)))
                   (t (values nil nil)))))
          (error (error "There is no package ~A." package-designator))
          (t (values nil nil)))))

(defun symbol-call (package name &rest args)
  (apply (find-symbol* name package) args))

(defun featurep (x &optional (*features* *features*))
  (cond ((atom x) (and (member x *features*) t))
        ((eq :not (car x)) (not (featurep (cadr x))))
        ((eq :or (car x)) (some #'featurep (cdr x)))
        ((eq :and (car x)) (every #'featurep (cdr x)))
        (t (error "Malformed feature specification ~S" x))))

(defun getenv (name) (tinycl:posix-getenv name))
(defun getcwd () *default-pathname-defaults*)
(defun os-unix-p () t)
(defun os-windows-p () nil)
(defun os-macosx-p () nil)
(defun implementation-type () :tinycl)
(defun operating-system () :linux)
(defun lisp-version-string () (lisp-implementation-version))

(defun ensure-list (x) (if (listp x) x (list x)))
(defun emptyp (x) (or (null x) (and (typep x 'sequence) (zerop (length x)))))
(defun strcat (&rest strings) (apply #'concatenate 'string strings))
(defun first-char (s) (and (stringp s) (plusp (length s)) (char s 0)))
(defun last-char (s) (and (stringp s) (plusp (length s)) (char s (1- (length s)))))
(defun string-prefix-p (prefix string)
  (let ((x (string prefix)) (y (string string)))
    (and (<= (length x) (length y)) (string= x y :end2 (length x)))))
(defun string-suffix-p (string suffix)
  (let ((x (string string)) (y (string suffix)))
    (and (<= (length y) (length x)) (string= y x :start2 (- (length x) (length y))))))
(defun string-enclosed-p (prefix string suffix)
  (and (string-prefix-p prefix string) (string-suffix-p string suffix)))
(defun stripln (s)
  (let ((n (length s)))
    (cond ((and (>= n 2) (string= (subseq s (- n 2)) (coerce '(#\Return #\Newline) 'string)))
           (values (subseq s 0 (- n 2)) (subseq s (- n 2))))
          ((and (>= n 1) (member (char s (1- n)) '(#\Newline #\Return)))
           (values (subseq s 0 (1- n)) (subseq s (1- n))))
          (t (values s nil)))))

(defun split-string (string &key max (separator '(#\Space #\Tab)))
  ;; as UIOP: with MAX, the first piece holds the rest of the string
  (let ((seps (if (characterp separator) (list separator) (coerce separator 'list)))
        (pieces nil) (end (length string)) (count 0))
    (loop for i from (1- (length string)) downto 0
          do (when (and (member (char string i) seps) (or (null max) (< (1+ count) max)))
               (push (subseq string (1+ i) end) pieces)
               (incf count)
               (setq end i)))
    (cons (subseq string 0 end) pieces)))

(defmacro if-let (bindings then &optional else)
  (let ((bindings (if (and (consp bindings) (symbolp (car bindings))) (list bindings) bindings)))
    `(let ,bindings
       (if (and ,@(mapcar #'car bindings)) ,then ,else))))

(defmacro while-collecting ((&rest collectors) &body body)
  (let ((vars (mapcar #'(lambda (c) (gensym (symbol-name c))) collectors)))
    `(let ,(mapcar #'(lambda (v) (list v nil)) vars)
       (flet ,(mapcar #'(lambda (c v) `(,c (x) (push x ,v) x)) collectors vars)
         ,@body)
       (values ,@(mapcar #'(lambda (v) `(reverse ,v)) vars)))))

(defmacro with-upgradability ((&optional) &body body) `(progn ,@body))

(defmacro with-muffled-conditions ((conditions) &body body)
  `(handler-bind ((,conditions #'muffle-warning)) ,@body))
(defun call-with-muffled-conditions (thunk conditions)
  (handler-bind ((warning #'(lambda (c) (when (typep c conditions) (muffle-warning c)))))
    (funcall thunk)))

(defun ensure-gethash (key table default)
  (multiple-value-bind (v found) (gethash key table)
    (if found (values v t)
        (values (setf (gethash key table) (if (functionp default) (funcall default) default)) nil))))
(defun list-to-hash-set (list &aux (h (make-hash-table :test 'equal)))
  (dolist (x list h) (setf (gethash x h) t)))
(defun remove-plist-key (key plist)
  (loop for (k v) on plist by #'cddr unless (eq k key) append (list k v)))
(defun remove-plist-keys (keys plist)
  (loop for (k v) on plist by #'cddr unless (member k keys) append (list k v)))
(defun frmt (control &rest args) (apply #'format nil control args))
(defun standard-case-symbol-name (name) (string-upcase (string name)))
(defun find-standard-case-symbol (name package)
  (find-symbol* (standard-case-symbol-name name) package))
(defun coerce-class (class &key (package :asdf) (super t) (error 'error))
  (declare (ignore super))
  (let ((c (cond ((typep class 'class) class)
                 ((and (symbolp class) (find-class class nil)))
                 ((or (symbolp class) (stringp class))
                  (let ((s (find-symbol (string-upcase (string class)) package)))
                    (and s (find-class s nil)))))))
    (or c (and error (error "Can't coerce ~S to a class." class)))))

(define-condition not-implemented-error (error)
  ((functionality :initarg :functionality :initform nil))
  (:report (lambda (c s) (format s "Not implemented in tinycl: ~A" (slot-value c 'functionality)))))
(define-condition parameter-error (error)
  ((functionality :initarg :functionality :initform nil)
   (format-control :initarg :format-control :initform "")
   (format-arguments :initarg :format-arguments :initform nil))
  (:report (lambda (c s) (apply #'format s (slot-value c 'format-control) (slot-value c 'format-arguments)))))

(defun run-program (command &rest keys)
  (declare (ignore keys))
  (error 'not-implemented-error :functionality (format nil "UIOP:RUN-PROGRAM (~S): tinycl runs no subprocesses" command)))
(defun quit (&optional (code 0) (finish-output t))
  (declare (ignore finish-output))
  (tinycl:exit :code code))
(defun die (code format &rest arguments)
  (format *error-output* "~&~?~&" format arguments)
  (quit code))

;;; Versions: strings of dot-separated non-negative integers

(defun parse-version (version-string &optional on-error)
  (declare (ignore on-error))
  (when (and (stringp version-string) (plusp (length version-string))
             (every #'(lambda (c) (or (digit-char-p c) (char= c #\.))) version-string)
             (char/= (char version-string 0) #\.)
             (char/= (char version-string (1- (length version-string))) #\.)
             (not (search ".." version-string)))
    (mapcar #'parse-integer (split-string version-string :separator ".") )))

(defun unparse-version (list) (format nil "~{~D~^.~}" list))

(defun %version-list< (a b)
  (cond ((null b) nil)
        ((null a) t)
        ((< (car a) (car b)) t)
        ((> (car a) (car b)) nil)
        (t (%version-list< (cdr a) (cdr b)))))

(defun version< (version1 version2)
  (let ((a (parse-version version1)) (b (parse-version version2)))
    (and a b (%version-list< a b))))
(defun version<= (version1 version2)
  (not (version< version2 version1)))
(defun version-compatible-p (provided-version required-version)
  (let ((a (parse-version provided-version)) (b (parse-version required-version)))
    (and a b (not (%version-list< a b)))))

;;; Files

(defun slurp-stream-string (stream &key (element-type 'character))
  (declare (ignore element-type))
  (with-output-to-string (out)
    (loop for line = (read-line stream nil nil)
          for first = t then nil
          while line
          do (unless first (terpri out)) (write-string line out))))
(defun slurp-stream-lines (stream &key count)
  (loop for i from 0
        for line = (and (or (null count) (< i count)) (read-line stream nil nil))
        while line collect line))

(defmacro with-input-file ((var pathname &rest keys) &body body)
  `(with-open-file (,var ,pathname :direction :input ,@keys) ,@body))

(defun read-file-string (file &rest keys)
  (declare (ignore keys))
  (with-open-file (s file) (slurp-stream-string s)))
(defun read-file-lines (file &rest keys)
  (declare (ignore keys))
  (with-open-file (s file) (slurp-stream-lines s)))
(defun read-file-line (file &key (at 0))
  (nth at (read-file-lines file)))
(defun read-file-forms (file &key count)
  (with-open-file (s file)
    (let ((eof '#:eof))
      (loop for i from 0
            for form = (if (and count (>= i count)) eof (read s nil eof))
            until (eq form eof) collect form))))
(defun read-file-form (file &key (at 0))
  ;; AT: an index, or a list of indices into nested forms
  (with-open-file (s file)
    (let ((*read-eval* nil) (eof '#:eof) (first (if (consp at) (car at) at)) (form nil))
      (dotimes (i (1+ first))
        (setq form (read s nil eof))
        (when (eq form eof) (error "~A has fewer than ~D forms." (namestring file) (1+ first))))
      (dolist (j (if (consp at) (cdr at) nil) form)
        (setq form (nth j form))))))

;;; Pathnames, as UIOP reads them: unix namestrings, directories ending in /

(defun directory-pathname-p (pathname)
  (let ((p (pathname pathname)))
    (and (null (pathname-name p)) (null (pathname-type p)))))
(defun file-pathname-p (pathname)
  (and pathname (not (directory-pathname-p pathname))))
(defun absolute-pathname-p (pathname)
  (and pathname (eq :absolute (car (pathname-directory (pathname pathname))))))
(defun relative-pathname-p (pathname)
  (and pathname (not (absolute-pathname-p pathname))))

(defun ensure-directory-pathname (pathspec &optional on-error)
  (declare (ignore on-error))
  (let ((p (pathname pathspec)))
    (if (directory-pathname-p p)
        p
        (make-pathname :directory (append (or (pathname-directory p) (list :relative))
                                          (list (file-namestring p)))
                       :name nil :type nil :version nil :defaults p))))

(defun pathname-directory-pathname (pathname)
  (and pathname (make-pathname :name nil :type nil :version nil :defaults (pathname pathname))))
(defun pathname-parent-directory-pathname (pathname)
  (and pathname
       (let ((dir (pathname-directory (pathname pathname))))
         (make-pathname :name nil :type nil :version nil
                        :directory (if (cdr dir) (butlast dir) dir) :defaults (pathname pathname)))))

(defun %split-unix (string)
  ;; "a/b/c" -> ("a" "b" "c"), absolute-p
  (let ((parts (split-string string :separator "/")))
    (values (remove "" parts :test #'string=) (and (plusp (length string)) (char= (char string 0) #\/)))))

(defun %dir-part (name)
  (cond ((string= name "..") :back) ((string= name "*") :wild) ((string= name "**") :wild-inferiors) (t name)))

(defun parse-unix-namestring (name &key type defaults dot-dot want-directory ensure-directory
                                        want-absolute want-relative (want-file t))
  ;; a string is split on "/": the last part is the file name (with TYPE, the whole last part is
  ;; the name; without, the type follows its last dot), or a directory when it ends in "/"
  (declare (ignore dot-dot want-absolute want-relative want-file))
  (cond ((null name) nil)
        ((pathnamep name) name)
        ((not (stringp name)) (error "Not a unix namestring: ~S" name))
        (t
         (multiple-value-bind (parts absolute) (%split-unix name)
           (let* ((dirp (or want-directory ensure-directory (string= name "")
                            (char= (char name (1- (length name))) #\/)))
                  (dirs (remove "." (if dirp parts (butlast parts)) :test #'string=))
                  (file (if dirp nil (car (last parts))))
                  (directory (if (or dirs absolute)
                                 (cons (if absolute :absolute :relative) (mapcar #'%dir-part dirs))
                                 nil))
                  (p (cond ((null file) (make-pathname :directory directory :name nil :type nil))
                           ((eq type :directory)
                            (make-pathname :directory (append (or directory (list :relative)) (list file))))
                           (type (make-pathname :directory directory :name file :type type))
                           (t (let ((dot (position #\. file :from-end t)))
                                (if (and dot (plusp dot))
                                    (make-pathname :directory directory :name (subseq file 0 dot)
                                                   :type (subseq file (1+ dot)))
                                    (make-pathname :directory directory :name file)))))))
             (if defaults (merge-pathnames p defaults) p))))))

(defun subpathname (pathname subpath &key type)
  (let ((sub (if (pathnamep subpath) subpath (parse-unix-namestring subpath :type type))))
    (merge-pathnames sub (pathname-directory-pathname (ensure-pathname pathname)))))
(defun subpathname* (pathname subpath &key type)
  (and pathname (subpathname (ensure-directory-pathname pathname) subpath :type type)))
(defun merge-pathnames* (specified &optional (defaults *default-pathname-defaults*))
  (merge-pathnames specified defaults))
(defun ensure-pathname (thing &rest keys)
  (declare (ignore keys))
  (cond ((null thing) nil)
        ((pathnamep thing) thing)
        ((stringp thing) (parse-unix-namestring thing))
        (t (pathname thing))))
(defun native-namestring (pathname) (and pathname (namestring pathname)))
(defun unix-namestring (pathname) (and pathname (namestring pathname)))
(defun parse-native-namestring (string &rest keys)
  (declare (ignore keys))
  (and string (parse-namestring string)))

(defun probe-file* (pathname &key truename)
  (declare (ignore truename))
  (and pathname (ignore-errors (probe-file pathname))))
(defun file-exists-p (pathname)
  (let ((p (probe-file* pathname))) (and p (file-pathname-p p) p)))
(defun directory-exists-p (pathname)
  (let ((p (probe-file* (ensure-directory-pathname pathname)))) (and p (directory-pathname-p p) p)))
(defun directory-files (directory &optional (pattern (make-pathname :name :wild :type :wild)))
  (remove-if #'directory-pathname-p
             (ignore-errors (directory (merge-pathnames pattern (ensure-directory-pathname directory))))))
(defun subdirectories (directory)
  (ignore-errors (directory (merge-pathnames (make-pathname :directory '(:relative :wild))
                                             (ensure-directory-pathname directory)))))
(defun delete-file-if-exists (pathname)
  (when (and pathname (probe-file pathname)) (delete-file pathname)))

;;; UIOP:DEFINE-PACKAGE: DEFPACKAGE plus :MIX, :REEXPORT, :USE-REEXPORT, :RECYCLE

(defun %package-names (designators) (mapcar #'(lambda (d) (if (packagep d) (package-name d) (string d))) designators))

(defun %reexport (package from)
  (do-external-symbols (sym (find-package from))
    (multiple-value-bind (s status) (find-symbol (symbol-name sym) package)
      (when (and status (eq s sym)) (export (list sym) package)))))

(defmacro define-package (package &rest clauses)
  (let ((std nil) (mix nil) (reexport nil) (use nil) (use-p nil))
    (dolist (clause clauses)
      (case (car clause)
        (:mix (setq mix (append mix (cdr clause))))
        (:reexport (setq reexport (append reexport (cdr clause))))
        (:use-reexport (setq use (append use (cdr clause)) use-p t reexport (append reexport (cdr clause))))
        (:mix-reexport (setq mix (append mix (cdr clause)) reexport (append reexport (cdr clause))))
        ((:recycle :unintern) nil)
        (:use (setq use (append use (cdr clause)) use-p t))
        (t (push clause std))))
    (let ((mix-names (%package-names mix)))
      `(progn
         (defpackage ,package
           (:use ,@(if (or use-p mix) use '("COMMON-LISP")))
           ,@(reverse std))
         (%mix ',(string package) ',mix-names)
         ,@(if reexport `((dolist (p ',(%package-names reexport)) (%reexport ',(string package) p))))
         (find-package ',(string package))))))

(defmacro define-package* (package &rest clauses) `(define-package ,package ,@clauses))

(defun %mix (package mixes)
  ;; import the external symbols of each package, earlier ones winning conflicts
  (let ((p (find-package package)))
    (dolist (m mixes)
      (let ((from (find-package m)))
        (when from
          (do-external-symbols (sym from)
            (multiple-value-bind (s status) (find-symbol (symbol-name sym) p)
              (cond ((null status) (import (list sym) p))
                    ((eq s sym))
                    ((eq status :inherited) (shadowing-import (list sym) p))))))))))

;;; ==================================================================
;;; ASDF

(in-package "ASDF")

(defvar *asdf-version* "3.3.1")
(defun asdf-version () *asdf-version*)
(defun upgrade-asdf () nil)
(defun apply-output-translations (path) path)
(defvar *asdf-verbose* nil)
(defvar *verbose-out* nil)
(defvar *compile-file-warnings-behaviour* :warn)
(defvar *compile-file-failure-behaviour* :warn)

(defvar *central-registry* nil
  "Directories (pathnames, strings, or forms evaluating to them) searched first for NAME.asd.")

;;; ------------------------------------------------------------------
;;; Names

(defun coerce-name (name)
  (cond ((stringp name) name)
        ((symbolp name) (string-downcase (symbol-name name)))
        ((typep name 'component) (component-name name))
        (t (error 'type-error :datum name :expected-type '(or string symbol component)))))

(defun primary-system-name (name)
  (let* ((n (coerce-name name)) (slash (position #\/ n)))
    (if slash (subseq n 0 slash) n)))

;;; ------------------------------------------------------------------
;;; Conditions: each names the system and the file

(define-condition system-definition-error (error) ())

(defun %describe-condition (c)
  ;; "TYPE: report" for a condition met while loading, the type as the session shows it
  (let ((type (if (fboundp 'sys::%condition-display-type) (sys::%condition-display-type c) (type-of c))))
    (format nil "~A: ~A"
            (let ((*package* (find-package "COMMON-LISP-USER"))) (prin1-to-string type))
            (or (ignore-errors (princ-to-string c)) "(the condition could not be printed)"))))

(defun %where (system)
  ;; " (system definition /path/x.asd)" or ""
  (let ((asd (and system (typep system 'system) (system-source-file system))))
    (if asd (format nil " (defined in ~A)" (namestring asd)) "")))

(defun %component-label (c)
  (if (typep c 'system)
      (format nil "system ~S" (component-name c))
      (format nil "component ~S of system ~S" (component-name c) (component-name (component-system c)))))

(define-condition missing-component (system-definition-error)
  ((requires :initform "(unnamed)" :reader missing-requires :initarg :requires)
   (parent :initform nil :reader missing-parent :initarg :parent)
   (detail :initform nil :reader missing-detail :initarg :detail))
  (:report (lambda (c s)
             (format s "Component ~S not found~@[ in ~A~]~@[: ~A~]"
                     (missing-requires c)
                     (and (missing-parent c) (%component-label (missing-parent c)))
                     (missing-detail c)))))

(define-condition missing-component-of-version (missing-component)
  ((version :initform nil :reader missing-version :initarg :version))
  (:report (lambda (c s)
             (format s "Component ~S does not match version ~A~@[ in ~A~]"
                     (missing-requires c) (missing-version c)
                     (and (missing-parent c) (%component-label (missing-parent c)))))))

(define-condition missing-dependency (missing-component)
  ((required-by :initarg :required-by :reader missing-required-by))
  (:report (lambda (c s)
             (let ((by (missing-required-by c)))
               (format s "Component ~S not found, required by ~A~A"
                       (missing-requires c) (%component-label by) (%where (component-system by)))))))

(define-condition missing-dependency-of-version (missing-dependency missing-component-of-version)
  ()
  (:report (lambda (c s)
             (let ((by (missing-required-by c)))
               (format s "Component ~S does not match version ~A (it has ~A), required by ~A~A"
                       (missing-requires c) (missing-version c)
                       (let ((found (ignore-errors (find-system (missing-requires c) nil))))
                         (or (and found (component-version found)) "no version"))
                       (%component-label by) (%where (component-system by)))))))

(define-condition circular-dependency (system-definition-error)
  ((components :initarg :components :reader circular-dependency-components))
  (:report (lambda (c s)
             (let ((cs (circular-dependency-components c)))
               (format s "Circular dependency: ~{~A~^ -> ~}~@[ (~{~A~^, ~})~]"
                       (mapcar #'(lambda (x) (if (typep x 'component) (%component-label x) x)) cs)
                       (remove-duplicates
                        (remove nil (mapcar #'(lambda (x)
                                                (and (typep x 'component)
                                                     (let ((f (system-source-file (component-system x))))
                                                       (and f (namestring f)))))
                                            cs))
                        :test #'equal))))))

(define-condition load-system-definition-error (system-definition-error)
  ((name :initarg :name :reader error-name)
   (pathname :initarg :pathname :reader error-pathname)
   (condition :initarg :condition :reader error-condition))
  (:report (lambda (c s)
             (format s "Error while loading the definition of system ~S from ~A: ~A"
                     (error-name c) (namestring (error-pathname c))
                     (%describe-condition (error-condition c))))))

(define-condition operation-error (error)
  ((component :reader error-component :initarg :component)
   (operation :reader error-operation :initarg :operation))
  (:report (lambda (c s)
             (format s "~A failed on ~A" (type-of (error-operation c)) (%component-label (error-component c))))))

(define-condition compile-error (operation-error) ())
(define-condition compile-failed (compile-error) ())
(define-condition compile-warned (compile-error) ())

(define-condition component-load-error (operation-error)
  ((condition :initarg :condition :reader error-condition)
   (file :initarg :file :initform nil :reader error-file))
  (:report (lambda (c s)
             (let ((comp (error-component c)))
               (format s "Error while loading ~@[~A, ~]~A~A:~%  ~A"
                       (and (error-file c) (namestring (error-file c)))
                       (%component-label comp) (%where (component-system comp))
                       (%describe-condition (error-condition c)))))))

;;; ------------------------------------------------------------------
;;; Components

(defclass component ()
  ((name :initarg :name :reader component-name)
   (version :initarg :version :initform nil :accessor component-version)
   (description :initarg :description :initform nil :accessor component-description)
   (long-description :initarg :long-description :initform nil :accessor component-long-description)
   (parent :initarg :parent :initform nil :reader component-parent)
   (relative-pathname :initarg :pathname :initform nil)
   (absolute-pathname :initform nil)
   (sideway-dependencies :initarg :depends-on :initform nil :accessor component-sideway-dependencies)
   (if-feature :initarg :if-feature :initform nil :reader component-if-feature)
   (in-order-to :initform nil :accessor component-in-order-to)
   (properties :initform nil :accessor component-properties)))

(defclass child-component (component) ())
(defclass file-component (child-component)
  ((type :initarg :type :initform nil)))
(defclass source-file (file-component) ())
(defclass cl-source-file (source-file) ())
(defclass cl-source-file.cl (cl-source-file) ())
(defclass cl-source-file.lsp (cl-source-file) ())
(defclass c-source-file (source-file) ())
(defclass java-source-file (source-file) ())
(defclass static-file (source-file) ())
(defclass doc-file (static-file) ())
(defclass html-file (doc-file) ())

(defclass parent-component (component)
  ((children :initform nil :accessor component-children)
   (default-component-class :initform nil :accessor module-default-component-class)
   (serial :initform nil)))
(defclass module (child-component parent-component) ())

(defclass system (module)
  ((source-file :initform nil :accessor system-source-file)
   (source-directory :initform nil)
   (asd-date :initform nil)
   (author :initform nil :accessor system-author)
   (maintainer :initform nil :accessor system-maintainer)
   (licence :initform nil :accessor system-licence)
   (homepage :initform nil :accessor system-homepage)
   (mailto :initform nil :accessor system-mailto)
   (long-name :initform nil :accessor system-long-name)
   (source-control :initform nil :accessor system-source-control)
   (bug-tracker :initform nil :accessor system-bug-tracker)
   (depends-on :initform nil :accessor system-depends-on)
   (weakly-depends-on :initform nil :accessor system-weakly-depends-on)
   (defsystem-depends-on :initform nil :accessor system-defsystem-depends-on)
   (notes :initform nil :accessor %system-notes)))

(defun system-license (system) (system-licence system))
(defun system-description (system) (component-description system))
(defun system-long-description (system) (component-long-description system))
(defun module-components (module) (component-children module))

(defmethod print-object ((c component) stream)
  (print-unreadable-object (c stream :type t :identity nil)
    (if (or (typep c 'system) (null (component-parent c)))
        (prin1 (component-name c) stream)
        (format stream "~S ~S" (component-name (component-system c)) (component-name c)))))

(defun component-system (component)
  (loop for c = component then (component-parent c)
        when (null (component-parent c)) return c))

(defun component-property (component property)
  (cdr (assoc property (component-properties component) :test #'equal)))
(defun (setf component-property) (new component property)
  (let ((cell (assoc property (component-properties component) :test #'equal)))
    (if cell (setf (cdr cell) new) (push (cons property new) (component-properties component)))
    new))

(defun component-find-path (component)
  (reverse (loop for c = component then (component-parent c) while c collect (component-name c))))

(defgeneric source-file-type (component system))
(defmethod source-file-type ((c component) (s t)) nil)
(defmethod source-file-type ((c cl-source-file) (s t)) "lisp")
(defmethod source-file-type ((c cl-source-file.cl) (s t)) "cl")
(defmethod source-file-type ((c cl-source-file.lsp) (s t)) "lsp")
(defmethod source-file-type ((c c-source-file) (s t)) "c")
(defmethod source-file-type ((c java-source-file) (s t)) "java")
(defmethod source-file-type ((c html-file) (s t)) "html")

(defun %file-type (c)
  (or (slot-value c 'type) (source-file-type c (component-system c))))

(defun component-relative-pathname (component)
  ;; the pathname relative to the parent's directory: from :PATHNAME, or from the name
  (let ((given (slot-value component 'relative-pathname))
        (dirp (typep component 'parent-component)))
    (cond ((pathnamep given) given)
          ((stringp given)
           (parse-unix-namestring given :want-directory dirp
                                        :type (and (not dirp) (typep component 'file-component)
                                                   (not (find #\/ given :from-end t :start (max 0 (1- (length given)))))
                                                   (%given-file-type component given))))
          (dirp (parse-unix-namestring (component-name component) :want-directory t))
          (t (let ((name (component-name component))
                   (type (and (typep component 'file-component) (%file-type component))))
               (if (and (stringp type) (stringp name) (plusp (length name)) (not (find #\/ name)))
                   ;; the usual file component, "name" and its type: what PARSE-UNIX-NAMESTRING
                   ;; makes of it, without splitting the name
                   (make-pathname :directory nil :name name :type type)
                   (parse-unix-namestring name :type type)))))))

(defun %given-file-type (component given)
  ;; an explicit :PATHNAME "x.y" of a source file names the file itself
  (let ((slash (position #\/ given :from-end t)))
    (if (position #\. given :start (if slash (1+ slash) 0)) nil (%file-type component))))

(defun component-pathname (component)
  (or (slot-value component 'absolute-pathname)
      (setf (slot-value component 'absolute-pathname)
            (let ((parent (component-parent component)))
              (if parent
                  (merge-pathnames (component-relative-pathname component)
                                   (pathname-directory-pathname (component-pathname parent)))
                  ;; a system: its directory
                  (let ((dir (slot-value component 'source-directory)))
                    (if (slot-value component 'relative-pathname)
                        (merge-pathnames (component-relative-pathname component) dir)
                        dir)))))))

(defun system-source-directory (system)
  (let ((s (if (typep system 'system) system (find-system system))))
    (slot-value s 'source-directory)))

(defun system-relative-pathname (system name &key type)
  (subpathname (system-source-directory system) name :type type))

(defun find-component (base path)
  (cond ((null path) base)
        ((consp path) (find-component (find-component base (car path)) (cdr path)))
        ((null base) (find-system path nil))
        ((or (stringp base) (symbolp base)) (find-component (find-system base nil) path))
        ((typep base 'parent-component)
         (find (coerce-name path) (component-children base) :key #'component-name :test #'string=))
        (t nil)))

;;; ------------------------------------------------------------------
;;; Operations

(defclass operation () ())
(defclass downward-operation (operation) ())
(defclass upward-operation (operation) ())
(defclass sideway-operation (operation) ())
(defclass selfward-operation (operation) ())
(defclass non-propagating-operation (operation) ())
(defclass prepare-op (upward-operation sideway-operation) ())
(defclass load-op (downward-operation sideway-operation selfward-operation) ())
(defclass compile-op (downward-operation selfward-operation) ())
(defclass load-source-op (downward-operation selfward-operation) ())
(defclass prepare-source-op (upward-operation sideway-operation) ())
(defclass test-op (selfward-operation) ())

(defmethod print-object ((o operation) stream)
  (print-unreadable-object (o stream :type t :identity nil)))

(defun make-operation (operation-class &rest initargs)
  (if (typep operation-class 'operation)
      operation-class
      (apply #'make-instance (%operation-class operation-class) initargs)))

(defun %operation-class (designator)
  (let ((name (cond ((symbolp designator)
                     (or (find-symbol (symbol-name designator) "ASDF") designator))
                    ((stringp designator) (find-symbol (string-upcase designator) "ASDF"))
                    (t designator))))
    (if (and name (find-class name nil))
        name
        (error "~S does not name an operation." designator))))

(defgeneric perform (operation component))
(defgeneric operation-done-p (operation component))
(defgeneric explain (operation component))
(defgeneric input-files (operation component))
(defgeneric output-files (operation component))
(defgeneric component-depends-on (operation component))

(defmethod perform ((o operation) (c component)) nil)
(defmethod perform ((o load-op) (c cl-source-file)) (%load-source-component c))
(defmethod perform ((o load-source-op) (c cl-source-file)) (%load-source-component c))
;; as ASDF's convenience methods: the operation may be named by its class name
(defmethod perform ((o symbol) (c component)) (perform (make-operation o) c))
(defmethod operation-done-p ((o operation) (c component)) nil)
(defmethod explain ((o operation) (c component))
  (format *standard-output* "~&; ~A on ~A~%" (type-of o) (%component-label c)))
(defmethod input-files ((o operation) (c component))
  (if (typep c 'file-component) (list (component-pathname c)) nil))
(defmethod output-files ((o operation) (c component)) nil)
(defmethod component-depends-on ((o operation) (c component)) nil)

(defun perform-with-restarts (operation component)
  (perform operation component))

;;; ------------------------------------------------------------------
;;; DEFSYSTEM

(defvar *registered-systems* (make-hash-table :test 'equal)
  "System name -> system object, for every system defined (by .asd files or at the REPL).")

(defvar *asd-being-loaded* nil "The .asd files being loaded (their truenames), innermost first.")

(defmacro defsystem (name &body options)
  `(%define-system ',name ',options))

(defun %log (level control &rest args)
  ;; a message for the session's log (tcl_set_log_handler: a front end may pass it on)
  (when (fboundp 'sys::%session-log)
    (ignore-errors (sys::%session-log level (apply #'format nil control args)))))

(defun %note (system control &rest args)
  ;; a note about an option tinycl accepts but does not use: kept for DESCRIBE-SYSTEM and logged
  (let ((text (apply #'format nil control args)))
    (unless (member text (%system-notes system) :test #'string=)
      (setf (%system-notes system) (append (%system-notes system) (list text)))
      (format *error-output* "~&; note: system ~S: ~A~%" (component-name system) text)
      (%log :notice "system ~S: ~A" (component-name system) text))))

(defun %definition-error (system control &rest args)
  ;; while an .asd loads, LOAD-SYSTEM-DEFINITION-ERROR names the file
  (error 'simple-error
         :format-control "~?~A"
         :format-arguments (list control args (if *asd-being-loaded* "" (%where system)))))

(defun %check-plist (system where options)
  (unless (and (listp options) (evenp (length options))
               (loop for (k) on options by #'cddr always (keywordp k)))
    (%definition-error system "Malformed options in ~A: ~S (expected keyword/value pairs)" where options)))

(defun %system-class (designator system-name)
  (cond ((null designator) 'system)
        ((and (symbolp designator) (string= (symbol-name designator) "PACKAGE-INFERRED-SYSTEM"))
         (error "System ~S is a package-inferred system (:class :package-inferred-system): tinycl's loader does not support those~A"
                system-name (if *load-truename* (format nil " (defined in ~A)" (namestring *load-truename*)) "")))
        (t (let ((class (or (and (symbolp designator) (find-class designator nil))
                            (let ((s (find-symbol (string-upcase (string designator)) *package*)))
                              (and s (find-class s nil)))
                            (let ((s (find-symbol (string-upcase (string designator)) "ASDF")))
                              (and s (find-class s nil))))))
             (if (and class (subtypep (class-name class) 'system))
                 (class-name class)
                 (error "System ~S: ~S is not a system class~A" system-name designator
                        (if *load-truename* (format nil " (defined in ~A)" (namestring *load-truename*)) "")))))))

(defun %define-system (name options)
  (let* ((name (coerce-name name))
         (asd (and *load-truename* (probe-file *load-truename*)))
         (dir (pathname-directory-pathname (or asd (merge-pathnames *default-pathname-defaults*)))))
    (when (and asd (equal (pathname-type asd) "asd") (string/= (primary-system-name name) (pathname-name asd)))
      ;; ASDF allows it with a warning; finding such a system needs its .asd loaded first
      (format *error-output* "~&; note: system ~S is defined in ~A, whose name does not match~%"
              name (namestring asd))
      (%log :notice "system ~S is defined in ~A, whose name does not match" name (namestring asd)))
    (unless (and (listp options) (evenp (length options))
                 (loop for (k) on options by #'cddr always (keywordp k)))
      (error "Malformed options in the definition of system ~S: ~S (expected keyword/value pairs)~A"
             name options (if (and asd (not *asd-being-loaded*)) (format nil " (defined in ~A)" (namestring asd)) "")))
    (when (assoc name *builtin-systems* :test #'string=)
      ;; a built-in system stays the one used, when the .asd that also defines it on disk is
      ;; read for another of its systems (cl-fad.asd for "cl-fad/test")
      (return-from %define-system (find-system name)))
    (let ((dd (getf options :defsystem-depends-on)))
      (dolist (d (ensure-list dd)) (%load-defsystem-dependency d name asd)))
    (let ((system (make-instance (%system-class (getf options :class) name) :name name)))
      (setf (slot-value system 'source-file) asd
            (slot-value system 'source-directory) dir
            (slot-value system 'asd-date) (and asd (ignore-errors (file-write-date asd))))
      (%apply-options system options)
      ;; as in ASDF, a system's RELATIVE-PATHNAME slot holds its absolute directory once defined
      ;; (cxml reads it with SLOT-VALUE to find a file of its own)
      (setf (slot-value system 'relative-pathname) (component-pathname system))
      (register-system system)
      system)))

(defun register-system (system)
  (setf (gethash (component-name system) *registered-systems*) system))

(defun %load-defsystem-dependency (spec name asd)
  (let ((dep (%resolve-dependency-spec spec)))
    (when dep
      (handler-bind ((missing-component
                       #'(lambda (c)
                           (unless (typep c 'missing-dependency)
                             (error "System ~S needs ~S to be defined (:defsystem-depends-on), and it was not found~@[ (defined in ~A)~]"
                                    name (missing-requires c) (and asd (namestring asd)))))))
        (load-system (car dep))))))

(defun %apply-options (component options)
  (let ((system (component-system component)))
    (loop for (key value) on options by #'cddr
          do (case key
               (:version (setf (component-version component) (%normalize-version component value)))
               (:description (setf (component-description component) value))
               (:long-description (setf (component-long-description component) value))
               (:author (when (typep component 'system) (setf (system-author component) value)))
               (:maintainer (when (typep component 'system) (setf (system-maintainer component) value)))
               ((:licence :license) (when (typep component 'system) (setf (system-licence component) value)))
               (:homepage (when (typep component 'system) (setf (system-homepage component) value)))
               (:mailto (when (typep component 'system) (setf (system-mailto component) value)))
               (:long-name (when (typep component 'system) (setf (system-long-name component) value)))
               (:source-control (when (typep component 'system) (setf (system-source-control component) value)))
               (:bug-tracker (when (typep component 'system) (setf (system-bug-tracker component) value)))
               (:pathname (setf (slot-value component 'relative-pathname) value))
               (:depends-on
                (if (typep component 'system)
                    (setf (system-depends-on component) (append (system-depends-on component) value))
                    (setf (component-sideway-dependencies component)
                          (append (component-sideway-dependencies component) value))))
               (:weakly-depends-on (when (typep component 'system) (setf (system-weakly-depends-on component) value)))
               (:defsystem-depends-on (when (typep component 'system) (setf (system-defsystem-depends-on component) value)))
               (:if-feature (setf (slot-value component 'if-feature) value))
               (:type (when (typep component 'file-component) (setf (slot-value component 'type) value)))
               (:serial (when (typep component 'parent-component) (setf (slot-value component 'serial) value)))
               (:default-component-class
                (when (typep component 'parent-component) (setf (module-default-component-class component) value)))
               (:properties (setf (component-properties component) value))
               (:components nil)        ; after the other options (they may set the defaults)
               (:class nil)
               (:perform (%define-inline-perform component value))
               (:in-order-to (setf (component-in-order-to component) value))
               ((:around-compile :build-operation :build-pathname :entry-point :encoding :output-files
                 :explain :do-first :if-component-dep-fails :compile-check :name :static-files)
                (unless (eq key :name)
                  (%note system "option ~S ignored (tinycl loads source files)" key)))
               (t (%note system "unknown option ~S ignored" key))))
    (let ((components (getf options :components)))
      (when components
        (unless (typep component 'parent-component)
          (%definition-error system "~A has :components but is not a module" (%component-label component)))
        (unless (listp components)
          (%definition-error system "The :components of ~A must be a list of component specifications, not ~S"
                             (%component-label component) components))
        (%parse-children component components)))
    component))

(defun %normalize-version (component value)
  (let ((system (component-system component)))
    (flet ((relative (file) (subpathname (system-source-directory system) file)))
      (let ((v (cond ((stringp value) value)
                     ((null value) nil)
                     ((and (consp value) (eq (car value) :read-file-form))
                      (let ((form (read-file-form (relative (cadr value)) :at (or (getf (cddr value) :at) 0))))
                        (if (stringp form) form (princ-to-string form))))
                     ((and (consp value) (eq (car value) :read-file-line))
                      (read-file-line (relative (cadr value)) :at (or (getf (cddr value) :at) 0)))
                     ((symbolp value) (string-downcase (symbol-name value)))
                     (t (princ-to-string value)))))
        (when (and v (not (parse-version v)))
          (%note system "version ~S of ~A is not a valid version (dot-separated integers); kept as given"
                 v (%component-label component)))
        v))))

(defun %define-inline-perform (component spec)
  ;; :PERFORM (op [qualifier] (o c) body...) defines a method on PERFORM for this component
  (let* ((op (car spec))
         (rest (cdr spec))
         (qualifiers (loop while (and rest (not (listp (car rest)))) collect (pop rest)))
         (lambda-list (pop rest))
         (o (or (first lambda-list) (gensym "O")))
         (c (or (second lambda-list) (gensym "C"))))
    (unless (and (symbolp op) (ignore-errors (%operation-class op)) (listp lambda-list))
      (%definition-error (component-system component) "~A: malformed :perform ~S (expected (operation [qualifier] (o c) body...))"
                         (%component-label component) spec))
    (eval `(defmethod perform ,@qualifiers ((,o ,(%operation-class op)) (,c (eql ',component)))
             (declare (ignorable ,o ,c))
             ,@rest))))

(defun %find-component-class (type)
  ;; a component type (:file, cl-source-file, my-file-class...): the class named so in ASDF, in the
  ;; package the definition is read in, or by the symbol itself
  (cond ((typep type 'class) type)
        (t (let ((tname (if (symbolp type) (symbol-name type) (string-upcase (string type)))))
             (or (let ((s (find-symbol tname "ASDF"))) (and s (find-class s nil)))
                 (let ((s (find-symbol tname *package*))) (and s (find-class s nil)))
                 (and (symbolp type) (find-class type nil)))))))

(defun %component-class (type parent)
  (let ((tname (if (symbolp type) (symbol-name type) (string-upcase (string type))))
        (system (component-system parent)))
    (cond ((string= tname "FILE")
           (let ((default (loop for p = parent then (component-parent p)
                                while p
                                thereis (module-default-component-class p))))
             (if default
                 (let ((class (%find-component-class default)))
                   (if (and class (subtypep (class-name class) 'source-file))
                       (class-name class)
                       (%definition-error system "~A: :default-component-class ~S is not a source file class"
                                          (%component-label parent) default)))
                 'cl-source-file)))
          ((string= tname "MODULE") 'module)
          ((string= tname "SYSTEM")
           (%definition-error system "~A: a system cannot be a component" (%component-label parent)))
          (t (let ((class (%find-component-class type)))
               (if (and class (subtypep (class-name class) 'component) (not (subtypep (class-name class) 'system)))
                   (class-name class)
                   (%definition-error system "Don't recognize the component type ~S in ~A"
                                      type (%component-label parent))))))))

(defun %parse-children (parent specs)
  (let ((children nil) (previous nil) (system (component-system parent)))
    (dolist (spec specs)
      (unless (and (consp spec) (consp (cdr spec)))
        (%definition-error system "Malformed component ~S in ~A" spec (%component-label parent)))
      (let* ((class (%component-class (car spec) parent))
             (name (coerce-name (cadr spec)))
             (c (make-instance class :name name :parent parent)))
        (%check-plist system (%component-label c) (cddr spec))
        (when (find name children :key #'component-name :test #'string=)
          (%definition-error system "~A has two components named ~S" (%component-label parent) name))
        (%apply-options c (cddr spec))
        (when (and previous (slot-value parent 'serial))
          (setf (component-sideway-dependencies c)
                (append (component-sideway-dependencies c) (list (component-name previous)))))
        (setq previous c)
        (push c children)))
    (setf (component-children parent) (nreverse children))))

;;; ------------------------------------------------------------------
;;; The order in which a module's components load: each after its :depends-on siblings
;;; (and, in a :serial module, after the one before it), else in the order given.

(defun %sibling-dependency-name (spec)
  (cond ((or (stringp spec) (symbolp spec)) (coerce-name spec))
        ((and (consp spec) (eq (car spec) :feature)) (and (featurep (cadr spec)) (%sibling-dependency-name (caddr spec))))
        ((and (consp spec) (eq (car spec) :version)) (%sibling-dependency-name (cadr spec)))
        (t nil)))

(defun %enabled-p (component)
  (let ((f (component-if-feature component)))
    (or (null f) (featurep f))))

(defun %ordered-children (module)
  (let ((children (component-children module)) (done nil) (result nil))
    (labels ((visit (c path)
               (cond ((member c done))
                     ((member c path)
                      (error 'circular-dependency :components (reverse (cons c path))))
                     (t (dolist (d (component-sideway-dependencies c))
                          (let ((dname (%sibling-dependency-name d)))
                            (when dname
                              (let ((dep (find dname children :key #'component-name :test #'string=)))
                                (unless dep
                                  (error 'missing-dependency :requires dname :required-by c))
                                (visit dep (cons c path))))))
                        (push c done)
                        (push c result)))))
      (dolist (c children) (visit c nil))
      (nreverse result))))

(defun %load-plan-files (component)
  ;; the enabled components of a system or module to load, in order: (component . pathname) pairs
  (let ((out nil))
    (labels ((walk (c)
               (when (%enabled-p c)
                 (cond ((typep c 'parent-component)
                        (dolist (child (%ordered-children c)) (walk child)))
                       ((typep c 'static-file))
                       ((typep c 'cl-source-file) (push c out))
                       ((typep c 'source-file))   ; C and Java sources: nothing to load
                       (t (push c out))))))
      (walk component))
    (nreverse out)))

;;; ------------------------------------------------------------------
;;; Where systems are found, in order: *CENTRAL-REGISTRY*; the directories of CL_SOURCE_REGISTRY
;;; (colon-separated; a trailing // searches the tree below); the current directory; the
;;; per-user and Debian directories. Tree scans are bounded in directories, depth and time.

(defvar *scan-max-directories* 4000)
(defvar *scan-max-depth* 10)
(defvar *scan-max-seconds* 5)
(defvar *source-index* (make-hash-table :test 'equal)
  "Name of a primary system -> the .asd file found for it by the last scan.")
(defvar *source-scan* (list nil)
  "(truncated-p): whether the last scan stopped at a bound.")

(defun %home-directory (sub)
  (let ((home (user-homedir-pathname)))
    (and home (merge-pathnames (parse-unix-namestring sub :want-directory t) home))))

(defvar *source-registry-parameter* nil
  "The directories given to INITIALIZE-SOURCE-REGISTRY, ((directory . tree-p) ...), searched first.")

(defun %parse-source-registry-form (form)
  ;; (:source-registry (:tree "dir") (:directory "dir") :inherit-configuration ...) -> ((dir . tree-p) ...)
  (let ((out nil))
    (dolist (entry (if (consp form) (cdr form) nil))
      (when (and (consp entry) (symbolp (car entry))
                 (or (stringp (cadr entry)) (pathnamep (cadr entry))))
        (let ((kind (symbol-name (car entry))))
          (cond ((string= kind "TREE") (push (cons (cadr entry) t) out))
                ((string= kind "DIRECTORY") (push (cons (cadr entry) nil) out))))))
    (nreverse out)))

(defun %env-source-registry ()
  ;; CL_SOURCE_REGISTRY: "dir:dir//:..." or an ASDF (:source-registry ...) form
  ;; read past the environment allow list: the access policy makes these directories readable
  (let ((value (sys::%source-registry-variable)) (out nil))
    (when (and value (plusp (length value)))
      (if (char= (char value 0) #\()
          (setq out (reverse (%parse-source-registry-form
                              (ignore-errors (let ((*read-eval* nil) (*package* (find-package "ASDF")))
                                               (read-from-string value))))))
          (dolist (part (split-string value :separator ":"))
            (when (plusp (length part))
              (if (and (>= (length part) 2) (string= (subseq part (- (length part) 2)) "//"))
                  (push (cons (subseq part 0 (- (length part) 1)) t) out)
                  (push (cons part nil) out))))))
    (nreverse out)))

(defun %source-directories ()
  ;; ((directory-pathname . tree-p) ...) in search order, after the central registry
  (let ((entries
          (append *source-registry-parameter*
                  (%env-source-registry)
                  (list (cons *default-pathname-defaults* nil))
                  (mapcar #'(lambda (d) (cons d t))
                          (remove nil (list (%home-directory "common-lisp/")
                                            (%home-directory ".local/share/common-lisp/source/"))))
                  (mapcar #'(lambda (d) (cons d t))
                          (if (boundp 'ql:*local-project-directories*) (symbol-value 'ql:*local-project-directories*) nil))
                  (list (cons "/usr/share/common-lisp/systems/" nil)
                        (cons "/usr/share/common-lisp/source/" t)))))
    (remove nil (mapcar #'(lambda (e)
                            (let ((d (ignore-errors (ensure-directory-pathname (car e)))))
                              (and d (cons (merge-pathnames d) (cdr e)))))
                        entries))))

(defun %central-registry-directories ()
  (let ((out nil))
    (dolist (entry *central-registry*)
      (let ((d (cond ((or (stringp entry) (pathnamep entry)) entry)
                     (t (ignore-errors (eval entry))))))
        (when (or (stringp d) (pathnamep d))
          (push (merge-pathnames (ensure-directory-pathname d)) out))))
    (nreverse out)))

(defun %asd-files-in (directory)
  (sort (remove-if #'directory-pathname-p
                   (or (ignore-errors (directory (merge-pathnames (make-pathname :name :wild :type "asd") directory)))
                       nil))
        #'string< :key #'namestring))

(defun %skip-directory-p (dir)
  (let ((name (car (last (pathname-directory dir)))))
    (or (not (stringp name)) (zerop (length name)) (char= (char name 0) #\.)
        (member name '("_darcs" "CVS" "RCS" "_sgbak" "node_modules") :test #'string=))))

;;; A scan visits the roots in search order (the central registry's directories, then the source
;;; directories), each tree depth first in name order, and can stop after any directory and go on
;;; later: FIND-SYSTEM scans only as far as the first .asd of the name it looks for, and a later
;;; look-up continues from there. A scan is a simple vector:
;;;   #(roots stack count deadline tree seen truncated config)
;;; ROOTS the roots not begun, ((directory . tree-p) ...); STACK the directories of the current root
;;; still to visit, ((directory . depth) ...), next first; COUNT and DEADLINE the current root's
;;; bounds; TREE whether it is searched below; SEEN the directories visited (namestrings);
;;; CONFIG the roots it was made for.

(defun %scan-roots ()
  (append (mapcar #'(lambda (d) (cons d nil)) (%central-registry-directories))
          (%source-directories)))

(defun %scan-config (roots)
  (mapcar #'(lambda (e) (cons (namestring (car e)) (cdr e))) roots))

(defun %make-scan ()
  (let ((roots (%scan-roots)))
    (vector roots nil 0 0 nil (make-hash-table :test 'equal) nil (%scan-config roots))))

(defun %scan-step (scan function)
  ;; visit the next directory of SCAN, calling FUNCTION on each of its .asd files; NIL when the
  ;; scan is over. Each root has its own bounds (directories, depth, time), so that one huge tree
  ;; cannot hide the others.
  (loop
    (when (null (svref scan 1))
      (when (null (svref scan 0)) (return nil))
      (let ((root (pop (svref scan 0))))
        (when (probe-file* (car root))
          (setf (svref scan 1) (list (cons (car root) 0))
                (svref scan 2) 0
                (svref scan 3) (+ (get-internal-real-time) (* *scan-max-seconds* internal-time-units-per-second))
                (svref scan 4) (cdr root)))))
    (let ((next (pop (svref scan 1))))
      (when next
        (let* ((dir (car next)) (depth (cdr next)) (key (namestring dir)) (seen (svref scan 5)))
          (cond ((gethash key seen))
                ((or (>= (svref scan 2) *scan-max-directories*) (> (get-internal-real-time) (svref scan 3)))
                 ;; the root is over its bounds: the rest of it is not searched
                 (setf (svref scan 6) t (svref scan 1) nil))
                (t (setf (gethash key seen) t)
                   (incf (svref scan 2))
                   ;; one listing of the directory gives both its .asd files and its subdirectories
                   (multiple-value-bind (asds dirs) (%directory-listing dir key)
                     (dolist (f asds) (funcall function f))
                     (when (and (svref scan 4) (< depth *scan-max-depth*))
                       (let ((subs nil))
                         (dolist (sub dirs)
                           (unless (%skip-directory-p sub)
                             (push (cons sub (1+ depth)) subs)))
                         (setf (svref scan 1) (nreconc subs (svref scan 1))))))
                   (return t))))))))

;;; The listings a scan makes are kept across processes, in a file of the system cache's directory
;;; (source-registry.cache beside the compiled files): for each directory listed, its stamp
;;; (device, inode, modification and status-change times, sys:%directory-stamp) and the .asd files
;;; and subdirectories the listing gave. A later scan lists a directory again only when its stamp
;;; changed: adding, removing or renaming an entry changes its directory's times, so a new .asd,
;;; or a new directory holding one, is found as by a listing. A stamp less than a second old is not
;;; kept (a change within the clock's granularity could leave it as it is). NIL: no such file.
(defvar *source-registry-cache* t
  "True: the source registry's scan keeps its directory listings in the system cache's directory.")

(defvar *scan-listings* (list :unread nil nil)
  "(table changed-p used): TABLE namestring of a directory -> (stamp asd-namestrings
subdirectory-namestrings), read from the cache file when first needed (:UNREAD before); USED the
directories this process looked up, an EQUAL table (or NIL).")

(defvar *scan-listings-limit* 20000
  "The most listings the cache file keeps: past it, only those of the directories this process
looked up are written (the others may be of directories long gone).")

(defun %scan-listings-file ()
  (let ((root (and *source-registry-cache* (%system-cache-root))))
    (and root (merge-pathnames "source-registry.cache" root))))

(defun %scan-listings ()
  ;; the table of listings, read from the cache file the first time (empty without one: the
  ;; listings are then kept for this process only)
  (when (eq (first *scan-listings*) :unread)
    (setf (first *scan-listings*)
          (let ((file (ignore-errors (%scan-listings-file))) (table (make-hash-table :test 'equal)))
            (when file
              (let ((form (ignore-errors
                           (with-open-file (in file :if-does-not-exist nil)
                             (and in (with-standard-io-syntax
                                       (let ((*read-eval* nil)) (read in nil nil))))))))
                ;; (:tinycl-source-registry 1 (directory stamp asds subdirectories) ...); anything
                ;; else (another version, a damaged file) is an empty table, written again
                (when (and (consp form) (eq (first form) :tinycl-source-registry) (eql (second form) 1))
                  (dolist (e (cddr form))
                    (when (and (consp e) (stringp (first e)) (= (length e) 4)
                               (every #'listp (cdr e)) (every #'stringp (third e)) (every #'stringp (fourth e)))
                      (setf (gethash (first e) table) (cdr e))))))
              table))))
  (first *scan-listings*))

(defun %save-scan-listings ()
  ;; writes the listings back when a scan listed a directory anew: beside the file, then renamed
  (when (and (second *scan-listings*) (first *scan-listings*))
    (setf (second *scan-listings*) nil)
    (let ((table (first *scan-listings*)) (used (third *scan-listings*)))
      (when (> (hash-table-count table) *scan-listings-limit*)
        (let ((gone nil))
          (maphash #'(lambda (k v) (declare (ignore v)) (unless (and used (gethash k used)) (push k gone))) table)
          (dolist (k gone) (remhash k table)))))
    (ignore-errors
     (let* ((file (%scan-listings-file))
            (temp (make-pathname :type (format nil "cache-~D" (random 1000000000 (make-random-state t))) :defaults file))
            (entries nil)
            (written nil))
       (maphash #'(lambda (k v) (push (cons k v) entries)) (first *scan-listings*))
       (ensure-directories-exist file)
       (unwind-protect
            (progn
              (with-open-file (out temp :direction :output :if-exists :supersede)
                (with-standard-io-syntax
                  (let ((*print-readably* nil) (*print-pretty* nil))
                    (prin1 (list* :tinycl-source-registry 1 entries) out))))
              (rename-file temp file)
              (setq written t))
         (unless written (ignore-errors (delete-file temp))))))))

(defun %directory-listing (dir key)
  ;; -> (values asd-files subdirectories) of the directory DIR (namestring KEY), each sorted by
  ;; namestring: from the kept listings when the directory's stamp is the one kept, else listed
  (let ((table (%scan-listings)))
    (setf (gethash key (or (third *scan-listings*)
                           (setf (third *scan-listings*) (make-hash-table :test 'equal))))
          t)
    (multiple-value-bind (stamp settled) (if table (ignore-errors (sys::%directory-stamp dir)) (values nil nil))
      (let ((kept (and stamp (gethash key table))))
        (if (and kept (equal (first kept) stamp))
            ;; as a listing would: without the entries this session may not read (a listing kept
            ;; by a process with other access rules may hold a link out of the readable directories);
            ;; a session without file rules may read them all
            (let ((checked (sys::%access-checked-p)))
              (flet ((readable (names)
                       (let ((out nil))
                         (dolist (n names (nreverse out))
                           (let ((p (pathname n)))
                             (when (or (not checked) (ignore-errors (sys::%check-access p :input "DIRECTORY")))
                               (push p out)))))))
                (values (readable (second kept)) (readable (third kept)))))
            (let* ((entries (ignore-errors (directory (merge-pathnames (make-pathname :name :wild :type :wild) dir))))
                   (asds (sort (remove-if-not #'(lambda (e) (and (not (directory-pathname-p e))
                                                                  (equal (pathname-type e) "asd")))
                                              entries)
                               #'string< :key #'namestring))
                   (dirs (sort (remove-if-not #'directory-pathname-p entries) #'string< :key #'namestring)))
              ;; kept only when each name reads back as the same pathname
              (when (and stamp settled
                         (every #'(lambda (p) (equal (pathname (namestring p)) p)) asds)
                         (every #'(lambda (p) (equal (pathname (namestring p)) p)) dirs))
                (setf (gethash key table) (list stamp (mapcar #'namestring asds) (mapcar #'namestring dirs))
                      (second *scan-listings*) t))
              (values asds dirs)))))))

(defun %scan-directories (function)
  ;; call FUNCTION on every .asd file of the source directories, in search order
  (let ((scan (%make-scan)))
    (loop while (%scan-step scan function))
    (%save-scan-listings)
    (setf (car *source-scan*) (svref scan 6))
    (svref scan 6)))

(defvar *index-scan* (list nil) "Box: the scan that fills *SOURCE-INDEX*, or NIL.")

(defun %index-add (f)
  (let ((name (pathname-name f)))
    (unless (gethash name *source-index*)
      (setf (gethash name *source-index*) f))))

(defun %rescan ()
  ;; the whole index from a complete scan
  (clrhash *source-index*)
  (let ((scan (%make-scan)))
    (loop while (%scan-step scan #'%index-add))
    (setf (car *source-scan*) (svref scan 6)
          (car *index-scan*) scan))
  (%save-scan-listings)
  *source-index*)

(defun %index-find (primary &optional restart)
  ;; the .asd the search order finds first for PRIMARY, scanning only as far as needed: an index
  ;; entry made by the scan so far, else the scan goes on until it finds one. A scan begun for
  ;; other roots (the configuration changed), or RESTART, starts over. -> (values asd fresh-p):
  ;; FRESH-P when the scan that answered began in this call.
  (let ((scan (car *index-scan*)) (fresh nil))
    (when (or restart (null scan) (not (equal (svref scan 7) (%scan-config (%scan-roots)))))
      (clrhash *source-index*)
      (setq scan (%make-scan) fresh t)
      (setf (car *index-scan*) scan))
    (loop until (gethash primary *source-index*)
          while (%scan-step scan #'%index-add))
    (%save-scan-listings)
    (values (gethash primary *source-index*) fresh)))

(defun clear-source-registry ()
  ;; also forgets the kept listings: the next scan lists every directory and writes them anew
  (clrhash *source-index*)
  (setf (car *index-scan*) nil
        *scan-listings* (list (make-hash-table :test 'equal) nil nil))
  (values))
(defun initialize-source-registry (&optional parameter)
  ;; PARAMETER: NIL, or (:source-registry (:tree "dir") (:directory "dir") ...): directories
  ;; searched before the configured ones
  (setq *source-registry-parameter*
        (mapcar #'(lambda (e) (cons (merge-pathnames (ensure-directory-pathname (car e))) (cdr e)))
                (%parse-source-registry-form (if (stringp parameter)
                                                 (let ((*read-eval* nil)) (read-from-string parameter))
                                                 parameter))))
  (%rescan)
  (values))
(defun clear-configuration () (clear-source-registry))

(defun %locate-asd (primary)
  ;; the .asd file for the primary system PRIMARY, or NIL
  (or (dolist (d (%central-registry-directories))
        (let ((f (probe-file* (merge-pathnames (make-pathname :name primary :type "asd") d))))
          (when f (return f))))
      (multiple-value-bind (known fresh) (%index-find primary)
        (or (and known (probe-file* known))
            ;; not found, or its file is gone: unless the scan that said so began now, a scan from
            ;; the start (an .asd may have appeared where the last one had already looked)
            (and (not fresh)
                 (let ((f (%index-find primary t)))
                   (and f (probe-file* f))))))))

(defun locate-system (name)
  ;; as ASDF: (values found-p found-system pathname previous previous-time)
  (let* ((name (coerce-name name))
         (registered (or (gethash name *registered-systems*) (%ensure-builtin-system name)))
         (asd (or (and registered (system-source-file registered)) (%locate-asd (primary-system-name name)))))
    (values (and (or registered asd) t) registered asd nil nil)))

;;; ------------------------------------------------------------------
;;; Loading .asd files and finding systems

(defun load-asd (pathname &key name)
  ;; a file the access policy refuses is an ACCESS-DENIED, not a missing file
  (sys::%check-access pathname :input "LOAD-ASD")
  (let* ((truename (or (probe-file* pathname)
                       (error 'missing-component :requires (or name (pathname-name pathname))
                                                 :detail (format nil "the file ~A does not exist" (namestring pathname)))))
         (saved (sys::%hash-table-entries *registered-systems*))
         (capture (%begin-capture))
         (ok nil))
    (when (member truename *asd-being-loaded* :test #'equal)
      (error 'circular-dependency :components (list (or name (pathname-name truename)) (or name (pathname-name truename)))))
    (unwind-protect
         (let ((*asd-being-loaded* (cons truename *asd-being-loaded*)))
           (handler-bind ((error #'(lambda (c)
                                     (unless (typep c 'system-definition-error)
                                       (error 'load-system-definition-error
                                              :name (or name (pathname-name truename)) :pathname truename
                                              :condition c)))))
             (let ((*package* (find-package "ASDF-USER"))
                   (*readtable* *readtable*)
                   (*print-readably* nil))
               (load truename)))
           (setq ok t))
      (if ok
          (%commit-capture capture)
          ;; a definition file that failed defines nothing
          (progn (%release-capture capture)
                 (sys::%restore-hash-table *registered-systems* saved))))
    truename))

(defun %asd-changed-p (system)
  (let ((asd (system-source-file system)))
    (and asd
         (not (member asd *asd-being-loaded* :test #'equal))
         (let ((date (ignore-errors (file-write-date asd))))
           (or (null date) (null (slot-value system 'asd-date)) (> date (slot-value system 'asd-date)))))))

;;; Built-in systems (stdlib-lisp/layers.lisp): systems tinycl provides itself, found before any
;;; .asd on disk, as ASDF finds UIOP. Each is made the first time its name is looked up, so that
;;; the boot pays only for an entry in a list.
(defvar *builtin-systems* nil "((name version description loader-function depends-on options) ...); OPTIONS: :in-order-to, :test")

(defun %ensure-builtin-system (name)
  (let ((entry (and (not (gethash name *registered-systems*))
                    (assoc name *builtin-systems* :test #'string=))))
    (when entry
      (destructuring-bind (name version description loader &optional depends-on options) entry
        (let ((system (make-instance 'system :name name)))
          (setf (component-version system) version
                (component-description system) description
                (system-depends-on system) depends-on
                (component-in-order-to system) (getf options :in-order-to))
          ;; loading it runs the loader; the load is recorded as any other
          (eval `(defmethod perform ((o load-op) (c (eql ',system))) (funcall ',loader)))
          ;; a test system's TEST-OP, as its .asd on disk defines it
          (when (getf options :test)
            (eval `(defmethod perform ((o test-op) (c (eql ',system))) (funcall ',(getf options :test)))))
          (register-system system))))))

(defun find-system (name &optional (error-p t))
  (unless *image-pages-tried* (%use-image-pages))     ; before the search touches the image's pages
  (if (typep name 'system)
      name
      (let* ((name (coerce-name name))
             (registered (or (gethash name *registered-systems*)
                             (%ensure-builtin-system name))))
        (cond ((and registered (not (%asd-changed-p registered))) registered)
              ((and registered (not (probe-file* (system-source-file registered))))
               ;; its .asd is gone: the definition stays as it was read
               registered)
              (t
               (let ((asd (if registered
                              (system-source-file registered)
                              (and (not (member (primary-system-name name) *asd-being-loaded*
                                                :key #'pathname-name :test #'string=))
                                   (%locate-asd (primary-system-name name))))))
                 (when asd (load-asd asd :name name))
                 (or (gethash name *registered-systems*)
                     (and error-p (error 'missing-component :requires name)))))))))

(defun registered-system (name) (gethash (coerce-name name) *registered-systems*))
(defun system-registered-p (name)
  (let ((s (registered-system name))) (and s (list (slot-value s 'asd-date) s))))
(defun registered-systems ()
  (sort (loop for k being the hash-keys of *registered-systems* collect k) #'string<))
(defun map-systems (fn)
  (dolist (name (registered-systems)) (funcall fn (gethash name *registered-systems*))))

(defun clear-system (name)
  (let ((n (coerce-name name)))
    (remhash n *registered-systems*)
    (remhash n *image-systems*)
    (remhash n *session-systems*)
    nil))

(defun register-preloaded-system (name &rest keys &key version &allow-other-keys)
  (declare (ignore keys))
  (let ((system (make-instance 'system :name (coerce-name name))))
    (setf (component-version system) version)
    (register-system system)
    system))
(defun register-immutable-system (name &rest keys) (apply #'register-preloaded-system name keys))

;;; ------------------------------------------------------------------
;;; Provenance: what a load made, so that a plain reset keeps it (DESIGN.md section 7).
;;; The symbol and package state is extended in C (sys:%snapshot-commit); the Lisp registries
;;; that the session restores on reset (classes, EQL specializers) and the methods added to
;;; generic functions that existed before are kept here and put back after each reset.

(defvar *kept-registry-entries* (list nil)
  "Box: ((table . entries) ...): for each registry a load added to or changed, its entries to put
back after a reset, ((key . value) ...) newest first, one per key (EQ).")
(defvar *kept-registry-keys* (list nil)
  "Box: ((table . keys) ...): for each table of *KEPT-REGISTRY-ENTRIES*, an EQ table of the keys kept.")
(defvar *kept-methods* (list nil) "Box: ((generic-function . method) ...), newest first.")
(defvar *kept-generic-functions* (list nil) "Box: generic functions loads made, newest first.")

(defun %registry-tables ()
  (let ((tables (if (boundp 'sys::*session-registries*) (copy-list (symbol-value 'sys::*session-registries*)) nil)))
    (when (and (boundp 'sys::*eql-specializers*) (hash-table-p (symbol-value 'sys::*eql-specializers*)))
      (pushnew (symbol-value 'sys::*eql-specializers*) tables))
    tables))

(defun %generic-functions ()
  (if (and (boundp 'sys::*generic-functions*) (fboundp 'sys::generic-function-methods))
      (symbol-value 'sys::*generic-functions*)
      nil))

(defun %begin-capture ()
  ;; -> (snapshot-capture registry-marks (generic-functions . their-method-lists)). The list of
  ;; generic functions is kept itself: it only grows at its front (clos.lisp conses each new one
  ;; on), so the functions a load made are those before it. A method list is never changed in
  ;; place either (clos.lisp conses a method on or makes the list anew without one), so the list
  ;; itself is a function's state: no copy, and a function whose list is still EQ to it gained nothing.
  (let ((gfs (%generic-functions)))
    (list (if (fboundp 'sys::%snapshot-capture) (sys::%snapshot-capture) nil)
          (mapcar #'(lambda (table) (cons table (sys::%hash-table-mark table))) (%registry-tables))
          (cons gfs (mapcar #'sys::generic-function-methods gfs)))))

(defun %release-capture (capture)
  ;; the load failed: nothing of it is committed, and the snapshot stops watching for it
  (when (and (first capture) (fboundp 'sys::%snapshot-release))
    (sys::%snapshot-release (first capture))))

(defun %new-elements (now was)
  ;; the elements of the list NOW that the list WAS lacks, in NOW's order: those before WAS when NOW
  ;; was made by consing onto WAS (one walk), else each looked for
  (if (tailp was now)
      (ldiff now was)
      (remove-if #'(lambda (x) (member x was :test #'eq)) now)))

(defun %keep-registry-entries (table changes)
  ;; CHANGES ((key . value) ...), the entries the load added to TABLE or changed (fresh conses
  ;; from %HASH-TABLE-CHANGES, kept as they are), replace older kept entries of the same keys (EQ,
  ;; as %HASH-TABLE-CHANGES gives the table's own keys)
  (let ((kept (assoc table (car *kept-registry-entries*) :test #'eq))
        (keys (cdr (assoc table (car *kept-registry-keys*) :test #'eq))))
    (unless kept
      (setq kept (cons table nil)
            keys (make-hash-table :test 'eq :size (max 16 (length changes))))
      (push kept (car *kept-registry-entries*))
      (push (cons table keys) (car *kept-registry-keys*)))
    (when (sys::%hash-table-add-keys keys changes)
      ;; a key kept before (only a reload comes here): its older entry goes
      (let ((seen (make-hash-table :test 'eq)))
        (dolist (e changes) (setf (gethash (car e) seen) t))
        (setf (cdr kept) (remove-if #'(lambda (e) (gethash (car e) seen)) (cdr kept)))))
    (setf (cdr kept) (nconc changes (cdr kept)))))

(defun %commit-capture (capture)
  ;; -> the packages the load created
  (destructuring-bind (snap registries (old-gfs . old-methods)) capture
    (let ((created (if snap (sys::%snapshot-commit snap) nil)))
      (dolist (r registries)
        ;; the entries the load added or changed (found in C: a registry holds thousands of
        ;; entries, a load changes a few)
        (let ((changes (sys::%hash-table-changes (car r) (cdr r))))
          (when changes (%keep-registry-entries (car r) changes))))
      (let ((gfs (%generic-functions)))
        (flet ((keep-methods (gf was)
                 (let ((methods (sys::generic-function-methods gf)))
                   (unless (eq methods was)
                     (dolist (m (%new-elements methods was))
                       (push (cons gf m) (car *kept-methods*))))))
               (keep-function (gf)
                 (unless (member gf (car *kept-generic-functions*) :test #'eq)
                   (push gf (car *kept-generic-functions*)))))
          (if (tailp old-gfs gfs)
              (progn
                (loop for gf in old-gfs for was in old-methods do (keep-methods gf was))
                (dolist (gf (ldiff gfs old-gfs)) (keep-function gf)))
              ;; the list was made anew meanwhile: each function looked up
              (let ((before (make-hash-table :test 'eq)))
                (loop for gf in old-gfs for was in old-methods do (setf (gethash gf before) (list was)))
                (loop for gf in old-gfs for was in old-methods do (keep-methods gf was))
                (dolist (gf gfs)
                  (unless (gethash gf before) (keep-function gf)))))))
      created)))

(defun %reapply-kept-state ()
  (dolist (kept (car *kept-registry-entries*))
    (let ((table (car kept)))
      (dolist (e (reverse (cdr kept)))
        (setf (gethash (car e) table) (cdr e)))))
  (when (boundp 'sys::*generic-functions*)
    (dolist (gf (reverse (car *kept-generic-functions*)))
      (unless (member gf (symbol-value 'sys::*generic-functions*))
        (setf (symbol-value 'sys::*generic-functions*) (cons gf (symbol-value 'sys::*generic-functions*))))))
  (when (fboundp 'sys::generic-function-methods)
    (dolist (e (reverse (car *kept-methods*)))
      (unless (member (cdr e) (sys::generic-function-methods (car e)))
        (ignore-errors (add-method (car e) (cdr e)))))))

;;; ------------------------------------------------------------------
;;; The records. *IMAGE-SYSTEMS*: the systems whose code is in the image (kept by a plain reset).
;;; *SESSION-SYSTEMS*: the session's record of loads, cleared by every reset (DESIGN.md section 7).

(defclass system-record ()
  ((name :initarg :name :reader record-name)
   (version :initarg :version :reader record-version)
   (description :initarg :description :reader record-description)
   (author :initarg :author :reader record-author)
   (license :initarg :license :reader record-license)
   (asd :initarg :asd :reader record-asd)
   (dependencies :initarg :dependencies :reader record-dependencies)
   (transitive :initarg :transitive :reader record-transitive)
   (load-time :initarg :load-time :reader record-load-time)
   (elapsed :initarg :elapsed :reader record-elapsed)
   (packages :initarg :packages :reader record-packages)
   (definitions :initarg :definitions :reader record-definitions)
   (files :initarg :files :reader record-files)
   (order :initarg :order :reader record-order)))

(defvar *image-systems* (make-hash-table :test 'equal))
(defvar *session-systems* (make-hash-table :test 'equal) "Name -> (record . universal time recorded).")
(defvar *record-counter* (list 0))

(defun %days-to-civil (days)
  ;; days since 1970-01-01 -> year month day (proleptic Gregorian)
  (let* ((z (+ days 719468))
         (era (floor z 146097))
         (doe (- z (* era 146097)))
         (yoe (floor (- doe (floor doe 1460) (- (floor doe 36524)) (floor doe 146096)) 365))
         (y (+ yoe (* era 400)))
         (doy (- doe (- (+ (* 365 yoe) (floor yoe 4)) (floor yoe 100))))
         (mp (floor (+ (* 5 doy) 2) 153))
         (d (1+ (- doy (floor (+ (* 153 mp) 2) 5))))
         (m (if (< mp 10) (+ mp 3) (- mp 9))))
    (values (if (<= m 2) (1+ y) y) m d)))

(defun %iso-time (universal-time)
  ;; "2026-01-26T10:30:00Z"
  (multiple-value-bind (days secs) (floor (- universal-time 2208988800) 86400)
    (multiple-value-bind (y m d) (%days-to-civil days)
      (multiple-value-bind (h rest) (floor secs 3600)
        (multiple-value-bind (mi s) (floor rest 60)
          (format nil "~4,'0D-~2,'0D-~2,'0DT~2,'0D:~2,'0D:~2,'0DZ" y m d h mi s))))))

(defun %seconds (ms) (format nil "~,3F s" (/ ms 1000.0)))

(defun %resolve-dependency-spec (spec &optional system)
  ;; -> (name . required-version), NIL when a (:feature ...) is off, or (:require name)
  (cond ((and spec (or (stringp spec) (symbolp spec))) (cons (coerce-name spec) nil))
        ((and (consp spec) (eq (car spec) :version) (consp (cdr spec)))
         (cons (coerce-name (cadr spec)) (caddr spec)))
        ((and (consp spec) (eq (car spec) :feature) (consp (cdr spec)))
         (and (featurep (cadr spec)) (%resolve-dependency-spec (caddr spec) system)))
        ((and (consp spec) (eq (car spec) :require) (consp (cdr spec)))
         (list :require (coerce-name (cadr spec))))
        (t (error "Malformed dependency ~S~@[ of ~A~]~A" spec (and system (%component-label system))
                  (if system (%where system) "")))))

(defun %dependency-systems (system)
  ;; the systems SYSTEM depends on, found (their .asd files loaded); errors name SYSTEM and its .asd
  (let ((out nil))
    (dolist (spec (ensure-list (system-depends-on system)))
      (let ((dep (%resolve-dependency-spec spec system)))
        (cond ((null dep))
              ((eq (car dep) :require)
               (let ((found (find-system (cadr dep) nil)))
                 (cond (found (push found out))
                       ((member (cadr dep) *modules* :test #'string-equal))
                       (t (error 'missing-dependency :requires (cadr dep) :required-by system)))))
              (t (let ((found (find-system (car dep) nil)))
                   (unless found (error 'missing-dependency :requires (car dep) :required-by system))
                   (when (and (cdr dep) (not (version-satisfies found (cdr dep))))
                     (error 'missing-dependency-of-version :requires (car dep) :version (cdr dep)
                                                          :required-by system))
                   (push found out))))))
    (dolist (spec (ensure-list (system-weakly-depends-on system)))
      (let* ((dep (%resolve-dependency-spec spec system))
             (found (and dep (not (eq (car dep) :require)) (find-system (car dep) nil))))
        (when found (push found out))))
    (remove-duplicates (nreverse out) :from-end t)))

(defun version-satisfies (component version)
  (let ((v (if (typep component 'component) (component-version component) component)))
    (or (null version) (and v (version-compatible-p v version)))))

(defun %plan (root)
  ;; ROOT and the systems it needs, dependencies first
  (let ((order nil) (done nil))
    (labels ((visit (system path)
               (cond ((member system done))
                     ((member system path)
                      (error 'circular-dependency :components (reverse (cons system path))))
                     (t (dolist (dep (%dependency-systems system))
                          (visit dep (cons system path)))
                        (push system done)
                        (push system order)))))
      (visit root nil))
    (nreverse order)))

(defun %transitive-names (system)
  (let ((plan (ignore-errors (%plan system))))
    (mapcar #'component-name (remove system plan))))

(defvar *systems-being-loaded* nil "The systems whose files are being loaded, innermost first.")
(defvar *on-system-loaded* nil "Called with each record as a system finishes loading.")

(defun %progress (control &rest args)
  ;; the message is made only when the session has a progress handler to take it
  (when (and (fboundp 'sys::%session-progress) (sys::%session-progress nil))
    (ignore-errors (sys::%session-progress (apply #'format nil control args)))))

;;; The cache of compiled files (as ASDF's output translations): the compiled file of
;;; /dir/x.lisp is $XDG_CACHE_HOME/tinycl/<version>/dir/x.fasl (XDG_CACHE_HOME defaults to
;;; ~/.cache). It is used when it is newer than its source and was written by this build of tinycl;
;;; otherwise the source is compiled into it first. A cache that cannot be written or read (a
;;; read-only directory, or the file rules of a sandbox not allowing it) means loading the source,
;;; as does a file whose compilation failed. *SYSTEM-CACHE* NIL turns the cache off.

(defvar *system-cache* t "True: the system loader keeps compiled files in its cache and loads them.")

(defvar *system-cache-directory* nil
  "When set, the directory the cache keeps its compiled files in, instead of $XDG_CACHE_HOME/tinycl/<version>/.")

(defvar *system-cache-root-memo* (list nil)
  "Box: (base . root), the last root %SYSTEM-CACHE-LOCATION computed and what it was computed from.")

(defun %system-cache-root ()
  ;; the cache directory; the first time a session asks, the boot image's pages are mapped from there
  (unless *image-pages-tried* (%use-image-pages))
  (%system-cache-location))

(defun %system-cache-location ()
  ;; asked for each file loaded: the root is computed again only when what it comes from changed
  ;; (XDG_CACHE_HOME when absolute, else the home directory)
  (let ((xdg (getenv "XDG_CACHE_HOME")))
    (if *system-cache-directory*
        (return-from %system-cache-location (ensure-directory-pathname *system-cache-directory*)))
    (let* ((absolute (and xdg (plusp (length xdg)) (char= (char xdg 0) #\/)))
           (base (if absolute xdg (user-homedir-pathname)))
           (memo (car *system-cache-root-memo*)))
      (if (and memo (equal (car memo) base))
          (cdr memo)
          (let ((root (ignore-errors
                       (merge-pathnames (make-pathname :directory (list :relative "tinycl" (lisp-implementation-version)))
                                        (if absolute
                                            (pathname (if (char= (char xdg (1- (length xdg))) #\/) xdg (concatenate 'string xdg "/")))
                                            (merge-pathnames (make-pathname :directory '(:relative ".cache")) base))))))
            (setf (car *system-cache-root-memo*) (cons base root))
            root)))))

;;; The boot image's cold pages (docs/internals.md, "The boot image's cold pages mapped from the
;;; cache"): a plain start inflates none of them, but loading a system touches most, each costing
;;; a fault and an inflate. So the first time a session needs the cache directory (FIND-SYSTEM and
;;; LOAD-SYSTEM ask first), it has the runtime map them from a file there that holds them
;;; inflated, written by the first process that finds none valid (sys:%image-pages: the session's
;;; access rules decide whether it may read and write there, as for the compiled files).
;;; *IMAGE-PAGES* NIL turns it off (and so does TINYCL_IMAGE_PAGES=0 in the environment).
(defvar *image-pages* t
  "True: the system loader maps the boot image's pages from a file in its cache directory instead of inflating them.")

(defvar *image-pages-tried* nil "True once this session asked for the image's pages.")

(defun %use-image-pages ()
  (setq *image-pages-tried* t)
  (when *image-pages*
    ;; the pages touched until the call come one at a time (sys:%image-pages ends that)
    (let ((dir nil))
      (unwind-protect (progn (sys::%image-pages-soon) (setq dir (%image-pages-directory)))
        (sys::%image-pages dir)))))

(defun %image-pages-directory ()
  ;; %system-cache-location's directory as a namestring, made of strings where it can: the code of
  ;; the pathname functions and of IGNORE-ERRORS is itself in pages not yet inflated (about 30)
  (let ((xdg (getenv "XDG_CACHE_HOME")))
    (cond ((and (not *system-cache-directory*) xdg (plusp (length xdg)) (char= (char xdg 0) #\/))
           (concatenate 'string xdg (if (char= (char xdg (1- (length xdg))) #\/) "" "/")
                        "tinycl/" (lisp-implementation-version) "/"))
          (t (let ((root (%system-cache-location))) (and root (namestring root)))))))

(defun %system-cache-file (truename)
  ;; the compiled file for the source TRUENAME, or NIL when there is no usable cache
  (let ((root (and *system-cache* (%system-cache-root))))
    (when (and root (eq (car (pathname-directory truename)) :absolute))
      (merge-pathnames (make-pathname :directory (cons :relative (cdr (pathname-directory truename)))
                                      :name (pathname-name truename) :type "fasl")
                       root))))

(defvar *load-files* nil
  "While a system's files load: a table from each component to (truename . write-date), what the
loader found of its source before loading it (the truename when it checked that every file is
there, the date when it decided between the compiled file and the source).")

(defun %file-of (c)
  ;; C's entry in *LOAD-FILES*, made when missing (a fresh one outside a system's load)
  (if *load-files*
      (or (gethash c *load-files*) (setf (gethash c *load-files*) (list nil)))
      (list nil)))

(defun %load-cached-file (fasl source-date)
  ;; true when the compiled file FASL was loaded: it is as new as its source and this build's,
  ;; read and checked whole (one open) before anything of it runs. NIL when it is missing,
  ;; stale, damaged or foreign: nothing of it ran, and the loader compiles the source again
  (multiple-value-bind (items pending truename) (sys::%fasl-read fasl source-date)
    (when items
      (sys::%load-compiled-file (merge-pathnames fasl) (or truename (probe-file fasl)) *load-verbose* *load-print*
                                items pending)
      t)))

(defun %compile-into-cache (source fasl)
  ;; true when FASL was written without errors; never signals (a failure means loading the source)
  (handler-case
      (progn
        (sys::%check-access fasl :output "COMPILE-FILE")
        (ensure-directories-exist fasl)
        (multiple-value-bind (out warnings-p failure-p)
            (handler-bind ((warning #'muffle-warning))
              (compile-file source :output-file fasl))
          (declare (ignore warnings-p))
          (cond ((and out (not failure-p)) t)
                (t (ignore-errors (delete-file fasl)) nil))))
    (error () nil)))

(defun %load-source-component (c)
  ;; loading a source file stands for compiling it and loading the result, so the file is
  ;; also the one being compiled (code reads *COMPILE-FILE-TRUENAME* with #. to find its files)
  (let* ((file (component-pathname c))
         (known (%file-of c))
         (truename (or (car known) (probe-file file) file))
         (fasl (ignore-errors (%system-cache-file truename)))
         (*compile-file-pathname* file)
         (*compile-file-truename* truename))
    (cond ((not (and fasl (ignore-errors (sys::%check-access fasl :input "LOAD"))))
           (load file))
          ((%load-cached-file fasl (setf (cdr known) (ignore-errors (file-write-date truename)))))
          ((%compile-into-cache truename fasl) (load fasl))
          (t (load file)))))

(defun %perform-load (operation c)
  (let ((file (component-pathname c)))
    (handler-bind ((error #'(lambda (e)
                              (unless (typep e '(or system-definition-error operation-error))
                                (error 'component-load-error :component c :operation operation
                                                             :file file :condition e)))))
      (perform-with-restarts operation c)
      (%run-file-layers c))))

;;; File layers (stdlib-lisp/layers.lisp): for a library that loads on tinycl but takes a
;;; portable, slow path where it has a branch per implementation, tinycl's branch of a function
;;; is evaluated right after the file that defines the portable one, each time that file loads.
(defvar *file-layers* nil "((system-name file-name loader-function) ...)")

(defun %run-file-layers (c)
  (when (and *file-layers* (not (typep c 'system)))
    (let ((system-name (component-name (component-system c))))
      (dolist (entry *file-layers*)
        (when (and (string= (first entry) system-name) (string= (second entry) (component-name c)))
          (funcall (third entry)))))))

(defun %load-one-system (system)
  (let* ((name (component-name system))
         (files (%load-plan-files system))
         (operation (make-operation 'load-op))
         (found (make-hash-table :test 'eq)))
    ;; every file is there before anything loads (its truename kept for the load)
    (dolist (c files)
      (let* ((p (component-pathname c))
             (truename (probe-file* p)))
        (unless truename
          (error 'missing-component :requires (component-name c) :parent (component-parent c)
                                    :detail (format nil "the file ~A does not exist~A"
                                                    (namestring p) (%where system))))
        (setf (gethash c found) (list truename))))
    (when (member system *systems-being-loaded*)
      (error 'circular-dependency :components (reverse (cons system (ldiff *systems-being-loaded* (cdr (member system *systems-being-loaded*)))))))
    (%progress "Loading system ~A (~D file~:P)" name (length files))
    (let* ((start (get-internal-real-time))
           (capture (%begin-capture))
           (definitions (list nil))
           (ok nil))
      (unwind-protect
           (let* ((*systems-being-loaded* (cons system *systems-being-loaded*))
                  (*load-files* found)
                  (old-hook sys::*definition-hook*)
                  (sys::*definition-hook*
                    #'(lambda (kind def-name)
                        (push (cons kind def-name) (car definitions))
                        (when old-hook (funcall old-hook kind def-name)))))
             (dolist (c files)
               (%progress "Loading ~A: ~A" name (component-pathname c))
               (%perform-load operation c))
             (%perform-load operation system)
             (setq ok t))
        (unless ok
          ;; a failed load leaves no record of this system
          (%release-capture capture)
          (remhash name *image-systems*)
          (remhash name *session-systems*)))
      (let* ((created (%commit-capture capture))
             (elapsed (round (* 1000 (- (get-internal-real-time) start)) internal-time-units-per-second))
             (record (make-instance 'system-record
                                    :name name
                                    :version (component-version system)
                                    :description (component-description system)
                                    :author (system-author system)
                                    :license (system-licence system)
                                    :asd (system-source-file system)
                                    :dependencies (mapcar #'component-name (%dependency-systems system))
                                    :transitive (%transitive-names system)
                                    :load-time (get-universal-time)
                                    :elapsed elapsed
                                    :packages (sort (mapcar #'package-name created) #'string<)
                                    :definitions (reverse (car definitions))
                                    ;; each file's date as the load found it: a change since is newer
                                    :files (mapcar #'(lambda (c)
                                                       (let ((p (component-pathname c))
                                                             (date (cdr (gethash c found))))
                                                         (cons p (or date (ignore-errors (file-write-date p))))))
                                                   files)
                                    :order (incf (car *record-counter*)))))
        (setf (gethash name *image-systems*) record)
        (setf (gethash name *session-systems*) (cons record (get-universal-time)))
        (when *on-system-loaded* (funcall *on-system-loaded* record))
        (%log :info "loaded ~A (~A) in ~A" name (%version-text (record-version record)) (%seconds elapsed))
        record))))

(defun %stale-p (system record)
  ;; a file of SYSTEM changed since it was loaded, or its .asd did
  (or (loop for (p . date) in (record-files record)
            thereis (let ((now (ignore-errors (file-write-date p)))) (and now date (> now date))))
      (let ((asd (system-source-file system)) (date (slot-value system 'asd-date)))
        (and asd date (> date (record-load-time record))))
      (set-difference (mapcar #'component-pathname (%load-plan-files system))
                      (mapcar #'car (record-files record)) :test #'equal)))

(defun %forced-p (force system root)
  (cond ((null force) nil)
        ((eq force :all) t)
        ((listp force) (member (component-name system) (mapcar #'coerce-name force) :test #'string=))
        (t (eq system root))))

(defun %find-root (name quickload)
  (let ((n (coerce-name name)))
    (or (find-system n nil)
        (and (string/= n (string-downcase n)) (find-system (string-downcase n) nil))
        (if quickload
            (error 'ql:system-not-found :name n)
            (error 'missing-component :requires n)))))

(defun %operate-load (name &key force force-not quickload)
  ;; the whole load is one compilation unit, as in SBCL's ASDF: a function one file calls and a
  ;; later file defines is not undefined
  (with-compilation-unit () (%operate-load-1 name force force-not quickload)))

(defun %operate-load-1 (name force force-not quickload)
  ;; -> the report: ((system action record) ...) in load order; action is :loaded, :reloaded,
  ;;    :recorded (in the image before the last reset: recorded again) or :present
  (let* ((root (%find-root name quickload))
         (plan (%plan root))
         (loaded-now nil)
         (report nil)
         (force-not (mapcar #'coerce-name (ensure-list force-not))))
    (dolist (system plan)
      (let* ((sname (component-name system))
             (image (gethash sname *image-systems*))
             (deps (%dependency-systems system))
             (must (and (not (member sname force-not :test #'string=))
                        (or (null image)
                            (%forced-p force system root)
                            (some #'(lambda (d) (member d loaded-now)) deps)
                            (%stale-p system image)))))
        (cond (must
               (let ((record (%load-one-system system)))
                 (push system loaded-now)
                 (push (list system (if image :reloaded :loaded) record) report)))
              ((null image)
               (push (list system :present nil) report))
              ((null (gethash sname *session-systems*))
               (setf (gethash sname *session-systems*) (cons image (get-universal-time)))
               (push (list system :recorded image) report))
              (t (push (list system :present image) report)))))
    (nreverse report)))

;;; ------------------------------------------------------------------
;;; The operations

(defun load-system (system &rest keys &key force force-not verbose version &allow-other-keys)
  (declare (ignore keys verbose))
  (unless *image-pages-tried* (%use-image-pages))     ; before the load touches the image's pages
  (let ((s (if (typep system 'system) system (%find-root system nil))))
    (when (and version (not (version-satisfies s version)))
      (error 'missing-component-of-version :requires (component-name s) :version version))
    (%operate-load s :force force :force-not force-not)
    t))

(defun load-systems (&rest systems)
  (dolist (s systems) (load-system s))
  nil)

(defun compile-system (system &rest keys) (apply #'load-system system keys))
(defun require-system (system &rest keys) (apply #'load-system system :force-not nil keys))
(defun make (system &rest keys) (apply #'load-system system keys))

(defun component-loaded-p (component)
  (let ((name (coerce-name component)))
    (and (gethash name *image-systems*) t)))
(defun already-loaded-systems ()
  (sort (loop for k being the hash-keys of *image-systems* collect k) #'string<))

(defun test-system (system &rest keys &key force &allow-other-keys)
  (declare (ignore keys))
  (let ((s (if (typep system 'system) system (%find-root system nil))))
    (%operate-load s :force force)
    ;; :in-order-to ((test-op (test-op "x/tests") (load-op "y")))
    (dolist (entry (component-in-order-to s))
      (when (and (consp entry) (symbolp (car entry)) (string= (symbol-name (car entry)) "TEST-OP"))
        (dolist (dep (cdr entry))
          (let ((op (symbol-name (car dep))))
            (dolist (target (cdr dep))
              (cond ((string= op "TEST-OP") (test-system target))
                    ((member op '("LOAD-OP" "COMPILE-OP" "LOAD-SOURCE-OP") :test #'string=)
                     (load-system target))))))))
    (perform (make-operation 'test-op) s)
    t))

(defun operate (operation component &rest keys &key &allow-other-keys)
  (let* ((op (make-operation operation))
         (system (if (typep component 'component) (component-system component) (%find-root component nil))))
    (cond ((typep op 'test-op) (apply #'test-system system keys))
          ((typep op '(or load-op compile-op load-source-op prepare-op prepare-source-op))
           (apply #'load-system system keys))
          (t (perform op system)))
    (values op nil)))

(defun oos (operation component &rest keys) (apply #'operate operation component keys))

;;; ------------------------------------------------------------------
;;; Looking at systems without loading them: the local systems, described from their records or
;;; from their definitions

(defun %record-status (name)
  ;; -> :loaded, :image (loaded before the last reset, not recorded since) or :not-loaded
  (cond ((gethash name *session-systems*) :loaded)
        ((gethash name *image-systems*) :image)
        (t :not-loaded)))

(defun %peek-readtable ()
  ;; the standard syntax, except that #. reads its form without evaluating it
  (let ((rt (copy-readtable nil)))
    (set-dispatch-macro-character #\# #\. #'(lambda (stream char arg)
                                              (declare (ignore char arg))
                                              (let ((*read-suppress* t)) (read stream t nil t))
                                              nil)
                                  rt)
    rt))

(defun %peek-asd (asd)
  ;; the systems an .asd file defines and their versions, read without evaluating it:
  ;; ((name . version) ...). Symbols go to a scratch package deleted afterwards.
  (let* ((scratch (make-package (symbol-name (gensym "ASDF-PEEK-")) :use '("COMMON-LISP" "ASDF" "UIOP")))
         (out nil))
    (unwind-protect
         (ignore-errors
          (with-open-file (s asd)
            (let ((*package* scratch) (*readtable* (%peek-readtable)) (eof '#:eof))
              (loop for form = (handler-case (read s nil eof) (error () eof))
                    until (eq form eof)
                    do (when (and (consp form) (symbolp (car form))
                                  (string= (symbol-name (car form)) "DEFSYSTEM")
                                  (consp (cdr form)))
                         (let* ((name (ignore-errors (coerce-name (cadr form))))
                                (options (cddr form))
                                (v (and (listp options) (evenp (length options)) (getf options :version))))
                           (when name
                             (push (cons name
                                         (cond ((stringp v) v)
                                               ((and (consp v) (eq (car v) :read-file-form) (stringp (cadr v)))
                                                (let ((f (ignore-errors (read-file-form (subpathname asd (cadr v))))))
                                                  (and (stringp f) f)))
                                               (t nil)))
                                   out))))))))
      (delete-package scratch))
    (nreverse out)))

(defun %local-systems ()
  ;; every system that can be found: ((name version asd-path status) ...), sorted by name;
  ;; the first .asd found for a name wins, as in FIND-SYSTEM
  (let ((found (make-hash-table :test 'equal)) (result nil))
    (let ((truncated
            (%scan-directories
             #'(lambda (asd)
                 (let ((registered (gethash (pathname-name asd) *registered-systems*)))
                   (if (and registered (equal (system-source-file registered) asd))
                       (maphash #'(lambda (name s)
                                    (when (and (equal (system-source-file s) asd) (not (gethash name found)))
                                      (setf (gethash name found) (list name (component-version s) asd))))
                                *registered-systems*)
                       (dolist (e (or (%peek-asd asd) (list (cons (pathname-name asd) nil))))
                         (unless (gethash (car e) found)
                           (setf (gethash (car e) found) (list (car e) (cdr e) asd))))))))))
      (maphash #'(lambda (name s)
                   (unless (gethash name found)
                     (setf (gethash name found) (list name (component-version s) (system-source-file s)))))
               *registered-systems*)
      (maphash #'(lambda (name e)
                   (declare (ignore name))
                   (push (append e (list (%record-status (first e)))) result))
               found)
      (values (sort result #'string< :key #'first) truncated))))

(defun %system-info (name)
  ;; the system and its record: (values system record status); the system may be NIL when its
  ;; definition cannot be found any more
  (let* ((n (coerce-name name))
         (status (%record-status n))
         (record (or (car (gethash n *session-systems*)) (gethash n *image-systems*)))
         (system (find-system n nil)))
    (values system record status)))

(defun %components-summary (system)
  (let ((out nil))
    (labels ((walk (c prefix)
               (dolist (child (component-children c))
                 (let ((label (format nil "~A~A" prefix (component-name child))))
                   (cond ((typep child 'parent-component)
                          (push (format nil "~A (module ~S~:[~;, serial~])"
                                        (enough-namestring (component-pathname child) (system-source-directory system))
                                        (component-name child) (slot-value child 'serial))
                                out)
                          (walk child (format nil "~A/" label)))
                         (t (push (format nil "~A (~A~@[, if ~S~])"
                                          (enough-namestring (component-pathname child) (system-source-directory system))
                                          (string-downcase (symbol-name (type-of child)))
                                          (component-if-feature child))
                                  out)))))))
      (walk system ""))
    (nreverse out)))

;;; ------------------------------------------------------------------
;;; REQUIRE finds systems too (as SBCL's REQUIRE does with ASDF loaded)

(defvar *base-require* #'require)

(defun %require-system (module-name &optional pathnames)
  (let ((name (string module-name)))
    (if (or pathnames (member name *modules* :test #'string=))
        (funcall *base-require* module-name pathnames)
        (let ((system (or (find-system (string-downcase name) nil) (find-system name nil))))
          (if system
              (progn (load-system system)
                     (provide name)
                     (list name))
              (funcall *base-require* module-name pathnames))))))

(defun require (module-name &optional pathnames)
  "Load MODULE-NAME: from PATHNAMES, or as the system of that name when one is found."
  (%require-system module-name pathnames))

;;; ==================================================================
;;; QUICKLISP-CLIENT: QUICKLOAD through the same loader. tinycl has no network: "distributions"
;;; are the local source directories.

(in-package "QUICKLISP-CLIENT")

(defvar *quickload-verbose* nil)
(defun %default-local-project-directories ()
  (let ((home (user-homedir-pathname)))
    (if home (list (merge-pathnames (make-pathname :directory '(:relative "quicklisp" "local-projects")) home)) nil)))

(defvar *local-project-directories* (%default-local-project-directories))

;; The home directory is the running user's, not that of the build that wrote the boot image.
(defvar sys::*image-restart-functions* nil
  "Functions called with no arguments after the boot image is loaded, to recompute what depends on the machine.")
(push (lambda () (setf *local-project-directories* (%default-local-project-directories)))
      sys::*image-restart-functions*)

(define-condition system-not-found (error)
  ((name :initarg :name :reader system-not-found-name))
  (:report (lambda (c s)
             (format s "System ~S not found in any known distribution." (system-not-found-name c)))))

(defun quickload (systems &key verbose silent prompt explain &allow-other-keys)
  (declare (ignore prompt explain))
  (let ((list (if (listp systems) systems (list systems))))
    (dolist (s list)
      (let ((name (asdf:coerce-name s)))
        (unless silent
          (format t "~&To load ~S:~%  Load 1 ASDF system:~%    ~A~%; Loading ~S~%" name name name))
        (let ((report (asdf::%operate-load name :quickload t)))
          (when (or verbose *quickload-verbose*)
            (dolist (e report)
              (format t "~&; ~(~A~) ~A~%" (second e) (asdf:component-name (first e))))))
        (unless silent (format t "~&; Loaded ~S~%" name))))
    list))

(defun where-is-system (name)
  (let ((s (asdf:find-system name nil)))
    (and s (asdf:system-source-directory s))))

(defun register-local-projects () (asdf::%rescan) nil)

(defun list-local-systems ()
  (mapcar #'first (asdf::%local-systems)))
(defun system-list () (list-local-systems))

(defun system-apropos (term)
  (dolist (e (asdf::%local-systems))
    (when (search (string-downcase (string term)) (first e))
      (format t "~&~A~@[ ~A~]~%" (first e) (second e))))
  (values))

(defun uninstall (name)
  (declare (ignore name))
  (format t "~&tinycl has no Quicklisp installation: nothing to uninstall.~%")
  nil)
(defun update-client (&rest keys) (declare (ignore keys)) (format t "~&tinycl has no network: nothing to update.~%") nil)
(defun update-all-dists (&rest keys) (declare (ignore keys)) (format t "~&tinycl has no network: nothing to update.~%") nil)

;;; ==================================================================
;;; The session's view: the reports of the session's system calls (tcl_load_system and the others
;;; in include/tinycl.h), and the Lisp functions of TINYCL. Each report function sets
;;; SYS::*SYSTEM-REPORT* to (text . details): the text for people, and the same facts as a property
;;; list whose values are strings, integers, T/NIL and lists of those, which src/session.c turns
;;; into C structures.

(in-package "ASDF")

(defun %text (value)
  ;; a report field as text: NIL stays NIL; a pathname is its namestring, a symbol its name in lower case
  (cond ((null value) nil)
        ((stringp value) value)
        ((pathnamep value) (namestring value))
        ((symbolp value) (string-downcase (symbol-name value)))
        (t (princ-to-string value))))

(defun %texts (list) (mapcar #'%text list))

(defun %set-report (text details)
  (setq sys::*system-report* (cons text details))
  (values))

(defun %record-details (record)
  (and record
       (list :name (%text (record-name record))
             :version (%text (record-version record))
             :load-time (%iso-time (record-load-time record))
             :load-time-universal (record-load-time record)
             :elapsed-ms (record-elapsed record)
             :source-file (%text (record-asd record))
             :dependencies (%texts (record-dependencies record))
             :transitive-dependencies (%texts (record-transitive record))
             :packages (%texts (record-packages record))
             :definitions (length (record-definitions record)))))

(defun %version-text (v) (if v (format nil "version ~A" v) "no version"))

;;; load-system and quickload

(defun %load-report-text (name report quickload)
  (let* ((root-entry (car (last report)))
         (root (first root-entry))
         (action (second root-entry))
         (record (third root-entry))
         (deps (butlast report)))
    (with-output-to-string (out)
      (format out "Loading system: ~A~%" name)
      (when quickload (format out "To load ~S:~%  Load 1 ASDF system:~%    ~A~%" name (component-name root)))
      (when (some #'(lambda (e) (member (second e) '(:loaded :reloaded))) report)
        (format out "; Loading ~S~%" (component-name root)))
      (dolist (e report)
        (let ((r (third e)))
          (case (second e)
            ((:loaded :reloaded)
             (format out "; ~:[loaded~;reloaded~] ~A (~A) in ~A~%" (eq (second e) :reloaded)
                     (record-name r) (%version-text (record-version r)) (%seconds (record-elapsed r))))
            (:recorded
             (format out "; ~A (~A) was loaded in the image before the last reset (~A): recorded again without reloading~%"
                     (record-name r) (%version-text (record-version r)) (%iso-time (record-load-time r)))))))
      (format out "Loaded: ~A (~A) at ~A~A"
              (component-name root) (%version-text (and record (record-version record)))
              (if record (%iso-time (record-load-time record)) "?")
              (case action
                ((:loaded :reloaded) (format nil " in ~A" (%seconds (record-elapsed record))))
                (:recorded " (already in the image; recorded again)")
                (t " (already loaded; nothing to do, force reloads it)")))
      (let ((now (remove-if-not #'(lambda (e) (member (second e) '(:loaded :reloaded))) deps))
            (before (remove-if #'(lambda (e) (member (second e) '(:loaded :reloaded))) deps)))
        (when now
          (format out "~%Dependencies loaded: ~{~A~^, ~}"
                  (mapcar #'(lambda (e) (format nil "~A (~A)" (component-name (first e))
                                                (%version-text (component-version (first e)))))
                          now)))
        (when before
          (format out "~%Dependencies already loaded: ~{~A~^, ~}"
                  (mapcar #'(lambda (e) (format nil "~A (~A)" (component-name (first e))
                                                (%version-text (component-version (first e)))))
                          before)))))))

(defun sys::%report-load-system (name force quickload)
  (setq sys::*system-report* nil)
  (let ((done nil) (finished nil))
    (unwind-protect
         (let* ((report (let ((*on-system-loaded* #'(lambda (record) (push record done))))
                          (%operate-load name :force (and force t) :quickload t)))
                (root (car (last report))))
           (%set-report (%load-report-text (coerce-name name) report quickload)
                        (list :system (%text (component-name (first root)))
                              :version (%text (component-version (first root)))
                              :status (%text (second root))
                              :record (%record-details (third root))
                              :systems (mapcar #'(lambda (e)
                                                   (list :name (%text (component-name (first e)))
                                                         :version (%text (component-version (first e)))
                                                         :status (%text (second e))
                                                         :elapsed-ms (and (third e) (member (second e) '(:loaded :reloaded))
                                                                          (record-elapsed (third e)))))
                                               report)))
           (setq finished t))
      ;; an error, a time limit or a cancellation: say which dependencies loaded completely (they are recorded)
      (when (and (not finished) done)
        (setq sys::*system-report*
              (cons (format nil "Loaded before the error (recorded): ~{~A~^, ~}"
                            (mapcar #'(lambda (r) (format nil "~A (~A)" (record-name r) (%version-text (record-version r))))
                                    (reverse done)))
                    (list :loaded-before-error (mapcar #'%record-details (reverse done)))))))))

;;; describe-system

(defun %describe-text (name)
  (multiple-value-bind (system record status) (%system-info name)
    (unless (or system record)
      (error 'ql:system-not-found :name (coerce-name name)))
    (let ((session (gethash (coerce-name name) *session-systems*)))
      (values
       (with-output-to-string (out)
         (format out "System: ~A~%" (if system (component-name system) (record-name record)))
         (format out "Version: ~A~%" (or (if system (component-version system) (record-version record)) "(none)"))
         (when system
           (format out "Description: ~A~%" (or (component-description system) "(none)"))
           (when (component-long-description system)
             (format out "Long description: ~A~%" (let ((d (component-long-description system)))
                                                     (if (> (length d) 300) (concatenate 'string (subseq d 0 300) "...") d))))
           (format out "Author: ~A~%" (or (system-author system) "(none)"))
           (when (system-maintainer system) (format out "Maintainer: ~A~%" (system-maintainer system)))
           (format out "License: ~A~%" (or (system-licence system) "(none)"))
           (when (system-homepage system) (format out "Homepage: ~A~%" (system-homepage system)))
           (format out "Depends on: ~:[(nothing)~;~:*~{~A~^, ~}~]~%"
                   (mapcar #'%dependency-label (system-depends-on system)))
           (when (system-defsystem-depends-on system)
             (format out "Defsystem depends on: ~{~A~^, ~}~%" (mapcar #'%dependency-label (system-defsystem-depends-on system))))
           (format out "Source file: ~A~%" (let ((f (system-source-file system))) (if f (namestring f) "(defined in the session)")))
           (format out "Components:~%~:[  (none)~%~;~:*~{  ~A~%~}~]" (%components-summary system))
           (when (%system-notes system)
             (format out "Notes:~%~{  ~A~%~}" (%system-notes system))))
         (format out "Status: ~A"
                 (ecase status
                   (:loaded (format nil "loaded at ~A (took ~A)~@[; recorded again at ~A after a reset~]"
                                    (%iso-time (record-load-time record)) (%seconds (record-elapsed record))
                                    (and session (> (cdr session) (+ (record-load-time record) 0))
                                         (not (eq (car session) nil))
                                         (/= (cdr session) (record-load-time record))
                                         (%iso-time (cdr session)))))
                   (:image (format nil "loaded in the image before the last reset (at ~A, took ~A); not recorded in this session since"
                                   (%iso-time (record-load-time record)) (%seconds (record-elapsed record))))
                   (:not-loaded "not loaded")))
         (when (and record (record-packages record))
           (format out "~%Packages: ~{~A~^, ~}" (record-packages record)))
         (when (and record (record-definitions record))
           (let ((defs (record-definitions record)))
             (format out "~%Definitions made by the load: ~D function~:P, ~D macro~:P"
                     (count 'defun defs :key #'car) (count 'defmacro defs :key #'car)))))
       (list :system (%text (if system (component-name system) (record-name record)))
             :version (%text (if system (component-version system) (record-version record)))
             :description (%text (and system (component-description system)))
             :author (%text (and system (system-author system)))
             :license (%text (and system (system-licence system)))
             :dependencies (%texts (if system (mapcar #'%dependency-label (system-depends-on system)) (record-dependencies record)))
             :source-file (%text (if system (system-source-file system) (record-asd record)))
             :components (%texts (and system (%components-summary system)))
             :status (ecase status (:loaded "loaded") (:image "loaded-before-reset") (:not-loaded "not-loaded"))
             :record (%record-details record))))))

(defun %dependency-label (spec)
  (cond ((or (stringp spec) (symbolp spec)) (coerce-name spec))
        ((and (consp spec) (eq (car spec) :version)) (format nil "~A (>= ~A)" (coerce-name (cadr spec)) (caddr spec)))
        ((and (consp spec) (eq (car spec) :feature)) (format nil "~A (if ~S)" (%dependency-label (caddr spec)) (cadr spec)))
        ((and (consp spec) (eq (car spec) :require)) (format nil "~A (require)" (cadr spec)))
        (t (princ-to-string spec))))

(defun sys::%report-describe-system (name)
  (setq sys::*system-report* nil)
  (multiple-value-bind (text details) (%describe-text name)
    (%set-report text details)))

;;; list-local-systems

(defun sys::%report-local-systems (filter offset limit)
  (setq sys::*system-report* nil)
  (multiple-value-bind (all truncated) (%local-systems)
    (let* ((matching (if (and filter (plusp (length filter)))
                         (remove-if-not #'(lambda (e) (search (string-downcase filter) (string-downcase (first e)))) all)
                         all))
           (total (length matching))
           (offset (max 0 (min (or offset 0) total)))
           (limit (max 1 (min (or limit 100) 1000)))
           (page (subseq matching offset (min total (+ offset limit))))
           (next (and (< (+ offset limit) total) (+ offset limit))))
      (%set-report
       (with-output-to-string (out)
         (if (null page)
             (format out "No local systems~@[ matching ~S~]." (and filter (plusp (length filter)) filter))
             (progn
               (format out "[Local Systems]~%")
               (dolist (e page)
                 (format out "- ~A ~A~A~%" (first e) (or (second e) "(no version)")
                         (ecase (fourth e) (:loaded " [loaded]") (:image " [loaded before the last reset]") (:not-loaded ""))))
               (format out "~D of ~D system~:P~@[ (next page: offset ~D)~]" (length page) total next)))
         (when truncated
           (format out "~%Note: the directory scan stopped at its bounds (~D directories, ~D s); some systems may be missing."
                   *scan-max-directories* *scan-max-seconds*)))
       (list :systems (mapcar #'(lambda (e)
                                  (list :name (%text (first e)) :version (%text (second e))
                                        :source-file (%text (third e))
                                        :status (ecase (fourth e) (:loaded "loaded") (:image "loaded-before-reset") (:not-loaded "not-loaded"))))
                              page)
             :total total :offset offset
             :next-offset next
             :truncated-scan (and truncated t))))))

;;; list-loaded-systems

(defun %session-records ()
  (sort (loop for v being the hash-values of *session-systems* collect (car v)) #'< :key #'record-order))

(defun sys::%report-loaded-systems ()
  (setq sys::*system-report* nil)
  (let ((records (%session-records)))
    (%set-report
     (if records
         (with-output-to-string (out)
           (format out "[Loaded Systems]")
           (dolist (r records)
             (format out "~%- ~A ~A (loaded ~A, ~A)~@[ from ~A~]" (record-name r) (or (record-version r) "(no version)")
                     (%iso-time (record-load-time r)) (%seconds (record-elapsed r))
                     (and (record-asd r) (namestring (record-asd r))))))
         "No systems loaded")
     (list :records (mapcar #'%record-details records)))))

;;; system-dependencies

(defun sys::%report-system-dependencies (name transitive)
  (setq sys::*system-report* nil)
  (let* ((system (or (find-system name nil)
                     (and (stringp name) (find-system (string-downcase name) nil))
                     (error 'ql:system-not-found :name (coerce-name name))))
         (deps (if transitive (remove system (%plan system)) (%dependency-systems system))))
    (%set-report
     (with-output-to-string (out)
       (if deps
           (progn
             (format out "~A ~:[depends on~;depends on, directly and indirectly~]:" (component-name system) transitive)
             (dolist (d deps)
               (format out "~%- ~A ~A~A" (component-name d) (or (component-version d) "(no version)")
                       (ecase (%record-status (component-name d))
                         (:loaded " [loaded]") (:image " [loaded before the last reset]") (:not-loaded " [not loaded]")))))
           (format out "~A has no dependencies." (component-name system))))
     (list :system (%text (component-name system)) :transitive (and transitive t)
           :systems (mapcar #'(lambda (d)
                                (list :name (%text (component-name d))
                                      :version (%text (component-version d))
                                      :status (ecase (%record-status (component-name d))
                                                (:loaded "loaded") (:image "loaded-before-reset") (:not-loaded "not-loaded"))))
                            deps)))))

;;; The TINYCL functions

(defun tinycl:list-loaded-systems ()
  "The names of the systems loaded in this session (since the last reset), in load order."
  (mapcar #'record-name (%session-records)))

(defun tinycl:system-loaded-p (system)
  "True when SYSTEM was loaded in this session (since the last reset)."
  (and (gethash (coerce-name system) *session-systems*) t))

(defun tinycl:system-load-time (system)
  "When SYSTEM was loaded: (values universal-time iso-8601-string), or NIL when it is not loaded."
  (let ((e (gethash (coerce-name system) *session-systems*)))
    (if e (values (record-load-time (car e)) (%iso-time (record-load-time (car e)))) nil)))

(defun tinycl:system-dependencies (system &key transitive)
  "The names of the systems SYSTEM depends on (all of them with TRANSITIVE)."
  (let ((s (find-system system)))
    (mapcar #'component-name (if transitive (remove s (%plan s)) (%dependency-systems s)))))

(defun tinycl:describe-system (system &optional (stream *standard-output*))
  "Print what is known of SYSTEM: version, description, dependencies, components, load status."
  (write-string (%describe-text system) stream)
  (terpri stream)
  (values))

(defun tinycl:list-local-systems (&optional filter)
  "The names and versions of the systems that can be found: ((name version status) ...)."
  (mapcar #'(lambda (e) (list (first e) (second e) (fourth e)))
          (remove-if-not #'(lambda (e) (or (null filter) (search (string-downcase filter) (first e))))
                         (%local-systems))))

;;; ------------------------------------------------------------------
;;; Session hooks (stdlib-lisp/session.lisp registers them): what a reset does with systems, and
;;; the [Loaded Systems] section of list-definitions

(defun sys::%systems-snapshot ()
  ;; nothing systems hold needs restoring to the boot state; the restorer clears the session's
  ;; records and puts back what loads added to the registries the session restores
  #'(lambda ()
      (clrhash *session-systems*)
      (clrhash *source-index*)     ; the configuration it was built from is back to the boot one
      (setf (car *index-scan*) nil)
      ;; systems the user defined in the session (no .asd) and did not load are the user's
      (let ((drop nil))
        (maphash #'(lambda (name system)
                     (when (and (null (system-source-file system)) (not (gethash name *image-systems*)))
                       (push name drop)))
                 *registered-systems*)
        (dolist (name drop) (remhash name *registered-systems*)))
      (%reapply-kept-state)))

(defun sys::%loaded-systems-section (type package-name)
  (if (and (or (null type) (equal type "systems")) (null package-name))
      (let ((records (%session-records)))
        (if records
            (values (with-output-to-string (out)
                      (format out "[Loaded Systems]")
                      (dolist (r records)
                        (format out "~%- ~A~@[ ~A~]" (record-name r) (record-version r))))
                    (mapcar #'(lambda (r) (list "systems" (record-name r) (or (record-version r) "")
                                                (or (first (record-packages r)) "")))
                            records))
            (values nil nil)))
      (values nil nil)))
