;;;; documentation.lisp: every external symbol of COMMON-LISP that names a function, macro, special
;;;; operator, variable, constant or type has a documentation string of each kind it names, and
;;;; DOCUMENTATION and DESCRIBE find the strings wherever they are kept (primitive tables, the C
;;;; tables of runtime/docs.c, the stdlib's docstrings moved out by tools/embed).

(defun doc-test-type-name-p (symbol)
  (or (find-class symbol nil) (sys::%known-type-p symbol) (get symbol 'sys::%deftype-expander)))

(defun doc-test-pairs ()
  ;; every applicable (symbol doc-type) pair of the CL package
  (let ((pairs nil))
    (do-external-symbols (s "COMMON-LISP")
      (when (or (fboundp s) (special-operator-p s)) (push (list s 'function) pairs))
      (when (boundp s) (push (list s 'variable) pairs))
      (when (doc-test-type-name-p s) (push (list s 'type) pairs)))
    pairs))

(defun doc-test-missing ()
  (let ((missing nil))
    (dolist (p (doc-test-pairs) missing)
      (let ((doc (documentation (first p) (second p))))
        (unless (and (stringp doc) (> (length doc) 0))
          (push p missing))))))

(deftest every-cl-symbol-is-documented
  (doc-test-missing)
  nil)

(deftest documented-pairs-counted
  ;; the pairs checked above: functions and macros, special operators, variables, types
  (let ((pairs (doc-test-pairs)))
    (list (> (length pairs) 960)
          (> (count 'variable pairs :key #'second) 110)
          (> (count 'type pairs :key #'second) 100)
          (= (count-if #'special-operator-p (remove-duplicates (mapcar #'first pairs))) 25)))
  (t t t t))

(deftest every-type-specifier-is-documented
  ;; type names that are not classes (FIXNUM, BOOLEAN, ATOM, KEYWORD...) have one too
  (let ((n 0) (missing nil))
    (do-external-symbols (s "COMMON-LISP")
      (when (and (doc-test-type-name-p s) (not (find-class s nil)))
        (incf n)
        (unless (documentation s 'type) (push s missing))))
    (list (> n 20) missing))
  (t nil))

;;; the strings, from each place they are kept

(deftest documentation-of-a-primitive
  (list (documentation 'aref 'function) (documentation #'svref t))
  ("The element of ARRAY at the given SUBSCRIPTS, one per dimension; SETF-able."
   "The element at INDEX of SIMPLE-VECTOR; SETF-able."))

(deftest documentation-of-a-special-operator
  (documentation 'unwind-protect 'function)
  "(UNWIND-PROTECT protected cleanup...) evaluates PROTECTED and returns its values, always running the CLEANUP forms afterwards, even when control leaves by a non-local exit.")

(deftest documentation-of-a-stdlib-macro-and-function
  (list (documentation 'when 'function) (documentation 'ignore-errors 'function)
        (documentation 'make-condition 'function) (documentation #'constantly t))
  ("Evaluates BODY when TEST is true and returns its values; otherwise NIL."
   "Evaluates FORMS and returns their values; if an ERROR is signalled, returns NIL and the condition instead."
   "A new condition of TYPE with its slots filled from INITARGS, without signalling it."
   "A function that takes any arguments and always returns VALUE."))

(deftest documentation-of-a-generic-function
  (list (documentation 'print-object 'function) (documentation #'print-object t))
  ("Generic function that prints OBJECT on STREAM; the printer calls it, and methods on it define how instances of a class print."
   "Generic function that prints OBJECT on STREAM; the printer calls it, and methods on it define how instances of a class print."))

(deftest documentation-of-a-condition-reader
  (documentation 'type-error-datum 'function)
  "The object that was not of the expected type in the TYPE-ERROR CONDITION.")

(deftest documentation-of-variables-and-constants
  (list (documentation '*print-base* 'variable) (documentation 'most-positive-fixnum 'variable)
        (documentation 'double-float-epsilon 'variable) (documentation 'nil 'variable))
  ("The radix, from 2 to 36, in which the printer writes rational numbers; 10 by default."
   "The largest fixnum, 2 to the power 62 minus 1 in tinycl; larger integers are bignums."
   "The smallest positive double-float e such that (+ 1 e) differs from 1."
   "The constant NIL: false, and also the empty list."))

(deftest documentation-of-types-and-classes
  (list (documentation 'boolean 'type) (documentation 'fixnum 'type)
        (documentation (find-class 'hash-table) t) (documentation 'division-by-zero 'type))
  ("The two objects T and NIL, the same as (MEMBER T NIL)."
   "The integers small enough to be stored without allocation, from MOST-NEGATIVE-FIXNUM to MOST-POSITIVE-FIXNUM."
   "Hash tables, made by MAKE-HASH-TABLE."
   "Arithmetic errors signalled when dividing by zero."))

(deftest documentation-of-a-name-for-a-function-and-a-type
  ;; LIST names both: each kind has its own string
  (list (stringp (documentation 'list 'function)) (stringp (documentation 'list 'type))
        (equal (documentation 'list 'function) (documentation 'list 'type)))
  (t t nil))

(deftest documentation-of-kinds-a-symbol-does-not-name
  (list (documentation 'car 'variable) (documentation '*print-base* 'function)
        (documentation 'fixnum 'function) (documentation 'if 'type))
  (nil nil nil nil))

;;; what users set still wins, and their own definitions work as before

(defvar *doc-test-var* 1 "A test variable.")
(defun doc-test-fn () "A test function." 1)
(defun doc-test-string-body () "only a string")

(deftest user-documentation
  (list (documentation '*doc-test-var* 'variable) (documentation 'doc-test-fn 'function)
        (documentation 'doc-test-string-body 'function) (doc-test-string-body))
  ("A test variable." "A test function." nil "only a string"))

(deftest setf-documentation-overrides-a-builtin-string
  (let ((old (documentation 'cadr 'function)))
    (setf (documentation 'cadr 'function) "Mine.")
    (prog1 (list (documentation 'cadr 'function) (stringp old))
      (setf (documentation 'cadr 'function) old)))
  ("Mine." t))

(deftest describe-shows-the-strings
  (let ((text (with-output-to-string (s) (describe 'if s) (describe 'fixnum s) (describe '*print-base* s))))
    (list (not (null (search "(IF test then [else]) evaluates TEST" text)))
          (not (null (search "FIXNUM names the built-in-class" text)))
          (not (null (search "The integers small enough to be stored" text)))
          (not (null (search "The radix, from 2 to 36" text)))))
  (t t t t))

(deftest builtin-documentation-bad-arguments
  ;; the lookup answers NIL for what it does not know instead of failing
  (list (sys::%builtin-documentation 'car 'structure) (sys::%builtin-documentation 5 'function)
        (sys::%builtin-documentation 'car "FUNCTION") (sys::%builtin-documentation 'doc-test-fn 'function))
  (nil nil nil nil))
