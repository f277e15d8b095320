;;;; filetools.lisp: the Lisp half of the session's file and test calls: a form-by-form LOAD that reports each
;;;; form's errors and warnings with its line and the definitions it made, a side-effect-free check
;;;; that text reads, and a test runner that collects FiveAM's and RT's results. Reports are plain
;;;; lists left in *FILES-REPORT*; src/fileload.c and src/testrun.c turn them into the session API.

(in-package "SYSTEM")

(defvar *files-report* nil "The report of the last file or test call, read by the session.")

(defun %conditions-skipped (conditions)
  ;; CONDITIONS: the chains of reader conditionals before forms, as written ("#+sbcl", "#-(or) #+x").
  ;; For each chain, ((text . kept) ...): each conditional, and whether it is true under *FEATURES*;
  ;; src/fileload.c then reads the forms as the reader would (a false one skips the next object).
  (setq *files-report* (mapcar #'%condition-chain conditions))
  (values))

(defun %condition-chain (chain)
  ;; each conditional decided by the reader itself, reading it before a T (the feature expression
  ;; in the keyword package; no #. evaluated; one that does not read is taken as true)
  (let ((*read-eval* nil) (*package* (find-package "COMMON-LISP-USER")) (n (length chain)) (pos 0) (out nil))
    (loop
      (setq pos (or (position-if-not #'(lambda (c) (member c '(#\Space #\Tab #\Newline #\Return))) chain :start pos) n))
      (when (or (> (+ pos 2) n) (char/= (char chain pos) #\#)) (return (nreverse out)))
      (let* ((end (handler-case (let ((*read-suppress* t)) (nth-value 1 (read-from-string chain t nil :start (+ pos 2))))
                    (error () n)))
             (text (subseq chain pos end))
             (kept (handler-case (not (eq (read-from-string (concatenate 'string text " t") nil '%skipped) '%skipped))
                     (error () t))))
        (push (cons text kept) out)
        (setq pos end)))))

(defun %check-readable (string)
  ;; *FILES-REPORT* := NIL when STRING reads as Lisp, else the reader's complaint. Nothing is
  ;; interned or evaluated; no values, so the REPL's * and / are left alone.
  (setq *files-report*
        (handler-case
            (let ((*read-suppress* t) (*read-eval* nil))
              (with-input-from-string (in string)
                (loop (when (eq (read in nil in) in) (return nil)))))
          (error (c) (princ-to-string c))))
  (values))

;;; ------------------------------------------------------------------
;;; Positions in a text: line starts, and where the next form really begins (after comments)

(defun %line-starts (text)
  (let ((starts (make-array 64 :adjustable t :fill-pointer 0)))
    (vector-push-extend 0 starts)
    (dotimes (i (length text) starts)
      (when (char= (char text i) #\Newline) (vector-push-extend (1+ i) starts)))))

(defun %line-of (starts pos)
  ;; 1-based line holding character POS
  (let ((lo 0) (hi (1- (length starts))))
    (loop while (< lo hi)
          do (let ((mid (ceiling (+ lo hi) 2)))
               (if (<= (aref starts mid) pos) (setq lo mid) (setq hi (1- mid)))))
    (1+ lo)))

(defun %skip-atmosphere (text pos)
  ;; past whitespace, ; comments and nested #| |# comments
  (let ((n (length text)))
    (loop
      (cond ((>= pos n) (return pos))
            ((member (char text pos) '(#\Space #\Tab #\Newline #\Return #\Page)) (incf pos))
            ((char= (char text pos) #\;)
             (setq pos (or (position #\Newline text :start pos) n)))
            ((and (char= (char text pos) #\#) (< (1+ pos) n) (char= (char text (1+ pos)) #\|))
             (let ((depth 0))
               (loop
                 (cond ((>= pos n) (return))
                       ((and (char= (char text pos) #\#) (< (1+ pos) n) (char= (char text (1+ pos)) #\|))
                        (incf depth) (incf pos 2))
                       ((and (char= (char text pos) #\|) (< (1+ pos) n) (char= (char text (1+ pos)) #\#))
                        (incf pos 2)
                        (when (zerop (decf depth)) (return)))
                       (t (incf pos))))))
            (t (return pos))))))

(defun %first-line (text pos)
  (let ((end (min (or (position #\Newline text :start pos) (length text)) (+ pos 100))))
    (string-right-trim '(#\Return) (subseq text pos end))))

;;; ------------------------------------------------------------------
;;; What a top-level form defines (looking through PROGN and EVAL-WHEN)

(defun %defining-form-p (op)
  (and (symbolp op) (> (length (symbol-name op)) 3) (string= "DEF" (symbol-name op) :end2 3)))

(defun %method-specializers (lambda-list)
  (loop for p in lambda-list
        until (member p lambda-list-keywords)
        collect (if (consp p) (second p) t)))

(defun %form-definitions (form)
  ;; -> list of (kind name) with KIND a lower-case string and NAME the printed name
  (when (consp form)
    (let ((op (car form)))
      (cond ((member op '(progn eval-when locally))
             (loop for f in (if (eq op 'eval-when) (cddr form) (cdr form))
                   append (%form-definitions f)))
            ((and (%defining-form-p op) (consp (cdr form)))
             (let* ((kind (string-downcase (symbol-name op)))
                    (name (second form))
                    (name (if (and (eq op 'defstruct) (consp name)) (car name) name)))
               (when (or (symbolp name) (and (consp name) (eq (car name) 'setf)))
                 (list (list kind
                             (if (eq op 'defmethod)
                                 (let* ((rest (cddr form))
                                        (quals (loop while (and rest (not (listp (car rest)))) collect (pop rest))))
                                   (format nil "~S~{ ~S~} ~S" name quals (%method-specializers (car rest))))
                                 (prin1-to-string name)))))))))))

(defvar *file-definition-sources* nil
  "Alist ((kind . name) . (file line column)): where a file loaded form by form defined each
thing. Reset with the session (the variable is restored, not the list mutated).")

(defun %files-note-form-location (location)
  ;; called with (file line column) before each form of a form-by-form load is evaluated, and with NIL
  ;; after the last: where the definitions it makes come from, as LOAD tells the cross-reference
  ;; (SYS::%SET-SOURCE-LOCATION, when the cross-reference is built in)
  (when (fboundp '%set-source-location)
    (funcall '%set-source-location location)))

(defun %files-note-definition (kind name file line column)
  (setq *file-definition-sources*
        (cons (cons (cons kind name) (list file line column))
              (remove (cons kind name) *file-definition-sources* :key #'car :test #'equal))))

;;; ------------------------------------------------------------------
;;; Loading a file form by form (tcl_load_source_file): every error and warning noted with its line; an error ends its form only

(defun %read-file-text (truename)
  (with-open-file (in truename)
    (with-output-to-string (out)
      (loop for (line missing-newline-p) = (multiple-value-list (read-line in nil nil))
            while line
            do (write-string line out)
               (unless missing-newline-p (write-char #\Newline out))))))

(defun %load-file-report (path package)
  (setq *files-report* nil)
  (let* ((truename (or (probe-file path)
                       (%file-error (pathname path) "Couldn't load ~S: file does not exist." path)))
         (file (namestring truename))
         (text (%read-file-text truename))
         (starts (%line-starts text))
         (stream (make-string-input-stream text))
         (*package* (if package
                        (or (find-package package)
                            (error 'package-does-not-exist :package package
                                                  :format-control "The name ~S does not designate any package."
                                                  :format-arguments (list package)))
                        *package*))
         (*readtable* *readtable*)
         (*load-pathname* truename)
         (*load-truename* truename)
         (*source-file* file)
         (notes '()) (defs '()) (count 0))
    (unwind-protect
      (flet ((note (line severity c text-pos)
               (push (list line severity (prin1-to-string (%condition-display-type c)) (princ-to-string c)
                           (%first-line text text-pos))
                     notes)))
        (loop
          (let* ((start (%skip-atmosphere text (file-position stream)))
                 (line (%line-of starts start))
                 (column (1+ (- start (aref starts (1- line)))))
                 (form (handler-case (progn (%place-lists-from stream) (read stream nil stream))
                         (error (c) (note line "error" c start) (return)))))
            (when (eq form stream) (return))
            (incf count)
            (when (zerop (mod count 50)) (ignore-errors (%session-progress (format nil "~A: form ~D, line ~D" file count line))))
            (%files-note-form-location (list file line column))
            (let ((failed nil))
              (block one
                (handler-bind ((warning #'(lambda (c) (note line "warning" c start) (muffle-warning c)))
                               (error #'(lambda (c) (note line "error" c start) (setq failed t) (return-from one))))
                  (eval form)))
              (unless failed
                (dolist (d (%form-definitions form))
                  (%files-note-definition (first d) (second d) file line column)
                  (push (list (first d) (second d) (package-name *package*) line column) defs)))))))
      ;; a time-out or an interrupt leaves no location behind
      (%files-note-form-location nil))
    (setq *files-report* (list count (nreverse notes) (nreverse defs) file))
    (values)))

;;; ------------------------------------------------------------------
;;; Running tests (tcl_run_tests): a system's suite through ASDF with the framework's entry points watched, so the
;;; results come back as data while the suite prints what it always prints.

(defvar *test-collected* nil "(name status form expected actual reason expected-failure-p) per check, newest first")

(defun %test-systems (system)
  ;; the systems its TEST-OP runs: (:in-order-to ((test-op (test-op "x/tests")))), else itself
  (let* ((s (if (typep system 'asdf:system) system (asdf:find-system system)))
         (found (loop for entry in (asdf::component-in-order-to s)
                      when (and (consp entry) (symbolp (car entry)) (string= (symbol-name (car entry)) "TEST-OP"))
                        append (loop for dep in (cdr entry)
                                     when (and (consp dep) (string= (symbol-name (car dep)) "TEST-OP"))
                                       append (mapcar #'asdf::coerce-name (cdr dep))))))
    (or found (list (asdf::coerce-name system)))))

(defun %test-framework-of (systems)
  ;; the first test framework among the direct dependencies of SYSTEMS
  (dolist (s systems nil)
    (dolist (d (ignore-errors (asdf::system-depends-on (asdf:find-system s))))
      (let ((n (string-downcase (if (consp d) (princ-to-string (car (last d))) (asdf::coerce-name d)))))
        (cond ((member n '("fiveam" "5am") :test #'string=) (return-from %test-framework-of "fiveam"))
              ((member n '("rt" "sb-rt") :test #'string=) (return-from %test-framework-of "rt"))
              ((string= n "lisp-unit") (return-from %test-framework-of "lisp-unit"))
              ((string= n "parachute") (return-from %test-framework-of "parachute"))
              ((member n '("prove" "rove") :test #'string=) (return-from %test-framework-of "prove")))))))

(defun %test-fn (name package)
  (let ((s (and (find-package package) (find-symbol name package))))
    (and s (fboundp s) s)))

(defun %test-printed (x)
  (let ((*print-length* 20) (*print-level* 6) (*print-readably* nil))
    (handler-case (prin1-to-string x) (error () "#<error printing>"))))

(defun %test-errorish-p (actual-text)
  ;; RT reports an error in a test as the condition object in place of the values
  (and (> (length actual-text) 2) (string= "#<" actual-text :end2 2)
       (let* ((end (or (position-if #'(lambda (c) (member c '(#\Space #\>))) actual-text :start 2) (length actual-text)))
              (name (subseq actual-text 2 end)))
         (some #'(lambda (p) (let ((s (find-symbol (string-upcase name) p)))
                               (and s (find-class s nil) (subtypep s 'condition))))
               (list-all-packages)))))

(defun %tf (name package &rest args)
  ;; call a test framework's function by name: its package does not exist when this file is read
  (apply (find-symbol name package) args))

(defun %fiveam-note (r)
  (let* ((class (symbol-name (class-name (class-of r))))
         (status (cond ((string= class "TEST-PASSED") :passed)
                       ((string= class "UNEXPECTED-TEST-FAILURE") :errored)
                       ((string= class "TEST-SKIPPED") :skipped)
                       ((typep r (find-symbol "TEST-FAILURE" "FIVEAM")) :failed)
                       (t :passed)))
         (case* (ignore-errors (%tf "TEST-CASE" "FIVEAM" r)))
         (name (and case* (ignore-errors (%tf "NAME" "FIVEAM" case*))))
         (expr-slot (find-symbol "TEST-EXPR" "FIVEAM")))
    (let* ((expr (and expr-slot (ignore-errors (slot-boundp r expr-slot)) (slot-value r expr-slot)))
           (reason (let ((reason (ignore-errors (%tf "REASON" "FIVEAM" r))))
                     (if (stringp reason) (%one-line reason) nil)))
           (values (and (eq status :failed) (%fiveam-expected-actual expr reason))))
    (push (list (if name (%test-printed name) "?")
                status
                (if expr (%test-printed expr) nil)
                (first values)
                (if (eq status :errored)
                    (let ((c (ignore-errors (%tf "ACTUAL-CONDITION" "FIVEAM" r))))
                      (if (typep c 'condition)
                          (format nil "~A: ~A" (%condition-display-type c) (handler-case (princ-to-string c) (error () "?")))
                          (%test-printed c)))
                    (second values))
                reason
                nil)
          *test-collected*))))

(defun %fiveam-expected-actual (expr reason)
  ;; (expected actual) from the reason FiveAM's IS gives a failed (PRED EXPECTED ACTUAL):
  ;; "ACTUAL-FORM evaluated to ACTUAL which is not PRED to EXPECTED"; NIL when it is not that
  (when (and (consp expr) (= (length expr) 3) (symbolp (car expr)) reason)
    (let* ((pred (format nil " which is not ~A to " (let ((*package* (find-package "KEYWORD"))) (prin1-to-string (car expr)))))
           (pred2 (format nil " which is not ~S to " (car expr)))
           (ev (search " evaluated to " reason))
           (wp (or (and ev (search pred reason :start2 ev)) (and ev (search pred2 reason :start2 ev))))
           (plen (if (and wp (search pred reason :start2 ev)) (length pred) (length pred2))))
      (when (and ev wp)
        (list (subseq reason (+ wp plen)) (subseq reason (+ ev (length " evaluated to ")) wp))))))

(defun %one-line (text)
  ;; runs of whitespace made one space: FiveAM's reasons are laid out for a terminal
  (let ((out (make-string-output-stream)) (space nil))
    (loop for c across (string-trim '(#\Space #\Newline #\Tab) text)
          do (if (member c '(#\Space #\Newline #\Tab #\Return))
                 (setq space t)
                 (progn (when space (write-char #\Space out)) (setq space nil) (write-char c out))))
    (get-output-stream-string out)))

(defun %name-package (name)
  (or (and (symbolp name) (symbol-package name)) *package*))

(defun %rt-note (entry passed text)
  (let* ((name (%tf "NAME" "REGRESSION-TEST" entry))
         (actual (let ((p (search "Actual value" text)))
                   (when p
                     (let ((colon (position #\: text :start p)))
                       (string-right-trim '(#\. #\Newline #\Space) (string-left-trim " " (subseq text (1+ colon))))))))
         (status (cond (passed :passed)
                       ((and actual (%test-errorish-p actual)) :errored)
                       (t :failed))))
    (push (list (%test-printed name) status
                ;; the form and values as written in the test's package
                (if passed nil (let ((*package* (%name-package name)))
                                 (%test-printed (%tf "FORM" "REGRESSION-TEST" entry))))
                (if passed nil (let ((*package* (%name-package name)))
                                 (format nil "~{~S~^ ~}" (%tf "VALS" "REGRESSION-TEST" entry))))
                (if passed nil actual)
                (if passed nil (if (eq status :errored) "the test signalled an error" "the values differ from the expected ones"))
                (and (not passed) (member name (symbol-value (find-symbol "*EXPECTED-FAILURES*" "REGRESSION-TEST"))
                                          :test #'equal)
                     t))
          *test-collected*)))

(defun %lisp-unit-note (db)
  ;; lisp-unit's documented results (its TEST-RUN-COMPLETE condition's RESULTS, a test-results-db):
  ;; DATABASE maps each test name to a test-result whose PASS counts the assertions that passed,
  ;; FAIL lists a failure-result (FORM, EXPECTED and ACTUAL values) per failed assertion, and EXERR
  ;; is the error that ended the test, if any. A check is an assertion, as lisp-unit counts them.
  (let ((names nil))
    (maphash #'(lambda (name result) (declare (ignore result)) (push name names)) (%tf "DATABASE" "LISP-UNIT" db))
    (dolist (name (sort names #'string< :key #'%test-printed))
      (let ((r (gethash name (%tf "DATABASE" "LISP-UNIT" db)))
            (label (%test-printed name)))
        (dotimes (i (%tf "PASS" "LISP-UNIT" r))
          (push (list label :passed nil nil nil nil nil) *test-collected*))
        (dolist (f (reverse (%tf "FAIL" "LISP-UNIT" r)))
          (let ((*package* (%name-package name)))
            (push (list label :failed
                        (%test-printed (%tf "FORM" "LISP-UNIT" f))
                        (format nil "~{~A~^ ~}" (mapcar #'%test-printed (%tf "EXPECTED" "LISP-UNIT" f)))
                        (format nil "~{~A~^ ~}" (mapcar #'%test-printed (%tf "ACTUAL" "LISP-UNIT" f)))
                        "the assertion failed" nil)
                  *test-collected*)))
        (let ((c (%tf "EXERR" "LISP-UNIT" r)))
          (when c
            (push (list label :errored nil nil
                        (if (typep c 'condition)
                            (format nil "~A: ~A" (%condition-display-type c) (handler-case (princ-to-string c) (error () "?")))
                            (%test-printed c))
                        "the test signalled an error" nil)
                  *test-collected*)))))))

;;; Parachute's documented results: TEST returns its report, a parent result whose RESULTS vector
;;; holds every result made during the run (tests and checks alike), each with a STATUS (:passed,
;;; :failed, :skipped). Its plain summary counts the checks (results that are not TEST-RESULTs)
;;; that passed and failed, and every skipped result; so do we. A failed check whose value is a
;;; condition (the form signalled) is errored here rather than failed. A test that failed as a
;;; whole, with no failed check (its body signalled outside any check: errored; it ran past its
;;; time limit: failed), Parachute lists under its failures without counting it; we count it.
(defun %parachute-note (report)
  (flet ((p (name &rest args) (apply #'%tf name "PARACHUTE" args)))
    (let ((test-result (find-symbol "TEST-RESULT" "PARACHUTE"))
          (value-result (find-symbol "VALUE-RESULT" "PARACHUTE"))
          (comparison (find-symbol "COMPARISON-RESULT" "PARACHUTE"))
          (owner (make-hash-table :test #'eq)))
      (loop for r across (p "RESULTS" report)
            when (typep r test-result)
              do (loop for c across (p "RESULTS" r) do (setf (gethash c owner) r)))
      (loop for r across (p "RESULTS" report)
            do (let* ((status (p "STATUS" r))
                      (test-p (typep r test-result))
                      (test (if test-p r (gethash r owner)))
                      (name (and test (p "NAME" (p "EXPRESSION" test))))
                      (label (if test (%test-printed name) "?"))
                      ;; forms and values as written in the test's package
                      (*package* (%name-package name))
                      (value (and (typep r value-result) (slot-boundp r (find-symbol "VALUE" "PARACHUTE"))
                                  (list (p "VALUE" r))))
                      (description (p "DESCRIPTION" r))
                      (errored (if test-p
                                   (and (stringp description) (search "failed to evaluate" description) t)
                                   (typep (car value) 'condition))))
                 (cond ((eq status :skipped)
                        (push (list label :skipped nil nil nil nil nil) *test-collected*))
                       ((and test-p (not (and (eq status :failed)
                                              (notany #'(lambda (c) (eq (p "STATUS" c) :failed)) (p "RESULTS" r))))))
                       ((eq status :passed)
                        (push (list label :passed nil nil nil nil nil) *test-collected*))
                       ((eq status :failed)
                        (push (list label (if errored :errored :failed)
                                    (if test-p nil (%test-printed (p "EXPRESSION" r)))
                                    (and (typep r comparison) (%test-printed (p "EXPECTED" r)))
                                    (cond ((typep (car value) 'condition)
                                           (format nil "~A: ~A" (%condition-display-type (car value))
                                                   (handler-case (princ-to-string (car value)) (error () "?"))))
                                          (value (%test-printed (car value))))
                                    (%one-line (handler-case (p "FORMAT-RESULT" r :extensive)
                                                 (error () (or description "the check failed"))))
                                    nil)
                              *test-collected*))))))))

;;; Prove's documented results: each test file ends with FINALIZE, which prints the summary from
;;; its suite's REPORTS: the test reports (a SUBTEST is one composed report) counted as its summary
;;; counts them, "× F of N tests failed" (FAILED-REPORT-P) and "● S tests skipped"
;;; (SKIPPED-REPORT-P). A failed report of class ERROR-TEST-REPORT (the form signalled) is errored here.
(defun %prove-slot (report name)
  (let ((slot (find-symbol name "PROVE.REPORT")))
    (and (slot-exists-p report slot) (slot-boundp report slot) (slot-value report slot))))

(defun %prove-failing (report)
  ;; the failed report that says why: REPORT itself, or the first failing child of a subtest
  (if (typep report (find-symbol "COMPOSED-TEST-REPORT" "PROVE.REPORT"))
      (let ((child (find-if #'(lambda (c) (%tf "FAILED-REPORT-P" "PROVE.REPORT" c))
                            (%prove-slot report "CHILDREN"))))
        (if child (%prove-failing child) report))
      report))

(defun %prove-note (suite)
  (loop for r across (%tf "REPORTS" "PROVE.SUITE" suite)
        when (%tf "TEST-REPORT-P" "PROVE.REPORT" r)
          do (let* ((label (or (%prove-slot r "DESCRIPTION") "(no description)"))
                    (why (%prove-failing r))
                    (errored (%tf "ERROR-REPORT-P" "PROVE.REPORT" why)))
               (cond ((%tf "FAILED-REPORT-P" "PROVE.REPORT" r)
                      (let ((got (%prove-slot why "GOT"))
                            (form (%prove-slot why "GOT-FORM")))
                        (push (list label (if errored :errored :failed)
                                    (and form (not errored) (%test-printed form))
                                    (%test-printed (%prove-slot why "EXPECTED"))
                                    (if (typep got 'condition)
                                        (format nil "~A: ~A" (%condition-display-type got)
                                                (handler-case (princ-to-string got) (error () "?")))
                                        (%test-printed got))
                                    (or (and (not (eq why r)) (%prove-slot why "DESCRIPTION"))
                                        (if errored "the test signalled an error"
                                            ;; as Prove's list reporter words it
                                            (format nil "~A is ~:[~;not ~]expected to ~A ~A" (%test-printed got)
                                                    (%prove-slot why "NOTP")
                                                    (or (%prove-slot why "REPORT-EXPECTED-LABEL") "be")
                                                    (%test-printed (%prove-slot why "EXPECTED")))))
                                    nil)
                              *test-collected*)))
                     ((%tf "SKIPPED-REPORT-P" "PROVE.REPORT" r)
                      (push (list label :skipped nil nil nil nil nil) *test-collected*))
                     (t (push (list label :passed nil nil nil nil nil) *test-collected*))))))

(defun %prove-run (run)
  ;; RUN with every suite's reports noted as its FINALIZE prints them
  (%with-wrapped-function ((find-symbol "FINALIZE" "PROVE.SUITE")
                           #'(lambda (orig &optional (suite nil suite-p))
                               (let ((suite (if suite-p suite (%tf "CURRENT-SUITE" "PROVE.SUITE"))))
                                 (%prove-note suite)
                                 (funcall orig suite))))
    (funcall run)))

(defmacro %with-wrapped-function ((symbol wrapper) &body body)
  ;; run BODY with SYMBOL's function replaced by (funcall WRAPPER original ...args)
  (let ((orig (gensym)) (s (gensym)))
    `(let* ((,s ,symbol) (,orig (fdefinition ,s)))
       (setf (fdefinition ,s) #'(lambda (&rest args) (apply ,wrapper ,orig args)))
       (unwind-protect (progn ,@body) (setf (fdefinition ,s) ,orig)))))

(defun %test-find (test framework)
  ;; the test object named TEST: a FiveAM test symbol or an RT entry name
  (let* ((colon (position #\: test))
         (pkg (and colon (subseq test 0 colon)))
         (name (string-upcase (string-left-trim ":" (if colon (subseq test colon) test)))))
    (cond ((string= framework "fiveam")
           (let ((get (%test-fn "GET-TEST" "FIVEAM")))
             (dolist (p (if pkg (list (find-package (string-upcase pkg))) (list-all-packages)) nil)
               (let ((s (and p (find-symbol name p))))
                 (when (and s (funcall get s)) (return s))))))
          ((string= framework "rt")
           (dolist (e (cdr (symbol-value (find-symbol "*ENTRIES*" "REGRESSION-TEST"))) nil)
             (let ((n (%tf "NAME" "REGRESSION-TEST" e)))
               (when (if (symbolp n)
                         (and (string= (symbol-name n) name)
                              (or (null pkg) (string-equal (package-name (symbol-package n)) pkg)))
                         (string-equal (princ-to-string n) test))
                 (return n))))))))

(defun %run-tests (system test framework)
  (setq *files-report* nil *test-collected* nil)
  (let* ((root (asdf::%find-root system t))
         (tsystems (%test-systems root))
         (system (asdf::coerce-name root))
         (before (mapcar #'(lambda (s) (gethash s asdf::*image-systems*)) tsystems))
         (suite-error nil))
    (dolist (s tsystems) (asdf:load-system s))
    (let* ((reloaded (notevery #'(lambda (s b) (and b (eq b (gethash s asdf::*image-systems*)))) tsystems before))
           (fw (or framework (%test-framework-of tsystems)))
           (known (member fw '("fiveam" "rt" "lisp-unit" "parachute" "prove") :test #'equal)))
      (when (and framework (not (member framework '("fiveam" "rt" "lisp-unit" "parachute" "prove") :test #'string=)))
        (error "Unknown test framework ~S: use fiveam, rt, lisp-unit, parachute or prove." framework))
      (when (and fw (string= fw "fiveam") (not (find-package "FIVEAM"))) (setq known nil))
      (when (and fw (string= fw "rt") (not (find-package "REGRESSION-TEST"))) (setq known nil))
      (when (and fw (string= fw "lisp-unit") (not (find-package "LISP-UNIT"))) (setq known nil))
      (when (and fw (string= fw "parachute") (not (find-package "PARACHUTE"))) (setq known nil))
      (when (and fw (string= fw "prove") (not (find-package "PROVE"))) (setq known nil))
      (when (and test (or (not known) (member fw '("lisp-unit" "parachute" "prove") :test #'string=)))
        (error "Running one test needs FiveAM or RT; ~A's test framework is ~A." system (or fw "not recognised")))
      (let ((wrap-fiveam #'(lambda (orig &rest args)
                             (let ((r (apply orig args)))
                               (when (listp r) (mapc #'%fiveam-note r))
                               r)))
            (wrap-rt #'(lambda (orig entry &optional (s *standard-output*))
                         (let* ((out (make-string-output-stream))
                                (r (funcall orig entry out))
                                (text (get-output-stream-string out)))
                           (write-string text s)
                           (%rt-note entry r text)
                           (ignore-errors (%session-progress (format nil "~D tests run" (length *test-collected*))))
                           r))))
        (ignore-errors (%session-progress (format nil "Running the tests of ~A (~A)" system (or fw "unknown framework"))))
        (flet ((run ()
                 (handler-case
                     (if test
                         (let ((obj (%test-find test fw)))
                           (unless obj (error "No test named ~A in ~A's suite (~A)." test system fw))
                           (if (string= fw "fiveam")
                               (funcall (%test-fn "EXPLAIN!" "FIVEAM") (funcall (%test-fn "RUN" "FIVEAM") obj))
                               (funcall (%test-fn "DO-TEST" "REGRESSION-TEST") obj)))
                         (asdf:test-system system))
                   (error (c)
                     (if (and test (search "No test named" (princ-to-string c))) (error c))
                     (setq suite-error c)))))
          (cond ((and known (string= fw "fiveam"))
                 (%with-wrapped-function ((find-symbol "RUN" "FIVEAM") wrap-fiveam) (run)))
                ((and known (string= fw "rt"))
                 (%with-wrapped-function ((find-symbol "DO-ENTRY" "REGRESSION-TEST") wrap-rt) (run)))
                ((and known (string= fw "lisp-unit"))
                 ;; lisp-unit signals TEST-RUN-COMPLETE with the results when *SIGNAL-RESULTS* is true
                 (progv (list (find-symbol "*SIGNAL-RESULTS*" "LISP-UNIT")) (list t)
                   (let ((done (find-symbol "TEST-RUN-COMPLETE" "LISP-UNIT")))
                     (handler-bind ((condition #'(lambda (c)
                                                   (when (typep c done)
                                                     (%lisp-unit-note (%tf "RESULTS" "LISP-UNIT" c))))))
                       (run)))))
                ((and known (string= fw "parachute"))
                 (%with-wrapped-function ((find-symbol "TEST" "PARACHUTE")
                                          #'(lambda (orig &rest args)
                                              (let ((report (apply orig args)))
                                                (%parachute-note report)
                                                report)))
                   (run)))
                ((and known (string= fw "prove"))
                 (%prove-run #'run))
                (t (run))))
        ;; RT suites may run twice (alexandria: interpreted, then compiled): one result per test, a
        ;; failure in any run counting
        (let ((results (reverse *test-collected*)))
          (when (and known (string= fw "rt"))
            (let ((seen (make-hash-table :test #'equal)) (out '()))
              (dolist (r results)
                (let ((old (gethash (first r) seen)))
                  (cond ((null old) (setf (gethash (first r) seen) r) (push r out))
                        ((and (eq (second old) :passed) (not (eq (second r) :passed)))
                         (setf (gethash (first r) seen) r)
                         (setq out (substitute r old out))))))
              (setq results (nreverse out))))
          (flet ((count-of (status) (if known (count status results :key #'second) -1)))
            (setq *files-report*
                  (list (format nil "~{~A~^, ~}" tsystems) (or fw "unknown") reloaded
                        (count-of :passed) (count-of :failed) (count-of :errored) (count-of :skipped)
                        (if known (length results) -1)
                        (loop for r in results
                              unless (member (second r) '(:passed :skipped))
                                collect (list (first r) (string-downcase (symbol-name (second r)))
                                              (third r) (fourth r) (fifth r) (sixth r) (seventh r)))
                        (and suite-error (prin1-to-string (%condition-display-type suite-error)))
                        (and suite-error (princ-to-string suite-error))))))))
    (values)))
