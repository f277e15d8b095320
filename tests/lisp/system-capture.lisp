;;;; system-capture.lisp: what the system loader keeps of a load so that a plain reset puts it
;;;; back (stdlib-lisp/asdf.lisp, %BEGIN-CAPTURE and %COMMIT-CAPTURE): the generic functions a load
;;;; made, the methods it added to functions that existed before, and the registry entries it added
;;;; or changed, each once; also when the list of generic functions or a method list was made anew
;;;; during the load. %REAPPLY-KEPT-STATE is what a reset runs after restoring the registries.
;;;; Tests run in order.

(defgeneric cap-old-gf (x))
(defmethod cap-old-gf ((x integer)) :int)

(defun cap-kept-methods (gf)
  ;; the specializers' class names of the methods of GF the loads kept, newest first
  (loop for (g . m) in (car asdf::*kept-methods*)
        when (eq g gf)
          collect (class-name (first (sys::method-specializers m)))))

(defun cap-kept-gf-p (gf) (and (member gf (car asdf::*kept-generic-functions*)) t))

(deftest capture-keeps-new-functions-and-added-methods
  (let ((kept (length (car asdf::*kept-generic-functions*)))
        (cap (asdf::%begin-capture)))
    (defgeneric cap-new-gf (x))
    (defmethod cap-new-gf ((x t)) :new)
    (defmethod cap-old-gf ((x string)) :string)
    (asdf::%commit-capture cap)
    (list (cap-kept-gf-p (fdefinition 'cap-new-gf))
          (- (length (car asdf::*kept-generic-functions*)) kept)   ; that one alone
          (cap-kept-methods (fdefinition 'cap-new-gf))                           ; come with their function
          (cap-kept-methods #'cap-old-gf)                           ; the method from before is not the load's
          (cap-kept-gf-p #'cap-old-gf)))
  (t 1 nil (string) nil))

(deftest capture-when-the-function-list-is-made-anew
  ;; the list of generic functions replaced during the load (as a reset does): each function is
  ;; looked up, and only those the load made are kept
  (let ((kept (length (car asdf::*kept-generic-functions*)))
        (cap (asdf::%begin-capture)))
    (setq sys::*generic-functions* (copy-list sys::*generic-functions*))
    (defgeneric cap-new-gf-2 (x))
    (defmethod cap-old-gf ((x character)) :char)
    (asdf::%commit-capture cap)
    (list (cap-kept-gf-p (fdefinition 'cap-new-gf-2))
          (- (length (car asdf::*kept-generic-functions*)) kept)
          (cap-kept-methods #'cap-old-gf)))
  (t 1 (character string)))

(deftest capture-when-a-method-list-is-made-anew
  ;; a method removed and another added: the list is no longer the old one with methods consed on
  (let ((cap (asdf::%begin-capture)))
    (remove-method #'cap-old-gf (find-method #'cap-old-gf nil (list (find-class 'integer))))
    (defmethod cap-old-gf ((x symbol)) :symbol)
    (asdf::%commit-capture cap)
    (list (cap-kept-methods #'cap-old-gf) (cap-old-gf 'a) (cap-old-gf #\a)))
  ((symbol character string) :symbol :char))

(deftest capture-of-a-load-that-changes-nothing
  (let ((methods (length (car asdf::*kept-methods*)))
        (gfs (length (car asdf::*kept-generic-functions*)))
        (entries (copy-tree (car asdf::*kept-registry-entries*)))
        (cap (asdf::%begin-capture)))
    (asdf::%commit-capture cap)
    (list (- (length (car asdf::*kept-methods*)) methods)
          (- (length (car asdf::*kept-generic-functions*)) gfs)
          (equal entries (car asdf::*kept-registry-entries*))))
  (0 0 t))

(defvar *cap-table* (make-hash-table :test 'equal))

(defun cap-kept-entries (table)
  (sort (copy-list (cdr (assoc table (car asdf::*kept-registry-entries*)))) #'string< :key #'car))

(deftest capture-keeps-registry-entries-once
  ;; entries added, then one changed in place by a later load: kept once each, with the last value
  (let ((sys::*session-registries* (cons *cap-table* sys::*session-registries*)))
    (setf (gethash "before" *cap-table*) 0)
    (let ((cap (asdf::%begin-capture)))
      (setf (gethash "a" *cap-table*) 1 (gethash "b" *cap-table*) 2)
      (asdf::%commit-capture cap))
    (let ((cap (asdf::%begin-capture)))
      (setf (gethash "a" *cap-table*) 3)
      (asdf::%commit-capture cap))
    (let ((kept (cap-kept-entries *cap-table*)))
      (clrhash *cap-table*)
      (asdf::%reapply-kept-state)
      (list kept (gethash "a" *cap-table*) (gethash "b" *cap-table*) (gethash "before" *cap-table*))))
  ((("a" . 3) ("b" . 2)) 3 2 nil))

(deftest capture-keeps-entries-of-a-table-that-grew
  ;; the table rebuilt (grown) during the load: its entries are compared by key
  (let ((sys::*session-registries* (cons *cap-table* sys::*session-registries*)))
    (let ((cap (asdf::%begin-capture)))
      (dotimes (i 200) (setf (gethash (format nil "k~3,'0D" i) *cap-table*) i))
      (setf (gethash "b" *cap-table*) 4)
      (asdf::%commit-capture cap))
    (let ((kept (cap-kept-entries *cap-table*)))
      (clrhash *cap-table*)
      (asdf::%reapply-kept-state)
      (list (length kept) (cdr (assoc "a" kept :test #'string=)) (cdr (assoc "b" kept :test #'string=))
            (gethash "k199" *cap-table*) (gethash "b" *cap-table*) (hash-table-count *cap-table*))))
  (202 3 4 199 4 202))

(deftest capture-of-a-failed-load-keeps-nothing
  (let ((sys::*session-registries* (cons *cap-table* sys::*session-registries*))
        (methods (length (car asdf::*kept-methods*)))
        (cap (asdf::%begin-capture)))
    (setf (gethash "failed" *cap-table*) t)
    (defmethod cap-old-gf ((x float)) :float)
    (asdf::%release-capture cap)
    (list (- (length (car asdf::*kept-methods*)) methods)
          (assoc "failed" (cdr (assoc *cap-table* (car asdf::*kept-registry-entries*))) :test #'string=)))
  (0 nil))

(deftest hash-table-add-keys
  ;; the index of kept keys, filled in C: true when a key was there already
  (let ((h (make-hash-table :test 'eq)) (k (list :k)))
    (list (sys::%hash-table-add-keys h (list (cons :a 1) (cons k 2)))
          (sys::%hash-table-add-keys h (list (cons :b 1)))
          (sys::%hash-table-add-keys h (list (cons :c 1) (cons k 3)))
          (sys::%hash-table-add-keys h nil)
          (hash-table-count h)
          (gethash k h)
          (handler-case (sys::%hash-table-add-keys h '(1 2)) (type-error () :type-error))))
  (nil nil t nil 4 t :type-error))

;;; The root of the cache of compiled files is computed once for what it comes from, and again when
;;; that changes (the variable, or XDG_CACHE_HOME: simulated by redefining the loader's GETENV).

(defvar *cap-env* nil)

(deftest cache-root-follows-its-inputs
  (let ((old (fdefinition 'asdf::getenv))
        (saved asdf::*system-cache-directory*))
    (unwind-protect
         (progn
           (setf asdf::*system-cache-directory* nil
                 (fdefinition 'asdf::getenv)
                 #'(lambda (name) (if (string= name "XDG_CACHE_HOME") *cap-env* (funcall old name))))
           (let* ((a (progn (setq *cap-env* "/tmp/cap-one") (namestring (asdf::%system-cache-root))))
                  (a2 (namestring (asdf::%system-cache-root)))
                  (b (progn (setq *cap-env* "/tmp/cap-two/") (namestring (asdf::%system-cache-root))))
                  (home (progn (setq *cap-env* "relative/ignored") (namestring (asdf::%system-cache-root))))
                  (unset (progn (setq *cap-env* nil) (namestring (asdf::%system-cache-root))))
                  (dir (progn (setf asdf::*system-cache-directory* "/tmp/cap-dir") (namestring (asdf::%system-cache-root)))))
             (list (string= a (format nil "/tmp/cap-one/tinycl/~A/" (lisp-implementation-version)))
                   (string= a a2)
                   (string= b (format nil "/tmp/cap-two/tinycl/~A/" (lisp-implementation-version)))
                   (string= home (namestring (merge-pathnames (format nil ".cache/tinycl/~A/" (lisp-implementation-version))
                                                              (user-homedir-pathname))))
                   (string= home unset)
                   dir)))
      (setf (fdefinition 'asdf::getenv) old
            asdf::*system-cache-directory* saved)))
  (t t t t t "/tmp/cap-dir/"))

;;; A file component's relative pathname: the usual case ("name" and the type of its class) is made
;;; directly; it must be the pathname PARSE-UNIX-NAMESTRING makes of the name and type.

(deftest component-relative-pathnames-as-parsed
  (let ((system (make-instance 'asdf:system :name "cap-paths")))
    (loop for name in '("api" "a.b" "x-y_z" "dots.in.name" "sub/file" "up/../f" ".hidden" "v1.2")
          collect (let ((c (make-instance 'asdf:cl-source-file :name name :parent system)))
                    (list name
                          (equal (asdf:component-relative-pathname c)
                                 (uiop:parse-unix-namestring name :type "lisp"))
                          (namestring (asdf:component-relative-pathname c))))))
  (("api" t "api.lisp") ("a.b" t "a.b.lisp") ("x-y_z" t "x-y_z.lisp") ("dots.in.name" t "dots.in.name.lisp")
   ("sub/file" t "sub/file.lisp") ("up/../f" t "f.lisp") (".hidden" t ".hidden.lisp") ("v1.2" t "v1.2.lisp")))
