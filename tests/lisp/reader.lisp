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

;;; A multiple escape, even an empty one, makes a token a symbol (CLHS 2.3.3)
(deftest empty-multiple-escape-makes-symbol
  (let ((*package* (find-package "CL-USER")))
    (list (read-from-string "123||") (read-from-string ".||") (read-from-string "..||")))
  (|123| |.| |..|))

;;; Recursive reads inherit READ's whitespace handling: the space after :good is consumed
(deftest sharp-plus-consumes-whitespace
  (let ((*features* '(:x))) (read-from-string "#+x :good :bad"))
  :good 10)
(deftest sharp-minus-consumes-whitespace
  (read-from-string "#-(or) 'a b")
  (quote a) 10)
(deftest sharp-plus-preserving-whitespace
  (let ((*features* '(:x)))
    (with-input-from-string (s "#+x :good :bad")
      (list (read-preserving-whitespace s) (read-char s))))
  (:good #\Space))

;;; Whitespace, Backspace and Rubout keep the invalid constituent trait (CLHS 2.1.4.2)
(deftest constituent-whitespace-is-invalid
  (let ((*readtable* (copy-readtable nil)))
    (set-syntax-from-char #\Tab #\X)
    (set-syntax-from-char #\Space #\X)
    (list (signals-error (read-from-string (format nil "~CZ" #\Tab)) reader-error)
          (signals-error (read-from-string "A Z") reader-error)
          (read-from-string "|A Z|")))
  (t t |A Z|))

;;; #nA takes any sequence as contents
(deftest sharp-a-vector-contents
  (list (read-from-string "#1a#*0110")
        (read-from-string "#2a#()")
        (read-from-string "#1a#.(make-array 4 :fill-pointer 2 :initial-element 7)")
        (read-from-string "#2a(#(1 2) \"ab\")"))
  (#(0 1 1 0) #2a() #(7 7) #2a((1 2) (#\a #\b))))

;;; #S slot names are string designators
(defstruct reader-test-struct a b)
(deftest sharp-s-string-slot-names
  (let ((s (read-from-string "#S(reader-test-struct \"A\" 1 #\\B 2)")))
    (list (reader-test-struct-a s) (reader-test-struct-b s)))
  (1 2))

(deftest ratio-zero-denominator-is-reader-error
  (handler-case (read-from-string "1/0")
    (reader-error (c) (streamp (stream-error-stream c))))
  t)

(deftest suppressed-unknown-dispatch-skips-token
  (let ((*read-suppress* t)) (read-from-string "#garbage rest"))
  nil 9)

(deftest readtable-case-nil-is-not-a-readtable
  (list (signals-error (readtable-case nil) type-error)
        (signals-error (setf (readtable-case nil) :upcase) type-error))
  (t t))

;;; #n= and #n#: a label must label something (SBCL: "Must label something more than just #1#"),
;;; structures are walked for references, and a long labelled list reads in linear time
(deftest label-only-itself
  (signals-error (read-from-string "#1=#1#") reader-error)
  t)
(deftest label-only-itself-nested
  (signals-error (read-from-string "(a #1=#1#)") reader-error)
  t)
(defstruct label-node next)
(deftest label-in-structure
  (let ((n (read-from-string "#1=#S(label-node :next #1#)")))
    (eq n (label-node-next n)))
  t)
(deftest label-long-list
  (let ((l (read-from-string (format nil "#1=(~{~A ~}. #1#)" (make-list 200000 :initial-element 7)))))
    (eq l (nthcdr 200000 l)))
  t)
(deftest reader-macro-chain-depth
  (signals-error (read-from-string (with-output-to-string (s) (dotimes (i 200000) (write-string "#'" s)) (write-string "1" s)))
                 reader-error)
  t)
;;; #n*: a length that is not a fixnum is a reader error (found by the reader fuzzer: the length
;;; was taken as a fixnum), and the last bit fills the rest
(deftest sharp-star-bignum-length
  (signals-error (read-from-string "#99999999999999999999999*1") reader-error)
  t)
(deftest sharp-star-fill
  (read-from-string "#6*101")
  #*101111 6)
(deftest sharp-star-bad-bit
  (signals-error (read-from-string "#3*12") reader-error)
  t)
;;; #nA: a rank at or above ARRAY-RANK-LIMIT is a reader error (found by the reader fuzzer: a
;;; huge rank consed a dimension per level until the heap ran out, a bignum one was misread)
(deftest sharp-a-rank-limit
  (list (signals-error (read-from-string "#129A()") reader-error)
        (signals-error (read-from-string "#21111111111111111111111111111111111111112A()") reader-error)
        (array-rank (read-from-string "#128A()")))
  (t t 128))

;;; SYS::%READTABLE-MACRO-CHARACTERS: what named-readtables' iterator walks (layers.lisp)
(deftest readtable-macro-characters
  (let ((rt (copy-readtable nil)))
    (set-macro-character (code-char 955) (lambda (s c) (declare (ignore s c)) :l) t rt)
    (set-syntax-from-char #\' #\a rt)
    (make-dispatch-macro-character #\! nil rt)
    (set-dispatch-macro-character #\! #\z (lambda (s c n) (declare (ignore s c n)) :z) rt)
    (let ((std (sys::%readtable-macro-characters nil))
          (mine (sys::%readtable-macro-characters rt)))
      (list (mapcar #'car std)
            (mapcar #'car mine)
            (eq (second (assoc #\( std)) (get-macro-character #\( nil))
            (third (assoc #\# std)) (fourth (assoc #\# std)) (third (assoc #\( std))
            (mapcar #'car (fifth (assoc #\! mine)))
            (signals-error (sys::%readtable-macro-characters 3) type-error))))
  ((#\" #\# #\' #\( #\) #\, #\; #\`)
   (#\! #\" #\# #\( #\) #\, #\; #\` #.(code-char 955))
   t t t nil (#\Z) t))
