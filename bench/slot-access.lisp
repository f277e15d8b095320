;;;; slot-access.lisp -- the cost of slot access and MAKE-INSTANCE on a standard class, for
;;;; measuring that the metaobject protocol's generic functions (SLOT-VALUE-USING-CLASS,
;;;; COMPUTE-SLOTS, ...) cost nothing when only their standard methods apply. Run a section
;;;; under callgrind with N and with 0 iterations; the difference over N is the cost of one
;;;; iteration:
;;;;   valgrind --tool=callgrind build/tinycl -e '(load "bench/slot-access.lisp")' \
;;;;            -e '(slot-access-section :slot-value 100000)'
;;;; Sections: :slot-value (a read and a write), :slot-boundp, :accessors (a reader and a
;;;; writer), :make-instance (two initargs, one initform). (slot-access-time-all N) times each.

(defclass sa-point ()
  ((x :initarg :x :accessor sa-point-x)
   (y :initarg :y :accessor sa-point-y)
   (z :initform 0 :accessor sa-point-z)))

(defun slot-access-section (section n)
  (let ((p (make-instance 'sa-point :x 1 :y 2)) (sum 0))
    (ecase section
      (:slot-value
       (dotimes (i n) (setq sum (+ sum (slot-value p 'x))) (setf (slot-value p 'y) i)))
      (:slot-boundp
       (dotimes (i n) (if (slot-boundp p 'z) (setq sum (1+ sum)))))
      (:accessors
       (dotimes (i n) (setq sum (+ sum (sa-point-x p))) (setf (sa-point-y p) i)))
      (:make-instance
       (dotimes (i n) (setq sum (+ sum (sa-point-z (make-instance 'sa-point :x i :y 2)))))))
    sum))

(defun slot-access-time-all (n)
  (dolist (s '(:slot-value :slot-boundp :accessors :make-instance))
    (let ((start (get-internal-run-time)))
      (slot-access-section s n)
      (format t "time ~(~A~) ~D ms~%" s
              (round (* 1000 (- (get-internal-run-time) start)) internal-time-units-per-second)))))
