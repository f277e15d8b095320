;;;; uiop.lisp: more of UIOP (the part asdf.lisp has is what .asd files use): the functions the
;;;; Debian libraries call beyond it (output helpers, temporary files, time stamps, the command
;;;; line, implementation names) and the common stream, file and pathname utilities around them.
;;;; Written for tinycl from UIOP's documented behaviour.

(in-package "UIOP")

(export '(format! safe-format! finish-outputs println writeln *command-line-arguments*
          command-line-arguments raw-command-line-arguments argv0 escape-command escape-sh-token
          escape-sh-command implementation-identifier timestamp< timestamp<= earlier-timestamp
          later-timestamp earliest-timestamp latest-timestamp encoding-external-format
          *default-encoding* *utf-8-external-format* default-encoding-external-format
          print-condition-backtrace print-backtrace with-temporary-file call-with-temporary-file
          temporary-directory default-temporary-directory *temporary-directory*
          with-output-file call-with-output-file call-with-input-file copy-stream-to-stream
          copy-file concatenate-files ensure-all-directories-exist ensure-absolute-pathname
          pathname-equal split-name-type with-current-directory call-with-current-directory
          chdir hostname safe-read-from-string with-safe-io-syntax call-with-safe-io-syntax
          safe-read-file-form safe-read-file-line *stdin* base-string-p reduce/strcat
          register-image-restore-hook register-image-dump-hook ensure-function call-function
          getenvp getenv-pathname lexicographic< lexicographic<= nest load* load-from-string
          directory* truenamize resolve-symlinks resolve-symlinks* xdg-cache-home
          xdg-config-home xdg-data-home lisp-implementation-directory
          lisp-implementation-pathname-p string-trim-whitespace collect-sub*directories))

;;; ------------------------------------------------------------------
;;; Walking directories

(defun collect-sub*directories (directory collectp recursep collector)
  "Calls COLLECTOR on DIRECTORY when COLLECTP is true of it, then, for each subdirectory that
RECURSEP is true of, walks that one the same way (depth first, subdirectories in name order)."
  (let ((dir (ensure-directory-pathname directory)))
    (when (funcall collectp dir) (funcall collector dir))
    (dolist (sub (sort (subdirectories dir) #'string< :key #'namestring))
      (when (funcall recursep sub)
        (collect-sub*directories sub collectp recursep collector)))))

;;; ------------------------------------------------------------------
;;; Output

(defun format! (stream format &rest args)
  "FORMAT to STREAM with the standard printer settings."
  (with-standard-io-syntax (apply #'format stream format args)))

(defun safe-format! (stream format &rest args)
  "FORMAT to STREAM as FORMAT! does, printing a note instead of failing on an error."
  (handler-case (apply #'format! stream format args)
    (error (c)
      (ignore-errors (format stream "~&<error while printing: ~A>~%" (type-of c)))
      nil)))

(defun finish-outputs (&rest streams)
  "FINISH-OUTPUT on STREAMS and on the standard output streams."
  (dolist (s (append streams (list *stderr* *error-output* *stdout* *standard-output* *trace-output*)))
    (ignore-errors (finish-output s))))

(defun println (x &optional (stream *standard-output*))
  "PRINC X to STREAM, then a newline."
  (princ x stream) (terpri stream) (values))

(defun writeln (x &rest keys &key (stream *standard-output*) &allow-other-keys)
  "WRITE X to STREAM with the WRITE keyword arguments in KEYS, then a newline."
  (apply #'write x :stream stream (remove-plist-key :stream keys)) (terpri stream) (values))

;;; ------------------------------------------------------------------
;;; The command line and the implementation

(defun raw-command-line-arguments ()
  "The command line tinycl was started with (program first), or NIL in an embedded session."
  (let ((sym (find-symbol "*POSIX-ARGV*" "TINYCL")))
    (and sym (boundp sym) (copy-list (symbol-value sym)))))

(defun argv0 () "The program's name on the command line." (car (raw-command-line-arguments)))

(defun command-line-arguments (&optional (arguments (raw-command-line-arguments)))
  "The arguments after the program's name."
  (cdr arguments))

(define-symbol-macro *command-line-arguments* (command-line-arguments))

(defun implementation-identifier ()
  "A string naming the implementation, its version, the system and the machine, as UIOP makes them."
  (format nil "tinycl-~A-linux-x64"
          (substitute #\_ #\Space (substitute #\_ #\/ (lisp-implementation-version)))))

(defun lisp-implementation-directory (&key truename)
  (declare (ignore truename))
  nil)

(defun lisp-implementation-pathname-p (pathname)
  (declare (ignore pathname))
  nil)

(defun hostname ()
  "The machine's host name."
  (machine-instance))

(defun escape-sh-token (token &optional stream)
  "TOKEN quoted for a POSIX shell when it needs to be, written to STREAM or returned as a string."
  (let* ((plain (and (plusp (length token))
                     (every #'(lambda (c) (or (alphanumericp c) (find c "-_./=+,:%@"))) token)))
         (text (if plain
                   token
                   (with-output-to-string (s)
                     (write-char #\" s)
                     (loop for c across token
                           do (when (find c "\"\\$`") (write-char #\\ s))
                              (write-char c s))
                     (write-char #\" s)))))
    (if stream (progn (write-string text stream) nil) text)))

(defun escape-command (command &optional stream (escaper 'escape-sh-token))
  "COMMAND (a string, left as is, or a list of tokens, each escaped) as one command line."
  (let ((text (if (stringp command)
                  command
                  (with-output-to-string (s)
                    (loop for (token . more) on command
                          do (write-string (funcall escaper token) s)
                             (when more (write-char #\Space s)))))))
    (if stream (progn (write-string text stream) nil) text)))

(defun escape-sh-command (command &optional stream)
  "COMMAND escaped for a POSIX shell."
  (escape-command command stream 'escape-sh-token))

;;; ------------------------------------------------------------------
;;; Time stamps: a real, NIL (earlier than any) or T (later than any)

(defun timestamp< (x y)
  "Whether time stamp X is strictly earlier than Y (NIL is the earliest, T the latest)."
  (cond ((eq x t) nil)
        ((null x) (not (null y)))
        ((eq y t) t)
        ((null y) nil)
        (t (< x y))))

(defun timestamp<= (x y) "Whether time stamp X is not later than Y." (not (timestamp< y x)))
(defun earlier-timestamp (x y) (if (timestamp< x y) x y))
(defun later-timestamp (x y) (if (timestamp< x y) y x))
(defun earliest-timestamp (&rest list) (reduce #'earlier-timestamp list :initial-value t))
(defun latest-timestamp (&rest list) (reduce #'later-timestamp list :initial-value nil))

;;; ------------------------------------------------------------------
;;; Encodings: tinycl's streams take the encoding keywords themselves

(defvar *default-encoding* :utf-8)
(defvar *utf-8-external-format* :utf-8)

(defun encoding-external-format (encoding)
  "The external format for ENCODING (a keyword such as :UTF-8, or :DEFAULT)."
  (if (eq encoding :default) :default encoding))

(defun default-encoding-external-format () (encoding-external-format *default-encoding*))

;;; ------------------------------------------------------------------
;;; Conditions and backtraces

(defun print-backtrace (&key (stream *debug-io*) count condition)
  "Prints the current backtrace to STREAM."
  (declare (ignore condition))
  (let ((frames (ignore-errors (sys::%backtrace (or count 100)))))
    (loop for f in frames for i from 0
          do (format stream "~&~D: ~S~%" i f))))

(defun print-condition-backtrace (condition &key (stream *stderr*) count)
  "Prints CONDITION and the current backtrace to STREAM."
  (ignore-errors (format stream "~&~A~%" condition))
  (print-backtrace :stream stream :count count :condition condition))

;;; ------------------------------------------------------------------
;;; Files and streams

(defvar *temporary-directory* nil)

(defun default-temporary-directory ()
  "The directory for temporary files: $TMPDIR, else /tmp/."
  (let ((dir (getenv "TMPDIR")))
    (ensure-directory-pathname (if (and dir (plusp (length dir))) dir "/tmp/"))))

(defun temporary-directory ()
  "*TEMPORARY-DIRECTORY*, or the default."
  (or *temporary-directory* (default-temporary-directory)))

(defun call-with-output-file (pathname thunk &rest keys &key (if-exists :error)
                                                             (if-does-not-exist :create) &allow-other-keys)
  (with-open-file (s pathname :direction :output :if-exists if-exists
                              :if-does-not-exist if-does-not-exist
                              :element-type (getf keys :element-type 'character))
    (funcall thunk s)))

(defmacro with-output-file ((var pathname &rest keys) &body body)
  "Runs BODY with VAR bound to an output stream to PATHNAME."
  `(call-with-output-file ,pathname #'(lambda (,var) ,@body) ,@keys))

(defun call-with-input-file (pathname thunk &rest keys &key &allow-other-keys)
  (with-open-file (s pathname :direction :input :element-type (getf keys :element-type 'character))
    (funcall thunk s)))

(defun call-with-temporary-file (thunk &key (want-stream-p t) (want-pathname-p t)
                                         (direction :io) keep after directory (type "tmp")
                                         (prefix "tmp") (suffix nil) (element-type 'character)
                                         external-format)
  "Calls THUNK with a new temporary file's stream and/or pathname; the file is deleted afterwards unless KEEP."
  (declare (ignore external-format))
  (let* ((dir (ensure-directory-pathname (or directory (temporary-directory))))
         (pathname nil) (stream nil))
    (loop for i from 0
          do (let ((name (format nil "~A~36R~36R~@[~A~]" prefix (random (expt 36 6))
                                 (mod (get-universal-time) 1296) suffix)))
               (setq pathname (merge-pathnames (make-pathname :name name :type type) dir))
               (setq stream (open pathname :direction (if (eq direction :io) :io :output)
                                           :if-exists nil :if-does-not-exist :create
                                           :element-type element-type))
               (when stream (return))
               (when (> i 1000) (error "Cannot make a temporary file in ~A." dir))))
    (unwind-protect
         (multiple-value-prog1
             (cond ((and want-stream-p want-pathname-p) (funcall thunk stream pathname))
                   (want-stream-p (funcall thunk stream))
                   (t (close stream) (funcall thunk pathname)))
           (when (open-stream-p stream) (close stream))
           (when after (funcall after pathname)))
      (when (open-stream-p stream) (close stream :abort t))
      (unless keep (ignore-errors (delete-file pathname))))))

(defmacro with-temporary-file ((&key (stream (gensym "STREAM") stream-p)
                                     (pathname (gensym "PATHNAME") pathname-p)
                                     directory prefix suffix type keep direction element-type
                                     external-format)
                               &body body)
  "Runs BODY with STREAM and/or PATHNAME bound to a new temporary file, deleted afterwards unless KEEP."
  (let ((want-stream (or stream-p (not pathname-p))))
    `(call-with-temporary-file
      #'(lambda (,@(when want-stream (list stream)) ,@(when pathname-p (list pathname)))
          ,@(when want-stream `((declare (ignorable ,stream))))
          ,@body)
      :want-stream-p ,want-stream :want-pathname-p ,(and pathname-p t)
      ,@(when directory `(:directory ,directory)) ,@(when prefix `(:prefix ,prefix))
      ,@(when suffix `(:suffix ,suffix)) ,@(when type `(:type ,type)) ,@(when keep `(:keep ,keep))
      ,@(when direction `(:direction ,direction))
      ,@(when element-type `(:element-type ,element-type))
      ,@(when external-format `(:external-format ,external-format)))))

(defun copy-stream-to-stream (input output &key element-type buffer-size linewise prefix)
  "Copies what remains of INPUT to OUTPUT (by lines when LINEWISE, each after PREFIX)."
  (declare (ignore element-type))
  (if linewise
      (loop for (line missing-newline-p) = (multiple-value-list (read-line input nil nil))
            while line
            do (when prefix (write-string prefix output))
               (write-string line output)
               (unless missing-newline-p (terpri output)))
      (let ((buffer (make-array (or buffer-size 8192)
                                :element-type (stream-element-type input))))
        (loop for end = (read-sequence buffer input)
              until (zerop end)
              do (write-sequence buffer output :end end)))))

(defun copy-file (input output &key (element-type 'character))
  "Copies the file INPUT to OUTPUT, replacing OUTPUT."
  (with-open-file (in input :element-type element-type)
    (with-open-file (out output :direction :output :if-exists :supersede :element-type element-type)
      (copy-stream-to-stream in out))))

(defun concatenate-files (inputs output)
  "Writes the files INPUTS one after the other to OUTPUT."
  (with-open-file (out output :direction :output :if-exists :supersede)
    (dolist (input inputs)
      (with-open-file (in input) (copy-stream-to-stream in out)))))

(defun ensure-all-directories-exist (pathnames)
  (dolist (p pathnames) (ensure-directories-exist (ensure-directory-pathname p))))

(defun ensure-absolute-pathname (path &optional defaults (on-error 'error))
  "PATH made absolute by merging with DEFAULTS (a pathname or a function returning one)."
  (let ((p (pathname path)))
    (cond ((absolute-pathname-p p) p)
          (defaults (merge-pathnames p (if (functionp defaults) (funcall defaults) defaults)))
          ((eq on-error 'error) (error "Not an absolute pathname: ~S" path))
          (on-error (funcall on-error "Not an absolute pathname: ~S" path)))))

(defun pathname-equal (p1 p2)
  "Whether P1 and P2 name the same file (by their parts)."
  (or (and (null p1) (null p2))
      (and p1 p2 (equal (namestring (pathname p1)) (namestring (pathname p2))))))

(defun split-name-type (filename)
  "The name and the type of FILENAME (a string), split at its last dot."
  (let ((dot (position #\. filename :from-end t)))
    (if (or (null dot) (zerop dot))
        (values filename :unspecific)
        (values (subseq filename 0 dot) (subseq filename (1+ dot))))))

(defun truenamize (pathname) (or (ignore-errors (truename pathname)) pathname))
(defun resolve-symlinks (pathname) (truenamize pathname))
(defun resolve-symlinks* (pathname) (truenamize pathname))

(defun directory* (pathname &rest keys)
  (declare (ignore keys))
  (directory pathname))

(defun call-with-current-directory (dir thunk)
  (if dir
      (let ((*default-pathname-defaults* (ensure-directory-pathname (merge-pathnames dir))))
        (funcall thunk))
      (funcall thunk)))

(defmacro with-current-directory ((&optional dir) &body body)
  "Runs BODY with *DEFAULT-PATHNAME-DEFAULTS* set to DIR."
  `(call-with-current-directory ,dir #'(lambda () ,@body)))

(defun chdir (directory)
  "Makes DIRECTORY the default for relative pathnames."
  (setf *default-pathname-defaults* (ensure-directory-pathname (merge-pathnames directory))))

(defun getenvp (name) "Whether the variable NAME is set and not empty." (not (emptyp (getenv name))))

(defun getenv-pathname (name &key want-directory &allow-other-keys)
  (let ((v (getenv name)))
    (and (not (emptyp v)) (if want-directory (ensure-directory-pathname v) (pathname v)))))

(defun %xdg (var default)
  (ensure-directory-pathname
   (or (getenv-pathname var :want-directory t)
       (merge-pathnames default (user-homedir-pathname)))))

(defun xdg-cache-home (&rest more) (declare (ignore more)) (%xdg "XDG_CACHE_HOME" ".cache/"))
(defun xdg-config-home (&rest more) (declare (ignore more)) (%xdg "XDG_CONFIG_HOME" ".config/"))
(defun xdg-data-home (&rest more) (declare (ignore more)) (%xdg "XDG_DATA_HOME" ".local/share/"))

;;; ------------------------------------------------------------------
;;; Safe reading

(defun call-with-safe-io-syntax (thunk &key (package :cl))
  (with-standard-io-syntax
    (let ((*package* (find-package package))
          (*read-eval* nil)
          (*print-readably* nil))
      (funcall thunk))))

(defmacro with-safe-io-syntax ((&key (package :cl)) &body body)
  "Runs BODY with the standard reader and printer settings, *READ-EVAL* false."
  `(call-with-safe-io-syntax #'(lambda () ,@body) :package ,package))

(defun safe-read-from-string (string &key (package :cl) (eof-error-p t) eof-value (start 0) end
                                          preserve-whitespace)
  "READ-FROM-STRING with the safe syntax."
  (with-safe-io-syntax (:package package)
    (if preserve-whitespace
        (read-preserving-whitespace (make-string-input-stream string start end) eof-error-p eof-value)
        (read-from-string string eof-error-p eof-value :start start :end end))))

(defun safe-read-file-form (pathname &key (at 0) (package :cl))
  (with-safe-io-syntax (:package package) (read-file-form pathname :at at)))

(defun safe-read-file-line (pathname &key (at 0) (package :cl))
  (declare (ignore package))
  (read-file-line pathname :at at))

;;; ------------------------------------------------------------------
;;; Small utilities

(defvar *stdin* *standard-input*)

(defun base-string-p (string) (typep string 'base-string))

(defun reduce/strcat (strings &key key start end)
  (declare (ignore key))
  (apply #'concatenate 'string (subseq strings (or start 0) end)))

(defun string-trim-whitespace (string)
  (string-trim '(#\Space #\Tab #\Newline #\Return #\Page) string))

(defun register-image-restore-hook (hook &optional (call-now-p t))
  "Runs HOOK now (tinycl does not save images)."
  (when call-now-p (funcall hook)))

(defun register-image-dump-hook (hook &optional call-now-p)
  (when call-now-p (funcall hook)))

(defun ensure-function (fun &key (package :cl))
  "FUN as a function: a function, a symbol, or a form read in PACKAGE."
  (etypecase fun
    (function fun)
    ((or symbol (cons (eql setf))) (fdefinition fun))
    ((cons (eql lambda)) (coerce fun 'function))
    (string (ensure-function (safe-read-from-string fun :package package)))))

(defun call-function (function-spec &rest arguments)
  (apply (ensure-function function-spec) arguments))

(defun lexicographic< (element< x y)
  (loop (cond ((null y) (return nil))
              ((null x) (return t))
              ((funcall element< (car x) (car y)) (return t))
              ((funcall element< (car y) (car x)) (return nil)))
        (setq x (cdr x) y (cdr y))))

(defun lexicographic<= (element< x y) (not (lexicographic< element< y x)))

(defmacro nest (&rest things)
  "Each form of THINGS wrapped around the ones after it: (nest (a) (b) c) is (a (b c))."
  (reduce #'(lambda (outer inner) `(,@outer ,inner)) things :from-end t))

(defun load* (x &rest keys &key &allow-other-keys)
  (apply #'load x (remove-plist-keys '(:external-format) keys)))

(defun load-from-string (string)
  "Loads the forms of STRING."
  (with-input-from-string (s string) (load s)))

(in-package "COMMON-LISP-USER")
