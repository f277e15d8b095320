;;;; printer.lisp: tests of the printer (CLHS 22.1) and the pretty printer (CLHS 22.2); every expected value is SBCL's output.
(in-package :cl-user)

;;; characters
(deftest print-char-1
  (prin1-to-string #\ )
  "#\\ ")
(deftest print-char-2
  (prin1-to-string #\a)
  "#\\a")
(deftest print-char-3
  (prin1-to-string #\A)
  "#\\A")
(deftest print-char-4
  (prin1-to-string #\Newline)
  "#\\Newline")
(deftest print-char-5
  (prin1-to-string #\Tab)
  "#\\Tab")
(deftest print-char-6
  (prin1-to-string #\Nul)
  "#\\Nul")
(deftest print-char-7
  (prin1-to-string #\Rubout)
  "#\\Rubout")
(deftest print-char-8
  (prin1-to-string #\()
  "#\\(")
(deftest print-char-9
  (prin1-to-string #\\)
  "#\\\\")
(deftest print-char-10
  (prin1-to-string #\")
  "#\\\"")
(deftest print-char-11
  (prin1-to-string #\Backspace)
  "#\\Backspace")
(deftest print-char-12
  (prin1-to-string #\Page)
  "#\\Page")
(deftest print-char-13
  (prin1-to-string #\Return)
  "#\\Return")
(deftest print-char-14
  (prin1-to-string #\Esc)
  "#\\Esc")
(deftest print-char-15
  (princ-to-string #\a)
  "a")
(deftest print-char-16
  (princ-to-string #\ )
  " ")
(deftest print-char-17
  (write-to-string #\a :escape nil)
  "a")
(deftest print-char-18
  (let ((*print-readably* t))
    (prin1-to-string #\b))
  "#\\LATIN_SMALL_LETTER_B")
(deftest print-char-19
  (let ((*print-readably* t))
    (prin1-to-string #\ ))
  "#\\Space")
(deftest print-char-20
  (let ((*print-readably* t))
    (prin1-to-string #\())
  "#\\LEFT_PARENTHESIS")
(deftest print-char-21
  (prin1-to-string '(#\a #\  #\b))
  "(#\\a #\\  #\\b)")

;;; symbols: escaping
(deftest print-sym-1
  (prin1-to-string 'foo)
  "FOO")
(deftest print-sym-2
  (prin1-to-string '|foo|)
  "|foo|")
(deftest print-sym-3
  (prin1-to-string '|Foo|)
  "|Foo|")
(deftest print-sym-4
  (prin1-to-string '|a b|)
  "|a b|")
(deftest print-sym-5
  (prin1-to-string '|a\|b|)
  "|a\\|b|")
(deftest print-sym-6
  (prin1-to-string '|a\\b|)
  "|a\\\\b|")
(deftest print-sym-7
  (prin1-to-string '||)
  "||")
(deftest print-sym-8
  (prin1-to-string '|.|)
  "|.|")
(deftest print-sym-9
  (prin1-to-string '|..|)
  "|..|")
(deftest print-sym-10
  (prin1-to-string '|...|)
  "|...|")
(deftest print-sym-11
  (prin1-to-string 'a.b)
  "A.B")
(deftest print-sym-12
  (prin1-to-string '|123|)
  "|123|")
(deftest print-sym-13
  (prin1-to-string '|1.5|)
  "|1.5|")
(deftest print-sym-14
  (prin1-to-string '|1.5E3|)
  "|1.5E3|")
(deftest print-sym-15
  (prin1-to-string '|.5|)
  "|.5|")
(deftest print-sym-16
  (prin1-to-string '1+)
  "1+")
(deftest print-sym-17
  (prin1-to-string '1-)
  "1-")
(deftest print-sym-18
  (prin1-to-string '+)
  "+")
(deftest print-sym-19
  (prin1-to-string '-)
  "-")
(deftest print-sym-20
  (prin1-to-string '|+1|)
  "|+1|")
(deftest print-sym-21
  (prin1-to-string '|-1|)
  "|-1|")
(deftest print-sym-22
  (prin1-to-string '|1/2|)
  "|1/2|")
(deftest print-sym-23
  (prin1-to-string '|1/|)
  "|1/|")
(deftest print-sym-24
  (prin1-to-string '^)
  "^")
(deftest print-sym-25
  (prin1-to-string '|1^2|)
  "|1^2|")
(deftest print-sym-26
  (prin1-to-string '|_1|)
  "|_1|")
(deftest print-sym-27
  (prin1-to-string '|1_|)
  "|1_|")
(deftest print-sym-28
  (prin1-to-string '|1A|)
  "|1A|")
(deftest print-sym-29
  (prin1-to-string 'a1)
  "A1")
(deftest print-sym-30
  (prin1-to-string '1ab)
  "1AB")
(deftest print-sym-31
  (prin1-to-string '+a)
  "+A")
(deftest print-sym-32
  (prin1-to-string '+.)
  "+.")
(deftest print-sym-33
  (prin1-to-string '|1.|)
  "|1.|")
(deftest print-sym-34
  (prin1-to-string '|#A|)
  "|#A|")
(deftest print-sym-35
  (prin1-to-string '|A#|)
  "|A#|")
(deftest print-sym-36
  (prin1-to-string '|A'B|)
  "|A'B|")
(deftest print-sym-37
  (prin1-to-string '|A;B|)
  "|A;B|")
(deftest print-sym-38
  (prin1-to-string '|A,B|)
  "|A,B|")
(deftest print-sym-39
  (prin1-to-string '|A`B|)
  "|A`B|")
(deftest print-sym-40
  (prin1-to-string '|A:B|)
  "|A:B|")
(deftest print-sym-41
  (prin1-to-string '|A"B|)
  "|A\"B|")
(deftest print-sym-42
  (prin1-to-string '|A(B|)
  "|A(B|")
(deftest print-sym-43
  (prin1-to-string 'a!b)
  "A!B")
(deftest print-sym-44
  (prin1-to-string '*foo*)
  "*FOO*")
(deftest print-sym-45
  (prin1-to-string '&rest)
  "&REST")
(deftest print-sym-46
  (prin1-to-string '%a)
  "%A")
(deftest print-sym-47
  (prin1-to-string '$a)
  "$A")
(deftest print-sym-48
  (prin1-to-string 'a=b)
  "A=B")
(deftest print-sym-49
  (prin1-to-string '<=)
  "<=")
(deftest print-sym-50
  (prin1-to-string '[a])
  "[A]")
(deftest print-sym-51
  (prin1-to-string '{a})
  "{A}")
(deftest print-sym-52
  (prin1-to-string '?)
  "?")
(deftest print-sym-53
  (prin1-to-string '~)
  "~")
(deftest print-sym-54
  (prin1-to-string '@a)
  "@A")
(deftest print-sym-55
  (prin1-to-string '|A
B|)
  "|A
B|")
(deftest print-sym-56
  (prin1-to-string (intern (string (code-char 9))))
  "|	|")
(deftest print-sym-57
  (prin1-to-string '|1E|)
  "|1E|")
(deftest print-sym-58
  (prin1-to-string '|1E|)
  "|1E|")
(deftest print-sym-59
  (prin1-to-string '|1E5|)
  "|1E5|")
(deftest print-sym-60
  (prin1-to-string '|1D0|)
  "|1D0|")
(deftest print-sym-61
  (prin1-to-string 'e1)
  "E1")
(deftest print-sym-62
  (prin1-to-string '|-.5|)
  "|-.5|")
(deftest print-sym-63
  (prin1-to-string '|.E5|)
  "|.E5|")
(deftest print-sym-64
  (prin1-to-string './)
  "./")
(deftest print-sym-65
  (prin1-to-string '/)
  "/")
(deftest print-sym-66
  (prin1-to-string '//)
  "//")
(deftest print-sym-67
  (prin1-to-string '|a|)
  "|a|")
(deftest print-sym-68
  (princ-to-string '|a b|)
  "a b")
(deftest print-sym-69
  (princ-to-string '|foo|)
  "foo")
(deftest print-sym-70
  (princ-to-string 'foo)
  "FOO")
(deftest print-sym-71
  (princ-to-string :key)
  "KEY")

;;; symbols: packages
(deftest print-pkg-1
  (prin1-to-string :key)
  ":KEY")
(deftest print-pkg-2
  (prin1-to-string :|a b|)
  ":|a b|")
(deftest print-pkg-3
  (prin1-to-string 'car)
  "CAR")
(deftest print-pkg-4
  (prin1-to-string 'xyzzy)
  "XYZZY")
(deftest print-pkg-5
  (prin1-to-string (make-symbol "FOO"))
  "#:FOO")
(deftest print-pkg-6
  (prin1-to-string (make-symbol "a b"))
  "#:|a b|")
(deftest print-pkg-7
  (let ((*print-gensym* nil))
    (prin1-to-string (make-symbol "FOO")))
  "FOO")
(deftest print-pkg-8
  (princ-to-string (make-symbol "FOO"))
  "FOO")
(deftest print-pkg-9
  (let ((*print-readably* t) (*print-gensym* nil))
    (prin1-to-string (make-symbol "FOO")))
  "#:FOO")
(deftest print-pkg-10
  (prin1-to-string nil)
  "NIL")
(deftest print-pkg-11
  (prin1-to-string t)
  "T")
(deftest print-pkg-12
  (prin1-to-string :||)
  ":||")
(deftest print-pkg-13
  (let ((*package* (find-package "KEYWORD")))
    (prin1-to-string :foo))
  ":FOO")
(deftest print-pkg-14
  (let ((*package* (find-package "KEYWORD")))
    (prin1-to-string 'foo))
  "COMMON-LISP-USER::FOO")

;;; *print-case* and readtable-case
(deftest print-case-1
  (let ((*print-case* :downcase))
    (prin1-to-string '(foo-bar |Foo| |foo| :key xx)))
  "(foo-bar |Foo| |foo| :key xx)")
(deftest print-case-2
  (let ((*print-case* :capitalize))
    (prin1-to-string '(foo-bar foo1bar |Foo| |foo| :key x-y-z foo.bar)))
  "(Foo-Bar Foo1bar |Foo| |foo| :Key X-Y-Z Foo.Bar)")
(deftest print-case-3
  (let ((*print-case* :capitalize))
    (princ-to-string '(foo-bar foo1bar |Foo| |foo| :key x-y-z |a b|)))
  "(Foo-Bar Foo1bar Foo foo Key X-Y-Z a b)")
(deftest print-case-4
  (let ((*print-case* :downcase))
    (princ-to-string '(foo |Foo| |a B|)))
  "(foo foo a b)")
(deftest print-case-5
  (let ((*print-case* :upcase))
    (prin1-to-string '(foo |foo|)))
  "(FOO |foo|)")
(deftest print-case-6
  (let ((*print-case* :downcase))
    (prin1-to-string (make-symbol "ABC")))
  "#:abc")
(deftest print-case-7
  (let ((*print-case* :capitalize))
    (prin1-to-string '(a1b2 1abc |1X| a-1b)))
  "(A1b2 1abc |1X| A-1b)")
(deftest print-case-8
  (let ((*print-case* :downcase))
    (prin1-to-string '|1.5|))
  "|1.5|")
(deftest print-case-9
  (let ((*readtable* (copy-readtable)))
    (setf (readtable-case *readtable*) :invert)
    (prin1-to-string '(foo |Foo| |foo| foo |a b|)))
  "(foo Foo FOO foo |a b|)")
(deftest print-case-10
  (let ((*readtable* (copy-readtable)))
    (setf (readtable-case *readtable*) :preserve)
    (prin1-to-string '(foo |Foo| |foo|)))
  "(FOO Foo foo)")
(deftest print-case-11
  (let ((*readtable* (copy-readtable)))
    (setf (readtable-case *readtable*) :downcase)
    (prin1-to-string '(foo |Foo| |foo|)))
  "(|FOO| |Foo| FOO)")
(deftest print-case-12
  (let ((*readtable* (copy-readtable)) (*print-case* :capitalize))
    (setf (readtable-case *readtable*) :downcase)
    (prin1-to-string '(foo |Foo| |foo| |foo-bar|)))
  "(|FOO| |Foo| Foo Foo-Bar)")
(deftest print-case-13
  (let ((*readtable* (copy-readtable)) (*print-case* :upcase))
    (setf (readtable-case *readtable*) :downcase)
    (prin1-to-string '(|foo| |Foo|)))
  "(FOO |Foo|)")

;;; *print-base* and symbols
(deftest print-base-sym-1
  (let ((*print-base* 16))
    (prin1-to-string '(a ff g 10 |10| face)))
  "(|A| |FF| G A |10| |FACE|)")
(deftest print-base-sym-2
  (let ((*print-base* 36))
    (prin1-to-string '(hello z)))
  "(|HELLO| |Z|)")
(deftest print-base-sym-3
  (let ((*print-base* 2))
    (prin1-to-string '(|101| |102| a)))
  "(|101| 102 A)")

;;; strings
(deftest print-string-1
  (prin1-to-string "abc")
  "\"abc\"")
(deftest print-string-2
  (prin1-to-string "a\"b")
  "\"a\\\"b\"")
(deftest print-string-3
  (prin1-to-string "a\\b")
  "\"a\\\\b\"")
(deftest print-string-4
  (prin1-to-string "")
  "\"\"")
(deftest print-string-5
  (princ-to-string "a\"b")
  "a\"b")
(deftest print-string-6
  (prin1-to-string "line1
line2")
  "\"line1
line2\"")
(deftest print-string-7
  (write-to-string "x" :escape nil)
  "x")
(deftest print-string-8
  (write-to-string "x" :readably t)
  "\"x\"")
(deftest print-string-9
  (let ((*print-escape* nil))
    (prin1-to-string "x"))
  "\"x\"")

;;; numbers
(deftest print-num-1
  (prin1-to-string 42)
  "42")
(deftest print-num-2
  (prin1-to-string -42)
  "-42")
(deftest print-num-3
  (prin1-to-string 123456789012345678901234567890)
  "123456789012345678901234567890")
(deftest print-num-4
  (prin1-to-string 1/3)
  "1/3")
(deftest print-num-5
  (prin1-to-string -1/2)
  "-1/2")
(deftest print-num-6
  (let ((*print-base* 16))
    (prin1-to-string 255))
  "FF")
(deftest print-num-7
  (let ((*print-base* 2))
    (prin1-to-string -5))
  "-101")
(deftest print-num-8
  (let ((*print-radix* t))
    (prin1-to-string 10))
  "10.")
(deftest print-num-9
  (let ((*print-radix* t))
    (prin1-to-string 1/2))
  "#10r1/2")
(deftest print-num-10
  (let ((*print-radix* t) (*print-base* 16))
    (prin1-to-string '(10 1/2)))
  "(#xA #x1/2)")
(deftest print-num-11
  (let ((*print-radix* t) (*print-base* 2))
    (prin1-to-string 5))
  "#b101")
(deftest print-num-12
  (let ((*print-radix* t) (*print-base* 8))
    (prin1-to-string 8))
  "#o10")
(deftest print-num-13
  (let ((*print-radix* t) (*print-base* 7))
    (prin1-to-string 8))
  "#7r11")
(deftest print-num-14
  (let ((*print-base* 36))
    (prin1-to-string 35))
  "Z")
(deftest print-num-15
  (write-to-string 12 :base 2 :radix t)
  "#b1100")
(deftest print-num-16
  (prin1-to-string 1.5)
  "1.5")
(deftest print-num-17
  (prin1-to-string 1.5d0)
  "1.5d0")
(deftest print-num-18
  (prin1-to-string -0.0)
  "-0.0")
(deftest print-num-19
  (prin1-to-string 0.0d0)
  "0.0d0")
(deftest print-num-20
  (prin1-to-string 1.0e10)
  "1.0e10")
(deftest print-num-21
  (prin1-to-string 1.0d-5)
  "1.0d-5")
(deftest print-num-22
  (prin1-to-string 1234567.0)
  "1234567.0")
(deftest print-num-23
  (prin1-to-string 1.2345678e7)
  "1.2345678e7")
(deftest print-num-24
  (prin1-to-string 0.001)
  "0.001")
(deftest print-num-25
  (prin1-to-string 1.0e-4)
  "1.0e-4")
(deftest print-num-26
  (prin1-to-string 100.0)
  "100.0")
(deftest print-num-27
  (let ((*read-default-float-format* 'double-float))
    (prin1-to-string '(1.5d0 1.5)))
  "(1.5 1.5f0)")
(deftest print-num-28
  (let ((*print-base* 16))
    (prin1-to-string 1.5))
  "1.5")

;;; conses and abbreviations
(deftest print-list-1
  (let ((*print-pretty* t))
    (prin1-to-string '(1 2 3)))
  "(1 2 3)")
(deftest print-list-2
  (let ((*print-pretty* t))
    (prin1-to-string '(1 . 2)))
  "(1 . 2)")
(deftest print-list-3
  (let ((*print-pretty* t))
    (prin1-to-string '(1 2 . 3)))
  "(1 2 . 3)")
(deftest print-list-4
  (let ((*print-pretty* t))
    (prin1-to-string '((1) (2 (3)))))
  "((1) (2 (3)))")
(deftest print-list-5
  (let ((*print-pretty* t))
    (prin1-to-string '(nil)))
  "(NIL)")
(deftest print-list-6
  (let ((*print-pretty* t))
    (prin1-to-string ''a))
  "'A")
(deftest print-list-7
  (let ((*print-pretty* t))
    (prin1-to-string '#'f))
  "#'F")
(deftest print-list-8
  (let ((*print-pretty* t))
    (prin1-to-string ''(a . b)))
  "'(A . B)")
(deftest print-list-9
  (let ((*print-pretty* t))
    (prin1-to-string '(quote a b)))
  "(QUOTE A B)")
(deftest print-list-10
  (let ((*print-pretty* t))
    (prin1-to-string '(quote)))
  "(QUOTE)")
(deftest print-list-11
  (let ((*print-pretty* t))
    (prin1-to-string '(quote . a)))
  "(QUOTE . A)")
(deftest print-list-12
  (let ((*print-pretty* t))
    (prin1-to-string '(function f g)))
  "(FUNCTION F G)")
(deftest print-list-13
  (let ((*print-pretty* t))
    (prin1-to-string '''a))
  "''A")
(deftest print-list-14
  (let ((*print-pretty* t))
    (prin1-to-string '(a 'b #'c)))
  "(A 'B #'C)")
(deftest print-list-15
  (let ((*print-pretty* t))
    (prin1-to-string '`(a ,b ,@c)))
  "`(A ,B ,@C)")
(deftest print-list-16
  (let ((*print-pretty* t))
    (prin1-to-string '`(a ,.b)))
  "`(A ,.B)")
(deftest print-list-17
  (let ((*print-pretty* t))
    (prin1-to-string '`(a . ,b)))
  "`(A . ,B)")
(deftest print-list-18
  (let ((*print-pretty* t))
    (prin1-to-string '`(,@a)))
  "`(,@A)")
(deftest print-list-19
  (let ((*print-pretty* t))
    (prin1-to-string '(a quote b)))
  "(A QUOTE B)")
(deftest print-list-20
  (let ((*print-pretty* t))
    (prin1-to-string '(a function b)))
  "(A FUNCTION B)")
(deftest print-list-21
  (let ((*print-pretty* t))
    (princ-to-string '("a" #\b (c . "d"))))
  "(a b (C . d))")

;;; *print-level* and *print-length*
(deftest print-limits-1
  (let ((*print-level* 2))
    (prin1-to-string '(a (b (c (d))))))
  "(A (B #))")
(deftest print-limits-2
  (let ((*print-length* 2))
    (prin1-to-string '(a b c d)))
  "(A B ...)")
(deftest print-limits-3
  (let ((*print-length* 2))
    (prin1-to-string #(a b c d)))
  "#(A B ...)")
(deftest print-limits-4
  (let ((*print-level* 1))
    (prin1-to-string #(a #(b))))
  "#(A #)")
(deftest print-limits-5
  (let ((*print-level* 0))
    (prin1-to-string '(a)))
  "#")
(deftest print-limits-6
  (let ((*print-length* 0))
    (prin1-to-string '(a)))
  "(...)")
(deftest print-limits-7
  (let ((*print-level* 1) (*print-pretty* t))
    (prin1-to-string ''(a b)))
  "'(A B)")
(deftest print-limits-8
  (let ((*print-level* 1) (*print-pretty* t))
    (prin1-to-string '(x '(a b))))
  "(X '#)")
(deftest print-limits-9
  (let ((*print-length* 3))
    (prin1-to-string '(1 2 3)))
  "(1 2 3)")
(deftest print-limits-10
  (let ((*print-length* 3))
    (prin1-to-string '(1 2 3 . 4)))
  "(1 2 3 . 4)")
(deftest print-limits-11
  (let ((*print-length* 2))
    (prin1-to-string '(1 2 . 3)))
  "(1 2 . 3)")
(deftest print-limits-12
  (let ((*print-level* 1) (*print-length* 1))
    (prin1-to-string '((a) b)))
  "(# ...)")
(deftest print-limits-13
  (let ((*print-level* 2))
    (prin1-to-string '(1 #(2 #(3)) 4)))
  "(1 #(2 #) 4)")
(deftest print-limits-14
  (let ((*print-length* 1))
    (prin1-to-string '((1 2) (3 4))))
  "((1 ...) ...)")
(deftest print-limits-15
  (let ((*print-length* 2) (*print-readably* t))
    (prin1-to-string '(1 2 3)))
  "(1 2 3)")
(deftest print-limits-16
  (write-to-string '(a b c) :length 1)
  "(A ...)")
(deftest print-limits-17
  (write-to-string '(a (b (c))) :level 2)
  "(A (B #))")
(deftest print-limits-18
  (let ((*print-level* 1))
    (prin1-to-string "string"))
  "\"string\"")
(deftest print-limits-19
  (let ((*print-length* 1))
    (prin1-to-string "string"))
  "\"string\"")

;;; *print-circle*
(deftest print-circle-1
  (let ((*print-circle* t))
    (prin1-to-string
     (let ((x (list 1 2)))
       (list x x))))
  "(#1=(1 2) #1#)")
(deftest print-circle-2
  (let ((*print-circle* t))
    (prin1-to-string
     (let ((x (list 1 2)))
       (setf (cdr (cdr x)) x)
       x)))
  "#1=(1 2 . #1#)")
(deftest print-circle-3
  (let ((*print-circle* t))
    (prin1-to-string
     (let ((g (make-symbol "G")))
       (list g g))))
  "(#1=#:G #1#)")
(deftest print-circle-4
  (let ((*print-circle* t))
    (prin1-to-string
     (let ((v #(1 2)))
       (list v v))))
  "(#1=#(1 2) #1#)")
(deftest print-circle-5
  (let ((*print-circle* t))
    (prin1-to-string
     (let ((v (list 1 2)))
       (setf (car v) v)
       v)))
  "#1=(#1# 2)")
(deftest print-circle-6
  (let ((*print-circle* t))
    (prin1-to-string
     (let ((s "abc"))
       (list s s))))
  "(#1=\"abc\" #1#)")
(deftest print-circle-7
  (let ((*print-circle* t))
    (prin1-to-string
     (let ((x (list 1)))
       (list x (list x) x))))
  "(#1=(1) (#1#) #1#)")
(deftest print-circle-8
  (let ((*print-circle* t))
    (prin1-to-string
     (let ((x (list 1)) (y (list 2)))
       (list x y x y))))
  "(#1=(1) #2=(2) #1# #2#)")
(deftest print-circle-9
  (let ((*print-circle* t))
    (prin1-to-string
     (let ((x (list 1 2 3)))
       (list x (cdr x)))))
  "((1 . #1=(2 3)) #1#)")
(deftest print-circle-10
  (let ((*print-circle* t))
    (prin1-to-string
     (let ((x (list 'a)))
       (setf (cdr x) x)
       (list x))))
  "(#1=(A . #1#))")
(deftest print-circle-11
  (let ((*print-circle* t))
    (prin1-to-string '(1 2 3)))
  "(1 2 3)")
(deftest print-circle-12
  (let ((*print-circle* t))
    (prin1-to-string
     (let ((x (list 1 2)))
       (list x x x))))
  "(#1=(1 2) #1# #1#)")
(deftest print-circle-13
  (let ((*print-circle* nil))
    (prin1-to-string
     (let ((x (list 1 2)))
       (list x x))))
  "((1 2) (1 2))")
(deftest print-circle-14
  (let ((*print-circle* t))
    (prin1-to-string
     (let* ((x (list 1)) (y (list x x)))
       (list y y))))
  "(#1=(#2=(1) #2#) #1#)")
(deftest print-circle-15
  (let ((*print-circle* t) (*print-pretty* t))
    (prin1-to-string
     (let ((x (list 1 2)))
       (list x x))))
  "(#1=(1 2) #1#)")
(deftest print-circle-16
  (let ((*print-circle* t) (*print-pretty* t))
    (prin1-to-string
     (let ((x (list 1 2)))
       (setf (cdr (cdr x)) x)
       x)))
  "#1=(1 2 . #1#)")
(deftest print-circle-17
  (let ((*print-circle* t))
    (princ-to-string
     (let ((x (list "a")))
       (list x x))))
  "(#1=(a) #1#)")
(deftest print-circle-18
  (let ((*print-circle* t))
    (format nil "~S ~S"
            (let ((x (list 1)))
              (list x x))
            (let ((x (list 2)))
              (list x x))))
  "(#1=(1) #1#) (#1=(2) #1#)")

;;; arrays
(deftest print-array-1
  (prin1-to-string #(1 2 3))
  "#(1 2 3)")
(deftest print-array-2
  (prin1-to-string #())
  "#()")
(deftest print-array-3
  (prin1-to-string #(a "b" #\c))
  "#(A \"b\" #\\c)")
(deftest print-array-4
  (prin1-to-string #*1011)
  "#*1011")
(deftest print-array-5
  (prin1-to-string #*)
  "#*")
(deftest print-array-6
  (prin1-to-string (read-from-string "#2A((1 2) (3 4))"))
  "#2A((1 2) (3 4))")
(deftest print-array-7
  (prin1-to-string (read-from-string "#0A5"))
  "#0A5")
(deftest print-array-8
  (prin1-to-string (read-from-string "#3A(((1 2) (3 4)) ((5 6) (7 8)))"))
  "#3A(((1 2) (3 4)) ((5 6) (7 8)))")
(deftest print-array-9
  (prin1-to-string (make-array '(2 0)))
  "#2A(() ())")
(deftest print-array-10
  (prin1-to-string (make-array '(0 2)))
  "#2A()")
(deftest print-array-11
  (prin1-to-string (make-array 5 :fill-pointer 2 :initial-element 1))
  "#(1 1)")
(deftest print-array-12
  (prin1-to-string (make-array 5 :element-type 'character :fill-pointer 2 :initial-element #\a))
  "\"aa\"")
(deftest print-array-13
  (prin1-to-string (make-array 3 :element-type 'bit :initial-element 1))
  "#*111")
(deftest print-array-14
  (prin1-to-string (make-array 3 :element-type 'fixnum :initial-element 1))
  "#(1 1 1)")
(deftest print-array-15
  (prin1-to-string (make-array 3 :initial-element 'x :adjustable t))
  "#(X X X)")
(deftest print-array-16
  (prin1-to-string (make-array '(2 3) :element-type 'bit))
  "#2A((0 0 0) (0 0 0))")
(deftest print-array-17
  (prin1-to-string (make-array 4 :element-type 'bit :fill-pointer 2 :initial-element 1))
  "#*11")
(deftest print-array-18
  (princ-to-string #(1 "a" #\b))
  "#(1 a b)")
(deftest print-array-19
  (princ-to-string (make-array 3 :element-type 'character :initial-element #\z))
  "zzz")
(deftest print-array-20
  (let ((*print-length* 1))
    (prin1-to-string (read-from-string "#2A((1 2) (3 4))")))
  "#2A((1 ...) ...)")
(deftest print-array-21
  (let ((*print-level* 1))
    (prin1-to-string (read-from-string "#2A((1 2) (3 4))")))
  "#2A(# #)")
(deftest print-array-22
  (let ((*print-array* nil))
    (prin1-to-string "abc"))
  "\"abc\"")
(deftest print-array-23
  (let ((*print-array* nil))
    (subseq (prin1-to-string #(1 2)) 0 20))
  "#<(SIMPLE-VECTOR 2) ")
(deftest print-array-24
  (let ((*print-array* nil))
    (subseq (prin1-to-string #*101) 0 25))
  "#<(SIMPLE-BIT-VECTOR 3) {")

;;; unreadable objects and *print-readably*
(deftest print-unreadable-1
  (prin1-to-string #'car)
  "#<FUNCTION CAR>")
(deftest print-unreadable-2
  (prin1-to-string (find-package "CL-USER"))
  "#<PACKAGE \"COMMON-LISP-USER\">")
(deftest print-unreadable-3
  (prin1-to-string (find-package "KEYWORD"))
  "#<PACKAGE \"KEYWORD\">")
(deftest print-unreadable-4
  (subseq (prin1-to-string (make-hash-table)) 0 32)
  "#<HASH-TABLE :TEST EQL :COUNT 0 ")
(deftest print-unreadable-5
  (subseq (prin1-to-string (make-hash-table :test 'equal)) 0 35)
  "#<HASH-TABLE :TEST EQUAL :COUNT 0 {")
(deftest print-unreadable-6
  (subseq (prin1-to-string (make-hash-table :test #'eq)) 0 32)
  "#<HASH-TABLE :TEST EQ :COUNT 0 {")
(deftest print-unreadable-7
  (subseq (prin1-to-string (make-string-output-stream)) 0 17)
  "#<STRING-STREAM {")
(deftest print-unreadable-8
  (let ((*print-readably* t))
    (prin1-to-string '(1 "a" #\b c :d 1.5 1.5d0 nil)))
  "(1 \"a\" #\\LATIN_SMALL_LETTER_B C :D 1.5 1.5d0 NIL)")
(deftest print-unreadable-9
  (let ((*print-readably* t))
    (prin1-to-string (make-symbol "E")))
  "#:E")
(deftest print-unreadable-10
  (let ((*print-readably* t))
    (prin1-to-string (make-hash-table)))
  "#.(MAKE-HASH-TABLE)")
(deftest print-unreadable-11
  (let ((*print-readably* t))
    (prin1-to-string #(1 2)))
  "#(1 2)")
(deftest print-unreadable-12
  (with-standard-io-syntax (prin1-to-string '(a "b" 1.5 1.5d0)))
  "(A \"b\" 1.5 1.5d0)")
(deftest print-unreadable-13
  (with-standard-io-syntax (list *print-pretty* *print-readably* *print-base*))
  (nil t 10))
(deftest print-unreadable-14
  (let ((s (prin1-to-string (make-hash-table))))
    (string= s "#<HASH-TABLE :TEST EQL :COUNT 0 {" :end1 33))
  t)
(deftest print-unreadable-15
  (let ((s (prin1-to-string (make-hash-table :test 'equal))))
    (string= s "#<HASH-TABLE :TEST EQUAL :COUNT 0 {" :end1 35))
  t)
(deftest print-unreadable-16
  (let ((s (prin1-to-string (make-string-output-stream))))
    (string= s "#<STRING-STREAM {" :end1 17))
  t)
(deftest print-unreadable-17
  (let ((s (prin1-to-string (make-two-way-stream (make-string-input-stream "") (make-string-output-stream)))))
    (string= s "#<TWO-WAY-STREAM :INPUT-STREAM #<STRING-STREAM {" :end1 48))
  t)
(deftest print-unreadable-stream-names
  ;; streams print with tinycl's own type names, the same as TYPE-OF and CLASS-OF say
  (with-open-file (f "tests/lisp/printer.lisp")
    (let ((out (make-string-output-stream))
          (in (make-string-input-stream "x")))
      (list (string= (prin1-to-string f) "#<FILE-STREAM for \"file " :end1 24)
            (type-of f) (class-name (class-of f)) (typep f 'file-stream)
            (type-of out) (class-name (class-of out)) (typep out 'string-stream)
            (type-of in) (class-name (class-of in))
            (search "SB-" (prin1-to-string (list f out in *standard-output* *terminal-io*))))))
  (t file-stream file-stream t string-stream string-stream t string-stream string-stream nil))
(deftest print-unreadable-string-fill-stream
  (let ((s (make-array 0 :element-type 'character :fill-pointer 0 :adjustable t)))
    (with-output-to-string (o s)
      (list (type-of o) (class-name (class-of o)) (typep o 'string-stream)
            (typep o '(and stream (not string-stream)))
            (string= (prin1-to-string o) "#<STRING-STREAM {" :end1 17))))
  (string-stream string-stream t nil t))
(deftest print-unreadable-18
  (let ((s (prin1-to-string (make-synonym-stream '*standard-output*))))
    (string= s "#<SYNONYM-STREAM :SYMBOL *STANDARD-OUTPUT* {" :end1 44))
  t)
(deftest print-unreadable-19
  (let ((s
         (let ((*print-array* nil))
           (prin1-to-string #(1 2)))))
    (string= s "#<(SIMPLE-VECTOR 2) {" :end1 21))
  t)
(deftest print-unreadable-20
  (let ((s
         (let ((*print-array* nil))
           (prin1-to-string (make-array '(2 3))))))
    (string= s "#<(SIMPLE-ARRAY T (2 3)) {" :end1 26))
  t)
(deftest print-unreadable-err-1
  (signals-error (let ((*print-readably* t))
                   (prin1-to-string #'car)) print-not-readable)
  t)
(deftest print-unreadable-err-2
  (signals-error (let ((*print-readably* t))
                   (prin1-to-string (find-package "CL-USER"))) print-not-readable)
  t)
(deftest print-unreadable-err-3
  (signals-error (let ((*print-readably* t))
                   (prin1-to-string (make-string-output-stream))) print-not-readable)
  t)
(deftest print-unreadable-err-4
  (signals-error (let ((*print-readably* t))
                   (prin1-to-string (list 1 #'car))) print-not-readable)
  t)
(deftest print-unreadable-err-5
  (signals-error (write-to-string (find-package "CL") :readably t) print-not-readable)
  t)

;;; WRITE and friends
(deftest print-write-1
  (write-to-string '(a "b" #\c))
  "(A \"b\" #\\c)")
(deftest print-write-2
  (write-to-string '(a "b" #\c) :escape nil)
  "(A b c)")
(deftest print-write-3
  (write-to-string 'foo :case :downcase)
  "foo")
(deftest print-write-4
  (write-to-string '(1 2 3 4) :length 2)
  "(1 2 ...)")
(deftest print-write-5
  (write-to-string 10 :base 16 :radix t)
  "#xA")
(deftest print-write-6
  (write-to-string (list 1 2) :pretty nil)
  "(1 2)")
(deftest print-write-7
  (write-to-string #(1 2) :array t)
  "#(1 2)")
(deftest print-write-8
  (write-to-string (make-symbol "X") :gensym nil)
  "X")
(deftest print-write-9
  (write-to-string "s" :readably t)
  "\"s\"")
(deftest print-write-10
  (write-to-string '(a (b (c))) :level 1)
  "(A #)")
(deftest print-write-11
  (let ((s (make-string-output-stream)))
    (list (write 'x :stream s) (get-output-stream-string s)))
  (x "X"))
(deftest print-write-12
  (let ((s (make-string-output-stream)))
    (print 'x s)
    (get-output-stream-string s))
  "
X ")
(deftest print-write-13
  (let ((s (make-string-output-stream)))
    (prin1 "x" s)
    (princ "y" s)
    (get-output-stream-string s))
  "\"x\"y")
(deftest print-write-14
  (let ((s (make-string-output-stream)))
    (list (multiple-value-list (pprint '(a b) s)) (get-output-stream-string s)))
  (nil "
(A B)"))
(deftest print-write-15
  (let ((*print-pretty* t))
    (write-to-string '(a b) :pretty nil))
  "(A B)")
(deftest print-write-16
  (prin1-to-string (list 'a (list 'b "c" #\d) 1.5))
  "(A (B \"c\" #\\d) 1.5)")
(deftest print-write-17
  (write-to-string 'xyz :case :capitalize :escape nil)
  "Xyz")
(deftest print-write-18
  (write-to-string '|a b| :escape t)
  "|a b|")
(deftest print-write-19
  (write-to-string 1/2 :radix t :base 3)
  "#3r1/2")

;;; print-unreadable-object
(deftest print-unreadable-object-1
  (let ((s (make-string-output-stream)))
    (print-unreadable-object ('x s) (princ "hello" s))
    (get-output-stream-string s))
  "#<hello>")
(deftest print-unreadable-object-2
  (let ((s (make-string-output-stream)))
    (print-unreadable-object ('x s :type t) (princ "hello" s))
    (get-output-stream-string s))
  "#<SYMBOL hello>")
(deftest print-unreadable-object-3
  (let ((s (make-string-output-stream)))
    (print-unreadable-object ('x s :type t))
    (get-output-stream-string s))
  "#<SYMBOL >")
(deftest print-unreadable-object-err-1
  (signals-error (let ((*print-readably* t))
                   (let ((s (make-string-output-stream)))
                     (print-unreadable-object ('x s) (princ "a" s)))) print-not-readable)
  t)

;;; the pretty printer: data, code, logical blocks
(defun pps (x &optional (margin 80))
  (let ((*print-pretty* t) (*print-right-margin* margin))
    (prin1-to-string x)))
(deftest pretty-1
  (pps '(a b c d e f g h i j k l m n o p q r s t u v w x y z aa bb cc dd ee ff gg hh ii jj kk) 40)
  "(A B C D E F G H I J K L M N O P Q R S
 T U V W X Y Z AA BB CC DD EE FF GG HH
 II JJ KK)")
(deftest pretty-2
  (pps '((aaaa bbbb) (cccc dddd) (eeee ffff) (gggg hhhh) (iiii jjjj)) 30)
  "((AAAA BBBB) (CCCC DDDD)
 (EEEE FFFF) (GGGG HHHH)
 (IIII JJJJ))")
(deftest pretty-3
  (pps #(aaaa bbbb cccc dddd eeee ffff gggg hhhh iiii) 30)
  "#(AAAA BBBB CCCC DDDD EEEE
  FFFF GGGG HHHH IIII)")
(deftest pretty-4
  (pps (list "aaaaaaaaaa" "bbbbbbbbbbbb" "cccccccccccc" "dddddddddd") 30)
  "(\"aaaaaaaaaa\" \"bbbbbbbbbbbb\"
 \"cccccccccccc\" \"dddddddddd\")")
(deftest pretty-5
  (let ((*print-length* 3))
    (pps '(a b c d e f g)))
  "(A B C ...)")
(deftest pretty-6
  (let ((*print-level* 2))
    (pps '(a (b (c (d))))))
  "(A (B #))")
(deftest pretty-7
  (let ((*print-lines* 2))
    (pps '(aaaa bbbb cccc dddd eeee ffff gggg hhhh iiii jjjj kkkk llll mmmm) 20))
  "(AAAA BBBB CCCC
 DDDD EEEE FFFF ..)")
(deftest pretty-8
  (let ((*print-lines* 1))
    (pps '(aaaa bbbb cccc dddd eeee ffff gggg hhhh iiii jjjj kkkk llll mmmm) 20))
  "(AAAA BBBB CCCC ..)")
(deftest pretty-9
  (pps
   '(defun long-function-name (argument-one argument-two &optional (argument-three 3) &key keyword-arg)
      (declare (ignore argument-two))
      (list argument-one argument-three keyword-arg))
   60)
  "(DEFUN LONG-FUNCTION-NAME
       (ARGUMENT-ONE ARGUMENT-TWO
        &OPTIONAL (ARGUMENT-THREE 3)
        &KEY KEYWORD-ARG)
  (DECLARE (IGNORE ARGUMENT-TWO))
  (LIST ARGUMENT-ONE ARGUMENT-THREE KEYWORD-ARG))")
(deftest pretty-10
  (pps
   '(let ((a 1) (b 2))
      (+ a b)))
  "(LET ((A 1) (B 2))
  (+ A B))")
(deftest pretty-11
  (pps
   '(let ()
      1))
  "(LET ()
  1)")
(deftest pretty-12
  (pps '(let ((a 1))))
  "(LET ((A 1)))")
(deftest pretty-13
  (pps
   '(if a
        b))
  "(IF A
    B)")
(deftest pretty-14
  (pps
   '(if a
        b
        c))
  "(IF A
    B
    C)")
(deftest pretty-15
  (pps '(when a b))
  "(WHEN A B)")
(deftest pretty-16
  (pps '(progn a b c))
  "(PROGN A B C)")
(deftest pretty-17
  (pps
   '(setq a 1
          b 2))
  "(SETQ A 1
      B 2)")
(deftest pretty-18
  (pps '(setf a 1))
  "(SETF A 1)")
(deftest pretty-19
  (pps '(lambda (x) x))
  "(LAMBDA (X) X)")
(deftest pretty-20
  (pps '(dolist (x list) (print x)))
  "(DOLIST (X LIST) (PRINT X))")
(deftest pretty-21
  (pps '(dotimes (i 10) (print i) (print (* i i))))
  "(DOTIMES (I 10) (PRINT I) (PRINT (* I I)))")
(deftest pretty-22
  (pps '(do ((i 0 (1+ i))) ((> i 10)) (print i)))
  "(DO ((I 0 (1+ I))) ((> I 10)) (PRINT I))")
(deftest pretty-23
  (pps '(tagbody start (print 1) (go start) end))
  "(TAGBODY START (PRINT 1) (GO START) END)")
(deftest pretty-24
  (pps '(case x ((1 2) 'a) (3 'b) (t 'c)))
  "(CASE X ((1 2) 'A) (3 'B) (T 'C))")
(deftest pretty-25
  (pps '(typecase x (integer 1) (string 2)))
  "(TYPECASE X (INTEGER 1) (STRING 2))")
(deftest pretty-26
  (pps
   '(loop for i from 0 below 10
          collect i))
  "(LOOP FOR I FROM 0 BELOW 10
      COLLECT I)")
(deftest pretty-27
  (pps
   '(loop for i from 0 below 10
          when (evenp i)
          collect i into evens
          finally (return evens)))
  "(LOOP FOR I FROM 0 BELOW 10
      WHEN (EVENP I)
      COLLECT I INTO EVENS
      FINALLY (RETURN EVENS))")
(deftest pretty-28
  (pps '(multiple-value-bind (a b) (floor 10 3) (list a b)))
  "(MULTIPLE-VALUE-BIND (A B) (FLOOR 10 3) (LIST A B))")
(deftest pretty-29
  (pps '(destructuring-bind (a b &rest c) list (list a b c)))
  "(DESTRUCTURING-BIND (A B &REST C) LIST (LIST A B C))")
(deftest pretty-30
  (pps
   '(labels ((f (x)
               (g x))
             (g (y)
               y))
      (f 1)))
  "(LABELS ((F (X)
           (G X))
         (G (Y)
           Y))
  (F 1))")
(deftest pretty-31
  (pps
   '(defmacro with-foo ((var) &body body)
      `(let ((,var 1))
         ,@body)))
  "(DEFMACRO WITH-FOO ((VAR) &BODY BODY)
  `(LET ((,VAR 1))
     ,@BODY))")
(deftest pretty-32
  (pps '(defmethod foo ((x integer) y) (+ x y)))
  "(DEFMETHOD FOO ((X INTEGER) Y) (+ X Y))")
(deftest pretty-33
  (pps '(defmethod foo :around ((x integer) y) (call-next-method)))
  "(DEFMETHOD FOO :AROUND ((X INTEGER) Y) (CALL-NEXT-METHOD))")
(deftest pretty-34
  (pps '(block nil (return 1)))
  "(BLOCK NIL (RETURN 1))")
(deftest pretty-35
  (pps '(unwind-protect (foo) (bar)))
  "(UNWIND-PROTECT (FOO) (BAR))")
(deftest pretty-36
  (pps '(cond (a b) (c d)))
  "(COND (A B) (C D))")
(deftest pretty-37
  (pps
   '(cond ((> aaaaaaaaaaaaaaa bbbbbbbbbbbbbbbbbb) (print "xxxxxxxxxxxxxxxxxxxxxxxxxxxx"))
          (t (print "yyyyyyyyyyyyyyyyyyyyyyyyyyyyy"))))
  "(COND
 ((> AAAAAAAAAAAAAAA BBBBBBBBBBBBBBBBBB)
  (PRINT \"xxxxxxxxxxxxxxxxxxxxxxxxxxxx\"))
 (T (PRINT \"yyyyyyyyyyyyyyyyyyyyyyyyyyyyy\")))")
(deftest pretty-38
  (pps '(defvar *foo* 1 "doc"))
  "(DEFVAR *FOO* 1 \"doc\")")
(deftest pretty-39
  (pps '(eval-when (:compile-toplevel :load-toplevel :execute) (defun foo () 1)))
  "(EVAL-WHEN (:COMPILE-TOPLEVEL :LOAD-TOPLEVEL :EXECUTE) (DEFUN FOO () 1))")
(deftest pretty-40
  (pps ''(a b))
  "'(A B)")
(deftest pretty-41
  (pps '#'(lambda (x) x))
  "#'(LAMBDA (X) X)")
(deftest pretty-42
  (pps '(foo . bar))
  "(FOO . BAR)")
(deftest pretty-43
  (pps '(1 2 . 3))
  "(1 2 . 3)")
(deftest pretty-44
  (pps '(defun f () nil))
  "(DEFUN F () NIL)")
(deftest pretty-45
  (pps
   '(defun f (a b c d e f g h i j k l m n o p q r s t u v w x y z)
      (list a b c d e f g h i j k l m n o p q r s t u v w x y z)))
  "(DEFUN F (A B C D E F G H I J K L M N O P Q R S T U V W X Y Z)
  (LIST A B C D E F G H I J K L M N O P Q R S T U V W X Y Z))")
(deftest pretty-46
  (pps '(progv '(*a*) '(1) (print *a*)))
  "(PROGV '(*A*) '(1) (PRINT *A*))")
(deftest pretty-47
  (pps '(prog1 a b c))
  "(PROG1 A B C)")
(deftest pretty-48
  (pps '(prog2 a b c))
  "(PROG2 A B C)")
(deftest pretty-49
  (pps '(prog ((i 0)) top (print i) (go top)))
  "(PROG ((I 0)) TOP (PRINT I) (GO TOP))")
(deftest pretty-50
  (pps
   '(flet ((f (x)
             x))
      (f 1)))
  "(FLET ((F (X)
         X))
  (F 1))")
(deftest pretty-51
  (pps
   '(defpackage :foo
      (:use :cl)
      (:export #:a #:b)))
  "(DEFPACKAGE :FOO
  (:USE :CL)
  (:EXPORT #:A #:B))")
(deftest pretty-52
  (pps
   '(declare (ignore a)
             (special b)))
  "(DECLARE (IGNORE A)
         (SPECIAL B))")
(deftest pretty-53
  (pps '(the fixnum (+ a b)))
  "(THE FIXNUM (+ A B))")
(deftest pretty-54
  (pps
   '(aaaa
     (bbbb cccc dddd eeee ffff gggg hhhh iiii jjjj kkkk llll mmmm nnnn oooo pppp qqqq rrrr ssss tttt uuuu
      vvvv))
   50)
  "(AAAA
 (BBBB CCCC DDDD EEEE FFFF GGGG HHHH IIII JJJJ
  KKKK LLLL MMMM NNNN OOOO PPPP QQQQ RRRR SSSS
  TTTT UUUU VVVV))")
(deftest pretty-55
  (pps
   '(list
     (list 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35)
     (list 1 2))
   60)
  "(LIST
 (LIST 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20
       21 22 23 24 25 26 27 28 29 30 31 32 33 34 35)
 (LIST 1 2))")
(deftest pretty-56
  (pps
   '(defun foo (x y)
      (let ((a 1) (b 2))
        (if (> x y)
            (+ a x y 1000000 2000000 3000000)
            (- a x y 1000000 2000000 3000000)))))
  "(DEFUN FOO (X Y)
  (LET ((A 1) (B 2))
    (IF (> X Y)
        (+ A X Y 1000000 2000000 3000000)
        (- A X Y 1000000 2000000 3000000))))")
(deftest pretty-57
  (pps
   '(when (and (> x 100000000000) (< y 2000000000000))
      (print "a very long string here")
      (print "another long string there")))
  "(WHEN (AND (> X 100000000000) (< Y 2000000000000))
  (PRINT \"a very long string here\")
  (PRINT \"another long string there\"))")
(deftest pretty-58
  (pps
   '(dolist (x '(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28))
      (print x)
      (print (* x x))))
  "(DOLIST
    (X
     '(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27
       28))
  (PRINT X)
  (PRINT (* X X)))")
(deftest pretty-59
  (pps
   '(setf (gethash key table) value
          (gethash key2 table) value2
          (gethash key3 table) value3
          (gethash key4 table) value4))
  "(SETF (GETHASH KEY TABLE) VALUE
      (GETHASH KEY2 TABLE) VALUE2
      (GETHASH KEY3 TABLE) VALUE3
      (GETHASH KEY4 TABLE) VALUE4)")
(deftest pretty-60
  (pps
   '(if (this-is-a-very-long-test-function-name argument-number-one)
        (then-branch-function-call 1 2 3)
        (else-branch-function-call 4 5 6)))
  "(IF (THIS-IS-A-VERY-LONG-TEST-FUNCTION-NAME ARGUMENT-NUMBER-ONE)
    (THEN-BRANCH-FUNCTION-CALL 1 2 3)
    (ELSE-BRANCH-FUNCTION-CALL 4 5 6))")
(deftest pretty-61
  (pps "a string")
  "\"a string\"")
(deftest pretty-62
  (pps '(#\a #\  "s" 1.5 :key))
  "(#\\a #\\  \"s\" 1.5 :KEY)")
(deftest pretty-63
  (pps (read-from-string "#2A((1 2 3) (4 5 6))"))
  "#2A((1 2 3) (4 5 6))")
(deftest pretty-64
  (pps (make-array '(3 12) :initial-element 'abcdef) 40)
  "#2A((ABCDEF ABCDEF ABCDEF ABCDEF ABCDEF
     ABCDEF ABCDEF ABCDEF ABCDEF ABCDEF
     ABCDEF ABCDEF)
    (ABCDEF ABCDEF ABCDEF ABCDEF ABCDEF
     ABCDEF ABCDEF ABCDEF ABCDEF ABCDEF
     ABCDEF ABCDEF)
    (ABCDEF ABCDEF ABCDEF ABCDEF ABCDEF
     ABCDEF ABCDEF ABCDEF ABCDEF ABCDEF
     ABCDEF ABCDEF))")
(deftest pretty-65
  (let ((*print-pretty* t) (*print-circle* t))
    (let ((x (list 1 2 3)))
      (setf (cdr (cdr (cdr x))) x)
      (prin1-to-string x)))
  "#1=(1 2 3 . #1#)")
(deftest pretty-66
  (let ((*print-pretty* t) (*print-circle* t))
    (let ((x (list 1 2)))
      (prin1-to-string (list x x x))))
  "(#1=(1 2) #1# #1#)")
(deftest pretty-67
  (let ((s (make-string-output-stream)))
    (let ((*print-pretty* t) (*print-right-margin* 30))
      (pprint-logical-block (s '(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16) :prefix "[" :suffix "]")
        (do ()
            (nil)
          (pprint-exit-if-list-exhausted)
          (write (pprint-pop) :stream s)
          (pprint-exit-if-list-exhausted)
          (write-string ", " s)
          (pprint-newline :fill s))))
    (get-output-stream-string s))
  "[1, 2, 3, 4, 5, 6, 7, 8, 9,
 10, 11, 12, 13, 14, 15, 16]")
(deftest pretty-68
  (let ((s (make-string-output-stream)))
    (let ((*print-pretty* t) (*print-right-margin* 30))
      (pprint-tabular s '(a bb ccc dddd eeeee ffffff ggggggg) t nil 8))
    (get-output-stream-string s))
  "(A       BB      CCC     DDDD
 EEEEE   FFFFFF  GGGGGGG)")
(deftest pretty-69
  (let ((s (make-string-output-stream)))
    (let ((*print-pretty* t) (*print-right-margin* 20))
      (pprint-linear s '(aaaa bbbb cccc dddd eeee)))
    (get-output-stream-string s))
  "(AAAA
 BBBB
 CCCC
 DDDD
 EEEE)")
(deftest pretty-70
  (let ((s (make-string-output-stream)))
    (let ((*print-pretty* t) (*print-right-margin* 20))
      (pprint-fill s '(aaaa bbbb cccc dddd eeee) nil))
    (get-output-stream-string s))
  "AAAA BBBB CCCC DDDD
EEEE")
(deftest pretty-71
  (let ((s (make-string-output-stream)))
    (let ((*print-pretty* t))
      (pprint-logical-block (s nil :per-line-prefix "; ")
        (write-string "abc" s)
        (pprint-newline :mandatory s)
        (write-string "def" s)
        (pprint-indent :block 2 s)
        (pprint-newline :mandatory s)
        (write-string "ghi" s)))
    (get-output-stream-string s))
  "; abc
; def
;   ghi")
(deftest pretty-72
  (let ((s (make-string-output-stream)))
    (let ((*print-pretty* t))
      (pprint-logical-block (s 5 :prefix "<") (write-string "never" s)))
    (get-output-stream-string s))
  "5")
(deftest pretty-73
  (let ((s (make-string-output-stream)))
    (pprint '(a b c) s)
    (get-output-stream-string s))
  "
(A B C)")
(deftest pretty-74
  (let ((s (make-string-output-stream)))
    (let ((*print-pretty* t) (*print-right-margin* 30))
      (pprint-logical-block (s '(a b c))
        (pprint-logical-block (s '(1 2 3) :prefix "(" :suffix ")")
          (do ()
              (nil)
            (pprint-exit-if-list-exhausted)
            (write (pprint-pop) :stream s)
            (pprint-exit-if-list-exhausted)
            (write-char #\  s)))
        (write-string " end" s)))
    (get-output-stream-string s))
  "(1 2 3) end")
(deftest pretty-75
  (let ((s (make-string-output-stream)))
    (let ((*print-pretty* nil))
      (pprint-logical-block (s '(1 2 3) :prefix "(" :suffix ")")
        (do ()
            (nil)
          (write (pprint-pop) :stream s)
          (pprint-exit-if-list-exhausted)
          (write-char #\  s)
          (pprint-newline :mandatory s))))
    (get-output-stream-string s))
  "(1 2 3)")
(deftest pretty-76
  (let ((s (make-string-output-stream)))
    (let ((*print-pretty* t))
      (pprint-logical-block (s '(1 2 . 3))
        (do () (nil) (write (pprint-pop) :stream s) (pprint-exit-if-list-exhausted) (write-char #\  s))))
    (get-output-stream-string s))
  "1 2 . 3")
(deftest pretty-77
  (let ((s (make-string-output-stream)))
    (let ((*print-pretty* t) (*print-length* 2))
      (pprint-logical-block (s '(1 2 3 4))
        (do () (nil) (write (pprint-pop) :stream s) (pprint-exit-if-list-exhausted) (write-char #\  s))))
    (get-output-stream-string s))
  "1 2 ...")
(deftest pretty-78
  (let ((s (make-string-output-stream)))
    (let ((*print-pretty* t))
      (pprint-logical-block (s nil :prefix "(" :suffix ")")
        (write-string "ab" s)
        (terpri s)
        (write-string "cd" s)))
    (get-output-stream-string s))
  "(ab
cd)")
(deftest pretty-79
  (let ((*print-pretty* t) (*print-right-margin* 40))
    (format nil "~:<~@{~:<~A ~A~:>~^ ~_~}~:>" '((a 1) (b 2) (c 3) (dddddddddd 4) (eeeeeeeeeeee 5))))
  "((A 1)
 (B 2)
 (C 3)
 (DDDDDDDDDD 4)
 (EEEEEEEEEEEE 5))")
(deftest pretty-80
  (let ((*print-pretty* t) (*print-right-margin* 20) (*print-miser-width* 10))
    (format nil "~<(~;defun ~:I~A ~_~A~;)~:>" '(foooooooooo baaaaaaaaar)))
  "(defun FOOOOOOOOOO
       BAAAAAAAAAR)")
(deftest pretty-81
  (let ((*print-pretty* t))
    (format nil "~A~10T~A" 'a 'b))
  "A         B")
(deftest pretty-82
  (let ((*print-pretty* t))
    (format nil "~<~A~10T~A~:>" '(a b)))
  "A         B")
(deftest pretty-83
  (let ((*print-pretty* t))
    (format nil "~<~A~:T~A~:>" '(aaa b)))
  "AAA B")
(deftest pretty-84
  (let ((*print-pretty* t))
    (format nil "~<~A~3,4:@T~A~:>" '(aaa b)))
  "AAA     B")
(deftest pretty-85
  (let ((*print-pretty* t) (*print-right-margin* 15))
    (format nil "~<~A~5@T~A ~:_~A ~:_~A~:>" '(aaa bbb ccc ddd)))
  "AAA     BBB
CCC DDD")
(deftest pretty-86
  (let ((*print-pretty* t) (*print-right-margin* 30) (*print-miser-width* 25))
    (prin1-to-string
     '(let ((aaaa 1) (bbbb 2))
        (foo aaaa bbbb)
        (bar))))
  "(LET ((AAAA 1) (BBBB 2))
  (FOO AAAA BBBB)
  (BAR))")

;;; pprint dispatch tables
(deftest pprint-dispatch-1
  (let ((*print-pprint-dispatch* (copy-pprint-dispatch)))
    (set-pprint-dispatch '(cons (member foo)) (lambda (s o) (format s "FOO!~S" (cdr o))))
    (let ((*print-pretty* t))
      (prin1-to-string '(a (foo 1 2) b))))
  "(A FOO!(1 2) B)")
(deftest pprint-dispatch-2
  (let ((*print-pprint-dispatch* (copy-pprint-dispatch)))
    (set-pprint-dispatch '(cons (member foo)) (lambda (s o) (format s "FOO!~S" (cdr o))))
    (let ((*print-pretty* nil))
      (prin1-to-string '(a (foo 1 2) b))))
  "(A (FOO 1 2) B)")
(deftest pprint-dispatch-3
  (let ((*print-pprint-dispatch* (copy-pprint-dispatch)))
    (set-pprint-dispatch 'keyword (lambda (s o) (format s "<~A>" (symbol-name o))))
    (let ((*print-pretty* t))
      (prin1-to-string '(a :b "c"))))
  "(A <B> \"c\")")
(deftest pprint-dispatch-4
  (let ((*print-pprint-dispatch* (copy-pprint-dispatch)))
    (set-pprint-dispatch 'keyword (lambda (s o) (format s "<~A>" (symbol-name o))))
    (set-pprint-dispatch 'keyword nil)
    (let ((*print-pretty* t))
      (prin1-to-string '(a :b "c"))))
  "(A :B \"c\")")
(deftest pprint-dispatch-5
  (let ((tb (copy-pprint-dispatch)))
    (set-pprint-dispatch 'keyword (lambda (s o) (declare (ignore o)) (write-string "K" s)) 0 tb)
    (list (nth-value 1 (pprint-dispatch :x tb)) (nth-value 1 (pprint-dispatch "x" tb))))
  (t nil))
(deftest pprint-dispatch-6
  (let ((*print-pprint-dispatch* (copy-pprint-dispatch)))
    (set-pprint-dispatch '(cons (member bar)) (lambda (s o) (format s "BAR~A" (length o))) 1)
    (set-pprint-dispatch '(cons symbol) (lambda (s o) (declare (ignore o)) (write-string "SYM" s)) 0)
    (let ((*print-pretty* t))
      (prin1-to-string '((bar 1) (baz 2)))))
  "(BAR2 SYM)")
(deftest pprint-dispatch-7
  (let ((*print-pprint-dispatch* (copy-pprint-dispatch)))
    (set-pprint-dispatch 'string (lambda (s o) (write-string "str:" s) (write-string o s)))
    (let ((*print-pretty* t))
      (format nil "~S ~A" "x" "y")))
  "str:x str:y")

;; a titlecase letter (U+01C8) is neither upper nor lower case, but the reader upcases it,
;; so a symbol holding it must be printed with bars to read back as itself
(deftest print-symbol-titlecase-letter-escaped
  (let* ((name (concatenate 'string "?" (string (code-char #x1c8)) "0"))
         (sym (make-symbol name)))
    (let ((*print-gensym* nil))
      (values (prin1-to-string sym)
              (string= (symbol-name (read-from-string (prin1-to-string sym))) name))))
  "|?ǈ0|" t)

;; PRINC binds *print-escape* and *print-readably* to false (CLHS 22.4); FORMAT ~A is PRINC;
;; WRITE under *print-readably* escapes whatever :escape says (SBCL)
(deftest princ-ignores-print-readably
  (let ((*print-readably* t))
    (list (princ-to-string "x") (format nil "~A" "x") (prin1-to-string "x")
          (write-to-string "x" :escape nil)))
  ("x" "x" "\"x\"" "\"x\""))
(deftest princ-uninterned-symbol-with-standard-io-syntax
  (with-standard-io-syntax (format nil "~A" '#:bind))
  "BIND")
(deftest princ-binds-print-escape-for-print-object
  (progn
    (defclass princ-probe () ())
    (defmethod print-object ((o princ-probe) s) (format s "~S/~S" *print-escape* *print-readably*))
    (let ((*print-readably* t) (*print-escape* t))
      (list (princ-to-string (make-instance 'princ-probe))
            (let ((*print-readably* nil)) (prin1-to-string (make-instance 'princ-probe))))))
  ("NIL/NIL" "T/NIL"))
;;; PRINC binds *PRINT-READABLY* to false (CLHS 22.4); WRITE with :ESCAPE NIL does not.
(deftest princ-ignores-print-readably-2
  (let ((*print-readably* t))
    (list (princ-to-string "abc") (princ-to-string #\a) (format nil "~A ~S" "abc" "abc")
          (with-output-to-string (s) (princ 'x s))
          (write-to-string "q" :escape nil)))
  ("abc" "a" "abc \"abc\"" "X" "\"q\""))

;;; objects in error messages print non-readably even under WITH-STANDARD-IO-SYNTAX
(deftest delete-package-under-standard-io-syntax
  (progn
    (make-package "PRINTER-TEST-DEL-PKG" :use nil)
    (with-standard-io-syntax (delete-package "PRINTER-TEST-DEL-PKG")))
  t)

;;; an empty axis prints as () at its own level
(deftest print-array-empty-inner-axis
  (list (write-to-string (make-array '(1 1 0 1)) :pretty nil :readably nil :array t)
        (write-to-string (make-array '(2 0 3)) :pretty nil :readably nil :array t)
        (write-to-string (make-array '(1 0)) :pretty nil :readably t))
  ("#4A((()))" "#3A(() ())" "#2A(())"))

;;; as SBCL: an array whose #nA syntax would lose a dimension prints readably as
;;; #A((dimensions) element-type . contents), which reads back
(deftest print-array-ambiguous-dims-readably
  (let ((s (write-to-string (make-array '(0 1)) :pretty nil :readably t)))
    (list s (array-dimensions (read-from-string s))
          (array-dimensions (read-from-string (write-to-string (make-array '(2 0 3)) :readably t)))
          (read-from-string "#A((2 2) T (1 2) (3 4))")))
  ("#A((0 1) T)" (0 1) (2 0 3) #2A((1 2) (3 4))))

;;; an array of a specialised element type prints readably in the same #A syntax, since #nA(...)
;;; reads back as an array of T: its type, shape, fill pointer's extent and elements come back
(deftest print-specialised-array-readably
  (flet ((back (a) (let ((b (read-from-string (write-to-string a :pretty nil :readably t))))
                     (list (write-to-string a :pretty nil :readably t) (array-element-type b)
                           (array-dimensions b) (equalp a b)))))
    (list (back (make-array nil :element-type '(unsigned-byte 8) :initial-element 1))
          (back (make-array '(2 3) :element-type '(unsigned-byte 8) :initial-contents '((1 2 3) (4 5 6))))
          (back (make-array nil :element-type 'bit :initial-element 1))
          (back (make-array 4 :element-type '(unsigned-byte 8) :fill-pointer 2 :initial-element 7))
          (write-to-string (make-array 3 :element-type 'bit :initial-element 1) :readably t)))
  (("#A(NIL (UNSIGNED-BYTE 8) . 1)" (unsigned-byte 8) nil t)
   ("#A((2 3) (UNSIGNED-BYTE 8) (1 2 3) (4 5 6))" (unsigned-byte 8) (2 3) t)
   ("#A(NIL BIT . 1)" bit nil t)
   ("#A((2) (UNSIGNED-BYTE 8) 7 7)" (unsigned-byte 8) (2) t)
   "#*111"))

(deftest print-random-state-readably
  (let* ((r1 (make-random-state t))
         (r2 (with-standard-io-syntax (read-from-string (write-to-string r1 :readably t)))))
    (list (random-state-p r2)
          (loop repeat 20 always (= (random 1000000 r1) (random 1000000 r2)))))
  (t t))

(deftest pprint-dispatch-type-error-is-a-type
  (handler-case (copy-pprint-dispatch 3)
    (type-error (c) (typep 3 (type-error-expected-type c))))
  nil)

;;; section tabs in a block that fits on its line count from the block's start
(deftest pprint-tab-in-fitting-block
  (let ((*print-pretty* t) (*print-right-margin* 100))
    (list (with-output-to-string (s) (pprint-tabular s '(m m)))
          (with-output-to-string (s) (pprint-tabular s '(m m) t t 3))
          (with-output-to-string (s)
            (pprint-logical-block (s nil :prefix "(")
              (write-string "M" s) (pprint-tab :section-relative 0 16 s) (write-string "M" s)))
          (with-output-to-string (s)
            (pprint-logical-block (s nil :prefix "(")
              (write-string "M" s) (pprint-tab :section 0 16 s) (write-string "M" s)))
          (with-output-to-string (s)
            (pprint-logical-block (s '(1 2) :prefix "[[")
              (write-string "ab" s) (pprint-newline :fill s)
              (pprint-logical-block (s nil :prefix "<")
                (write-string "c" s) (pprint-tab :section-relative 1 5 s)
                (write-string "d" s) (pprint-tab :section 1 5 s) (write-string "e" s))))))
  ("(M               M)" "(M  M)" "(M               M" "(M               M" "[[ab<c    d     e"))
