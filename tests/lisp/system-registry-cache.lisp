;;;; system-registry-cache.lisp: the source registry's directory listings kept across processes
;;;; (stdlib-lisp/asdf.lisp, *SOURCE-REGISTRY-CACHE*): a directory is listed again exactly when
;;;; its stamp changed, so a new .asd or a new directory holding one is found as by a listing; a
;;;; damaged file is ignored and written again. A "new process" is simulated by putting the
;;;; listings back to unread and forgetting the scan. Tests run in order.

(defvar *rc-dir* (format nil "/tmp/tinycl-registry-cache-test-~D-~D/" (get-universal-time)
                         (random 1000000 (make-random-state t))))

(defun rc (name) (concatenate 'string *rc-dir* name))

(defun rc-asd (dir name)
  ;; an .asd file defining the system NAME (no components) in DIR under the test tree
  (let ((path (rc (format nil "~A~A.asd" dir name))))
    (ensure-directories-exist path)
    (with-open-file (s path :direction :output :if-exists :supersede)
      (format s "(defsystem ~S)~%" name))
    path))

(defun rc-where (name)
  ;; the directory (relative to the test tree) of the .asd FIND-SYSTEM finds for NAME, or NIL
  (let ((s (asdf:find-system name nil)))
    (and s (enough-namestring (directory-namestring (asdf:system-source-file s)) *rc-dir*))))

(defun rc-new-process ()
  ;; what a new process knows: the listings file, no scan, no systems of the test
  (setf asdf::*scan-listings* (list :unread nil nil))
  (clrhash asdf::*source-index*)
  (setf (car asdf::*index-scan*) nil)
  (dolist (name '("rc-one" "rc-two" "rc-added" "rc-deep" "rc-elsewhere"))
    (asdf:clear-system name)))

(defun rc-file () (rc "cache/source-registry.cache"))

(defun rc-file-start ()
  (with-open-file (in (rc-file)) (let ((line (read-line in nil ""))) (subseq line 0 (min 26 (length line))))))

(defvar *rc-saved-cache-directory* asdf::*system-cache-directory*)

(deftest registry-cache-setup
  (progn
    (rc-asd "tree/a/" "rc-one")
    (rc-asd "tree/b/" "rc-two")
    (rc-asd "outside/" "rc-elsewhere")
    (setf asdf::*system-cache-directory* (rc "cache/"))
    (asdf:initialize-source-registry `(:source-registry (:tree ,(rc "tree/"))))
    ;; a stamp less than a second old is not kept: let the tree's settle
    (sleep 1.2)
    (asdf:clear-source-registry)
    t)
  t)

(deftest registry-directory-stamp
  (multiple-value-bind (stamp settled) (sys::%directory-stamp (rc "tree/a/"))
    (list (length stamp) (every #'integerp stamp) settled
          (multiple-value-list (sys::%directory-stamp (rc "tree/nowhere/")))))
  (4 t t (nil nil)))

(deftest registry-cache-written
  ;; the first look-up lists the tree and writes what it listed
  (list (rc-where "rc-one") (and (probe-file (rc-file)) t) (rc-file-start)
        (and (gethash (rc "tree/a/") (asdf::%scan-listings)) t))
  ("tree/a/" t "(:TINYCL-SOURCE-REGISTRY 1" t))

(deftest registry-cache-read-and-used
  ;; a new process takes a listing whose stamp is unchanged from the file: a listing of b/ that
  ;; names a file outside the tree shows that b/ was not listed again
  (progn
    (rc-where "rc-two")
    (let ((kept (gethash (rc "tree/b/") (asdf::%scan-listings))))
      (setf (gethash (rc "tree/b/") (asdf::%scan-listings))
            (list (first kept) (list (rc "outside/rc-elsewhere.asd")) (third kept))
            (second asdf::*scan-listings*) t)
      (asdf::%save-scan-listings))
    (rc-new-process)
    (list (rc-where "rc-elsewhere") (rc-where "rc-one")))
  ("outside/" "tree/a/"))

(deftest registry-cache-new-asd-in-a-kept-directory
  ;; adding a file changes the directory's stamp: it is listed again, and what the file had
  ;; wrongly kept for b/ goes with it once b/ changes too
  (progn
    (rc-asd "tree/a/" "rc-added")
    (rc-asd "tree/b/" "rc-two")
    (with-open-file (s (rc "tree/b/touch.txt") :direction :output :if-exists :supersede) (write-line "x" s))
    (rc-new-process)
    (list (rc-where "rc-added") (rc-where "rc-elsewhere")))
  ("tree/a/" nil))

(deftest registry-cache-new-directory-with-an-asd
  (progn
    (sleep 1.2)
    (rc-new-process)
    (rc-where "rc-one")                  ; a/ listed and kept again, its stamp settled
    (rc-new-process)
    (rc-asd "tree/a/deep/" "rc-deep")
    (rc-new-process)
    (rc-where "rc-deep"))
  "tree/a/deep/")

(deftest registry-cache-damaged-file
  ;; ignored, and written again whole
  (progn
    (with-open-file (s (rc-file) :direction :output :if-exists :supersede)
      (write-string "(:tinycl-source-registry 1 (\"/x/\" (1 2" s))
    (rc-new-process)
    (list (rc-where "rc-two") (rc-where "rc-one") (rc-file-start)))
  ("tree/b/" "tree/a/" "(:TINYCL-SOURCE-REGISTRY 1"))

(deftest registry-cache-other-version-ignored
  (progn
    (with-open-file (s (rc-file) :direction :output :if-exists :supersede)
      (format s "(:tinycl-source-registry 99 (~S (1 2 3 4) (~S) nil))" (rc "tree/b/") (rc "outside/rc-elsewhere.asd")))
    (rc-new-process)
    (list (rc-where "rc-elsewhere") (rc-where "rc-two")))
  (nil "tree/b/"))

(deftest registry-cache-limit
  ;; past the limit, the file keeps only the listings of the directories this process looked up
  (progn
    (rc-new-process)
    (setf (gethash "/tinycl-registry-cache-test/gone/" (asdf::%scan-listings)) (list (list 1 2 3 4) nil nil)
          (second asdf::*scan-listings*) t)
    (asdf::%save-scan-listings)
    (rc-new-process)
    (let ((kept-before (and (gethash "/tinycl-registry-cache-test/gone/" (asdf::%scan-listings)) t)))
      (rc-where "rc-one")
      (setf (second asdf::*scan-listings*) t)
      (let ((asdf::*scan-listings-limit* 1)) (asdf::%save-scan-listings))
      (rc-new-process)
      (list kept-before
            (and (gethash "/tinycl-registry-cache-test/gone/" (asdf::%scan-listings)) t)
            (and (gethash (rc "tree/") (asdf::%scan-listings)) t)
            ;; no temporary file left beside it (the boot image's pages may be there too)
            (length (remove "pages" (directory (rc "cache/*.*")) :key #'pathname-type :test #'equal)))))
  (t nil t 1))

(deftest registry-cache-off
  ;; *SOURCE-REGISTRY-CACHE* NIL: no file read or written
  (progn
    (delete-file (rc-file))
    (let ((asdf::*source-registry-cache* nil))
      (rc-new-process)
      (list (rc-where "rc-one") (and (probe-file (rc-file)) t))))
  ("tree/a/" nil))

(deftest registry-cache-cleanup
  (progn
    (setf asdf::*system-cache-directory* *rc-saved-cache-directory*)
    (asdf:initialize-source-registry nil)
    (asdf:clear-source-registry)
    (rc-new-process)
    (tinycl:delete-directory *rc-dir* :recursive t)
    (probe-file *rc-dir*))
  nil)
