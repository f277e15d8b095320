;;;; system-registry.lisp: what the system loader keeps between look-ups and loads, and must not
;;;; let go stale (stdlib-lisp/asdf.lisp): the scan of the source registry, which FIND-SYSTEM runs
;;;; only as far as the system it looks for and continues later, and the registries' changes a
;;;; load records (SYS:%HASH-TABLE-MARK / %HASH-TABLE-CHANGES). Tests run in order.

(defvar *sr-dir* (format nil "/tmp/tinycl-registry-test-~D-~D/" (get-universal-time)
                         (random 1000000 (make-random-state t))))

(defun sr (name) (concatenate 'string *sr-dir* name))

(defun sr-asd (dir name)
  ;; an .asd file defining the system NAME (no components) in DIR under the test tree
  (let ((path (sr (format nil "~A~A.asd" dir name))))
    (ensure-directories-exist path)
    (with-open-file (s path :direction :output :if-exists :supersede)
      (format s "(defsystem ~S)~%" name))
    path))

(defun sr-where (name)
  ;; the directory (relative to the test tree) of the .asd FIND-SYSTEM finds for NAME, or NIL
  (let ((s (asdf:find-system name nil)))
    (and s (enough-namestring (directory-namestring (asdf:system-source-file s)) *sr-dir*))))

(deftest registry-setup
  (progn
    (sr-asd "b/" "sr-early")
    (sr-asd "m/" "sr-dup")
    (sr-asd "y/" "sr-dup")
    (sr-asd "y/" "sr-late")
    (asdf:initialize-source-registry `(:source-registry (:tree ,*sr-dir*)))
    ;; a look-up after this begins a scan of its own
    (asdf:clear-source-registry)
    t)
  t)

(deftest registry-scan-stops-at-the-system
  ;; the scan stopped in b/: y/ is not read yet
  (list (sr-where "sr-early")
        (and (gethash "sr-early" asdf::*source-index*) t)
        (gethash "sr-late" asdf::*source-index*))
  ("b/" t nil))

(deftest registry-first-in-order-wins
  ;; m/ comes before y/ in the scan's order, whichever look-up reads them
  (list (sr-where "sr-late") (sr-where "sr-dup"))
  ("y/" "m/"))

(deftest registry-new-asd-in-a-directory-not-yet-scanned
  (progn
    (asdf:clear-source-registry)
    (sr-where "sr-early")                 ; the scan stops in b/
    (sr-asd "z/" "sr-new-later")
    (sr-where "sr-new-later"))
  "z/")

(deftest registry-new-asd-in-a-directory-already-scanned
  ;; b/ was read before the file appeared: the look-up scans again from the start
  (progn
    (sr-asd "b/" "sr-new-earlier")
    (sr-asd "a/" "sr-new-first")
    (list (sr-where "sr-new-earlier") (sr-where "sr-new-first")))
  ("b/" "a/"))

(deftest registry-missing-system
  (list (asdf:find-system "sr-nowhere-to-be-found" nil)
        (handler-case (asdf:find-system "sr-nowhere-to-be-found") (asdf:missing-component () :missing)))
  (nil :missing))

(deftest registry-configuration-change-starts-over
  ;; a directory searched before the tree, added after the scan began, is seen
  (progn
    (sr-asd "first/" "sr-dup2")
    (sr-asd "b/" "sr-dup2")
    (sr-where "sr-early")
    (asdf:clear-system "sr-dup2")
    (push (sr "first/") asdf:*central-registry*)
    (unwind-protect (sr-where "sr-dup2")
      (pop asdf:*central-registry*)))
  "first/")

(deftest registry-list-local-systems-sees-everything
  (let ((names (mapcar #'first (tinycl:list-local-systems "sr-"))))
    (every #'(lambda (n) (member n names :test #'string=))
           '("sr-early" "sr-dup" "sr-late" "sr-new-later" "sr-new-earlier" "sr-new-first")))
  t)

;;; What a load changed in a registry: new keys, keys whose value is another object; not the keys
;;; it removed, nor a key removed and put back with the same value

(deftest registry-changes-same-slots
  (let ((h (make-hash-table :test 'equal)) (v (list :v)))
    (setf (gethash '(a 1) h) 1 (gethash "b" h) v (gethash :c h) 3 (gethash :gone h) 4)
    (let ((mark (sys::%hash-table-mark h)))
      (setf (gethash (list 'a 1) h) 10       ; an EQUAL key, another value
            (gethash "new" h) 5)
      (remhash :gone h)
      (remhash "b" h)
      (setf (gethash "b" h) v)               ; back with the same value
      (sort (mapcar #'(lambda (e) (format nil "~S=~S" (car e) (cdr e)))
                    (sys::%hash-table-changes h mark))
            #'string<)))
  ("\"new\"=5" "(A 1)=10"))

(deftest registry-changes-after-growth
  (let ((h (make-hash-table :test 'eq)) (v (list :v)))
    (setf (gethash :kept h) v (gethash :changed h) 1)
    (let ((mark (sys::%hash-table-mark h)))
      (dotimes (i 200) (setf (gethash (intern (format nil "SR-K~D" i) :keyword) h) i))
      (setf (gethash :changed h) 2)
      (let ((changes (sys::%hash-table-changes h mark)))
        (list (length changes) (cdr (assoc :changed changes)) (assoc :kept changes)
              (cdr (assoc :sr-k199 changes))))))
  (201 2 nil 199))

(deftest registry-changes-bad-mark
  (handler-case (progn (sys::%hash-table-changes (make-hash-table) #(1 2 3)) :no-error)
    (type-error () :type-error))
  :type-error)

(deftest registry-cleanup
  (progn
    (asdf:clear-source-registry)
    (asdf:initialize-source-registry nil)
    (tinycl:delete-directory *sr-dir* :recursive t)
    (probe-file *sr-dir*))
  nil)
