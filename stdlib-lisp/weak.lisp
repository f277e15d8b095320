;;;; weak.lisp: weak pointers and finalizers, as SBCL's SB-EXT offers them, exported from TINYCL.
;;;; A weak pointer is a one-entry weak-value hash table; FINALIZE keeps its functions here, per
;;;; interpreter, under a number that runtime/weak.c queues when the collector finds the object
;;;; dead, and %RUN-FINALIZERS (called at a safe point or after TINYCL:GC) runs them.

(in-package "SYSTEM")

(export '(tinycl::weak-pointer tinycl::weak-pointer-p tinycl::make-weak-pointer tinycl::weak-pointer-value
          tinycl::finalize tinycl::cancel-finalization)
        "TINYCL")

(defstruct (tinycl::weak-pointer
            (:constructor %make-weak-pointer (cell))
            (:predicate tinycl::weak-pointer-p)
            (:copier nil)
            (:print-function
             (lambda (wp stream depth)
               (declare (ignore depth))
               (multiple-value-bind (value alive) (tinycl::weak-pointer-value wp)
                 (print-unreadable-object (wp stream)
                   (if alive
                       (format stream "weak pointer: ~S" value)
                       (write-string "broken weak pointer" stream)))))))
  (cell nil :read-only t))

(defun tinycl::make-weak-pointer (object)
  "A weak pointer to OBJECT: it gives OBJECT back as long as something else keeps OBJECT alive."
  (let ((cell (make-hash-table :test 'eq :size 1 :weakness :value)))
    (setf (gethash 0 cell) object)
    (%make-weak-pointer cell)))

(defun tinycl::weak-pointer-value (weak-pointer)
  "The object WEAK-POINTER points to and T, or NIL and NIL once that object has been collected."
  (gethash 0 (weak-pointer-cell weak-pointer)))

;;; made at the first FINALIZE, not at boot: a weak table cannot be saved in the boot image
(defvar *finalizers* nil)            ; number -> this interpreter's functions for one object
(defvar *finalized-objects* nil)     ; object (weakly) -> its number
(defvar *running-finalizers* nil)

(defun tinycl::finalize (object function &key dont-save)
  "Arrange for FUNCTION to be called, with no arguments, after OBJECT has been collected; OBJECT.
FUNCTION must not refer to OBJECT, or OBJECT is never collected. DONT-SAVE is accepted for SBCL's
sake (finalizers are never saved in an image)."
  (declare (ignore dont-save))
  (unless *finalizers*
    (setf *finalizers* (make-hash-table)
          *finalized-objects* (make-hash-table :test 'eq :weakness :key)))
  (let ((id (gethash object *finalized-objects*)))
    (unless id
      (setf id (%finalizer-register object))
      ;; NIL: OBJECT is never collected (an immediate object, or part of the boot image)
      (when id (setf (gethash object *finalized-objects*) id)))
    (when id (push function (gethash id *finalizers*))))
  object)

(defun tinycl::cancel-finalization (object)
  "Forget the functions FINALIZE arranged to call for OBJECT; true if there were any."
  (let ((id (and *finalized-objects* (gethash object *finalized-objects*))))
    (when id
      (%finalizer-cancel object)
      (remhash object *finalized-objects*)
      (remhash id *finalizers*)
      t)))

(defun %forget-dead-finalizers ()
  ;; after a restore (src/session-checkpoint.c): the table came back with the state, but only the
  ;; numbers the collector still holds for this interpreter can come; the other entries never run
  (when *finalizers*
    (let ((live (make-hash-table)) (dead nil))
      (dolist (id (%finalizer-live-ids)) (setf (gethash id live) t))
      (maphash #'(lambda (id functions)
                   (declare (ignore functions))
                   (unless (gethash id live) (push id dead)))
               *finalizers*)
      (dolist (id dead) (remhash id *finalizers*))
      (setq dead nil)
      (maphash #'(lambda (object id) (unless (gethash id live) (push object dead))) *finalized-objects*)
      (dolist (object dead) (remhash object *finalized-objects*))))
  nil)

(defun %run-finalizers ()
  ;; never nested: a finalizer that reaches a safe point leaves the rest to the outer call
  (unless *running-finalizers*
    (let ((*running-finalizers* t))
      (dolist (id (%finalized-ids))
        (let ((functions (and *finalizers* (gethash id *finalizers*))))
          (when functions
            (remhash id *finalizers*)
            (dolist (fn (reverse functions))
              (handler-case (funcall fn)
                (error (e) (warn "A finalizer signalled an error: ~A" e))))))))))

