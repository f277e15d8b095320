;;;; threads.lisp: Lisp threads (runtime/thread.c, stdlib-lisp/threads.lisp): making and joining
;;;; threads, special variables per thread, mutexes under contention, waitqueues, semaphores,
;;;; timeouts, interrupts, termination, and a thread that ends with an error.

(defpackage "THREADS-TEST" (:use "COMMON-LISP" "TINYCL-THREADS"))
(in-package "THREADS-TEST")

(defvar *th-special* :global)

(defun th-wait-until (predicate)
  ;; a loaded machine may start a thread late: wait for what the test needs, not a fixed time
  (loop repeat 1000 until (funcall predicate) do (sleep 0.01))
  (funcall predicate))

(cl-user::deftest thread.create-join
  (let ((th (make-thread (lambda (a b) (values (+ a b) :second)) :name "adder" :arguments '(1 2))))
    (list (threadp th) (thread-name th) (multiple-value-list (join-thread th)) (thread-alive-p th)))
  (t "adder" (3 :second) nil))

(cl-user::deftest thread.current-thread-identity
  (let* ((box (list nil))
         (th (make-thread (lambda () (setf (car box) (current-thread))))))
    (join-thread th)
    (list (eq (car box) th) (eq (current-thread) (current-thread)) (eq (current-thread) th)
          (thread-name (main-thread))))
  (t t nil "main thread"))

(cl-user::deftest thread.specials-isolated
  ;; a new thread sees the global value, not its maker's binding; its own binding stays its own
  (let ((*th-special* :outer))
    (let ((th (make-thread (lambda ()
                             (let ((seen *th-special*))
                               (let ((*th-special* :inner))
                                 (thread-yield)
                                 (list seen *th-special*)))))))
      (list (join-thread th) *th-special*)))
  ((:global :inner) :outer))

(cl-user::deftest thread.global-assignment-shared
  (let ((box (list 0)))
    (join-thread (make-thread (lambda () (setf (car box) 42))))
    (car box))
  42)

(defvar *th-counter* 0)

(cl-user::deftest thread.mutex-contention
  ;; a read-yield-write increment loses updates without the mutex; with it the total is exact
  (let ((m (make-mutex :name "counter")))
    (setf *th-counter* 0)
    (let ((threads (loop repeat 8
                         collect (make-thread
                                  (lambda ()
                                    (dotimes (i 200)
                                      (with-mutex (m)
                                        (let ((v *th-counter*))
                                          (thread-yield)
                                          (setf *th-counter* (1+ v))))))))))
      (mapc #'join-thread threads)
      (list *th-counter* (mutex-owner m))))
  (1600 nil))

(cl-user::deftest thread.mutex-try-and-timeout
  (let* ((m (make-mutex))
         (holder (make-thread (lambda () (with-mutex (m) (sleep 0.5))))))
    (th-wait-until (lambda () (mutex-owner m)))
    (let ((start (get-internal-real-time)))
      (prog1 (list (grab-mutex m :waitp nil)
                   (grab-mutex m :timeout 0.1)
                   (>= (- (get-internal-real-time) start) (* 0.08 internal-time-units-per-second))
                   (progn (join-thread holder) (grab-mutex m))
                   (eq (mutex-owner m) (current-thread)))
        (release-mutex m))))
  (nil nil t t t))

(cl-user::deftest thread.recursive-lock
  (let ((m (make-mutex)))
    (with-recursive-lock (m)
      (with-recursive-lock (m)
        (list (eq (mutex-owner m) (current-thread))
              (handler-case (grab-mutex m) (error () :recursive-error))))))
  (t :recursive-error))

(cl-user::deftest thread.condition-wait-notify
  (let* ((q (make-waitqueue)) (m (make-mutex)) (ready 0) (go nil)
         (threads (loop for i below 5
                        collect (let ((i i))
                                  (make-thread (lambda ()
                                                 (with-mutex (m)
                                                   (incf ready)
                                                   (loop until go do (condition-wait q m))
                                                   i)))))))
    (loop until (with-mutex (m) (= ready 5)) do (sleep 0.01))
    (with-mutex (m) (setf go t) (condition-broadcast q))
    (mapcar #'join-thread threads))
  (0 1 2 3 4))

(cl-user::deftest thread.condition-wait-timeout
  (let ((q (make-waitqueue)) (m (make-mutex)))
    (grab-mutex m)
    (list (condition-wait q m :timeout 0.1)
          (mutex-owner m)))
  (nil nil))

(cl-user::deftest thread.semaphores
  (let ((s (make-semaphore :count 1)))
    (list (try-semaphore s) (try-semaphore s) (semaphore-count s)
          (progn (make-thread (lambda () (sleep 0.1) (signal-semaphore s 2)))
                 (wait-on-semaphore s))
          (semaphore-count s)
          (wait-on-semaphore s)
          (wait-on-semaphore s :timeout 0.1)))
  (0 nil 0 1 1 0 nil))

(cl-user::deftest thread.join-errored-thread
  (let ((th (make-thread (lambda () (error "thread boom")))))
    (list (join-thread th :default :no-values)
          (handler-case (join-thread th)
            (join-thread-error (c) (princ-to-string (join-thread-problem c))))))
  (:no-values "thread boom"))

(cl-user::deftest thread.join-timeout
  (let ((th (make-thread (lambda () (sleep 0.5) :done))))
    (list (join-thread th :timeout 0.05 :default :not-yet)
          (handler-case (join-thread th :timeout 0.05) (join-thread-error () :timeout-error))
          (join-thread th)))
  (:not-yet :timeout-error :done))

(cl-user::deftest thread.interrupt
  (let* ((ready nil)
         (th (make-thread (lambda () (catch 'stop (setf ready t) (sleep 10) :slept-through)))))
    (th-wait-until (lambda () ready))
    (interrupt-thread th (lambda () (throw 'stop :interrupted)))
    (join-thread th))
  :interrupted)

(cl-user::deftest thread.terminate-runs-cleanups
  (let* ((cleaned nil) (ready nil)
         (th (make-thread (lambda () (unwind-protect (progn (setf ready t) (loop)) (setf cleaned t))))))
    (th-wait-until (lambda () ready))
    (terminate-thread th)
    (list (join-thread th :default :terminated) cleaned (thread-alive-p th)
          (handler-case (join-thread th) (join-thread-error (c) (join-thread-problem c)))))
  (:terminated t nil :terminated))

(cl-user::deftest thread.busy-threads-share-time
  ;; no blocking at all: the threads still take turns at safe points
  (let* ((flag nil)
         (spinner (make-thread (lambda () (loop until flag) :seen)))
         (setter (make-thread (lambda () (setf flag t)))))
    (list (join-thread setter) (join-thread spinner)))
  (t :seen))

(cl-user::deftest thread.list-all-threads
  (let* ((s (make-semaphore))
         (th (make-thread (lambda () (wait-on-semaphore s)))))
    (prog1 (list (not (null (member th (list-all-threads))))
                 (not (null (member (current-thread) (list-all-threads)))))
      (signal-semaphore s)
      (join-thread th)))
  (t t))

(cl-user::deftest thread.too-many-threads
  ;; making threads without end hits the limit with an error; the session carries on
  (let* ((s (make-semaphore))
         (made nil)
         (result (handler-case
                     (loop (push (make-thread (lambda () (wait-on-semaphore s))) made))
                   (error (c) (search "Cannot make another thread" (princ-to-string c))))))
    (signal-semaphore s (length made))
    (mapc #'join-thread made)
    (list (not (null result)) (<= 100 (length made) 1000)
          (join-thread (make-thread (lambda () :still-works)))))
  (t t :still-works))

(cl-user::deftest thread.without-interrupts-is-atomic
  (let ((box (list 0)))
    (let ((threads (loop repeat 4
                         collect (make-thread (lambda ()
                                                (dotimes (i 100)
                                                  (without-interrupts
                                                    (let ((v (car box)))
                                                      (thread-yield)
                                                      (setf (car box) (1+ v))))))))))
      (mapc #'join-thread threads)
      (car box)))
  400)
