;;;; access.lisp: the access policy seen from Lisp: every file operation, allowed and refused, with
;;;; symbolic-link and .. escapes, relative paths, *DEFAULT-PATHNAME-DEFAULTS*, LOAD, COMPILE-FILE,
;;;; the system loader and the environment, under one of the policies:
;;;;   mcp           tinycl mcp's defaults (or a script given --allow-* with nothing to add)
;;;;   allow         the defaults plus --allow-read extra --allow-write wextra --allow-env TINYCL_TEST_VISIBLE
;;;;   sandbox       --sandbox
;;;;   unrestricted  --unrestricted (and a script given no option)
;;;; It runs after (defparameter cl-user::*sandbox-args* '("MODE" "FIXTURE")): as a script that
;;;; begins with that form (tests/run-sandbox.sh) or as the code of MCP calls. The fixture is laid out by
;;;; fixture.sh; the current directory is its work/, TMPDIR its tmp/, HOME its home/, and
;;;; CL_SOURCE_REGISTRY names its reg/. The last line is "access-MODE: N passed, N failed".

(in-package :cl-user)

(defvar *sandbox-args*)
(defvar *mode* (intern (string-upcase (first *sandbox-args*)) :keyword))
(defvar *fixture* (let ((d (second *sandbox-args*)))
                    (if (char= (char d (1- (length d))) #\/) d (concatenate 'string d "/"))))
(defvar *passed* 0)
(defvar *failed* 0)

(defun fx (name) (concatenate 'string *fixture* name))

(defmacro outcome (form)
  ;; :DENIED when the policy refuses FORM, its value when it returns, (:ERROR TYPE) otherwise
  `(handler-case ,form
     (tinycl:access-denied () :denied)
     (error (e) (list :error (type-of e)))))

(defmacro expect (name form mcp allow sandbox unrestricted)
  ;; FORM's outcome must be the expectation of the current mode (compared with EQUAL)
  `(let ((got (outcome ,form))
         (want (ecase *mode* (:mcp ,mcp) (:allow ,allow) (:sandbox ,sandbox) (:unrestricted ,unrestricted))))
     (if (equal got want)
         (incf *passed*)
         (progn (incf *failed*)
                (format t "~&FAIL ~A (~(~A~)): got ~S, expected ~S~%" ,name *mode* got want)))))

(defun slurp (path)
  (with-open-file (s path) (read-line s)))

(defun spit (path &rest keys)
  (with-open-file (s path :direction :output :if-exists :supersede :if-does-not-exist :create)
    (declare (ignore keys))
    (write-line "written" s))
  :ok)

(defun denial-report (form-thunk)
  (handler-case (progn (funcall form-thunk) nil)
    (tinycl:access-denied (c) (princ-to-string c))))

;;; ---- OPEN, every direction ----
(expect "open input inside" (slurp (fx "work/in.txt")) "inside" "inside" :denied "inside")
(expect "open input relative" (slurp "in.txt") "inside" "inside" :denied "inside")
(expect "open input relative in a subdirectory" (slurp "sub/deep.txt") "deep" "deep" :denied "deep")
(expect "open input outside" (slurp (fx "outside/secret.txt")) :denied :denied :denied "secret")
(expect "open input /etc/passwd" (progn (open "/etc/passwd") :ok) :denied :denied :denied :ok)
(expect "open input --allow-read dir" (slurp (fx "extra/readme.txt")) :denied "readme" :denied "readme")
(expect "open probe outside" (not (null (open (fx "outside/secret.txt") :direction :probe))) :denied :denied :denied t)
(expect "open probe inside" (not (null (open "in.txt" :direction :probe))) t t :denied t)
(expect "open output inside" (spit "new.txt") :ok :ok :denied :ok)
(expect "open output outside" (spit (fx "outside/new-out.txt")) :denied :denied :denied :ok)
(expect "open io outside"
        (with-open-file (s (fx "outside/rw.txt") :direction :io :if-exists :overwrite) (read-line s))
        :denied :denied :denied "rw")
(expect "open append outside"
        (with-open-file (s (fx "outside/secret.txt") :direction :output :if-exists :append) (write-line "x" s) :ok)
        :denied :denied :denied :ok)
(expect "open :if-exists :rename outside"
        (with-open-file (s (fx "outside/rw.txt") :direction :output :if-exists :rename) (write-line "x" s) :ok)
        :denied :denied :denied :ok)
(expect "open :if-exists :supersede inside"
        (with-open-file (s "in2.txt" :direction :output :if-exists :supersede) (write-line "x" s) :ok)
        :ok :ok :denied :ok)
(expect "open :if-does-not-exist nil outside"
        (open (fx "outside/nothing.txt") :if-does-not-exist nil) :denied :denied :denied nil)
(expect "open output into a --allow-read dir" (spit (fx "extra/x.txt")) :denied :denied :denied :ok)
(expect "open output --allow-write dir" (spit (fx "wextra/x.txt")) :denied :ok :denied :ok)
(expect "open input --allow-write dir" (slurp (fx "wextra/x.txt"))
        :denied "written" :denied "written")
(expect "open output temp dir" (spit (fx "tmp/t.txt")) :ok :ok :ok :ok)
(expect "open input temp dir" (slurp (fx "tmp/t.txt")) "written" "written" "written" "written")

;;; ---- escapes: symbolic links and .. ----
(expect "symlink to a directory outside" (slurp "link-out/secret.txt") :denied :denied :denied "secret")
(expect "symlink to a file outside" (slurp "link-secret") :denied :denied :denied "secret")
(expect "dangling symlink to a new file outside" (spit "dangling") :denied :denied :denied '(:error sys::simple-file-error))
(expect ".. out of the current directory" (slurp "../outside/secret.txt") :denied :denied :denied "secret")
(expect ".. from a subdirectory" (slurp "sub/../../outside/secret.txt") :denied :denied :denied "secret")
(expect ".. through a directory that does not exist"
        (spit "nonexistent/../../outside/x.txt") :denied :denied :denied '(:error sys::simple-file-error))
(expect ".. staying inside" (slurp "sub/../in.txt") "inside" "inside" :denied "inside")
(expect "report names the resolved path and the option"
        (let ((r (denial-report (lambda () (slurp "link-secret")))))
          (and r (search (fx "outside/secret.txt") r) (search (format nil "--allow-read ~Aoutside" *fixture*) r) t))
        t t t nil)
(expect "report of a write names --allow-write"
        (let ((r (denial-report (lambda () (spit (fx "outside/w.txt"))))))
          (and r (search "--allow-write" r) (search "OPEN" r) t))
        t t t nil)
(expect "the condition is a FILE-ERROR"
        (handler-case (slurp (fx "outside/secret.txt"))
          (file-error (c) (list (typep c 'tinycl:access-denied)
                                (tinycl:access-denied-operation c)
                                (tinycl:access-denied-option c))))
        (list t "OPEN" (format nil "--allow-read ~Aoutside" *fixture*))
        (list t "OPEN" (format nil "--allow-read ~Aoutside" *fixture*))
        (list t "OPEN" (format nil "--allow-read ~Aoutside" *fixture*))
        "secret")

;;; ---- *DEFAULT-PATHNAME-DEFAULTS* ----
(expect "defaults moved outside"
        (let ((*default-pathname-defaults* (pathname (fx "outside/")))) (slurp "secret.txt"))
        :denied :denied :denied "secret")
(expect "defaults moved to a subdirectory"
        (let ((*default-pathname-defaults* (pathname (fx "work/sub/")))) (slurp "deep.txt"))
        "deep" "deep" :denied "deep")
(expect "empty defaults: relative names resolve against the process's directory"
        (let ((*default-pathname-defaults* (pathname ""))) (slurp "sub/deep.txt"))
        "deep" "deep" :denied "deep")
(expect "relative defaults going up"
        (let ((*default-pathname-defaults* (pathname "../outside/"))) (slurp "secret.txt"))
        :denied :denied :denied "secret")

;;; ---- the other file operations ----
(expect "probe-file inside" (not (null (probe-file "in.txt"))) t t :denied t)
(expect "probe-file outside" (not (null (probe-file (fx "outside/secret.txt")))) :denied :denied :denied t)
(expect "probe-file outside through a symlink" (not (null (probe-file "link-secret"))) :denied :denied :denied t)
(expect "truename inside" (namestring (truename "in.txt")) (fx "work/in.txt") (fx "work/in.txt") :denied (fx "work/in.txt"))
(expect "truename outside" (namestring (truename (fx "outside/secret.txt"))) :denied :denied :denied (fx "outside/secret.txt"))
(expect "file-write-date inside" (integerp (file-write-date "in.txt")) t t :denied t)
(expect "file-write-date outside" (integerp (file-write-date (fx "outside/secret.txt"))) :denied :denied :denied t)
(expect "file-author outside" (stringp (file-author (fx "outside/secret.txt"))) :denied :denied :denied t)
(expect "directory inside" (length (directory "*.txt")) 3 3 :denied 3)
(expect "directory outside" (length (directory (fx "outside/outsys/*.asd"))) :denied :denied :denied 1)
(expect "directory of the fixture's root" (length (directory (fx "*/"))) :denied :denied :denied 7)
(expect "directory of /" (not (null (directory "/*/"))) :denied :denied :denied t)
(expect "directory ** does not follow a symlink out"
        (notany (lambda (p) (search "secret" (namestring p))) (directory (fx "work/**/*.txt")))
        t t :denied nil)
(expect "directory of a symlink to outside" (length (directory "link-out/*.lisp")) :denied :denied :denied 1)
(expect "ensure-directories-exist inside" (nth-value 1 (ensure-directories-exist "made/deeper/")) t t :denied t)
(expect "ensure-directories-exist outside"
        (nth-value 1 (ensure-directories-exist (fx "outside/made/"))) :denied :denied :denied t)
(expect "ensure-directories-exist of a directory outside that exists"
        (nth-value 1 (ensure-directories-exist (fx "outside/outsys/"))) :denied :denied :denied nil)
(expect "ensure-directories-exist escaping with .."
        (nth-value 1 (ensure-directories-exist "made2/../../outside/made2/")) :denied :denied :denied t)
(expect "ensure-directories-exist in the temp dir"
        (nth-value 1 (ensure-directories-exist (fx "tmp/made/"))) t t t t)
(expect "rename-file inside" (progn (rename-file "new.txt" "renamed.txt") :ok) :ok :ok :denied :ok)
(expect "rename-file out of the allowed dirs" (progn (rename-file "renamed.txt" (fx "outside/stolen.txt")) :ok)
        :denied :denied :denied :ok)
(expect "rename-file into the allowed dirs" (progn (rename-file (fx "outside/secret.txt") (fx "work/got.txt")) :ok)
        :denied :denied :denied :ok)
(expect "delete-file inside" (delete-file "in2.txt") t t :denied t)
(expect "delete-file outside" (delete-file (fx "outside/delme.txt")) :denied :denied :denied t)
(expect "delete-file outside through a symlink" (delete-file "link-secret") :denied :denied :denied t)
(expect "delete-directory outside" (progn (tinycl:delete-directory (fx "outside/made/")) :ok) :denied :denied :denied :ok)
(expect "delete-directory inside" (progn (tinycl:delete-directory "made/deeper/") :ok) :ok :ok :denied :ok)

;;; ---- LOAD and COMPILE-FILE ----
(expect "load inside" (and (load (fx "work/ok.lisp")) (symbol-value '*ok-loaded*)) t t :denied t)
(expect "load relative" (not (null (load "ok"))) t t :denied t)
(expect "load outside" (not (null (load (fx "outside/evil.lisp")))) :denied :denied :denied t)
(expect "load through a symlink to outside" (not (null (load "evil-link.lisp"))) :denied :denied :denied t)
(expect "compile-file outside" (not (null (compile-file (fx "outside/evil.lisp")))) :denied :denied :denied t)
(expect "compile-file inside" (not (null (compile-file "ok.lisp"))) t t :denied t)

;;; ---- the system loader ----
(expect "a system in the current directory" (progn (asdf:load-system "insys") (funcall (find-symbol "HELLO" "INSYS")))
        :insys :insys '(:error asdf:missing-component) :insys)
(expect "the system cache is written only where writing is allowed (else the source loads)"
        (or (ignore-errors (and (probe-file (asdf::%system-cache-file (truename "insys.lisp"))) :cached)) :source)
        :source :source :source :cached)
(expect "a system under ~/common-lisp" (progn (asdf:load-system "homesys") (funcall (find-symbol "HELLO" "HOMESYS")))
        :homesys :homesys :homesys :homesys)
(expect "a system of CL_SOURCE_REGISTRY" (progn (asdf:load-system "regsys") (funcall (find-symbol "HELLO" "REGSYS")))
        :regsys :regsys :regsys :regsys)
(expect "a system outside, named in the central registry"
        (let ((asdf:*central-registry* (list (fx "outside/outsys/"))))
          (asdf:load-system "outsys") (funcall (find-symbol "HELLO" "OUTSYS")))
        '(:error asdf:missing-component) '(:error asdf:missing-component)
        '(:error asdf:missing-component) :outsys)
(expect "an .asd file outside" (progn (asdf:load-asd (fx "outside/outsys/outsys.asd")) :ok)
        :denied :denied :denied :ok)
(expect "a kept listing of a directory gives only what this session may read"
        ;; the source registry's listings kept across processes (asdf.lisp, %DIRECTORY-LISTING) may
        ;; come from a process with other rules: as a listing here would, they hold no .asd out of
        ;; the readable directories
        (let* ((dir (pathname (fx "reg/"))) (key (namestring dir)))
          (setf (gethash key (asdf::%scan-listings))
                (list (sys::%directory-stamp dir) (list (fx "outside/outsys/outsys.asd") (fx "reg/regsys/regsys.asd")) nil))
          (mapcar #'pathname-name (asdf::%directory-listing dir key)))
        '("regsys") '("regsys") '("regsys") '("outsys" "regsys"))
(expect "a Debian system (cl-split-sequence, installed for the tests)"
        (progn (asdf:load-system "split-sequence")
               (funcall (find-symbol "SPLIT-SEQUENCE" "SPLIT-SEQUENCE") #\, "a,b"))
        '("a" "b") '("a" "b") '("a" "b") '("a" "b"))

;;; ---- the environment ----
(expect "HOME" (not (null (tinycl:posix-getenv "HOME"))) t t nil t)
(expect "a secret variable" (tinycl:posix-getenv "TINYCL_TEST_SECRET") nil nil nil "s3cret")
(expect "a secret variable through UIOP" (uiop:getenv "TINYCL_TEST_SECRET") nil nil nil "s3cret")
(expect "a variable given with --allow-env" (tinycl:posix-getenv "TINYCL_TEST_VISIBLE") nil "visible" nil "visible")
(expect "an unset variable" (tinycl:posix-getenv "TINYCL_TEST_UNSET") nil nil nil nil)
(expect "the rules name the mode"
        (not (null (search (if (eq *mode* :unrestricted) "unrestricted" "restricted") (tinycl:access-rules))))
        t t t t)

;;; ---- another Lisp thread of the session is under the same policy ----
(defun in-thread (thunk)
  ;; THUNK's outcome in a thread of its own
  (tinycl-threads:join-thread (tinycl-threads:make-thread (lambda () (outcome (funcall thunk))))))
(expect "thread: open input /etc/passwd" (in-thread (lambda () (close (open "/etc/passwd")) :ok)) :denied :denied :denied :ok)
(expect "thread: open input inside" (in-thread (lambda () (slurp "in.txt"))) "inside" "inside" :denied "inside")
(expect "thread: write outside" (in-thread (lambda () (spit (fx "outside/thread.txt")))) :denied :denied :denied :ok)

(format t "~&access-~(~A~): ~D passed, ~D failed~%" *mode* *passed* *failed*)
