;;;; lists.lisp: list and sequence functions written in Lisp (CLHS chapters 14 and 17):
;;;; the error types the C sequence functions signal, the C setf functions of the list
;;;; accessors, GETF and REMF as places, PUSHNEW.

(in-package "SYSTEM")

;;; ------------------------------------------------------------------
;;; Errors signalled by the C sequence functions (all TYPE-ERRORs, as in SBCL); reports never
;;; print a circular list

(define-condition bounding-indices-bad-error (type-error)
  ((sequence :initarg :sequence :reader bounding-indices-bad-sequence :initform nil))
  (:report (lambda (c s)
             (let ((datum (type-error-datum c)) (expected (type-error-expected-type c)))
               (format s "The bounding indices ~S and ~S are bad for a sequence of length ~S."
                       (car datum) (cdr datum) (car (cdr (cdr (car (cdr expected))))))))))

(define-condition index-too-large-error (type-error)
  ((sequence :initarg :sequence :reader index-too-large-sequence :initform nil))
  (:report (lambda (c s)
             (let ((expected (type-error-expected-type c)))
               (format s "The index ~S is too large for a sequence of length ~S."
                       (type-error-datum c)
                       (let ((high (car (cdr (cdr expected)))))
                         (if (consp high) 0 (+ high 1))))))))

(define-condition circular-list-error (type-error) ()
  (:report (lambda (c s) (declare (ignore c)) (format s "The list is circular; a proper list is required."))))

;;; ------------------------------------------------------------------
;;; The list accessors' setf functions in C (boot.lisp defined interpreted ones)

(%set-fdefinition '(setf car) #'%setf-car)
(%set-fdefinition '(setf cdr) #'%setf-cdr)
(%set-fdefinition '(setf first) #'%setf-car)
(%set-fdefinition '(setf rest) #'%setf-cdr)
(%set-fdefinition '(setf caar) #'%setf-caar)
(%set-fdefinition '(setf cadr) #'%setf-cadr)
(%set-fdefinition '(setf cdar) #'%setf-cdar)
(%set-fdefinition '(setf cddr) #'%setf-cddr)
(%set-fdefinition '(setf caddr) #'%setf-caddr)
(%set-fdefinition '(setf cdddr) #'%setf-cdddr)
(%set-fdefinition '(setf cadddr) #'%setf-cadddr)
(%set-fdefinition '(setf second) #'%setf-cadr)
(%set-fdefinition '(setf third) #'%setf-third)
(%set-fdefinition '(setf fourth) #'%setf-fourth)
(%set-fdefinition '(setf fifth) #'%setf-fifth)
(%set-fdefinition '(setf sixth) #'%setf-sixth)
(%set-fdefinition '(setf seventh) #'%setf-seventh)
(%set-fdefinition '(setf eighth) #'%setf-eighth)
(%set-fdefinition '(setf ninth) #'%setf-ninth)
(%set-fdefinition '(setf tenth) #'%setf-tenth)
(%set-fdefinition '(setf nth) #'%setf-nth)

;;; The remaining c[ad]r places.
(defun (setf caaar) (new list) (rplaca (car (car list)) new) new)
(defun (setf caadr) (new list) (rplaca (car (cdr list)) new) new)
(defun (setf cadar) (new list) (rplaca (cdr (car list)) new) new)
(defun (setf cdaar) (new list) (rplacd (car (car list)) new) new)
(defun (setf cdadr) (new list) (rplacd (car (cdr list)) new) new)
(defun (setf cddar) (new list) (rplacd (cdr (car list)) new) new)
(defun (setf caaaar) (new list) (rplaca (car (car (car list))) new) new)
(defun (setf caaadr) (new list) (rplaca (car (car (cdr list))) new) new)
(defun (setf caadar) (new list) (rplaca (car (cdr (car list))) new) new)
(defun (setf caaddr) (new list) (rplaca (car (cdr (cdr list))) new) new)
(defun (setf cadaar) (new list) (rplaca (cdr (car (car list))) new) new)
(defun (setf cadadr) (new list) (rplaca (cdr (car (cdr list))) new) new)
(defun (setf caddar) (new list) (rplaca (cdr (cdr (car list))) new) new)
(defun (setf cdaaar) (new list) (rplacd (car (car (car list))) new) new)
(defun (setf cdaadr) (new list) (rplacd (car (car (cdr list))) new) new)
(defun (setf cdadar) (new list) (rplacd (car (cdr (car list))) new) new)
(defun (setf cdaddr) (new list) (rplacd (car (cdr (cdr list))) new) new)
(defun (setf cddaar) (new list) (rplacd (cdr (car (car list))) new) new)
(defun (setf cddadr) (new list) (rplacd (cdr (car (cdr list))) new) new)
(defun (setf cdddar) (new list) (rplacd (cdr (cdr (car list))) new) new)
(defun (setf cddddr) (new list) (rplacd (cdr (cdr (cdr list))) new) new)

;;; ------------------------------------------------------------------
;;; Property lists as places

(define-setf-expander getf (place indicator &optional (default nil defaultp) &environment env)
  (multiple-value-bind (temps vals stores store-form access-form) (get-setf-expansion place env)
    (let ((itemp (gensym "INDICATOR")) (deftemp (gensym "DEFAULT")) (store (gensym "NEW")))
      (values (append temps (list itemp) (if defaultp (list deftemp)))
              (append vals (list indicator) (if defaultp (list default)))
              (list store)
              `(let ((,(car stores) (%putf ,access-form ,itemp ,store)))
                 ,store-form
                 ,store)
              `(getf ,access-form ,itemp ,@(if defaultp (list deftemp)))))))

(defmacro remf (place indicator &environment env)
  "Removes INDICATOR and its value from the property list stored in PLACE; true when it was found."
  (multiple-value-bind (temps vals stores store-form access-form) (get-setf-expansion place env)
    (let ((ind (gensym "INDICATOR")) (found (gensym "FOUND")))
      `(let* (,@(mapcar #'list temps vals) (,ind ,indicator))
         (multiple-value-bind (,(car stores) ,found) (%remf ,access-form ,ind)
           (when ,found ,store-form)
           ,found)))))

;;; ------------------------------------------------------------------
;;; PUSHNEW

(defmacro pushnew (item place &rest keys &environment env)
  "Pushes ITEM onto the list in PLACE unless an element already matches it (by KEYS :test, :test-not and :key, default EQL); returns the new list."
  (let ((g (gensym "ITEM")))
    `(let ((,g ,item))
       ,(%update-place place env #'(lambda (access) `(adjoin ,g ,access ,@keys))))))
