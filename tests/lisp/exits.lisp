;;;; exits.lisp: non-local exits (THROW, RETURN-FROM, GO, errors) through UNWIND-PROTECT and
;;;; special bindings, many levels deep and many times over, and the collector under pressure with
;;;; live data checked afterwards. Each test computes a value that a jump landing in the wrong
;;;; frame, restoring the wrong registers or losing a binding would change. Expected values by hand
;;;; (and from SBCL).

(defvar *ex-trail* nil)
(defvar *ex-special* :global)

(defun ex-throw-through (n)
  ;; N nested UNWIND-PROTECTs, each binding *EX-SPECIAL*; the throw at the bottom runs every
  ;; cleanup innermost first, each seeing its own binding
  (if (= n 0)
      (throw 'ex-tag (list :thrown *ex-special*))
      (let ((*ex-special* n))
        (unwind-protect (ex-throw-through (1- n))
          (push *ex-special* *ex-trail*)))))

(deftest throw-through-unwind-protects
  (let ((*ex-trail* nil))
    (list (catch 'ex-tag (ex-throw-through 5)) *ex-trail* *ex-special*))
  ((:thrown 1) (5 4 3 2 1) :global))

(deftest throw-many-times
  ;; a thousand throws from a varying depth: a jump that landed one frame off would miscount
  (let ((sum 0))
    (dotimes (i 1000 sum)
      (incf sum (catch 'ex-count
                  (labels ((down (k) (if (= k 0) (throw 'ex-count i) (+ 1000000 (down (1- k))))))
                    (down (mod i 7)))))))
  499500)

(deftest throw-inner-catch-wins
  (catch 'a (+ 1 (catch 'a (throw 'a 10)) (catch 'b (throw 'a 100)) 1000))
  100)

(deftest throw-from-cleanup-replaces-exit
  (let ((*ex-trail* nil))
    (list (catch 'outer
            (catch 'inner
              (unwind-protect (throw 'inner :first)
                (throw 'outer :second))))
          *ex-trail*))
  (:second nil))

(deftest return-from-through-unwind-protect
  (let ((log nil))
    (list (block b
            (let ((f (lambda () (return-from b :out))))
              (unwind-protect (unwind-protect (funcall f) (push 1 log)) (push 2 log))
              :not-here))
          log))
  (:out (2 1)))

(deftest go-through-unwind-protect
  (let ((log nil) (n 0))
    (tagbody
     again
       (let ((g (lambda () (go again))))
         (when (< n 3)
           (incf n)
           (unwind-protect (funcall g) (push n log)))))
    (list n log))
  (3 (3 2 1)))

(deftest error-through-unwind-protect-and-specials
  (let ((*ex-trail* nil))
    (list (handler-case
              (let ((*ex-special* :inner))
                (unwind-protect (error "boom ~a" *ex-special*)
                  (push *ex-special* *ex-trail*)))
            (error (c) (princ-to-string c)))
          *ex-trail* *ex-special*))
  ("boom INNER" (:inner) :global))

(deftest throw-values-survive
  (multiple-value-list (catch 'mv (unwind-protect (throw 'mv (values 1 2 3)) (values 9 9))))
  (1 2 3))

(deftest throw-to-missing-tag-is-control-error
  (handler-case (throw 'ex-no-such-tag 1) (control-error () :control-error))
  :control-error)

;; THROW lands at once when no UNWIND-PROTECT lies between it and its catch, and defers to the
;; unwinder (cleanups innermost first) when one does: both paths must restore the bindings, skip
;; other tags, land in the innermost catch of the tag, and look the tag up before any cleanup runs.
(deftest throw-restores-specials-without-cleanups
  (list (catch 'ex-sp (let ((*ex-special* :inner)) (let ((*ex-trail* :t2)) (throw 'ex-sp (list *ex-special* *ex-trail*)))))
        *ex-special* *ex-trail*)
  ((:inner :t2) :global nil))

(deftest throw-skips-other-tags-to-the-innermost-of-its-own
  (let ((log nil))
    (list (catch 'ex-a
            (push (catch 'ex-a
                    (catch 'ex-b
                      (unwind-protect (catch 'ex-c (throw 'ex-a :inner)) (push :cleanup log)))
                    :not-here)
                  log)
            :outer-body)
          log))
  (:outer-body (:inner :cleanup)))

(deftest throw-leaves-cleanups-outside-its-catch-alone
  (let ((log nil))
    (list (unwind-protect (list (catch 'ex-x (throw 'ex-x 1)) log) (push :outer log)) log))
  ((1 nil) (:outer)))

(deftest throw-to-missing-tag-signals-before-cleanups
  (let ((log nil) (seen :none))
    (catch 'ex-done
      (handler-bind ((control-error (lambda (c) (declare (ignore c)) (setq seen (copy-list log)) (throw 'ex-done nil))))
        (unwind-protect (throw 'ex-absent 1) (push :cleanup log))))
    (list seen log))
  (nil (:cleanup)))

(defun ex-deep (n) (1+ (ex-deep (1+ n))))

(deftest stack-overflow-caught-twice
  (list (handler-case (ex-deep 0) (storage-condition () :first))
        (handler-case (ex-deep 0) (storage-condition () :second))
        (let ((*ex-special* :bound))
          (handler-case (ex-deep 0) (storage-condition () *ex-special*))))
  (:first :second :bound))

;;; The collector under pressure: live structure built while much garbage is made, then checked.

(defun ex-churn (n)
  ;; keep every 100th list, drop the rest
  (let ((kept nil))
    (dotimes (i n)
      (let ((l (make-list 20 :initial-element i)))
        (when (= 0 (mod i 100)) (push l kept))))
    kept))

(deftest gc-pressure-live-lists
  (let ((kept (ex-churn 200000)))
    (list (length kept)
          (every (lambda (l) (and (= (length l) 20) (every (lambda (x) (eql x (car l))) l))) kept)
          (reduce #'+ kept :key #'car)))
  (2000 t 199900000))

(deftest gc-pressure-strings-and-hash
  (let ((h (make-hash-table :test 'equal)))
    (dotimes (i 20000)
      (let ((s (format nil "key-~d-~a" i (make-string 50 :initial-element #\x))))
        (when (= 0 (mod i 10)) (setf (gethash (subseq s 0 (position #\- s :from-end t)) h) i))))
    (list (hash-table-count h) (gethash "key-19990" h) (gethash "key-19991" h)
          (loop for i from 0 below 20000 by 10 always (eql i (gethash (format nil "key-~d" i) h)))))
  (2000 19990 nil t))

(deftest gc-pressure-vectors-and-bignums
  (let ((v (make-array 1000)))
    (dotimes (round 50)
      (dotimes (i 1000)
        (setf (aref v i) (if (= round 49) (expt 3 (+ 100 i)) (make-array 100 :initial-element round)))))
    (list (loop for i below 1000 always (= (aref v i) (expt 3 (+ 100 i))))
          (mod (aref v 999) 1000)))
  (t 667))

;;; LET of one special variable alone (its own evaluator node): the binding is undone however
;;; the body is left, the init form sees the outer binding, LET* alike.

(defvar *ex-one* 0)
(defun ex-one () *ex-one*)

(deftest let-one-special-sees-outer
  (let ((*ex-one* (1+ *ex-one*))) (let ((*ex-one* (* 10 *ex-one*))) (list *ex-one* (ex-one))))
  (10 10))

(deftest let*-one-special
  (list (let* ((*ex-one* 5)) (ex-one)) *ex-one*)
  (5 0))

(deftest let-one-special-return-from
  (list (block b (let ((*ex-one* 1)) (return-from b (ex-one)))) *ex-one*
        (block b (let ((*ex-one* 2)) (funcall (lambda () (return-from b (ex-one)))))) *ex-one*)
  (1 0 2 0))

(deftest let-one-special-go
  (let ((n 0))
    (tagbody
     top
       (let ((*ex-one* n))
         (incf n)
         (when (< n 4) (go top))))
    (list n *ex-one*))
  (4 0))

(deftest let-one-special-throw-and-error
  (list (catch 'ex (let ((*ex-one* :x)) (throw 'ex (ex-one))))
        *ex-one*
        (handler-case (let ((*ex-one* :y)) (error "~a" (ex-one))) (error (c) (princ-to-string c)))
        *ex-one*)
  (:x 0 "Y" 0))

(deftest let-one-special-no-init-and-values
  (list (let ((*ex-one*)) (ex-one))
        (multiple-value-list (let ((*ex-one* 3)) (values (ex-one) 4 5)))
        *ex-one*)
  (nil (3 4 5) 0))

(deftest let-one-special-recursion
  ;; bound at every level of a recursion, read at the bottom, all undone on the way out
  (labels ((down (n) (if (= n 0) (ex-one) (let ((*ex-one* (+ *ex-one* n))) (down (1- n))))))
    (list (down 100) *ex-one*))
  (5050 0))

(deftest let-one-special-locally-declared
  (let ((x 1))
    (declare (special x))
    (let ((x 2)) (declare (special x)) (list x (symbol-value 'x))))
  (2 2))

;; An interpreter's threads share its free lists of small objects (runtime/gc.h), taking them only
;; while they hold its lock: four threads building lists, vectors and closures while collections
;; run must each get back exactly what they built.
(deftest gc-pressure-threads-share-free-lists
  (let ((threads
          (loop for k below 4
                collect (tinycl-threads:make-thread
                         (lambda (k)
                           (let ((kept nil))
                             (dotimes (i 20000)
                               (push (list k i (make-array (mod i 12) :initial-element i) (let ((j i)) (lambda () j))) kept)
                               (make-list 5)
                               (when (zerop (mod i 4000)) (tinycl:gc)))
                             (loop for (kk i v f) in kept for n downfrom 19999
                                   always (and (eql kk k) (eql i n) (= (length v) (mod n 12))
                                               (every (lambda (x) (eql x n)) v) (eql (funcall f) n)))))
                         :arguments (list k)))))
    (mapcar #'tinycl-threads:join-thread threads))
  (t t t t))
