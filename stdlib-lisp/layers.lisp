;;;; layers.lisp: built-in systems. Some portable libraries are nothing but a list of
;;;; implementations with a branch for each, and refuse a Lisp they do not list. For those,
;;;; tinycl provides the tinycl branch itself as a system of the same name, version and exported
;;;; API, which the loader finds before the copy on disk (as ASDF does for UIOP; see
;;;; *BUILTIN-SYSTEMS* in asdf.lisp). Each is described in docs/compatibility.md. A layer's code
;;;; is kept as text and read only when the system is loaded, so the boot pays for none of it.

(in-package "ASDF")

(defun %load-layer-text (text)
  ;; the forms of TEXT, read and evaluated one at a time (an IN-PACKAGE affects the next ones)
  (let ((*package* (find-package "COMMON-LISP-USER"))
        (*readtable* (copy-readtable nil))
        (*read-eval* t))
    (with-input-from-string (in text)
      (do ((form (read in nil in) (read in nil in)))
          ((eq form in) t)
        (eval form)))))

(defun %register-builtin-system (name version description text &optional depends-on options)
  ;; the system object is made when the name is first looked up (asdf.lisp); DEPENDS-ON load
  ;; first; OPTIONS: :IN-ORDER-TO as in DEFSYSTEM, :TEST a function TEST-OP calls
  (push (list name version description #'(lambda () (%load-layer-text text)) depends-on options) *builtin-systems*))

(defun %register-file-layer (system-name file-name text)
  ;; TEXT runs after FILE-NAME of SYSTEM-NAME (loaded from disk) each time it loads (asdf.lisp)
  (push (list system-name file-name #'(lambda () (%load-layer-text text))) *file-layers*))

(defun %library-source-directory (name)
  ;; the directory of the .asd on disk that defines NAME (for a layer that loads part of it)
  (let ((asd (%locate-asd name)))
    (unless asd
      (error "The sources of ~S are not installed (no ~A.asd found), and tinycl's layer loads them." name name))
    (pathname-directory-pathname asd)))

;;; trivial-gray-streams 2.0: on SBCL it imports SB-GRAY's symbols and bridges SB-GRAY's
;;; sequence and file-position functions to its own portable ones; this is that branch for
;;; TINYCL-GRAY.
(%register-builtin-system "trivial-gray-streams" "2.0"
  "Compatibility layer for Gray Streams (tinycl's built-in layer over TINYCL-GRAY)."
  "
(defpackage impl-specific-gray
  (:use :cl)
  (:import-from :tinycl-gray
   #:fundamental-stream #:fundamental-input-stream #:fundamental-output-stream
   #:fundamental-character-stream #:fundamental-binary-stream
   #:fundamental-character-input-stream #:fundamental-character-output-stream
   #:fundamental-binary-input-stream #:fundamental-binary-output-stream
   #:stream-read-char #:stream-unread-char #:stream-read-char-no-hang #:stream-peek-char
   #:stream-listen #:stream-read-line #:stream-clear-input #:stream-write-char
   #:stream-line-column #:stream-start-line-p #:stream-write-string #:stream-terpri
   #:stream-fresh-line #:stream-finish-output #:stream-force-output #:stream-clear-output
   #:stream-advance-to-column #:stream-read-byte #:stream-write-byte)
  (:export
   #:fundamental-stream #:fundamental-input-stream #:fundamental-output-stream
   #:fundamental-character-stream #:fundamental-binary-stream
   #:fundamental-character-input-stream #:fundamental-character-output-stream
   #:fundamental-binary-input-stream #:fundamental-binary-output-stream
   #:stream-read-char #:stream-unread-char #:stream-read-char-no-hang #:stream-peek-char
   #:stream-listen #:stream-read-line #:stream-clear-input #:stream-write-char
   #:stream-line-column #:stream-start-line-p #:stream-write-string #:stream-terpri
   #:stream-fresh-line #:stream-finish-output #:stream-force-output #:stream-clear-output
   #:stream-advance-to-column #:stream-read-byte #:stream-write-byte))

(defpackage :trivial-gray-streams
  (:use :cl)
  (:import-from #:impl-specific-gray
   #:stream-read-char #:stream-unread-char #:stream-read-char-no-hang #:stream-peek-char
   #:stream-listen #:stream-read-line #:stream-clear-input #:stream-write-char
   #:stream-line-column #:stream-start-line-p #:stream-write-string #:stream-terpri
   #:stream-fresh-line #:stream-finish-output #:stream-force-output #:stream-clear-output
   #:stream-advance-to-column #:stream-read-byte #:stream-write-byte)
  (:export
   #:fundamental-stream #:fundamental-input-stream #:fundamental-output-stream
   #:fundamental-character-stream #:fundamental-binary-stream
   #:fundamental-character-input-stream #:fundamental-character-output-stream
   #:fundamental-binary-input-stream #:fundamental-binary-output-stream
   #:stream-read-char #:stream-unread-char #:stream-read-char-no-hang #:stream-peek-char
   #:stream-listen #:stream-read-line #:stream-clear-input #:stream-write-char
   #:stream-line-column #:stream-start-line-p #:stream-write-string #:stream-terpri
   #:stream-fresh-line #:stream-finish-output #:stream-force-output #:stream-clear-output
   #:stream-advance-to-column #:stream-read-byte #:stream-write-byte
   #:stream-read-sequence #:stream-write-sequence #:stream-file-position
   #:trivial-gray-stream-mixin))

(in-package :trivial-gray-streams)

(defclass fundamental-stream (impl-specific-gray:fundamental-stream) ())
(defclass fundamental-input-stream (fundamental-stream impl-specific-gray:fundamental-input-stream) ())
(defclass fundamental-output-stream (fundamental-stream impl-specific-gray:fundamental-output-stream) ())
(defclass fundamental-character-stream (fundamental-stream impl-specific-gray:fundamental-character-stream) ())
(defclass fundamental-binary-stream (fundamental-stream impl-specific-gray:fundamental-binary-stream) ())
(defclass fundamental-character-input-stream
    (fundamental-input-stream fundamental-character-stream impl-specific-gray:fundamental-character-input-stream) ())
(defclass fundamental-character-output-stream
    (fundamental-output-stream fundamental-character-stream impl-specific-gray:fundamental-character-output-stream) ())
(defclass fundamental-binary-input-stream
    (fundamental-input-stream fundamental-binary-stream impl-specific-gray:fundamental-binary-input-stream) ())
(defclass fundamental-binary-output-stream
    (fundamental-output-stream fundamental-binary-stream impl-specific-gray:fundamental-binary-output-stream) ())

(defgeneric stream-read-sequence (stream sequence start end &key &allow-other-keys))
(defgeneric stream-write-sequence (stream sequence start end &key &allow-other-keys))
(defgeneric stream-file-position (stream))
(defgeneric (setf stream-file-position) (newval stream))

;; the portable methods answer FALLBACK: the implementation's own default then runs
(defmethod stream-read-sequence ((stream fundamental-input-stream) seq start end &key)
  (declare (ignore seq start end))
  'fallback)
(defmethod stream-write-sequence ((stream fundamental-output-stream) seq start end &key)
  (declare (ignore seq start end))
  'fallback)

(defmacro or-fallback (&body body)
  `(let ((result ,@body))
     (if (eq result 'fallback) (call-next-method) result)))

(defmethod stream-terpri ((stream fundamental-output-stream))
  (write-char #\\Newline stream))

(defmethod stream-file-position ((stream t)) nil)
(defmethod (setf stream-file-position) (newval (stream t))
  (declare (ignore newval))
  nil)

(defmethod tinycl-gray:stream-read-sequence ((s fundamental-input-stream) seq &optional start end)
  (or-fallback (stream-read-sequence s seq (or start 0) (or end (length seq)))))
(defmethod tinycl-gray:stream-write-sequence ((s fundamental-output-stream) seq &optional start end)
  (or-fallback (stream-write-sequence s seq (or start 0) (or end (length seq)))))
(defmethod tinycl-gray:stream-file-position ((stream fundamental-stream) &optional position)
  (if position
      (setf (stream-file-position stream) position)
      (stream-file-position stream)))
(defmethod tinycl-gray:stream-line-length ((stream fundamental-stream)) 80)

(defclass trivial-gray-stream-mixin () ())
")

;;; cl-fad 0.7.6: fad.lisp has a branch per implementation for LIST-DIRECTORY, FILE-EXISTS-P
;;; and DELETE-DIRECTORY-AND-FILES (an unlisted Lisp gets "not implemented" errors), and
;;; temporary-files.lisp calls its own GETENV while it loads, which stops on an unlisted Lisp.
;;; The layer loads packages.lisp, fad.lisp and path.lisp from the sources on disk, then gives
;;; those three functions tinycl's branch (SBCL's: DIRECTORY, PROBE-FILE, DELETE-DIRECTORY),
;;; then loads temporary-files.lisp from disk with its GETENV given tinycl's branch.
(%register-builtin-system "cl-fad" "0.7.6"
  "Portable pathname library (tinycl's built-in layer: the sources on disk with tinycl's branches)."
  "
(let ((dir (asdf::%library-source-directory \"cl-fad\")))
  ;; the variables of the branches for other Lisps are unused here: not worth a warning
  (handler-bind ((warning #'muffle-warning))
    (dolist (file '(\"packages\" \"fad\" \"path\"))
      (load (merge-pathnames (make-pathname :name file :type \"lisp\") dir)))))

(in-package :cl-fad)

(defun list-directory (dirname &key (follow-symlinks t))
  \"The files and subdirectories (in directory form) of the directory DIRNAME.\"
  (when (wild-pathname-p dirname)
    (error \"Can only list concrete directory names.\"))
  (directory (directory-wildcard dirname) :resolve-symlinks follow-symlinks))

(defun file-exists-p (pathspec)
  \"The truename of the file or directory PATHSPEC (a directory in directory form), or NIL.\"
  (probe-file pathspec))

(defun delete-directory-and-files (dirname &key (if-does-not-exist :error))
  \"Deletes the directory DIRNAME with everything in it.\"
  (if (directory-exists-p dirname)
      (tinycl:delete-directory dirname :recursive t)
      (ecase if-does-not-exist
        (:error (error \"~S is not a directory\" dirname))
        (:ignore nil)))
  (values))

;;; temporary files: temporary-files.lisp from disk, its GETENV given tinycl's branch (SBCL's
;;; calls SB-EXT:POSIX-GETENV); it sets up the logical host TEMPORARY-FILES as on any Lisp
(let ((*package* (find-package :cl-fad))
      (file (merge-pathnames \"temporary-files.lisp\" (asdf::%library-source-directory \"cl-fad\"))))
  (labels ((fix (form)
             ;; the library's (defun getenv ...), wherever it is (inside an EVAL-WHEN), becomes tinycl's
             (cond ((and (consp form) (eq (car form) 'defun) (consp (cdr form))
                         (eq (cadr form) (intern \"GETENV\" :cl-fad)))
                    '(defun getenv (x) \"The value of the environment variable named X, or NIL.\"
                      (tinycl:posix-getenv x)))
                   ((consp form) (fix-elements form))
                   (t form)))
           (fix-elements (list)
             (if (consp list) (cons (fix (car list)) (fix-elements (cdr list))) list)))
    (with-open-file (in file)
      (do ((form (read in nil in) (read in nil in)))
          ((eq form in))
        (eval (fix form))))))
" '("bordeaux-threads" "alexandria"))

;;; bordeaux-threads 0.8.8: its .asd pushes :THREAD-SUPPORT and picks src/impl-<lisp>.lisp only for
;;; the Lisps it lists, and gives any other impl-null.lisp, where making a thread is an error.
;;; The layer is the tinycl branch: :THREAD-SUPPORT among the features (as the .asd does on a
;;; listed Lisp, before bordeaux-threads.lisp is read: its WITH-TIMEOUT needs it), pkgdcl.lisp
;;; and bordeaux-threads.lisp from disk, tinycl's own implementation file over TINYCL-THREADS
;;; (below), then default-implementations.lisp from disk. Its test system loads from the .asd.
(%register-builtin-system "bordeaux-threads" "0.8.8"
  "Bordeaux Threads makes writing portable multi-threaded apps simple (tinycl's built-in layer: the sources on disk, with tinycl's implementation file over TINYCL-THREADS)."
  "
(pushnew :thread-support *features*)
(let ((dir (merge-pathnames \"src/\" (asdf::%library-source-directory \"bordeaux-threads\"))))
  (dolist (file '(\"pkgdcl\" \"bordeaux-threads\"))
    (load (merge-pathnames (make-pathname :name file :type \"lisp\") dir))))

(in-package #:bordeaux-threads)

;;; threads
(deftype thread () 'tinycl-threads:thread)
(defun %make-thread (function name) (tinycl-threads:make-thread function :name name))
(defun current-thread () (tinycl-threads:current-thread))
(defun threadp (object) (tinycl-threads:threadp object))
(defun thread-name (thread) (tinycl-threads:thread-name thread))
(defun thread-yield () (tinycl-threads:thread-yield))
(defun all-threads () (tinycl-threads:list-all-threads))
(defun thread-alive-p (thread) (tinycl-threads:thread-alive-p thread))

(defun interrupt-thread (thread function &rest args)
  (tinycl-threads:interrupt-thread thread (if args #'(lambda () (apply function args)) function)))

(defun destroy-thread (thread)
  (signal-error-if-current-thread thread)
  (tinycl-threads:terminate-thread thread))

(defun join-thread (thread)
  ;; the values THREAD's function returned; for a thread an unhandled error ended, that condition
  (handler-case (tinycl-threads:join-thread thread)
    (tinycl-threads:join-thread-error (c)
      (let ((problem (tinycl-threads:join-thread-problem c)))
        (and (typep problem 'condition) problem)))))

;;; locks: a lock is a mutex; a recursive lock, a mutex with the depth its owner took it to
(deftype lock () 'tinycl-threads:mutex)
(defun lock-p (object) (typep object 'tinycl-threads:mutex))
(defun make-lock (&optional name) (tinycl-threads:make-mutex :name (or name \"Anonymous lock\")))
(defun acquire-lock (lock &optional (wait-p t)) (tinycl-threads:grab-mutex lock :waitp wait-p))
(defun release-lock (lock) (tinycl-threads:release-mutex lock))
(defmacro with-lock-held ((place) &body body)
  `(tinycl-threads:with-mutex (,place) ,@body))

(defstruct (recursive-lock (:constructor %make-recursive-lock (mutex)) (:copier nil))
  mutex (depth 0))
(defun make-recursive-lock (&optional name)
  (%make-recursive-lock (tinycl-threads:make-mutex :name (or name \"Anonymous recursive lock\"))))
(defun acquire-recursive-lock (lock &optional (wait-p t))
  (let ((mutex (recursive-lock-mutex lock)))
    (cond ((eq (tinycl-threads:mutex-owner mutex) (tinycl-threads:current-thread))
           (incf (recursive-lock-depth lock)) t)
          ((tinycl-threads:grab-mutex mutex :waitp wait-p)
           (setf (recursive-lock-depth lock) 1) t))))
(defun release-recursive-lock (lock)
  (let ((mutex (recursive-lock-mutex lock)))
    (when (eq (tinycl-threads:mutex-owner mutex) (tinycl-threads:current-thread))
      (when (zerop (decf (recursive-lock-depth lock)))
        (tinycl-threads:release-mutex mutex))))
  (values))
(defmacro with-recursive-lock-held ((place &key timeout) &body body)
  (let ((lock (gensym \"LOCK\")) (mutex (gensym \"MUTEX\")))
    `(let* ((,lock ,place) (,mutex (recursive-lock-mutex ,lock)))
       (tinycl-threads:with-recursive-lock (,mutex :timeout ,timeout) ,@body))))

;;; condition variables
(defun make-condition-variable (&key name)
  (tinycl-threads:make-waitqueue :name (or name \"Anonymous condition variable\")))
(defun condition-wait (condition-variable lock &key timeout)
  ;; the lock is held again on return, whether or not the time ran out (NIL then)
  (or (tinycl-threads:condition-wait condition-variable lock :timeout timeout)
      (progn (acquire-lock lock) nil)))
(defun condition-notify (condition-variable)
  ;; every waiter wakes (bordeaux-threads allows it), each looks at its predicate again: a program
  ;; whose waiters wait for different things (its own test suite's do) cannot lose the one wake
  ;; the thread it was meant for needed to another waiter
  (tinycl-threads:condition-broadcast condition-variable))

(mark-supported)

(in-package #:cl-user)
(load (merge-pathnames \"src/default-implementations.lisp\" (asdf::%library-source-directory \"bordeaux-threads\")))
" '("alexandria") '(:in-order-to ((test-op (test-op "bordeaux-threads/test")))))

;;; metatilities-base 0.6.6: its defpackage imports four MOP functions and WITHOUT-INTERRUPTS
;;; from a package named per implementation (SB-MOP and SB-SYS on SBCL), so on an unlisted Lisp
;;; it asks to import from packages named CLASS-DIRECT-SUBCLASSES and WITHOUT-INTERRUPTS. The
;;; layer reads that defpackage from disk and gives those two clauses tinycl's packages (the MOP
;;; from TINYCL-MOP; WITHOUT-INTERRUPTS from TINYCL-THREADS, as SBCL's comes from SB-SYS), then
;;; loads the library's files from disk in its .asd's order.
(%register-builtin-system "metatilities-base" "0.6.6"
  "These are metabang.com's Common Lisp basic utilities (tinycl's built-in layer: the sources on disk, the package's imports from tinycl's packages)."
  "
(let* ((dir (merge-pathnames \"dev/\" (asdf::%library-source-directory \"metatilities-base\")))
       (package-file (merge-pathnames \"package.lisp\" dir)))
  (flet ((fix-clause (clause)
           ;; an :IMPORT-FROM naming no package: the names are the package's first symbol and the rest
           (if (and (consp clause) (eq (car clause) :import-from) (cdr clause)
                    (not (find-package (cadr clause))))
               (let ((names (cdr clause)))
                 (cons :import-from
                       (cons (if (every #'(lambda (n) (find-symbol (string n) \"TINYCL-MOP\")) names)
                                 \"TINYCL-MOP\"
                                 \"TINYCL-THREADS\")
                             names)))
               clause)))
    (with-open-file (in package-file)
      (let ((*package* (find-package \"COMMON-LISP-USER\")))
        (do ((form (read in nil in) (read in nil in)))
            ((eq form in))
          (eval (if (and (consp form) (eq (car form) 'defpackage))
                    (cons 'defpackage (cons (cadr form) (mapcar #'fix-clause (cddr form))))
                    form))))))
  (dolist (file '(\"api\" \"l0-utils\" \"l0-strings\" \"l0-macros\" \"l0-arrays\" \"l0-clos\" \"l0-files\"
                  \"l0-time\" \"set-equal\" \"generic-lisp\" \"generic-interface\" \"defclass-star\" \"copy-file\"))
    (load (merge-pathnames (make-pathname :name file :type \"lisp\") dir))))
")

;;; named-readtables 0.9 loads from disk as it is; but with no readtable iterator for tinycl,
;;; its portable one (cruft.lisp) calls GET-MACRO-CHARACTER on every character code up to
;;; CHAR-CODE-LIMIT and, for each dispatching character, GET-DISPATCH-MACRO-CHARACTER on every
;;; one again: 2.2 million calls per iteration, half of cl-interpol's load. Its SBCL branch
;;; walks SBCL's readtable internals instead; tinycl's walks its own (the primitive
;;; %READTABLE-MACRO-CHARACTERS), giving the same entries in increasing order of character, as
;;; the portable one does. It replaces the portable one as soon as cruft.lisp has loaded.
(%register-file-layer "named-readtables" "cruft" "
(in-package :editor-hints.named-readtables)

(defun %make-readtable-iterator (readtable)
  (check-type readtable readtable)
  (let ((entries (sys::%readtable-macro-characters readtable)))
    #'(lambda ()
        (if entries
            (destructuring-bind (char reader-fn non-terminating-p disp? table) (pop entries)
              (declare (ignore non-terminating-p))
              (values t char reader-fn disp? table))
            (values nil nil nil nil nil)))))
")

;;; xmls (Debian's 3.0.x): xmls.lisp defines TEST, which its xmls/test system calls, only for
;;; six implementations, because its SBCL, CMUCL, ABCL and Allegro branches read test files from
;;; the command line when given none; CCL's branch (like CLISP's, but without printing its
;;; arguments) has no implementation-specific code. The layer reads that definition from
;;; xmls.lisp on disk as CCL's reader sees it (:CCL among the features while the file is read,
;;; nothing else of it evaluated) and evaluates it, after xmls.lisp has loaded.
(%register-file-layer "xmls" "xmls" "
(let ((file (merge-pathnames \"xmls.lisp\" (asdf::%library-source-directory \"xmls\")))
      (*package* (find-package \"XMLS\"))
      (*features* (cons :ccl *features*)))
  (with-open-file (in file)
    (do ((form (read in nil in) (read in nil in)))
        ((eq form in))
      (when (and (consp form) (eq (car form) 'defun) (eq (cadr form) (find-symbol \"TEST\" \"XMLS\")))
        (let ((*features* (cdr *features*)))
          (eval form))))))
")

;;; uiop and asdf: part of the image (asdf.lisp, uiop.lisp), as in an implementation that
;;; ships ASDF, so that (:depends-on ("uiop")) and (asdf:find-system "uiop") find them; loading
;;; them does nothing more.
(%register-builtin-system "uiop" "3.3.1" "Portability library for Common Lisp programs (built into tinycl)." "t")
(%register-builtin-system "asdf" "3.3.1" "Another System Definition Facility (tinycl's own loader, built in)." "t")

;;; trivial-features: its .asd stops on a Lisp it does not list, and its per-implementation
;;; files only push the features naming the byte order, word size, processor and system.
;;; tinycl's *FEATURES* has them from the start (set in C for the machine it runs on), so the
;;; layer has nothing left to do.
(%register-builtin-system "trivial-features" nil
  "Ensures consistent *FEATURES* across multiple CLs (tinycl's built-in layer: nothing to add)."
  "t")

;;; trivial-garbage (Debian's 20211229 snapshot): its .asd stops while it is read on a Lisp it
;;; does not list, and each of its functions is a branch per implementation. Its SBCL branch is
;;; a direct call of SB-EXT's function of the same name, which tinycl has in TINYCL (weak.lisp,
;;; runtime/weak.c); this layer is the library's package and exported API over those. The
;;; library's test suite (tests.lisp, with RT) is the built-in system trivial-garbage/tests,
;;; which loads that file from disk; run it with (trivial-garbage-tests:run).
(%register-builtin-system "trivial-garbage" nil
  "Portable finalizers, weak hash-tables and weak pointers (tinycl's built-in layer over TINYCL's own)."
  "
(defpackage #:trivial-garbage
  (:use #:cl)
  (:shadow #:make-hash-table)
  (:nicknames #:tg)
  (:export #:gc #:make-weak-pointer #:weak-pointer-value #:weak-pointer-p #:make-weak-hash-table
           #:hash-table-weakness #:finalize #:cancel-finalization))
(in-package #:trivial-garbage)

(defun gc (&key full verbose)
  (declare (ignore full verbose))
  (tinycl:gc :full t))

(defun make-weak-pointer (object)
  (assert (not (null object)))
  (tinycl:make-weak-pointer object))

(defun weak-pointer-p (object) (tinycl:weak-pointer-p object))

(defun weak-pointer-value (weak-pointer) (values (tinycl:weak-pointer-value weak-pointer)))

(defun make-weak-hash-table (&rest args &key weakness (weakness-matters t) &allow-other-keys)
  ;; every weakness is accepted (:key-or-value holds both parts), so WEAKNESS-MATTERS never errs
  (declare (ignore weakness-matters))
  (remf args :weakness)
  (remf args :weakness-matters)
  (if weakness
      (apply #'cl:make-hash-table :weakness weakness args)
      (apply #'cl:make-hash-table args)))

(defun make-hash-table (&rest args) (apply #'make-weak-hash-table args))

(defun hash-table-weakness (ht) (tinycl:hash-table-weakness ht))

(defun finalize (object function) (tinycl:finalize object function))

(defun cancel-finalization (object) (tinycl:cancel-finalization object))
" nil '(:in-order-to ((test-op (test-op "trivial-garbage/tests")))))

(%register-builtin-system "trivial-garbage/tests" nil
  "Unit tests for TRIVIAL-GARBAGE (its tests.lisp, loaded from disk by tinycl's built-in layer)."
  "(load (merge-pathnames \"tests.lisp\" (asdf::%library-source-directory \"trivial-garbage\")))"
  '("trivial-garbage" "rt")
  ;; as its .asd: (asdf:test-system "trivial-garbage") runs RT's DO-TESTS
  (list :test #'(lambda () (funcall (find-symbol "DO-TESTS" "REGRESSION-TEST")))))

;;; closer-mop 1.0.0: its package definition imports the MOP from a package chosen by
;;; implementation feature (with none for an unlisted Lisp, DEFPACKAGE is given a package named
;;; CLASSP to import from) and each implementation has a file of fixes. On tinycl the MOP is
;;; TINYCL-MOP (mop.lisp); this layer is closer-mop's package with its exports, over it, and
;;; its own few functions. tinycl's DEFGENERIC, DEFMETHOD and STANDARD-GENERIC-FUNCTION are
;;; closer-mop's, as on SBCL and ABCL where it only wraps them.
(%register-builtin-system "closer-mop" "1.0.0"
  "Closer to MOP is a compatibility layer that rectifies many of the absent or incorrect CLOS MOP features across a broad range of Common Lisp implementations (tinycl's built-in layer over TINYCL-MOP)."
  "
(defpackage #:closer-mop
  (:use #:common-lisp #:tinycl-mop)
  (:nicknames #:c2mop)
  (:export
   #:built-in-class #:class #:direct-slot-definition #:effective-slot-definition
   #:eql-specializer #:forward-referenced-class #:funcallable-standard-class
   #:funcallable-standard-object #:generic-function #:metaobject #:method #:method-combination
   #:slot-definition #:specializer #:standard-accessor-method #:standard-class
   #:standard-generic-function #:standard-direct-slot-definition
   #:standard-effective-slot-definition #:standard-method #:standard-object
   #:standard-reader-method #:standard-slot-definition #:standard-writer-method
   #:defclass #:defgeneric #:define-method-combination #:defmethod
   #:classp #:ensure-finalized #:ensure-method #:fix-slot-initargs #:required-args #:subclassp
   #:accessor-method-slot-definition #:add-dependent #:add-direct-method #:add-direct-subclass
   #:class-default-initargs #:class-direct-default-initargs #:class-direct-slots
   #:class-direct-subclasses #:class-direct-superclasses #:class-finalized-p
   #:class-precedence-list #:class-prototype #:class-slots
   #:compute-applicable-methods-using-classes #:compute-class-precedence-list
   #:compute-default-initargs #:compute-discriminating-function #:compute-effective-method
   #:compute-effective-method-function #:compute-effective-slot-definition #:compute-slots
   #:direct-slot-definition-class #:effective-slot-definition-class #:ensure-class
   #:ensure-class-using-class #:ensure-generic-function #:ensure-generic-function-using-class
   #:eql-specializer-object #:extract-lambda-list #:extract-specializer-names
   #:finalize-inheritance #:find-method-combination #:funcallable-standard-instance-access
   #:generic-function-argument-precedence-order #:generic-function-declarations
   #:generic-function-lambda-list #:generic-function-method-class
   #:generic-function-method-combination #:generic-function-methods #:generic-function-name
   #:intern-eql-specializer #:make-method-lambda #:map-dependents #:method-function
   #:method-generic-function #:method-lambda-list #:method-specializers #:reader-method-class
   #:remove-dependent #:remove-direct-method #:remove-direct-subclass
   #:set-funcallable-instance-function #:slot-boundp-using-class #:slot-definition-allocation
   #:slot-definition-initargs #:slot-definition-initform #:slot-definition-initfunction
   #:slot-definition-location #:slot-definition-name #:slot-definition-readers
   #:slot-definition-writers #:slot-definition-type #:slot-makunbound-using-class
   #:slot-value-using-class #:specializer-direct-generic-functions #:specializer-direct-methods
   #:standard-instance-access #:subtypep #:typep #:update-dependent #:validate-superclass
   #:writer-method-class
   #:warn-on-defmethod-without-generic-function))

(in-package #:closer-mop)

(defun required-args (lambda-list &optional (collector #'identity))
  (let ((r nil))
    (dolist (x lambda-list (nreverse r))
      (if (member x lambda-list-keywords) (return (nreverse r)))
      (push (funcall collector x) r))))

(defun ensure-finalized (class &optional (errorp t))
  (cond ((typep class 'class)
         (unless (class-finalized-p class) (finalize-inheritance class)))
        (errorp (error \"~S is not a class.\" class)))
  class)

(defun subclassp (class superclass)
  (let ((class (if (symbolp class) (find-class class) class))
        (superclass (if (symbolp superclass) (find-class superclass) superclass)))
    (labels ((walk (c seen)
               (cond ((eq c superclass) t)
                     ((member c seen) nil)
                     (t (let ((seen (cons c seen)))
                          (some #'(lambda (s) (walk s seen)) (class-direct-superclasses c)))))))
      (if (walk class nil) t nil))))

(defun fix-slot-initargs (initargs) initargs)

(defgeneric compute-effective-method-function (gf effective-method options))

(defmethod compute-effective-method-function ((gf generic-function) effective-method options)
  (when options
    (cerror \"Ignore these options.\"
            \"This version of compute-effective-method-function does not support method combination options: ~S\"
            options))
  (sys::%effective-method-function gf effective-method))

(defun %specializer-form (s)
  (cond ((symbolp s) s)
        ((typep s 'eql-specializer) `(eql ',(eql-specializer-object s)))
        ((and (class-name s) (eq (find-class (class-name s) nil) s)) (class-name s))
        (t (error \"The specializer ~S has no name a method definition can use.\" s))))

(defun ensure-method (gf lambda-expression
                      &key (method-class (generic-function-method-class gf)) (qualifiers ())
                           (lambda-list (cadr lambda-expression))
                           (specializers (required-args lambda-list (constantly (find-class 't)))))
  (declare (ignore method-class))
  (let* ((required (required-args lambda-list))
         (rest (nthcdr (length required) lambda-list)))
    (eval `(defmethod ,(generic-function-name gf) ,@qualifiers
               (,@(mapcar #'(lambda (arg s) (list arg (%specializer-form s))) required specializers)
                ,@rest)
             ,@(cddr lambda-expression)))))

(define-symbol-macro warn-on-defmethod-without-generic-function nil)

(let ((symbols nil))
  (do-external-symbols (s '#:common-lisp) (push s symbols))
  (do-external-symbols (s '#:closer-mop) (pushnew s symbols))
  (make-package '#:closer-common-lisp :nicknames '(#:c2cl) :use nil)
  (import symbols '#:closer-common-lisp)
  (export symbols '#:closer-common-lisp))

(defpackage #:closer-common-lisp-user
  (:nicknames #:c2cl-user)
  (:use #:closer-common-lisp))
")

(in-package "COMMON-LISP-USER")
