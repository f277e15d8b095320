;;;; strings.lisp: tests of the string functions (CLHS chapter 16); expected values from SBCL.

(defun type-error-info (thunk)
  (handler-case (progn (funcall thunk) :no-error)
    (type-error (e) (list (type-error-datum e) (type-error-expected-type e)))))

;; a fresh, modifiable copy of a string
(defun fresh (s) (string-upcase s :end 0))

;; character bags the compiler cannot see into (SBCL checks constant bags at compile time)
(defun bag (&rest elements) elements)
(defun dotted-bag (a b) (cons a b))

;;; stringp, simple-string-p

(deftest stringp-values
  (list (stringp "abc") (stringp "") (stringp 'abc) (stringp #\a) (stringp nil) (stringp 1) (stringp (make-string 2)))
  (t t nil nil nil nil t))
(deftest simple-string-p-values
  (list (simple-string-p "abc") (simple-string-p "") (simple-string-p 'abc) (simple-string-p (make-string 3))
        (simple-string-p #\a))
  (t t nil t nil))

;;; char, schar

(deftest char-values (list (char "abc" 0) (char "abc" 2) (char "é!" 0) (schar "xyz" 1))
  (#\a #\c #\LATIN_SMALL_LETTER_E_WITH_ACUTE #\y))
(deftest char-index-errors
  (list (type-error-info (lambda () (char "abc" 3))) (type-error-info (lambda () (char "abc" -1)))
        (type-error-info (lambda () (char "abc" 1.0))) (type-error-info (lambda () (char "" 0)))
        (type-error-info (lambda () (schar "abc" 5))))
  ((3 (integer 0 (3))) (-1 (mod 4611686018427387901)) (1.0 (mod 4611686018427387901)) (0 (integer 0 (0))) (5 (integer 0 (3)))))
(deftest char-index-errors-are-type-errors
  (list (signals-error (char "abc" 3) type-error) (signals-error (char "abc" 1180591620717411303424) type-error))
  (t t))
(deftest char-string-errors
  (list (type-error-info (lambda () (char 'abc 0))) (type-error-info (lambda () (char #\a 0)))
        (type-error-info (lambda () (schar 'abc 0))) (type-error-info (lambda () (char '(#\a) 0))))
  ((abc string) (#\a string) (abc simple-string) ((#\a) string)))
(deftest setf-char
  (let ((s (make-string 3 :initial-element #\a)))
    (list (setf (char s 1) #\b) (setf (schar s 2) #\é) s))
  (#\b #\LATIN_SMALL_LETTER_E_WITH_ACUTE "abé"))
(deftest setf-char-errors
  (let ((s (make-string 3 :initial-element #\a)))
    (list (type-error-info (lambda () (setf (char s 3) #\x)))
          (type-error-info (lambda () (setf (char s 0) 1)))
          (type-error-info (lambda () (setf (schar s -1) #\x)))
          (type-error-info (lambda () (setf (char 'abc 0) #\x)))
          s))
  ((3 (integer 0 (3))) (1 character) (-1 (mod 4611686018427387901)) (abc string) "aaa"))
(deftest setf-char-base-string
  (let ((s (make-string 2 :element-type 'base-char :initial-element #\a)))
    (list (setf (char s 0) #\z) (type-error-info (lambda () (setf (char s 1) #\é))) s))
  (#\z (#\LATIN_SMALL_LETTER_E_WITH_ACUTE base-char) "za"))

;;; string

(deftest string-designators
  (list (string "abc") (string 'abc) (string '|Mixed Case|) (string #\x) (string nil) (string :key) (string #\é))
  ("abc" "ABC" "Mixed Case" "x" "NIL" "KEY" "é"))
(deftest string-returns-a-string-itself
  (let ((s "abc")) (eq s (string s)))
  t)
(deftest string-errors
  (list (type-error-info (lambda () (string 1))) (type-error-info (lambda () (string '(#\a))))
        (type-error-info (lambda () (string 1.5))))
  ((1 (or string symbol character)) ((#\a) (or string symbol character)) (1.5 (or string symbol character))))

;;; make-string

(deftest make-string-values
  (list (make-string 0) (make-string 3 :initial-element #\x) (make-string 2 :initial-element #\é)
        (char-code (char (make-string 2) 0)) (make-string 1 :element-type 'character :initial-element #\q))
  ("" "xxx" "éé" 0 "q"))
(deftest make-string-element-types
  (list (make-string 2 :element-type 'base-char :initial-element #\a)
        (make-string 2 :element-type 'standard-char :initial-element #\b)
        (make-string 2 :element-type 'extended-char :initial-element #\é)
        (make-string 2 :element-type '(member #\a #\b) :initial-element #\b)
        (make-string 2 :element-type nil :initial-element #\n)
        (make-string 2 :initial-element #\d :element-type 'character :initial-element #\e))
  ("aa" "bb" "éé" "bb" "nn" "dd"))
(deftest make-string-errors
  (list (type-error-info (lambda () (make-string -1))) (type-error-info (lambda () (make-string 2.0)))
        (type-error-info (lambda () (make-string 2 :initial-element 1)))
        (type-error-info (lambda () (make-string 2 :initial-element "a")))
        (type-error-info (lambda () (make-string 2 :element-type 'base-char :initial-element #\é))))
  ((-1 (mod 4611686018427387901)) (2.0 (mod 4611686018427387901)) (1 character) ("a" character) (#\LATIN_SMALL_LETTER_E_WITH_ACUTE base-char)))
(deftype ts-char () 'character)
(deftest make-string-deftype-element-type
  ;; a DEFTYPE name is expanded, as MAKE-ARRAY does (flexi-streams' CHAR*)
  (make-string 2 :element-type 'ts-char :initial-element #\c)
  "cc")
(deftype ts-char-or-base () '(or ts-char base-char))
(deftest make-string-compound-element-type
  ;; any type SUBTYPEP proves a subtype of CHARACTER, through DEFTYPE, OR and AND
  (list (make-string 3 :element-type 'ts-char-or-base :initial-element #\b)
        (type-of (make-string 2 :element-type '(and base-char (not (eql #\a))) :initial-element #\z))
        (signals-error (make-string 1 :element-type '(and base-char (not (eql #\a))) :initial-element #\a)
                       type-error)
        (signals-error (make-string 1 :element-type '(or ts-char integer)) error))
  ("bbb" (simple-base-string 2) t t))
(deftest make-string-bad-element-type
  (list (signals-error (make-string 2 :element-type 'fixnum) simple-error)
        (signals-error (make-string 2 :element-type 'simple-string) error))
  (t t))
(deftest make-string-bad-keyword
  (list (signals-error (make-string 2 :bad 1) program-error) (signals-error (make-string 2 :initial-element) program-error))
  (t t))
(deftest make-string-allow-other-keys
  (make-string 2 :initial-element #\k :allow-other-keys t :bad 1)
  "kk")

;;; comparison, case-sensitive

(deftest string=-basics
  (list (string= "abc" "abc") (string= "abc" "abd") (string= "abc" "ab") (string= "" "") (string= "abc" "ABC"))
  (t nil nil t nil))
(deftest string=-designators
  (list (string= 'abc "ABC") (string= "abc" 'abc) (string= #\a "a") (string= 'nil "NIL") (string= :key 'key))
  (t nil t t t))
(deftest string=-bounds
  (list (string= "abcd" "xbcx" :start1 1 :end1 3 :start2 1 :end2 3) (string= "abc" "abcdef" :end2 3)
        (string= "abc" "abcdef" :end2 nil) (string= "abc" "xabc" :start2 1) (string= "abc" "abc" :start1 3 :start2 3)
        (string= "abc" "abc" :end1 nil :end2 nil))
  (t t nil t t t))
(deftest string/=-mismatch-index
  (list (string/= "abc" "abc") (string/= "abc" "abx") (string/= "abc" "ab") (string/= "ab" "abc") (string/= "" "a")
        (string/= "xabc" "abd" :start1 1) (string/= "abc" "xyz" :start1 1 :start2 1))
  (nil 2 2 2 0 3 1))
(deftest string<-mismatch-index
  (list (string< "abc" "abd") (string< "abc" "abcd") (string< "abcd" "abc") (string< "abc" "abc") (string< "" "")
        (string< "" "a") (string< "a" "") (string< "abd" "abc") (string< "ABC" "abc"))
  (2 3 nil nil nil 0 nil nil 0))
(deftest string<-bounds
  (list (string< "xabc" "abd" :start1 1) (string< "abc" "xabd" :start2 1) (string< "abcd" "abc" :start1 4)
        (string< "abc" "abcdef" :end1 nil :end2 2) (string< "abc" "abc" :start1 1 :start2 0)
        (string< "zzabc" "abcd" :start1 2 :end2 3))
  (3 2 4 nil nil nil))
(deftest string>-mismatch-index
  (list (string> "abd" "abc") (string> "abc" "abd") (string> "abcd" "abc") (string> "abc" "abcd") (string> "a" "")
        (string> "b" "ab") (string> "abc" "xabd" :start2 1) (string> "abc" "abc"))
  (2 nil 3 nil 0 0 nil nil))
(deftest string<=-mismatch-index
  (list (string<= "abc" "abc") (string<= "abc" "abd") (string<= "abd" "abc") (string<= "ab" "abc") (string<= "abc" "ab")
        (string<= "" ""))
  (3 2 nil 2 nil 0))
(deftest string>=-mismatch-index
  (list (string>= "abc" "abc") (string>= "abd" "abc") (string>= "abc" "abd") (string>= "abc" "ab") (string>= "ab" "abc")
        (string>= "" ""))
  (3 2 nil 2 nil 0))
(deftest string<-unicode
  (list (string< "abc" "abé") (string< "é" "z") (string> "Σ" "σ") (string= "é" "é"))
  (2 nil nil t))
(deftest string<-symbols-and-characters
  (list (string< 'abc 'abd) (string< #\a "b") (string> 'b #\a) (string<= :abc "ABC"))
  (2 0 nil 3))

;;; comparison, case-insensitive

(deftest string-equal-basics
  (list (string-equal "abc" "ABC") (string-equal "abc" "abd") (string-equal "" "") (string-equal "a" "")
        (string-equal "ÉCOLE" "école") (string-equal "ΣΑΣ" "σασ") (string-equal "σ" "ς") (string-equal 'foo "FoO"))
  (t nil t nil t t nil t))
(deftest string-equal-bounds
  (list (string-equal "abc" "ABD" :end1 2 :end2 2) (string-equal "xAbC" "abc" :start1 1) (string-equal "abc" "ab" :end1 2))
  (t t t))
(deftest string-not-equal-mismatch-index
  (list (string-not-equal "ABC" "abd") (string-not-equal "abc" "ABC") (string-not-equal "abc" "ab")
        (string-not-equal "xAbC" "abcd" :start1 1))
  (2 nil 2 4))
(deftest string-lessp-mismatch-index
  (list (string-lessp "ABC" "abd") (string-lessp "abc" "ABCD") (string-lessp "abc" "ABC") (string-lessp "_" "a")
        (string-lessp "_" "A") (string-lessp "b" "A") (string-lessp "é" "F"))
  (2 3 nil 0 0 nil nil))
(deftest string-greaterp-mismatch-index
  (list (string-greaterp "abd" "ABC") (string-greaterp "B" "ab") (string-greaterp "abc" "ABC") (string-greaterp "ab" "A")
        (string-greaterp "a" "_"))
  (2 0 nil 1 0))
(deftest string-not-greaterp-mismatch-index
  (list (string-not-greaterp "abc" "ABC") (string-not-greaterp "ABC" "abd") (string-not-greaterp "abd" "ABC")
        (string-not-greaterp "" "x"))
  (3 2 nil 0))
(deftest string-not-lessp-mismatch-index
  (list (string-not-lessp "abc" "ABC") (string-not-lessp "b" "a") (string-not-lessp "a" "B") (string-not-lessp "x" ""))
  (3 0 nil 0))
(deftest string-equal-titlecase
  (let ((up (string (code-char #x1C4))) (title (string (code-char #x1C5))) (down (string (code-char #x1C6))))
    (list (string-equal title up) (string-equal up title) (string-equal up down) (string-not-equal up title)
          (string-lessp up title) (string-greaterp up title) (string-not-greaterp up title) (string-not-lessp down title)))
  (t nil t 0 nil nil 0 0))

;;; comparison errors

(deftest string=-bounding-errors
  (list (type-error-info (lambda () (string= "abc" "abd" :end1 4)))
        (type-error-info (lambda () (string= "abc" "abd" :start1 2 :end1 1)))
        (type-error-info (lambda () (string< "abc" "abd" :start2 5)))
        (type-error-info (lambda () (string-equal "abc" "abd" :start2 4 :end2 nil))))
  (((0 . 4) (cons (integer 0 3) (integer 0 3))) ((2 . 1) (cons (integer 0 3) (integer 2 3))) ((5) (cons (integer 0 3) (integer 5 3))) ((4) (cons (integer 0 3) (integer 4 3)))))
(deftest string=-index-type-errors
  (list (type-error-info (lambda () (string= "ab" "ab" :start1 1.5)))
        (type-error-info (lambda () (string= "ab" "ab" :start1 nil)))
        (type-error-info (lambda () (string= "ab" "ab" :end1 -1)))
        (type-error-info (lambda () (string= "ab" "ab" :end2 1180591620717411303424))))
  ((1.5 (mod 4611686018427387901)) (nil (mod 4611686018427387901)) (-1 (or null (mod 4611686018427387901))) (1180591620717411303424 (or null (mod 4611686018427387901)))))
(deftest string=-designator-errors
  (list (type-error-info (lambda () (string= 1 "abc"))) (type-error-info (lambda () (string< "abc" '(1))))
        (type-error-info (lambda () (string-equal "abc" 2.0))))
  ((1 (or string symbol character)) ((1) (or string symbol character)) (2.0 (or string symbol character))))
(deftest string=-keyword-errors
  (list (signals-error (string= "ab" "ab" :bad 1) program-error) (signals-error (string= "ab" "ab" :start1) program-error)
        (string= "ab" "xab" :start2 1 :allow-other-keys t :bad 1))
  (t t t))
(deftest string=-argument-count (signals-error (string= "ab") program-error)
  t)

;;; case conversion

(deftest string-upcase-values
  (list (string-upcase "abc") (string-upcase "Hello World 42") (string-upcase "") (string-upcase "éèàç ñ")
        (string-upcase "straße") (string-upcase "σας"))
  ("ABC" "HELLO WORLD 42" "" "ÉÈÀÇ Ñ" "STRAßE" "ΣΑς"))
(deftest string-downcase-values
  (list (string-downcase "ABC") (string-downcase "Hello World 42") (string-downcase "ÉCOLE") (string-downcase "ΣΑΣ"))
  ("abc" "hello world 42" "école" "σασ"))
(deftest string-case-bounds
  (list (string-upcase "abcdef" :start 2) (string-upcase "abcdef" :end 2) (string-upcase "abcdef" :start 1 :end 3)
        (string-downcase "ABCDEF" :start 3 :end nil) (string-upcase "abc" :start 3) (string-upcase "abc" :start 1 :end 1))
  ("abCDEF" "ABcdef" "aBCdef" "ABCdef" "abc" "abc"))
(deftest string-case-designators
  (list (string-upcase 'abc) (string-downcase 'abc) (string-capitalize 'hello-world) (string-upcase #\a)
        (string-downcase #\É))
  ("ABC" "abc" "Hello-World" "A" "é"))
(deftest string-upcase-returns-a-fresh-string
  (let ((s "ABC")) (list (eq s (string-upcase s)) (eq s (string-downcase "abc")) s))
  (nil nil "ABC"))
(deftest string-case-titlecase-letters
  (let ((s (make-string 3)))
    (setf (char s 0) (code-char #x1C5) (char s 1) (code-char #x1C4) (char s 2) (code-char #x1C6))
    (list (char-code (char (string-upcase s) 0)) (char-code (char (string-downcase s) 0))
          (char-code (char (string-capitalize s) 0)) (char-code (char (string-capitalize s) 1))))
  (452 454 452 454))
(deftest string-capitalize-words
  (list (string-capitalize "hello world") (string-capitalize "HELLO wORLD") (string-capitalize "don't stop-me now")
        (string-capitalize "now3x 3x x3 3X") (string-capitalize "foo_bar x.y  z") (string-capitalize "élan ÉLAN ça")
        (string-capitalize "σΣ ΣΑΣ") (string-capitalize "") (string-capitalize "   ") (string-capitalize "a"))
  ("Hello World" "Hello World" "Don'T Stop-Me Now" "Now3x 3x X3 3x" "Foo_Bar X.Y  Z" "Élan Élan Ça" "Σσ Σασ" "" "   " "A"))
(deftest string-capitalize-bounds
  (list (string-capitalize "ab cd" :start 1) (string-capitalize "ab cd" :start 3 :end 4)
        (string-capitalize "ABC DEF" :start 1 :end 5) (string-capitalize "hello world" :start 3))
  ("aB Cd" "ab Cd" "ABc DEF" "helLo World"))
(deftest string-case-errors
  (list (type-error-info (lambda () (string-upcase "abc" :start 2 :end 1)))
        (type-error-info (lambda () (string-upcase "abc" :start 4)))
        (type-error-info (lambda () (string-downcase "abc" :end 4)))
        (type-error-info (lambda () (string-capitalize "abc" :start -1)))
        (type-error-info (lambda () (string-upcase "abc" :start nil)))
        (type-error-info (lambda () (string-upcase 12))))
  (((2 . 1) (cons (integer 0 3) (integer 2 3))) ((4) (cons (integer 0 3) (integer 4 3))) ((0 . 4) (cons (integer 0 3) (integer 0 3))) (-1 (mod 4611686018427387901)) (nil (mod 4611686018427387901)) (12 (or string symbol character))))
(deftest nstring-upcase-modifies
  (let ((s (fresh "hello world")))
    (list (eq s (nstring-upcase s :start 6)) s))
  (t "hello WORLD"))
(deftest nstring-downcase-modifies
  (let ((s (fresh "HELLO WORLD")))
    (list (eq s (nstring-downcase s :end 5)) s))
  (t "hello WORLD"))
(deftest nstring-capitalize-modifies
  (let ((s (fresh "hello wide WORLD")))
    (list (eq s (nstring-capitalize s)) s (nstring-capitalize (fresh "hello world") :start 3)))
  (t "Hello Wide World" "helLo World"))
(deftest nstring-case-unicode
  (let ((s (fresh "école ΣΑΣ")))
    (list (nstring-upcase s) (nstring-downcase s) (nstring-capitalize s)))
  ("École Σασ" "École Σασ" "École Σασ"))
(deftest nstring-case-errors
  (list (type-error-info (lambda () (nstring-upcase 'abc)))
        (type-error-info (lambda () (nstring-downcase #\a)))
        (type-error-info (lambda () (nstring-capitalize (fresh "abc") :end 5))))
  ((abc string) (#\a string) ((0 . 5) (cons (integer 0 3) (integer 0 3)))))

;;; trimming

(deftest string-trim-values
  (list (string-trim " " "  ab  ") (string-trim '(#\a #\b) "abxyzba") (string-trim #(#\a) "aaxa")
        (string-trim "abc" "abcabc") (string-trim "abc" "") (string-trim "" "  x  ")
        (string-trim '(#\Space #\Tab #\Newline) "  some text	")
        (string-trim "é" "ééaéé"))
  ("ab" "xyz" "x" "" "" "  x  " "some text" "a"))
(deftest string-left-trim-values
  (list (string-left-trim "ab" "abxba") (string-left-trim " " "   ") (string-left-trim '(#\x) "axa")
        (string-left-trim "" ""))
  ("xba" "" "axa" ""))
(deftest string-right-trim-values
  (list (string-right-trim "ab" "abxba") (string-right-trim " " "x  ") (string-right-trim '(#\x) "axa"))
  ("abx" "x" "axa"))
(deftest string-trim-designators
  (list (string-trim "ab" 'abxba) (string-trim "AB" 'abxba) (string-trim "x" #\x) (string-trim "y" #\x))
  ("ABXBA" "X" "" "x"))
(deftest string-trim-returns-the-string-when-nothing-is-trimmed
  (let ((s "abc"))
    (list (eq s (string-trim "x" s)) (eq s (string-left-trim "x" s)) (eq s (string-right-trim "" s))
          (eq s (string-trim "a" s)) (eq (symbol-name 'abc) (string-trim "x" 'abc))))
  (t t t nil t))
(deftest string-trim-errors
  (list (type-error-info (lambda () (string-trim 1 "abc")))
        (type-error-info (lambda () (string-trim "a" 1)))
        (type-error-info (lambda () (string-trim (bag 1 2) "  ")))
        (type-error-info (lambda () (string-trim (bag #\a 1) "abc")))
        (type-error-info (lambda () (string-left-trim (bag #\c 1) "abc")))
        (type-error-info (lambda () (string-right-trim (bag 1 #\a) "a")))
        (type-error-info (lambda () (string-trim (dotted-bag #\a #\b) "abc"))))
  ((1 sequence) (1 (or string symbol character)) (1 character) (1 character) (1 character) (1 character) (#\b list)))
(deftest string-trim-non-characters-not-reached
  (list (string-trim (bag 1 2) "") (string-trim (bag #\a 1) "aaa") (string-trim (bag #\a 1) "a")
        (string-right-trim (bag #\c 1) "c") (string-left-trim (bag 1 #\a) "") (string-trim (dotted-bag #\a #\b) "aa"))
  ("" "" "" "" "" ""))

;;; strings with fill pointers and displaced strings

(deftest fill-pointer-string-functions
  (let ((s (make-array 6 :element-type 'character :fill-pointer 3 :initial-contents "abcdef")))
    (list (string-upcase s) (string= s "abc") (string< s "abd") (string-trim "a" s) (eq s (string s))
          (stringp s) (simple-string-p s)))
  ("ABC" t 2 "bc" t t nil))
(deftest fill-pointer-string-char-ignores-fill-pointer
  (let ((s (make-array 6 :element-type 'character :fill-pointer 3 :initial-contents "abcdef")))
    (list (char s 4) (setf (char s 5) #\Z) (type-error-info (lambda () (char s 6)))
          (type-error-info (lambda () (schar s 0)))))
  (#\e #\Z (6 (integer 0 (6))) ("abc" simple-string)))
(deftest fill-pointer-string-bounds
  (let ((s (make-array 6 :element-type 'character :fill-pointer 3 :initial-contents "abcdef")))
    (type-error-info (lambda () (string-upcase s :end 4))))
  ((0 . 4) (cons (integer 0 3) (integer 0 3))))
(deftest fill-pointer-nstring-upcase
  (let ((s (make-array 6 :element-type 'character :fill-pointer 3 :initial-contents "abcdef")))
    (list (eq s (nstring-upcase s)) s (eq s (string-trim "x" s))))
  (t "ABC" t))
(deftest displaced-string-functions
  (let* ((base (fresh "hello world"))
         (d (make-array 5 :element-type 'character :displaced-to base :displaced-index-offset 6)))
    (list (string= d "world") (string-upcase d) (char d 0) (nstring-capitalize d) base (string-trim "wd" d)))
  (t "WORLD" #\w "World" "hello World" "Worl"))
(deftest adjustable-string-functions
  (let ((s (make-array 3 :element-type 'character :adjustable t :initial-contents "abc")))
    (list (simple-string-p s) (stringp s) (string-equal s "ABC") (nstring-upcase s) (character (string-left-trim "AB" s))))
  (nil t t "ABC" #\C))
