;;;; weak.lisp: weak pointers, weak hash tables and finalizers (runtime/weak.c, stdlib-lisp/weak.lisp),
;;;; as SBCL's SB-EXT has them (exported from TINYCL here). The collector scans the stack
;;;; conservatively, so the objects that should die are made in calls that have returned, and
;;;; each check counts over many objects and allows a few survivors where one stray word could
;;;; keep an object alive.

(defun wk-gc () (tinycl:gc :full t))

;;; weak pointers
(defun wk-pointers (n) (let (l) (dotimes (i n l) (push (tinycl:make-weak-pointer (list i i)) l))))
(defun wk-alive (wps) (count-if (lambda (w) (nth-value 1 (tinycl:weak-pointer-value w))) wps))

(deftest weak-pointer.value
  (let* ((x (list 1 2)) (w (tinycl:make-weak-pointer x)))
    (multiple-value-bind (v ok) (tinycl:weak-pointer-value w)
      (list (eq v x) ok (tinycl:weak-pointer-p w) (tinycl:weak-pointer-p x) (typep w 'tinycl:weak-pointer))))
  (t t t nil t))

(deftest weak-pointer.kept-while-referenced
  (let* ((keep (list :a)) (w (tinycl:make-weak-pointer keep)))
    (wk-gc)
    (list (eq (tinycl:weak-pointer-value w) keep) (length keep)))
  (t 1))

(deftest weak-pointer.immediate-never-breaks
  (let ((w (tinycl:make-weak-pointer 42)))
    (wk-gc)
    (multiple-value-list (tinycl:weak-pointer-value w)))
  (42 t))

(deftest weak-pointer.broken-after-gc
  (let ((wps (wk-pointers 200)))
    (wk-gc)
    (list (<= (wk-alive wps) 3)
          (multiple-value-list (tinycl:weak-pointer-value
                                (find-if-not (lambda (w) (nth-value 1 (tinycl:weak-pointer-value w))) wps)))))
  (t (nil nil)))

(deftest weak-pointer.prints
  (let ((s (princ-to-string (tinycl:make-weak-pointer 7))))
    (list (search "weak pointer" s) (search "7" s) (char s 0)))
  (2 16 #\#))

;;; weak hash tables
(deftest weak-table.weakness
  (mapcar (lambda (w) (hash-table-weakness (make-hash-table :weakness w)))
          '(nil :key :value :key-and-value :key-or-value))
  (nil :key :value :key-and-value :key-or-value))

(deftest weak-table.bad-weakness
  (signals-error (make-hash-table :weakness :sometimes) type-error)
  t)

(defun wk-fill (table n &optional (kind :key))
  (dotimes (i n table)
    (ecase kind
      (:key (setf (gethash (list i) table) i))
      (:value (setf (gethash i table) (list i)))
      (:both (setf (gethash (list i) table) (list i))))))

(deftest weak-table.key-entries-vanish
  (let* ((h (make-hash-table :test 'eq :weakness :key)) (keep (list :kept)))
    (setf (gethash keep h) :here)
    (wk-fill h 300)
    (let ((before (hash-table-count h)))
      (wk-gc)
      (list before (<= (hash-table-count h) 5) (gethash keep h))))
  (301 t :here))

(deftest weak-table.value-entries-vanish
  (let* ((h (make-hash-table :weakness :value)) (keep (list :kept)))
    (setf (gethash :k h) keep)
    (wk-fill h 300 :value)
    (wk-gc)
    (list (<= (hash-table-count h) 5) (eq (gethash :k h) keep)
          ;; entries that died read as absent
          (<= (count-if (lambda (i) (nth-value 1 (gethash i h))) (loop for i below 300 collect i)) 4)))
  (t t t))

(defun wk-fill-halves (table live)
  ;; for each object of LIVE, one entry whose value only the table holds and one whose key only
  ;; the table holds: made here, in a function that returns, so no stack slot of the test keeps them
  (dolist (x live table)
    (setf (gethash x table) (list :value-of x))
    (setf (gethash (list :key-of x) table) x)))

(deftest weak-table.key-and-value
  ;; an entry goes when its key or its value dies; counted over many (the collector scans the
  ;; stack conservatively, so a stray word may keep one or two alive)
  (let* ((h (make-hash-table :test 'eq :weakness :key-and-value))
         (live (loop for i below 100 collect (list i)))
         (k (list :k)) (v (list :v)))
    (setf (gethash k h) v)                     ; both parts live: stays
    (wk-fill-halves h live)
    (let ((before (hash-table-count h)))
      (wk-gc)
      (list before (<= (hash-table-count h) 6) (eq (gethash k h) v))))
  (201 t t))

(deftest weak-table.key-or-value-holds-both
  ;; without ephemerons the collector cannot tell; such a table keeps its entries
  (let ((h (make-hash-table :weakness :key-or-value)))
    (wk-fill h 50 :both)
    (wk-gc)
    (hash-table-count h))
  50)

(deftest weak-table.grows-and-keeps-live-entries
  (let* ((h (make-hash-table :test 'equal :weakness :key))
         (keys (loop for i below 2000 collect (format nil "k~D" i))))
    (dolist (k keys) (setf (gethash k h) (length k)))
    (wk-gc)
    (list (hash-table-count h)
          (every (lambda (k) (eql (gethash (copy-seq k) h) (length k))) keys)
          (progn (setf (gethash (first keys) h) :new) (gethash (first keys) h))
          (hash-table-count h)))
  (2000 t :new 2000))

(deftest weak-table.remhash-clrhash-maphash
  (let* ((h (make-hash-table :test 'eq :weakness :value)) (a (list :a)) (b (list :b)) (seen nil))
    (setf (gethash -1 h) a (gethash -2 h) b)
    (wk-fill h 100 :value)
    (wk-gc)
    (maphash (lambda (k v) (push (cons k v) seen)) h)
    (list (sort (mapcar #'car (remove-if-not (lambda (e) (member (cdr e) (list a b))) seen)) #'<)
          (<= (length seen) 6)
          (remhash -1 h) (remhash -1 h) (gethash -2 h)
          (progn (clrhash h) (hash-table-count h))
          (progn (setf (gethash 3 h) a) (gethash 3 h))))
  ((-2 -1) t t nil (:b) 0 (:a)))

(deftest weak-table.equalp
  ;; EQUALP counts and compares the entries MAPHASH sees, so a collected entry is gone from both.
  ;; A stray stack word can keep one or two fillers alive, so H2 is given whatever survived.
  (let ((h1 (make-hash-table :weakness :key)) (h2 (make-hash-table)) (k (list 1)))
    (setf (gethash k h1) "x")
    (wk-fill h1 50)
    (wk-gc)
    (maphash (lambda (key v) (setf (gethash key h2) (if (stringp v) "X" v))) h1)
    (list (equalp h1 h2) (<= (hash-table-count h1) 4) (gethash k h2)
          (progn (setf (gethash (list 99) h2) 0) (equalp h1 h2))))
  (t t "X" nil))

;;; finalizers
(defvar *wk-count* 0)
;; Each test counts only its own finalizers: a stray stack word can keep a few objects of one
;; test alive until a collection in a later test, whose count they must not change.
(defvar *wk-round* 0)
(defvar *wk-ran* '() "The (object . function) indices of this round's finalizers that ran.")
(defun wk-new-round () (incf *wk-round*) (setf *wk-count* 0 *wk-ran* '()))
(defun wk-finalize-some (n times &optional cancel)
  (dotimes (i n)
    (let ((o (make-string 8)) (round *wk-round*))
      (dotimes (j times)
        (let ((id (cons i j)))
          (tinycl:finalize o (lambda ()
                               (when (= round *wk-round*)
                                 (incf *wk-count*)
                                 (push id *wk-ran*))))))
      (when cancel (tinycl:cancel-finalization o))))
  nil)

(deftest finalize.runs-once-each
  (progn
    (wk-new-round)
    (wk-finalize-some 100 1)
    (wk-gc)
    ;; an object a stray stack word kept through the first collection may be finalized by a
    ;; later one, so "once" is checked by the identities that ran, not by an unchanged count
    (let ((after-one *wk-count*))
      (wk-gc) (wk-gc)
      (list (>= after-one 95) (= (length *wk-ran*) (length (remove-duplicates *wk-ran*)))
            (<= *wk-count* 100))))
  (t t t))

(deftest finalize.every-function-runs
  (progn
    (wk-new-round)
    (wk-finalize-some 20 5)
    (wk-gc)
    (list (>= *wk-count* 95) (zerop (mod *wk-count* 5)) (<= *wk-count* 100)))
  (t t t))

(deftest finalize.cancelled
  (progn
    (wk-new-round)
    (wk-finalize-some 50 3 t)
    (wk-gc) (wk-gc)
    *wk-count*)
  0)

(deftest finalize.returns-object-and-cancel-says
  (let ((o (list 1)))
    (list (eq (tinycl:finalize o (lambda () nil)) o)
          (tinycl:cancel-finalization o)
          (tinycl:cancel-finalization o)
          (eq (tinycl:finalize 42 (lambda () nil)) 42)))
  (t t nil t))

(deftest finalize.kept-object-not-finalized
  (let ((o (make-string 3)) (ran nil))
    (tinycl:finalize o (lambda () (setf ran t)))
    (wk-gc)
    (list ran (length o) (tinycl:cancel-finalization o)))
  (nil 3 t))

(defun wk-finalize-erring (n)
  (dotimes (i n) (tinycl:finalize (make-string 4) (lambda () (error "finalizer ~D fails" i)))))

(deftest finalize.error-becomes-warning
  (let ((warnings 0))
    (handler-bind ((warning (lambda (w) (incf warnings) (muffle-warning w))))
      (wk-finalize-erring 20)
      (wk-gc))
    (list (>= warnings 15) :still-running))
  (t :still-running))

(deftest finalize.runs-at-a-safe-point
  ;; without an explicit GC call: the collections that allocation causes queue them, and the
  ;; loop's safe points run them
  (progn
    (wk-new-round)
    (wk-finalize-some 100 1)
    (loop repeat 20000 until (>= *wk-count* 50) do (make-array 10000))
    (>= *wk-count* 50))
  t)
