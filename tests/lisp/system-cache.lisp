;;;; system-cache.lisp: the system loader's cache of compiled files (stdlib-lisp/asdf.lisp): a
;;;; system's files are compiled into the cache on the first load, loaded from it afterwards,
;;;; compiled again when the source changed or the compiled file is damaged, and the sources are
;;;; loaded when the cache cannot be written. tests/run-lisp.sh points XDG_CACHE_HOME at a
;;;; temporary directory; these tests use a directory of their own under /tmp.

(defvar *sc-dir* (format nil "/tmp/tinycl-system-cache-test-~D-~D/" (get-universal-time)
                         (random 1000000 (make-random-state t))))
(defvar *sc-from* nil)

(defun sc (name) (concatenate 'string *sc-dir* name))

(defun sc-write (name &rest lines)
  (ensure-directories-exist (sc name))
  (with-open-file (s (sc name) :direction :output :if-exists :supersede)
    (dolist (l lines) (write-line l s)))
  (sc name))

(defun sc-cached-file ()
  (asdf::%system-cache-file (truename (sc "src/sc-main.lisp"))))

(defun sc-load ()
  ;; -> where the file was loaded from ("fasl" or "lisp") and the value it defines
  (let ((*standard-output* (make-broadcast-stream)))
    (handler-bind ((warning #'muffle-warning))
      (asdf:load-system :sc-demo :force t)))
  (list *sc-from* (funcall (find-symbol "SC-VALUE" "CL-USER"))))

(deftest system-cache-setup
  (progn
    (sc-write "src/sc-demo.asd" "(defsystem :sc-demo :components ((:file \"sc-main\")))")
    (sc-write "src/sc-main.lisp"
              "(setq cl-user::*sc-from* (pathname-type *load-truename*))"
              "(defun cl-user::sc-value () :one)")
    (setq asdf::*system-cache-directory* (sc "cache/"))
    (asdf:initialize-source-registry `(:source-registry (:directory ,(sc "src/"))))
    (equal (namestring (asdf::%system-cache-root)) (sc "cache/")))
  t)

(deftest system-cache-first-load-compiles
  (let ((r (sc-load)))
    (list r (and (probe-file (sc-cached-file)) t)
          (eql 0 (search (sc "cache/") (namestring (sc-cached-file))))))
  (("fasl" :one) t t))

(deftest system-cache-second-load-from-cache
  (let ((date (file-write-date (sc-cached-file))))
    (sleep 1.1)
    (list (sc-load) (= date (file-write-date (sc-cached-file)))))
  (("fasl" :one) t))

(deftest system-cache-source-changed-recompiles
  (progn
    (sleep 1.1)
    (sc-write "src/sc-main.lisp"
              "(setq cl-user::*sc-from* (pathname-type *load-truename*))"
              "(defun cl-user::sc-value () :two)")
    (list (sc-load) (>= (file-write-date (sc-cached-file)) (file-write-date (sc "src/sc-main.lisp")))))
  (("fasl" :two) t))

(deftest system-cache-damaged-file-recompiled
  (progn
    (with-open-file (s (sc-cached-file) :direction :output :if-exists :supersede)
      (write-string "TCLFASL garbage" s))
    (sleep 1.1)
    (let ((touch (sc-write "src/sc-other.txt" "x"))) (declare (ignore touch)))
    (list (sc-load) (sys::%fasl-loadable-p (sc-cached-file) t)))
  (("fasl" :two) t))

(deftest system-cache-unwritable-loads-source
  (let ((asdf::*system-cache-directory* "/proc/tinycl-no-cache/"))
    (sc-load))
  ("lisp" :two))

(deftest system-cache-off-loads-source
  (let ((asdf::*system-cache* nil))
    (sc-load))
  ("lisp" :two))

(deftest system-cache-cleanup
  (progn
    (setq asdf::*system-cache-directory* nil)
    (delete-directory *sc-dir* :recursive t)
    (probe-file *sc-dir*))
  nil)
