;;;; debug.lisp: the debugger for agents (an evaluation suspended at an unhandled error until a
;;;; restart is chosen) and the profiler. The suspension itself is in C (src/debugger.c).

(in-package "SYSTEM")

(defun %required-argument-count (function)
  ;; how many required arguments FUNCTION takes, or NIL when its lambda list is unknown
  (let ((ll (ignore-errors (%function-lambda-list function))))
    (if (listp ll)
        (let ((n 0))
          (dolist (p ll n)
            (if (%memq p lambda-list-keywords) (return n))
            (setq n (1+ n))))
        nil)))

(defun %find-listed-restart (designator restarts)
  ;; DESIGNATOR: a string, the number of a restart in RESTARTS or its name (NAME or PKG:NAME, any case)
  (if (and (plusp (length designator)) (every #'digit-char-p designator))
      (nth (parse-integer designator) restarts)
      (dolist (r restarts nil)
        (let ((name (restart-name r)))
          (if (and name
                   (or (string-equal designator (symbol-name name))
                       (string-equal designator (let ((*package* (find-package "KEYWORD")))
                                                  (prin1-to-string name)))))
              (return r))))))

(defun %restart-values (forms)
  ;; -> (values list-of-values nil), or (values nil problem-string) when a form fails
  (let ((result nil))
    (dolist (text forms (values (nreverse-boot result) nil))
      (let ((outcome (handler-case (list (eval (read-from-string text)))
                       (error (e)
                         (return-from %restart-values
                           (values nil (format nil "The value form ~S failed: ~A" text
                                               (ignore-errors (princ-to-string e)))))))))
        (setq result (cons (car outcome) result))))))

(defun %bounded-string (printer object)
  ;; OBJECT printed by PRINTER within bounds: a debugger report must stay short and must not fail
  (let ((s (or (ignore-errors
                (let ((*print-length* 8) (*print-level* 3) (*print-circle* t) (*print-readably* nil)
                      (*print-lines* nil) (*print-pretty* nil))
                  (funcall printer object)))
               "#<error printing object>")))
    (if (> (length s) 300) (concatenate 'string (subseq s 0 300) "...") s)))

(defun %describe-restarts (restarts)
  (mapcar #'(lambda (r)
              (list (%bounded-string #'prin1-to-string (restart-name r))
                    (%bounded-string #'princ-to-string r)))
          restarts))

(defun %describe-frames (frames)
  ;; ((call local...) ...) as strings, FRAMES as %BACKTRACE-LOCALS gives them
  (mapcar #'(lambda (f)
              (cons (%bounded-string #'prin1-to-string (car f))
                    (mapcar #'(lambda (v)
                                (format nil "~A = ~A" (%bounded-string #'prin1-to-string (car v))
                                        (%bounded-string #'prin1-to-string (cdr v))))
                            (cdr f))))
          frames))

(defun %agent-debugger (condition)
  ;; Called by INVOKE-DEBUGGER in a debug evaluation: parks this evaluation (%DEBUG-SUSPEND
  ;; returns only when the agent chooses) and invokes the restart chosen. Returns when this
  ;; evaluation is not a debug one, so that INVOKE-DEBUGGER ends it as usual.
  (let ((restarts (compute-restarts condition))
        (frames (%strip-internal-frames (%backtrace-locals 1000)))
        (note nil))
    (do () (nil)
      (let ((command (%debug-suspend condition (%describe-restarts restarts) (%describe-frames frames) note)))
        (if (null command) (return-from %agent-debugger nil))
        (setq note nil)
        (if (eq (car command) :abort)
            (%leave-debugger (car (last (%abort-restarts-in restarts))) %agent-debugger))
        (let ((r (%find-listed-restart (cadr command) restarts)))
          (if (null r)
              (setq note (format nil "There is no restart ~S here; choose one of those listed, by name or number."
                                 (cadr command)))
              (multiple-value-bind (values problem) (%restart-values (cddr command))
                (let ((needed (%required-argument-count (%restart.function r))))
                  (cond (problem (setq note problem))
                        ((and needed (< (length values) needed))
                         (setq note (format nil "The restart ~S needs ~D value~:P (give them as Lisp forms in values)."
                                            (restart-name r) needed needed)))
                        (t (handler-case (apply #'invoke-restart r values)
                             (restart-argument-error (e)
                               (setq note (format nil "~A Give its values as Lisp forms in values."
                                                  (ignore-errors (princ-to-string e))))))))))))))))
