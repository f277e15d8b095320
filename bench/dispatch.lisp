;;;; dispatch.lisp -- generic function dispatch against plain function calls: one method
;;;; on a class, three classes through one generic function, slot readers and writers,
;;;; dispatch on two built-in arguments, CALL-NEXT-METHOD with :BEFORE/:AFTER/:AROUND methods,
;;;; and MAKE-INSTANCE. Each section's CPU time goes to a "time" line; the checksum line is
;;;; "checksum dispatch N".

(defclass shape () ())
(defclass circle (shape) ((r :initarg :r :accessor circle-r)))
(defclass rect (shape) ((w :initarg :w :accessor rect-w) (h :initarg :h :accessor rect-h)))
(defclass square (rect) ())

;; 1. a plain function and a generic function with one method, same work
(defun plain-weight (s) (if s 3 0))
(defgeneric weight (s))
(defmethod weight ((s shape)) (if s 3 0))

;; 2. one generic function over three classes, and the plain function that does the same
(defgeneric area (s))
(defmethod area ((c circle)) (* 3 (circle-r c) (circle-r c)))
(defmethod area ((r rect)) (* (rect-w r) (rect-h r)))
(defun plain-area (s)
  (cond ((typep s 'circle) (* 3 (slot-value s 'r) (slot-value s 'r)))
        (t (* (slot-value s 'w) (slot-value s 'h)))))

;; 4. two arguments of built-in classes
(defgeneric combine (a b))
(defmethod combine ((a integer) (b integer)) (+ a b))
(defmethod combine ((a integer) (b list)) (+ a (length b)))
(defmethod combine ((a list) (b integer)) (+ (length a) b))
(defmethod combine ((a t) (b t)) 1)

;; 5. the standard method combination
(defvar *count* 0)
(defgeneric chain (s))
(defmethod chain ((s shape)) 1)
(defmethod chain ((s rect)) (+ 10 (call-next-method)))
(defmethod chain ((s square)) (+ 100 (call-next-method)))
(defmethod chain :before ((s rect)) (incf *count*))
(defmethod chain :after ((s square)) (incf *count*))
(defmethod chain :around ((s square)) (+ 1000 (call-next-method)))

(defvar *section-start* 0)
(defun start-section () (setq *section-start* (get-internal-run-time)))
(defun end-section (name)
  (format t "time ~A ~D ms~%" name
          (round (* 1000 (- (get-internal-run-time) *section-start*)) internal-time-units-per-second)))

(defun run-dispatch (n)
  (let ((sum 0)
        (c (make-instance 'circle :r 2))
        (r (make-instance 'rect :w 2 :h 3))
        (sq (make-instance 'square :w 4 :h 4))
        (lst (list 1 2 3)))
    (let ((shapes (list c r sq)))
      (start-section)
      (dotimes (i n) (setq sum (+ sum (plain-weight c))))
      (end-section "plain-call")
      (start-section)
      (dotimes (i n) (setq sum (+ sum (weight c))))
      (end-section "generic-call")
      (start-section)
      (dotimes (i (floor n 3)) (dolist (s shapes) (setq sum (+ sum (plain-area s)))))
      (end-section "plain-area-3-classes")
      (start-section)
      (dotimes (i (floor n 3)) (dolist (s shapes) (setq sum (+ sum (area s)))))
      (end-section "generic-area-3-classes")
      (start-section)
      (dotimes (i n) (setq sum (+ sum (slot-value c 'r))) (setf (slot-value r 'w) (logand i 7)))
      (end-section "slot-value")
      (start-section)
      (dotimes (i n) (setq sum (+ sum (circle-r c))) (setf (rect-w r) (logand i 7)))
      (end-section "accessors")
      (start-section)
      (dotimes (i (floor n 4))
        (setq sum (+ sum (combine i 1) (combine i lst) (combine lst i) (combine "x" 'y))))
      (end-section "two-argument-dispatch")
      (start-section)
      (dotimes (i (floor n 4)) (setq sum (+ sum (chain sq) (chain r))))
      (end-section "method-combination")
      (start-section)
      (dotimes (i (floor n 20))
        (setq sum (+ sum (circle-r (make-instance 'circle :r (logand i 3))))))
      (end-section "make-instance"))
    (+ sum *count*)))

(format t "checksum dispatch ~D~%" (run-dispatch 800000))
