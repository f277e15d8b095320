;;;; threads.lisp: Lisp threads as a package, TINYCL-THREADS, with the names SBCL's SB-THREAD
;;;; gives them: threads, mutexes, waitqueues (condition variables) and semaphores, over
;;;; runtime/thread.c. An interpreter runs one of its threads at a time (thread.h): a thread
;;;; keeps running until it blocks (SLEEP, a wait here, a stream that waits) or reaches a safe
;;;; point while another waits to run. The mutexes, waitqueues and semaphores are structures
;;;; whose state changes inside WITHOUT-INTERRUPTS, a region no other thread runs in; a thread
;;;; that must wait queues itself there and parks (SYS::%THREAD-PARK) until one that changed the
;;;; state unparks it, and looks again.

(defpackage "TINYCL-THREADS"
  (:use "COMMON-LISP")
  (:export "THREAD" "THREADP" "MAKE-THREAD" "JOIN-THREAD" "THREAD-ALIVE-P" "CURRENT-THREAD"
           "MAIN-THREAD" "LIST-ALL-THREADS" "THREAD-NAME" "THREAD-YIELD" "INTERRUPT-THREAD"
           "TERMINATE-THREAD" "THREAD-ERROR" "THREAD-ERROR-THREAD" "JOIN-THREAD-ERROR"
           "JOIN-THREAD-PROBLEM" "INTERRUPT-THREAD-ERROR" "WITHOUT-INTERRUPTS"
           "MUTEX" "MUTEXP" "MAKE-MUTEX" "MUTEX-NAME" "MUTEX-OWNER" "GRAB-MUTEX" "RELEASE-MUTEX"
           "WITH-MUTEX" "WITH-RECURSIVE-LOCK"
           "WAITQUEUE" "MAKE-WAITQUEUE" "WAITQUEUE-NAME" "CONDITION-WAIT" "CONDITION-NOTIFY"
           "CONDITION-BROADCAST"
           "SEMAPHORE" "SEMAPHOREP" "MAKE-SEMAPHORE" "SEMAPHORE-NAME" "SEMAPHORE-COUNT"
           "SIGNAL-SEMAPHORE" "WAIT-ON-SEMAPHORE" "TRY-SEMAPHORE"))

(in-package "TINYCL-THREADS")

(defmacro without-interrupts (&body body)
  "Runs BODY with no other thread of this interpreter running and no INTERRUPT-THREAD function
called in this one until it ends (a wait inside it still lets others run)."
  (let ((old (gensym "OLD")))
    `(let ((,old (system::%thread-inhibit 1)))
       (unwind-protect (progn ,@body) (system::%thread-inhibit-set ,old)))))

;;; ---- threads ----

(defstruct (thread (:constructor %make-thread (name))
                   (:predicate threadp)
                   (:copier nil)
                   (:print-function
                    (lambda (thread stream depth)
                      (declare (ignore depth))
                      (print-unreadable-object (thread stream :type t :identity t)
                        (format stream "~S ~A" (thread-name thread)
                                (if (thread-alive-p thread) "RUNNING" "FINISHED"))))))
  "A Lisp thread of this interpreter."
  (name nil)
  (id nil)
  (state :running)          ; :RUNNING, :FINISHED (RESULT holds its values), :ABORTED
  (result nil)
  (problem nil))            ; what ended it when it did not return

(define-condition thread-error (error)
  ((thread :initarg :thread :reader thread-error-thread))
  (:documentation "An error about a thread."))

(define-condition join-thread-error (thread-error)
  ((problem :initarg :problem :initform nil :reader join-thread-problem))
  (:report (lambda (c s)
             (let ((problem (join-thread-problem c)))
               (case problem
                 (:timeout (format s "Joining ~S timed out." (thread-error-thread c)))
                 (:terminated (format s "~S was terminated, and returned no values." (thread-error-thread c)))
                 (t (format s "~S ended with an unhandled error: ~A" (thread-error-thread c) problem))))))
  (:documentation "JOIN-THREAD found that the thread did not return, or the timeout passed."))

(define-condition interrupt-thread-error (thread-error) ()
  (:report (lambda (c s) (format s "Cannot interrupt ~S: it is no longer running." (thread-error-thread c)))))

(defun current-thread ()
  "The thread running this."
  (multiple-value-bind (object id) (system::%thread-current)
    (or object
        ;; the session's own thread gets its object when first asked for
        (let ((main (%make-thread "main thread")))
          (setf (thread-id main) id)
          (system::%thread-adopt main)))))

(defun main-thread ()
  "The session's own thread, the one its evaluations run in."
  (or (find 0 (system::%thread-objects) :key #'thread-id)
      (current-thread)))

(defun %run-thread (thread function arguments)
  ;; an error no handler takes ends the thread, and JOIN-THREAD reports it. The thread starts with
  ;; interrupts and termination held off (%THREAD-CREATE): they are let in once this is set up.
  (unwind-protect
       (handler-case
           (let ((values (multiple-value-list
                          (progn (system::%thread-inhibit-set 0) (apply function arguments)))))
             (setf (thread-result thread) values
                   (thread-state thread) :finished))
         (serious-condition (c)
           (setf (thread-problem thread) c
                 (thread-state thread) :aborted)))
    (when (eq (thread-state thread) :running)
      ;; unwound without returning: terminated
      (setf (thread-problem thread) :terminated
            (thread-state thread) :aborted))))

(defun make-thread (function &key name arguments)
  "A new thread, which calls FUNCTION with ARGUMENTS (a list or one argument) and ends when it
returns. It sees the global values of special variables, not the bindings of its maker."
  (let ((thread (%make-thread name))
        (arguments (if (listp arguments) arguments (list arguments))))
    (current-thread)            ; the maker has its object before any thread lists the threads
    (without-interrupts
      (setf (thread-id thread)
            (system::%thread-create #'(lambda () (%run-thread thread function arguments)) thread)))
    thread))

(defun thread-alive-p (thread)
  "True while THREAD has not ended."
  (and (thread-id thread) (system::%thread-alive-p (thread-id thread))))

(defun list-all-threads ()
  "The threads of this interpreter that have not ended."
  (current-thread)
  (system::%thread-objects))

(defun join-thread (thread &key (default nil defaultp) timeout)
  "Waits for THREAD to end and returns the values its function returned. When it did not return
(an unhandled error, or it was terminated) or TIMEOUT seconds passed first, returns DEFAULT when
one is given, else signals JOIN-THREAD-ERROR."
  (let ((ended (system::%thread-join-wait (thread-id thread) timeout)))
    (cond ((not ended)
           (if defaultp default (error 'join-thread-error :thread thread :problem :timeout)))
          ((eq (thread-state thread) :finished) (values-list (thread-result thread)))
          (defaultp default)
          (t (error 'join-thread-error :thread thread :problem (thread-problem thread))))))

(defun thread-yield ()
  "Lets another thread run, if one is waiting to."
  (system::%thread-yield))

(defun interrupt-thread (thread function)
  "Makes THREAD call FUNCTION (no arguments) at its next safe point, as if called from where it is;
a non-local exit from FUNCTION unwinds THREAD."
  (unless (system::%thread-interrupt (thread-id thread) function)
    (error 'interrupt-thread-error :thread thread))
  t)

(defun terminate-thread (thread)
  "Makes THREAD unwind (its cleanup forms run) and end."
  (when (eql (thread-id thread) 0)
    (error 'thread-error :thread thread))
  (system::%thread-terminate (thread-id thread))
  t)

;;; ---- waiting, shared by mutexes, waitqueues and semaphores ----

(defun %deadline (timeout)
  (and timeout (+ (get-internal-real-time) (* (max timeout 0) internal-time-units-per-second))))

(defun %park-until (deadline)
  ;; parks until unparked, or until DEADLINE (NIL: none); NIL when the deadline had passed
  (let ((left (and deadline (/ (- deadline (get-internal-real-time)) internal-time-units-per-second))))
    (unless (and left (<= left 0))
      (system::%thread-park left)
      t)))

(defun %queued (thread waiters)
  ;; WAITERS with THREAD last, unless it is in already
  (if (member thread waiters) waiters (nconc waiters (list thread))))

(defun %unpark (thread)
  (system::%thread-unpark (thread-id thread)))

;;; ---- mutexes ----

(defstruct (mutex (:constructor make-mutex (&key name))
                  (:predicate mutexp)
                  (:copier nil)
                  (:print-function
                   (lambda (m stream depth)
                     (declare (ignore depth))
                     (print-unreadable-object (m stream :type t :identity t)
                       (format stream "~S~@[ owner: ~S~]" (mutex-name m) (mutex-owner m))))))
  "A lock one thread holds at a time."
  (name nil)
  (owner nil)
  (waiters nil))            ; threads parked for it, oldest first

(defun %pass-mutex (mutex)
  ;; inside WITHOUT-INTERRUPTS: a free mutex with waiters wakes the first
  (when (and (null (mutex-owner mutex)) (mutex-waiters mutex))
    (%unpark (pop (mutex-waiters mutex)))))

(defun grab-mutex (mutex &key (waitp t) timeout)
  "Takes MUTEX for this thread, waiting for it when WAITP (at most TIMEOUT seconds); true when taken."
  (let ((self (current-thread))
        (deadline (%deadline timeout))
        (got nil))
    (when (eq (mutex-owner mutex) self)
      (error "Recursive lock attempt on ~S: this thread already holds it." mutex))
    (unwind-protect
         (loop
           (without-interrupts
             (when (null (mutex-owner mutex))
               (setf (mutex-owner mutex) self
                     (mutex-waiters mutex) (delete self (mutex-waiters mutex))
                     got t)
               (return t))
             (unless waitp (return nil))
             (setf (mutex-waiters mutex) (%queued self (mutex-waiters mutex))))
           (unless (%park-until deadline) (return nil)))
      (unless got
        ;; gave up (timeout, or an unwind): out of the queue, and a wake meant for it goes on
        (without-interrupts
          (setf (mutex-waiters mutex) (delete self (mutex-waiters mutex)))
          (%pass-mutex mutex))))))

(defun release-mutex (mutex &key (if-not-owner :punt))
  "Releases MUTEX, which this thread holds, waking a thread waiting for it. IF-NOT-OWNER says what
to do otherwise: :PUNT (nothing), :WARN, :ERROR or :FORCE (release it anyway)."
  (without-interrupts
    (let ((owner (mutex-owner mutex)))
      (unless (eq owner (current-thread))
        (ecase if-not-owner
          (:punt (return-from release-mutex nil))
          (:warn (warn "~S is not held by this thread; not released." mutex)
           (return-from release-mutex nil))
          (:error (error "~S is not held by this thread (its owner: ~S)." mutex owner))
          (:force)))
      (setf (mutex-owner mutex) nil)
      (%pass-mutex mutex)))
  t)

(defmacro with-mutex ((mutex &key (wait-p t) timeout (value nil valuep)) &body body)
  "Runs BODY holding MUTEX (taken as GRAB-MUTEX does; BODY does not run when it was not taken),
releasing it however BODY ends."
  (declare (ignore value))
  (when valuep (warn "WITH-MUTEX's :VALUE is not supported; ignored."))
  (let ((m (gensym "MUTEX")))
    `(let ((,m ,mutex))
       (%call-with-mutex ,m ,wait-p ,timeout #'(lambda () ,@body)))))

(defun %call-with-mutex (mutex wait-p timeout body)
  ;; interrupts and termination are held off from the grab to the cleanup's start (except while
  ;; the grab waits), so that a mutex once taken is always released: a thread terminated between
  ;; GRAB-MUTEX's return and the note that it holds the mutex would otherwise keep it for ever
  (let* ((old (system::%thread-inhibit 1))
         (got nil))
    (unwind-protect
         (progn
           (setf got (grab-mutex mutex :waitp wait-p :timeout timeout))
           (system::%thread-inhibit-set old)
           (when got (funcall body)))
      (system::%thread-inhibit 1)
      (when got (release-mutex mutex))
      (system::%thread-inhibit-set old))))

(defmacro with-recursive-lock ((mutex &key (wait-p t) timeout) &body body)
  "As WITH-MUTEX, but when this thread already holds MUTEX, BODY just runs (and keeps it)."
  (let ((m (gensym "MUTEX")))
    `(let ((,m ,mutex))
       (if (eq (mutex-owner ,m) (current-thread))
           (locally ,@body)
           (%call-with-mutex ,m ,wait-p ,timeout #'(lambda () ,@body))))))

;;; ---- waitqueues (condition variables) ----

(defstruct (waitqueue (:constructor make-waitqueue (&key name))
                      (:copier nil)
                      (:print-function
                       (lambda (q stream depth)
                         (declare (ignore depth))
                         (print-unreadable-object (q stream :type t :identity t)
                           (format stream "~S" (waitqueue-name q))))))
  "A condition variable: threads wait on it for others to notify them."
  (name nil)
  (tokens nil))             ; one cons (thread) per waiter, oldest first

(defun condition-wait (queue mutex &key timeout)
  "Releases MUTEX (which this thread holds) and waits on QUEUE until notified, then takes MUTEX
again and returns T. When TIMEOUT seconds pass first, returns NIL without taking MUTEX back."
  (let* ((self (current-thread))
         (token (list self))
         (deadline (%deadline timeout))
         (notified nil))
    (without-interrupts
      (setf (waitqueue-tokens queue) (nconc (waitqueue-tokens queue) (list token)))
      (release-mutex mutex))
    (unwind-protect
         (loop
           (unless (member token (waitqueue-tokens queue) :test #'eq)
             (setf notified t)
             (return))
           (unless (%park-until deadline) (return)))
      (without-interrupts
        (setf (waitqueue-tokens queue) (delete token (waitqueue-tokens queue) :test #'eq))))
    (when notified
      (grab-mutex mutex)
      t)))

(defun condition-notify (queue &optional (n 1))
  "Wakes N of the threads waiting on QUEUE (the longest waiting first)."
  (without-interrupts
    (loop repeat n
          while (waitqueue-tokens queue)
          do (%unpark (car (pop (waitqueue-tokens queue))))))
  nil)

(defun condition-broadcast (queue)
  "Wakes every thread waiting on QUEUE."
  (condition-notify queue most-positive-fixnum))

;;; ---- semaphores ----

(defstruct (semaphore (:constructor make-semaphore (&key name (count 0)))
                      (:predicate semaphorep)
                      (:copier nil)
                      (:print-function
                       (lambda (sem stream depth)
                         (declare (ignore depth))
                         (print-unreadable-object (sem stream :type t :identity t)
                           (format stream "~S count: ~D" (semaphore-name sem) (semaphore-count sem))))))
  "A count threads take from (waiting while it is too small) and give back to."
  (name nil)
  (count 0)
  (waiters nil))

(defun %wake-semaphore-waiters (semaphore)
  ;; inside WITHOUT-INTERRUPTS: as many waiters as the count might serve
  (loop repeat (semaphore-count semaphore)
        while (semaphore-waiters semaphore)
        do (%unpark (pop (semaphore-waiters semaphore)))))

(defun signal-semaphore (semaphore &optional (n 1))
  "Adds N to SEMAPHORE's count, waking as many waiters."
  (without-interrupts
    (incf (semaphore-count semaphore) n)
    (%wake-semaphore-waiters semaphore))
  nil)

(defun try-semaphore (semaphore &optional (n 1) notification)
  "Takes N from SEMAPHORE's count when it has that much, returning the new count; else NIL."
  (declare (ignore notification))
  (without-interrupts
    (when (>= (semaphore-count semaphore) n)
      (decf (semaphore-count semaphore) n))))

(defun wait-on-semaphore (semaphore &key (n 1) timeout notification)
  "Takes N from SEMAPHORE's count, waiting (at most TIMEOUT seconds) until it has that much;
returns the new count, or NIL when the time ran out."
  (declare (ignore notification))
  (let ((self (current-thread))
        (deadline (%deadline timeout))
        (result nil))
    (unwind-protect
         (loop
           (without-interrupts
             (when (>= (semaphore-count semaphore) n)
               (setf result (decf (semaphore-count semaphore) n))
               (return))
             (setf (semaphore-waiters semaphore) (%queued self (semaphore-waiters semaphore))))
           (unless (%park-until deadline) (return)))
      (without-interrupts
        (setf (semaphore-waiters semaphore) (delete self (semaphore-waiters semaphore)))
        ;; a wake this thread did not use goes on
        (when (> (semaphore-count semaphore) 0) (%wake-semaphore-waiters semaphore))))
    result))
