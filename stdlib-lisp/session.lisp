;;;; session.lisp: how a session evaluates one top-level form: an ABORT restart, warnings collected.

(in-package "SYSTEM")

(defvar *session-collect-warnings* nil
  "True when the session reports warnings in its results instead of printing them.")

;; Interned here rather than when a session starts (src/session_guard.c sets it), so that the
;; package a session starts with is the boot image's, and its start-up snapshot shares the
;; image's record of SYSTEM (runtime/snapshot.c).
(defvar *session-standard-streams* nil
  "The session's own standard streams, put back when user code leaves a standard stream variable unusable.")

(defun %session-collect-warning (c)
  ;; a warning goes into the call's result (with the position of the form analysed) instead of
  ;; *ERROR-OUTPUT*
  (%session-note-warning (%type-name-for-result (%condition-display-type c)) (princ-to-string c))
  (muffle-warning c))

(defun %type-name-for-result (type)
  ;; printed as in the current package, or in CL-USER when that does not use CL (KEYWORD, say),
  ;; so that a standard type reads STYLE-WARNING rather than COMMON-LISP:STYLE-WARNING
  (let ((*package* (if (or (eq *package* (find-package "COMMON-LISP"))
                           (%memq (find-package "COMMON-LISP") (package-use-list *package*)))
                       *package*
                       (find-package "COMMON-LISP-USER"))))
    (prin1-to-string type)))

(defun %session-eval (form)
  ;; every top-level form runs with its own ABORT restart; an unhandled error ends this form only
  (restart-case
      (if *session-collect-warnings*
          (handler-bind ((warning #'%session-collect-warning))
            (eval form))
          (eval form))
    (abort ()
      :report "Return to top level."
      (%session-abort))))

;;; ------------------------------------------------------------------
;;; Reset support: every registry held in Lisp data registers a restorer at snapshot time.
;;; The symbol cells themselves are restored in C (runtime/snapshot.c).

(defvar *session-snapshot-hooks* nil
  "Functions of no arguments called when the session's boot state is captured; each returns
a function that puts its registry back as it was.")
(defvar *session-restorers* nil)

(defun %hash-table-entries (table)
  (let ((entries nil))
    (maphash #'(lambda (k v) (setq entries (cons (cons k v) entries))) table)
    entries))

(defun %restore-hash-table (table entries)
  (clrhash table)
  (dolist (e entries) (setf (gethash (car e) table) (cdr e))))

(defvar *session-registries* nil
  "The registries (hash tables) a reset restores; loading a system adds to them what must survive a reset.")

(defun %registry-restorer (table)
  (if (not (%memq table *session-registries*)) (setq *session-registries* (cons table *session-registries*)))
  ;; a copy of the table's entries, put back in C: a comparison when the session did not change
  ;; the registry, a copy of words when it did (runtime/snapshot.c); a weak table has none
  (let ((copy (%registry-copy table)))
    (if copy
        #'(lambda () (%registry-put-back table copy))
        (let ((entries (%hash-table-entries table)))
          #'(lambda () (%restore-hash-table table entries))))))

(setq *session-snapshot-hooks*
      (list #'(lambda () (%registry-restorer *class-table*))
            #'%clos-snapshot
            #'(lambda () (%registry-restorer *structure-descriptions*))
            #'(lambda () (%registry-restorer *simple-variants*))))

;; systems (asdf.lisp) come last: their restorer clears the session's record of loads and puts
;; back what loaded systems added to the registries restored before it
(setq *session-snapshot-hooks* (append *session-snapshot-hooks* (list #'%systems-snapshot)))

(defun %session-snapshot ()
  (setq *session-restorers* (%mapcar1 #'funcall *session-snapshot-hooks*)))

(defun %session-reset ()
  (dolist (r *session-restorers*) (funcall r)))

;;; ------------------------------------------------------------------
;;; LIST-DEFINITIONS: what the user has defined, read from the symbol tables.
;;; Other layers (structures, CLOS, the system loader) add kinds through *DEFINITION-FINDERS*:
;;; functions of (symbol) returning a list of (kind detail) entries.

(defvar *definition-finders* nil)
;; classes, structures and methods (clos.lisp)
(setq *definition-finders* (list #'%clos-definitions))

(defun %user-packages ()
  ;; CL-USER, then every package created since the session started (loaded systems excluded)
  (let ((boot (%boot-packages)) (result nil))
    (dolist (p (list-all-packages))
      (if (and (not (%memq p boot)) (not (%system-package-p p)))
          (setq result (cons p result))))
    (cons (find-package "COMMON-LISP-USER") (nreverse-boot result))))

(defun %system-package-p (p)
  ;; created by loading a system (runtime/snapshot.c keeps these across a plain reset)
  (if (%memq p (%system-packages)) t nil))

(defun %user-symbol-p (sym pkg)
  ;; a symbol of PKG made since boot (in boot packages), or any own symbol of a new package
  (if (%memq pkg (%boot-packages))
      (not (%boot-symbol-p sym))
      t))

(defun %short-print (object max)
  (let ((s (let ((*print-length* 8) (*print-level* 3) (*print-circle* t) (*print-readably* nil))
             (prin1-to-string object))))
    (if (> (length s) max)
        (concatenate 'string (subseq s 0 max) "...")
        s)))

(defun %lambda-list-string (fn &optional (package *package*))
  ;; printed relative to the definition's own package, so its parameters read unqualified
  (let ((ll (if (%generic-function-p fn) (generic-function-lambda-list fn) (%function-lambda-list fn))))
    (if (eq ll :unknown)
        ""
        ;; an empty lambda list reads as the person wrote it, (), not as NIL
        (if (null ll)
            "()"
            (let ((*print-case* :upcase) (*package* (or package *package*)))
              (prin1-to-string ll))))))

(defun %definitions-of (sym)
  (let ((entries nil))
    (if (and (not (special-operator-p sym)) (macro-function sym))
        (setq entries (cons (list :macro (%lambda-list-string (macro-function sym) (symbol-package sym))) entries))
        (if (fboundp sym)
            (let ((f (fdefinition sym)))
              (setq entries (cons (list (if (%generic-function-p f) :generic-function :function)
                                        (%lambda-list-string f (symbol-package sym)))
                                  entries)))))
    (if (fboundp (list 'setf sym))
        (let ((f (fdefinition (list 'setf sym))))
          (setq entries (cons (list (if (%generic-function-p f) :generic-function :function)
                                    (%lambda-list-string f (symbol-package sym))
                                    (list 'setf sym))
                              entries))))
    (if (boundp sym)
        (setq entries (cons (list :variable (%short-print (symbol-value sym) 60)) entries)))
    (dolist (finder *definition-finders*)
      (setq entries (append entries (funcall finder sym))))
    entries))

(defun %collect-definitions (packages &optional all)
  ;; -> list of (kind symbol detail &optional name), in package then name order; ALL: every own
  ;; symbol's definitions, not only those the user made (a loaded system's package)
  (let ((result nil))
    (dolist (p packages)
      (let ((syms (%sort-symbols (%package-own-symbols p))))
        (dolist (sym syms)
          (if (or all (%user-symbol-p sym p))
              (dolist (e (%definitions-of sym))
                (setq result (cons (list (car e) (or (caddr e) sym) (cadr e)) result)))))))
    (nreverse-boot result)))

(defun %sort-symbols (syms)
  (sort syms #'string< :key #'symbol-name))

(defvar *definition-sections*
  '((:function "Functions" "functions")
    (:variable "Variables" "variables")
    (:macro "Macros" "macros")
    (:class "Classes" "classes")
    (:structure "Structures" "structures")
    (:generic-function "Generic Functions" "generic-functions")
    (:method "Methods" "methods")))

(defun %definition-package-name (name)
  (let ((sym (if (consp name) (cadr name) name)))
    (if (symbol-package sym) (package-name (symbol-package sym)) "")))

(defun %write-definition (out kind name detail)
  (cond ((eq kind :variable) (format out "- ~A = ~A~%" name detail))
        ((equal detail "") (format out "- ~A~%" name))
        (t (format out "- ~A ~A~%" name detail))))

(defun %definition-section (out defs section)
  ;; writes one [Section]; returns its entries
  (let ((entries nil))
    (dolist (d defs)
      (if (eq (car d) (car section))
          (let ((name (let ((*print-readably* nil)) (prin1-to-string (cadr d)))))
            (if (null entries) (format out "[~A]~%" (cadr section)))
            (%write-definition out (car d) name (caddr d))
            (setq entries (cons (list (caddr section) name (caddr d) (%definition-package-name (cadr d)))
                                entries)))))
    (nreverse-boot entries)))

(defun %list-definitions (type package-name)
  ;; -> (values text entries); entries are (kind name detail package), all strings
  (let* ((packages (if package-name (list (%find-package-or-lose package-name)) (%user-packages)))
         (defs (%collect-definitions packages (and package-name (%system-package-p (car packages)))))
         (want (if (or (null type) (equal type "all")) nil type))
         (chunks nil)
         (entries nil))
    (dolist (section *definition-sections*)
      (if (or (null want) (equal want (caddr section)))
          (let* ((out (make-string-output-stream))
                 (es (%definition-section out defs section)))
            (if es
                (progn (setq chunks (cons (get-output-stream-string out) chunks))
                       (setq entries (append entries es)))))))
    (if (and (or (null want) (equal want "packages")) (null package-name) (cdr (%user-packages)))
        (let ((out (make-string-output-stream)))
          (format out "[Packages]~%")
          (dolist (p (cdr (%user-packages)))
            (format out "- ~A~%" (package-name p))
            (setq entries (append entries (list (list "packages" (package-name p) "" (package-name p))))))
          (setq chunks (cons (get-output-stream-string out) chunks))))
    (dolist (extra *definition-extra-sections*)
      (multiple-value-bind (text extra-entries) (funcall extra want package-name)
        (if (and text (not (equal text "")))
            (progn (setq chunks (cons text chunks))
                   (setq entries (append entries extra-entries))))))
    (values (if chunks
                (string-right-trim '(#\Newline)
                                   (format nil "~{~A~^~%~}" (reverse chunks)))
                "No user definitions")
            entries)))

(defvar *definition-extra-sections* nil
  "Functions of (type package-name) returning (values text entries) for sections such as [Loaded Systems].")
(setq *definition-extra-sections* (list #'%loaded-systems-section))

;;; ------------------------------------------------------------------
;;; The REPL's debugger: an unhandled error shows its restarts; the person picks one by
;;; number, or :abort, or looks at the backtrace with :bt. Forms typed at the debugger
;;; prompt are evaluated where the error happened (its handlers and bindings in force).

(defvar *debug-level* 0)

(defun %print-restarts (restarts stream)
  (format stream "~&Restarts (type a number, :abort, :bt for the backtrace, :help):~%")
  (let ((i 0))
    (dolist (r restarts)
      (format stream "  ~D: [~A] ~A~%" i (restart-name r) (princ-to-string r))
      (setq i (1+ i)))))

(defun %print-backtrace (frames stream locals)
  ;; FRAMES as %BACKTRACE-LOCALS gives them: ((name . args) . ((var . value) ...)) each
  (let ((i 0) (*print-length* 8) (*print-level* 3) (*print-circle* t))
    (dolist (f frames)
      (format stream "~&  ~D: ~S~%" i (car f))
      (if locals
          (dolist (v (cdr f))
            (format stream "~&      ~S = ~S~%" (car v) (cdr v))))
      (setq i (1+ i)))
    (if (null frames) (format stream "~&  (no frames)~%"))))

(defun %debugger-command-p (line names)
  (dolist (n names nil)
    (if (string-equal line n) (return t))))

(defmacro %leave-debugger (top block)
  ;; through the top level's ABORT, TOP; without one (nothing outside established it: the
  ;; session's evaluation upcall was missing, say) the debugger function BLOCK returns, and
  ;; INVOKE-DEBUGGER ends the evaluation with the condition as its error, instead of coming back
  ;; to a prompt that at the end of input would ask again forever
  `(if ,top (invoke-restart ,top) (return-from ,block nil)))

(defun %repl-debugger (condition)
  (let* ((*debug-level* (1+ *debug-level*))
         (level *debug-level*)
         (frames (%strip-internal-frames (%backtrace-locals 200)))
         ;; the restarts as listed: the numbers typed refer to this list, not to one computed
         ;; inside the prompt's own "Return to debug level" restart
         (restarts (compute-restarts condition))
         ;; the top level's ABORT, found before the prompt's own restart exists; NIL when nothing
         ;; outside established one (the session's evaluation upcall was missing, say)
         (top (car (last (%abort-restarts-in restarts))))
         (out *debug-io*))
    (format out "~&~%debugger invoked on a ~S:~%  ~A~%~%"
            (%condition-display-type condition) (ignore-errors (princ-to-string condition)))
    (%print-restarts restarts out)
    (do () (nil)
      (with-simple-restart (abort "Return to debug level ~D." level)
        (let ((line (%read-line-interactive
                     (format nil "[~D] ~A> " level (%package-short-name *package*)))))
          (when (null line)
            ;; end of input at the debugger prompt: leave through the outermost ABORT
            (%leave-debugger top %repl-debugger))
          (setq line (string-trim '(#\Space #\Tab) line))
          (cond ((equal line ""))
                ((every #'digit-char-p line)
                 (let ((n (parse-integer line)))
                   (if (< n (length restarts))
                       (invoke-restart-interactively (nth n restarts))
                       (format out "~&There is no restart number ~D.~%" n))))
                ((%debugger-command-p line '(":abort" ":a" ":q" ":top" ":quit"))
                 (%leave-debugger top %repl-debugger))
                ((%debugger-command-p line '(":bt" ":backtrace"))
                 (%print-backtrace frames out nil))
                ((%debugger-command-p line '(":bt locals" ":backtrace locals" ":locals"))
                 (%print-backtrace frames out t))
                ((%debugger-command-p line '(":error" ":e"))
                 (format out "~&~A~%" condition))
                ((%debugger-command-p line '(":restarts" ":r"))
                 (%print-restarts restarts out))
                ((%debugger-command-p line '(":help" ":h" "help"))
                 (format out "~&A number invokes that restart; :abort returns to the top level; :bt shows the backtrace~%(:bt locals with each frame's local variables); :error shows the condition again; any other~%input is evaluated here.~%"))
                (t
                 (%debugger-eval line out))))))))

(defun %package-short-name (p)
  (let ((best (package-name p)))
    (dolist (n (package-nicknames p) best)
      (if (< (length n) (length best)) (setq best n)))))

(defun %abort-restarts-in (restarts)
  (let ((r nil))
    (dolist (x restarts) (if (eq (restart-name x) 'abort) (setq r (cons x r))))
    (nreverse-boot r)))

(defun %debugger-eval (line out)
  (let ((stream (make-string-input-stream line)) (eof '#:eof))
    (do () (nil)
      (let ((form (read stream nil eof)))
        (if (eq form eof) (return))
        (let ((values (multiple-value-list (eval form))))
          (dolist (v values) (format out "~&~S~%" v)))))))
