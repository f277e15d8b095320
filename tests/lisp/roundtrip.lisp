;;;; roundtrip.lisp: property test: random objects printed with PRIN1 read back as equal objects.
;;;; Seeded by a small LCG of its own (the seed comes from TINYCL_ROUNDTRIP_SEED or the clock and is
;;;; printed with any failure); on failure the object is shrunk to a smaller failing one.

(defvar *rt-seed*
  (let ((env (tinycl:posix-getenv "TINYCL_ROUNDTRIP_SEED")))
    (if (and env (plusp (length env))) (parse-integer env) (mod (get-universal-time) 1000003))))
(defvar *rt-state* *rt-seed*)

(defun rt-random (n)
  ;; 48-bit LCG: reproducible from the seed on every implementation
  (setf *rt-state* (mod (+ (* *rt-state* 25214903917) 11) (expt 2 48)))
  (mod (floor *rt-state* 65536) n))

(defun rt-pick (seq) (elt seq (rt-random (length seq))))

(defparameter *rt-name-chars* "abcXYZ019-+*/<>=!?%&_.:|\\ ()\"';#`,é")

(defun rt-string (max)
  (let ((s (make-string (rt-random max))))
    (dotimes (i (length s) s)
      (setf (char s i) (if (zerop (rt-random 8))
                           (code-char (+ 160 (rt-random 2000)))
                           (rt-pick *rt-name-chars*))))))

(defun rt-integer ()
  (case (rt-random 4)
    (0 (- (rt-random 2000) 1000))
    (1 (- (rt-random most-positive-fixnum) (floor most-positive-fixnum 2)))
    (2 (* (if (zerop (rt-random 2)) -1 1) (expt 7 (rt-random 90))))
    (t (+ most-positive-fixnum (rt-random 3) -1))))

(defun rt-float ()
  (let ((m (- (rt-random 2000000) 1000000)) (e (- (rt-random 80) 40)))
    (case (rt-random 3)
      (0 (* (float m 1.0) (expt 10.0 (floor e 4))))
      (1 (* (float m 1d0) (expt 10d0 e)))
      (t (rt-pick (list 0.0 -0.0 1.0 0.1 1d0 -0.5d0 1e10 1.5d-7 most-positive-double-float
                        least-positive-double-float most-positive-single-float))))))

(defun rt-symbol ()
  (case (rt-random 4)
    (0 (intern (rt-string 8) :cl-user))
    (1 (intern (string-upcase (rt-string 6)) :keyword))
    (2 (rt-pick '(nil t car lambda *print-base* &optional 1+ |a b| || |.| |1| cl-user::x)))
    (t (intern (rt-string 5) :cl-user))))

(defun rt-object (depth)
  (let ((k (rt-random (if (> depth 3) 7 10))))
    (case k
      (0 (rt-integer))
      (1 (/ (rt-integer) (1+ (rt-random 1000))))
      (2 (rt-float))
      (3 (code-char (rt-pick (list (rt-random 128) (rt-random 1000) 32 10 0 127 160 8232))))
      (4 (rt-string 10))
      (5 (rt-symbol))
      (6 (let ((v (make-array (rt-random 10) :element-type 'bit)))
           (dotimes (i (length v) v) (setf (aref v i) (rt-random 2)))))
      (7 (let ((l nil)) (dotimes (i (rt-random 5)) (push (rt-object (1+ depth)) l))
           (if (and l (zerop (rt-random 4))) (append l (rt-object (1+ depth))) l)))
      (8 (coerce (let ((l nil)) (dotimes (i (rt-random 4) l) (push (rt-object (1+ depth)) l))) 'vector))
      (t (list 'quote (rt-object (1+ depth)))))))

(defun rt-same (a b)
  (cond ((and (floatp a) (floatp b)) (and (eql a b)))
        ((and (numberp a) (numberp b)) (eql a b))
        ((and (characterp a) (characterp b)) (char= a b))
        ((and (stringp a) (stringp b)) (string= a b))
        ((and (bit-vector-p a) (bit-vector-p b)) (equal a b))
        ((and (symbolp a) (symbolp b)) (eq a b))
        ((and (consp a) (consp b)) (and (rt-same (car a) (car b)) (rt-same (cdr a) (cdr b))))
        ((and (vectorp a) (vectorp b))
         (and (= (length a) (length b)) (every #'rt-same a b)))
        (t nil)))

(defun rt-roundtrips-p (object)
  (let ((text (let ((*print-readably* t) (*package* (find-package :cl-user))) (prin1-to-string object))))
    (multiple-value-bind (back pos)
        (let ((*package* (find-package :cl-user))) (read-from-string text))
      (values (and (= pos (length text)) (rt-same object back)) text))))

(defun rt-shrink (object)
  ;; try the parts of a failing object; keep any that still fails
  (let ((parts (cond ((consp object) (list (car object) (cdr object)))
                     ((and (vectorp object) (not (stringp object)) (plusp (length object))) (coerce object 'list))
                     ((and (stringp object) (> (length object) 1))
                      (list (subseq object 0 (floor (length object) 2)) (subseq object (floor (length object) 2))))
                     (t nil))))
    (dolist (p parts object)
      (unless (ignore-errors (rt-roundtrips-p p))
        (return (rt-shrink p))))))

(defun rt-run (count)
  (let ((failures 0))
    (dotimes (i count)
      (let ((object (rt-object 0)))
        (multiple-value-bind (ok text) (handler-case (rt-roundtrips-p object)
                                         (error (e) (values nil (princ-to-string e))))
          (unless ok
            (incf failures)
            (when (<= failures 3)
              (format t "~&roundtrip FAIL (seed ~D, case ~D): ~A~%  smallest failing object: ~S~%"
                      *rt-seed* i text (ignore-errors (rt-shrink object))))))))
    failures))

(deftest reader-printer-roundtrip
  (rt-run 3000)
  0)
