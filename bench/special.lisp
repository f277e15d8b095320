;;;; special.lisp -- dynamic (special) variables: deep recursion where every
;;;; level rebinds specials with LET, reads them from callees, SETQs the
;;;; innermost binding, and unwinds again.  Prints one line "checksum special N".

(defvar *depth* 0)
(defvar *acc* 0)
(defvar *scale* 1)

(defun leaf ()
  ;; reads three specials bound far up the stack
  (+ *depth* (* *scale* *acc*)))

(defun descend (n)
  (if (= n 0)
      (leaf)
      (let ((*depth* (+ *depth* 1)))
        (setq *acc* (+ *acc* 1))          ; assigns the global binding of *acc*
        (if (= 0 (mod n 8))
            (let ((*scale* (+ *scale* 1))) ; an occasional second binding
              (+ 1 (descend (- n 1))))
            (descend (- n 1))))))

(defun run-special (repeats depth)
  (let ((sum 0))
    (dotimes (i repeats)
      (let ((*acc* 0))
        (setq sum (+ sum (descend depth) *acc*))))
    ;; the global values must be intact after all that unwinding
    (+ sum *depth* *acc* *scale*)))

(format t "checksum special ~D~%" (run-special 50000 200))
