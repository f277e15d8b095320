;;;; framework.lisp: the deftest framework for tinycl's Lisp-level tests.
;;;; (deftest name form expected-value...) passes when FORM returns exactly the expected values,
;;;; compared with TEST-EQUAL (EQL numbers and characters, EQUAL structure, element-wise arrays).
;;;; (signals-error form type) returns T when FORM signals a condition of TYPE.

(in-package :cl-user)

(defvar *tests* nil)          ; list of (name thunk expected), newest first
(defvar *failures* nil)


(defun test-equal (a b)
  ;; only basic operators here, so that the framework works while the library grows
  (cond ((eql a b) t)
        ((and (consp a) (consp b))
         (and (test-equal (car a) (car b)) (test-equal (cdr a) (cdr b))))
        ((and (stringp a) (stringp b)) (equal a b))
        ((and (vectorp a) (vectorp b))
         ;; vectors by their active elements (fill pointers respected)
         (let ((n (if (array-has-fill-pointer-p a) (fill-pointer a) (array-total-size a)))
               (m (if (array-has-fill-pointer-p b) (fill-pointer b) (array-total-size b))))
           (and (= n m)
                (dotimes (i n t)
                  (unless (test-equal (aref a i) (aref b i)) (return nil))))))
        ((and (arrayp a) (arrayp b))
         (and (equal (array-dimensions a) (array-dimensions b))
              (dotimes (i (array-total-size a) t)
                (unless (test-equal (row-major-aref a i) (row-major-aref b i))
                  (return nil)))))
        (t (equal a b))))

(defun test-length (list)
  (let ((n 0)) (dolist (x list n) (declare (ignore x)) (setq n (+ n 1)))))

(defun test-reverse (list)
  (let ((r nil)) (dolist (x list r) (setq r (cons x r)))))

(defun test-all-equal (a b)
  (cond ((and (null a) (null b)) t)
        ((or (null a) (null b)) nil)
        ((test-equal (car a) (car b)) (test-all-equal (cdr a) (cdr b)))
        (t nil)))

(defmacro deftest (name form &rest expected)
  `(push (list ',name (lambda () ,form) ',expected) *tests*))

(defmacro signals-error (form type)
  `(handler-case (progn ,form :no-error)
     (,type () t)
     (condition (c) (list :wrong-condition (type-of c)))))

(defun run-one-test (test)
  (destructuring-bind (name thunk expected) test
    (let ((result (handler-case (multiple-value-list (funcall thunk))
                    (error (c)
                      (list :error (type-of c) (ignore-errors (princ-to-string c)))))))
      (if (test-all-equal result expected)
          t
          (progn
            (push name *failures*)
            (format t "FAIL ~S~%  expected: ~S~%  got:      ~S~%" name expected result)
            nil)))))

(defun run-tests (&optional (label "tests"))
  (let ((passed 0) (failed 0))
    (dolist (test (test-reverse *tests*))
      (if (run-one-test test) (incf passed) (incf failed)))
    (format t "~A: ~D passed, ~D failed~%" label passed failed)
    (setf *tests* nil)
    (values passed failed)))
