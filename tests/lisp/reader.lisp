;;;; reader.lisp: tests of the reader (CLHS chapters 2 and 23); expected values from SBCL.

(deftest feature-after-failed-feature
  (read-from-string "(#+(or) 3 #-(or) 1 x)")
  (1 x) 21)
(deftest feature-symbol-after-failed-feature
  (let ((*features* (cons :conform-test-feature *features*)))
    (read-from-string "(#+(or) let #+(or) () #+conform-test-feature progn #-conform-test-feature no x)"))
  (progn x) 79)
(deftest feature-token-after-failed-feature
  (with-input-from-string (s "#+(or) 3 #-(or) 1 2")
    (list (read s) (read s)))
  (1 2))
(deftest suppressed-unknown-dispatch
  (let ((*read-suppress* t)) (read-from-string "(#\\a #{ b)"))
  nil 10)
