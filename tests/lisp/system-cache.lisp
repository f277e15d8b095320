;;;; system-cache.lisp: the system loader's cache of compiled files (stdlib-lisp/asdf.lisp): a
;;;; system's files are compiled into the cache on the first load, loaded from it afterwards,
;;;; compiled again when the source changed or the compiled file is damaged, and the sources are
;;;; loaded when the cache cannot be written. tests/run-lisp.sh points XDG_CACHE_HOME at a
;;;; temporary directory; these tests use a directory of their own under /tmp.

(defvar *sc-dir* (format nil "/tmp/tinycl-system-cache-test-~D-~D/" (get-universal-time)
                         (random 1000000 (make-random-state t))))
(defvar *sc-from* nil)
(defvar cl-user::*sc-names* nil)
(defvar cl-user::*sc-touch* nil)

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

(defun sc-bytes (path)
  (with-open-file (s path :element-type '(unsigned-byte 8))
    (let ((b (make-array (file-length s) :element-type '(unsigned-byte 8))))
      (read-sequence b s)
      b)))

(defun sc-put-bytes (path bytes)
  (with-open-file (s path :direction :output :element-type '(unsigned-byte 8) :if-exists :supersede)
    (write-sequence bytes s)))

;; the loader reads a compiled file whole and checks it before anything of it runs: one damaged
;; past its headers (which those alone do not show) is compiled again, not an error
(deftest system-cache-damaged-body-recompiled
  (let* ((good (sc-bytes (sc-cached-file)))
         (bad (copy-seq good)))
    (setf (aref bad (- (length bad) 200)) (logxor 255 (aref bad (- (length bad) 200))))
    (sc-put-bytes (sc-cached-file) bad)
    (list (sc-load) (sys::%fasl-loadable-p (sc-cached-file) t)))
  (("fasl" :two) t))

;; a compiled file whose header promises more than the file holds (truncated, or cut short
;; while it was read) is compiled again
(deftest system-cache-truncated-file-recompiled
  (let ((good (sc-bytes (sc-cached-file))))
    (sc-put-bytes (sc-cached-file) (subseq good 0 (floor (length good) 2)))
    (list (sc-load) (sys::%fasl-loadable-p (sc-cached-file) t)))
  (("fasl" :two) t))

;; the loader's read: NIL and why for a file older than its source, missing or damaged (nothing
;; of it runs), the items, the stand-ins and the truename otherwise; LOAD's read signals instead
(deftest system-cache-fasl-read-answers
  (let* ((fasl (sc-cached-file))
         (date (file-write-date fasl))
         (good (sc-bytes fasl)))
    (prog1
        (list (multiple-value-bind (items pending truename) (sys::%fasl-read fasl date)
                (list (simple-vector-p items) pending (equal truename (truename fasl))))
              (multiple-value-bind (items why) (sys::%fasl-read fasl (+ date 10))
                (list items (stringp why)))
              (multiple-value-bind (items why) (sys::%fasl-read (sc "cache/none.fasl") date)
                (list items (stringp why)))
              (progn (sc-put-bytes fasl (subseq good 0 100))
                     (multiple-value-bind (items why) (sys::%fasl-read fasl date)
                       (list items (and (search "truncated" why) t))))
              (handler-case (progn (sys::%fasl-read fasl) :read) (file-error () :file-error)))
      (sc-put-bytes fasl good)))
  ((t nil t) (nil t) (nil t) (nil t) :file-error))

;; loaded from the cache, the file sees the compiled file as LOAD's truename and its source as
;; COMPILE-FILE's, as LOAD of the compiled file inside COMPILE-FILE's dynamic extent would
(deftest system-cache-truenames-while-loading
  (progn
    (sleep 1.1)
    (sc-write "src/sc-main.lisp"
              "(setq cl-user::*sc-from* (pathname-type *load-truename*))"
              "(defvar cl-user::*sc-names* nil)"
              "(setq cl-user::*sc-names* (list *load-truename* *load-pathname* *compile-file-truename*))"
              "(defun cl-user::sc-value () :three)")
    (sc-load)              ; compiles it
    (list (sc-load)        ; from the cache
          (equal (first cl-user::*sc-names*) (truename (sc-cached-file)))
          (equal (second cl-user::*sc-names*) (sc-cached-file))
          (equal (third cl-user::*sc-names*) (truename (sc "src/sc-main.lisp")))))
  (("fasl" :three) t t t))

;; the system's record keeps each file's date as the load found it: a source changed while the
;; system loads (after the loader compared it with its compiled file) makes the system stale, and
;; the next load compiles and loads it again
(deftest system-cache-source-changed-during-load
  (progn
    (sleep 1.1)
    (sc-write "src/sc-main.lisp"
              "(setq cl-user::*sc-from* (pathname-type *load-truename*))"
              "(defvar cl-user::*sc-touch* nil)"
              "(when cl-user::*sc-touch*"
              "  (setq cl-user::*sc-touch* nil)"
              "  (sleep 1.1)"
              "  (with-open-file (s *compile-file-truename* :direction :output :if-exists :append)"
              "    (write-line \"(defun cl-user::sc-value () :four)\" s)))"
              "(defun cl-user::sc-value () :three)")
    (sc-load)                                     ; compiled into the cache
    (setq cl-user::*sc-touch* t)
    (let ((first (sc-load))                       ; from the cache; the source changes meanwhile
          (*standard-output* (make-broadcast-stream)))
      (list first
            (handler-bind ((warning #'muffle-warning)) (asdf:load-system :sc-demo) nil)
            (funcall (find-symbol "SC-VALUE" "CL-USER")))))
  (("fasl" :three) nil :four))

(deftest system-cache-unwritable-loads-source
  (let ((asdf::*system-cache-directory* "/proc/tinycl-no-cache/"))
    (sc-load))
  ("lisp" :four))

(deftest system-cache-off-loads-source
  (let ((asdf::*system-cache* nil))
    (sc-load))
  ("lisp" :four))

(deftest system-cache-cleanup
  (progn
    (setq asdf::*system-cache-directory* nil)
    (delete-directory *sc-dir* :recursive t)
    (probe-file *sc-dir*))
  nil)
