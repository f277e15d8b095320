;;;; symbols.lisp: tests of symbols (CLHS chapter 10); expected values from SBCL.

(deftest make-symbol-non-string-is-type-error (signals-error (make-symbol 0) type-error) t)
(deftest make-symbol-non-string-list (signals-error (make-symbol '(#\a)) type-error) t)
(deftest make-symbol-adjustable-string
  (symbol-name (make-symbol (make-array 3 :element-type 'character :initial-contents "abc"
                                          :adjustable t)))
  "abc")
(deftest make-symbol-displaced-string
  (let* ((base (make-array 6 :element-type 'character :initial-contents "0ABCDE"))
         (name (make-array 4 :element-type 'character :displaced-to base
                             :displaced-index-offset 1)))
    (values (symbol-package (make-symbol name)) (symbol-name (make-symbol name))))
  nil "ABCD")
(deftest gensym-fill-pointer-prefix
  (let ((*gensym-counter* 7))
    (symbol-name (gensym (make-array 5 :element-type 'character :initial-contents "abcde"
                                       :fill-pointer 2))))
  "ab7")
(deftest gensym-bignum-counter
  (let ((*gensym-counter* 73786976294838206464))
    (list (symbol-name (gensym)) *gensym-counter*))
  ("G73786976294838206464" 73786976294838206465))
(deftest gensym-bignum-argument
  (symbol-name (gensym 73786976294838206464))
  "G73786976294838206464")
(deftest gensym-negative-is-type-error (signals-error (gensym -1) type-error) t)
(deftest gensym-bad-counter-is-type-error
  (let ((*gensym-counter* -1)) (signals-error (gensym) type-error))
  t)
(deftest gentemp-adjustable-prefix
  (let ((s (gentemp (make-array 3 :element-type 'character :initial-contents "TMP"
                                  :adjustable t))))
    (prog1 (string= "TMP" (symbol-name s) :end2 3) (unintern s)))
  t)
(deftest read-from-string-adjustable-string
  (read-from-string (make-array 3 :element-type 'character :initial-contents "abc"
                                  :adjustable t))
  abc 3)
