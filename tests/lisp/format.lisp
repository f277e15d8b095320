;;;; format.lisp: tests of FORMAT (CLHS 22.3); every expected value is SBCL's output.
(in-package :cl-user)

;;; ~A and ~S: mincol colinc minpad padchar, : and @
(deftest format-a-1
  (format nil "~A" 'foo)
  "FOO")
(deftest format-a-2
  (format nil "~A" "str")
  "str")
(deftest format-a-3
  (format nil "~A" #\x)
  "x")
(deftest format-a-4
  (format nil "~A" '(1 "a" #\b))
  "(1 a b)")
(deftest format-a-5
  (format nil "~A" nil)
  "NIL")
(deftest format-a-6
  (format nil "~:A" nil)
  "()")
(deftest format-a-7
  (format nil "~:A" '(nil))
  "(NIL)")
(deftest format-a-8
  (format nil "~10A|" "abc")
  "abc       |")
(deftest format-a-9
  (format nil "~10@A|" "abc")
  "       abc|")
(deftest format-a-10
  (format nil "~10,3A|" "abc")
  "abc         |")
(deftest format-a-11
  (format nil "~10,3@A|" "abc")
  "         abc|")
(deftest format-a-12
  (format nil "~3,,2A|" "abcd")
  "abcd  |")
(deftest format-a-13
  (format nil "~,,2A|" "a")
  "a  |")
(deftest format-a-14
  (format nil "~10,,,'*A|" "abc")
  "abc*******|")
(deftest format-a-15
  (format nil "~10,,,'*@A|" "abc")
  "*******abc|")
(deftest format-a-16
  (format nil "~4,4,1A|" "abcde")
  "abcde |")
(deftest format-a-17
  (format nil "~2A|" "abcdef")
  "abcdef|")
(deftest format-a-18
  (format nil "~v,,,vA|" 6 #\- "ab")
  "ab----|")
(deftest format-a-19
  (format nil "~vA|" nil "ab")
  "ab|")
(deftest format-a-20
  (format nil "~#A|" "ab" 1 2 3)
  "ab  |")
(deftest format-a-21
  (format nil "~A ~A" 1.5 1/2)
  "1.5 1/2")
(deftest format-a-22
  (format nil "~A" :key)
  "KEY")
(deftest format-a-23
  (format nil "~a" 'lower)
  "LOWER")
(deftest format-s-1
  (format nil "~S" 'foo)
  "FOO")
(deftest format-s-2
  (format nil "~S" "str")
  "\"str\"")
(deftest format-s-3
  (format nil "~S" #\x)
  "#\\x")
(deftest format-s-4
  (format nil "~S" '(1 "a" #\b))
  "(1 \"a\" #\\b)")
(deftest format-s-5
  (format nil "~S" nil)
  "NIL")
(deftest format-s-6
  (format nil "~:S" nil)
  "()")
(deftest format-s-7
  (format nil "~10S|" "abc")
  "\"abc\"     |")
(deftest format-s-8
  (format nil "~10@S|" "abc")
  "     \"abc\"|")
(deftest format-s-9
  (format nil "~10,,,'.S|" :k)
  ":K........|")
(deftest format-s-10
  (format nil "~S" :key)
  ":KEY")
(deftest format-s-11
  (format nil "~S" #\ )
  "#\\ ")
(deftest format-s-12
  (format nil "~S" 1.5d0)
  "1.5d0")
(deftest format-s-13
  (format nil "~:S" '(nil))
  "(NIL)")
(deftest format-s-14
  (format nil "~5,2,1,'xS|" 'ab)
  "ABxxx|")

;;; ~W
(deftest format-w-1
  (format nil "~W" '(1 "a"))
  "(1 \"a\")")
(deftest format-w-2
  (format nil "~W" "s")
  "\"s\"")
(deftest format-w-3
  (let ((*print-escape* nil))
    (format nil "~W" "s"))
  "s")
(deftest format-w-4
  (let ((*print-length* 2))
    (format nil "~W" '(1 2 3 4)))
  "(1 2 ...)")
(deftest format-w-5
  (let ((*print-length* 2))
    (format nil "~@W" '(1 2 3 4)))
  "(1 2 3 4)")
(deftest format-w-6
  (let ((*print-level* 1))
    (format nil "~W|~@W" '(1 (2)) '(1 (2))))
  "(1 #)|(1 (2))")

;;; ~C
(deftest format-c-1
  (format nil "~C" #\a)
  "a")
(deftest format-c-2
  (format nil "~C" #\ )
  " ")
(deftest format-c-3
  (format nil "~:C" #\ )
  "Space")
(deftest format-c-4
  (format nil "~:C" #\a)
  "a")
(deftest format-c-5
  (format nil "~:C" #\Newline)
  "Newline")
(deftest format-c-6
  (format nil "~:C" #\Tab)
  "Tab")
(deftest format-c-7
  (format nil "~:C" #\Nul)
  "Nul")
(deftest format-c-8
  (format nil "~:C" #\Rubout)
  "Rubout")
(deftest format-c-9
  (format nil "~@C" #\a)
  "#\\a")
(deftest format-c-10
  (format nil "~@C" #\ )
  "#\\ ")
(deftest format-c-11
  (format nil "~@C" #\Newline)
  "#\\Newline")
(deftest format-c-12
  (format nil "~:@C" #\ )
  "Space")
(deftest format-c-13
  (format nil "~:C" #\Backspace)
  "Backspace")
(deftest format-c-14
  (format nil "~:C" #\Return)
  "Return")
(deftest format-c-15
  (format nil "~@C" #\Soh)
  "#\\Soh")
(deftest format-c-16
  (format nil "~:C" #\Esc)
  "Esc")

;;; ~D ~B ~O ~X
(deftest format-d-1
  (format nil "~D" 12345)
  "12345")
(deftest format-d-2
  (format nil "~D" -12345)
  "-12345")
(deftest format-d-3
  (format nil "~:D" 1234567)
  "1,234,567")
(deftest format-d-4
  (format nil "~:D" -1234567)
  "-1,234,567")
(deftest format-d-5
  (format nil "~@D" 5)
  "+5")
(deftest format-d-6
  (format nil "~@D" -5)
  "-5")
(deftest format-d-7
  (format nil "~:@D" 1234567)
  "+1,234,567")
(deftest format-d-8
  (format nil "~10D|" 42)
  "        42|")
(deftest format-d-9
  (format nil "~10,'0D|" 42)
  "0000000042|")
(deftest format-d-10
  (format nil "~10,'0D|" -42)
  "0000000-42|")
(deftest format-d-11
  (format nil "~,,'.:D" 1234567)
  "1.234.567")
(deftest format-d-12
  (format nil "~,,' ,2:D" 1234567)
  "1 23 45 67")
(deftest format-d-13
  (format nil "~,,,4:D" 123456789)
  "1,2345,6789")
(deftest format-d-14
  (format nil "~:D" 123)
  "123")
(deftest format-d-15
  (format nil "~:D" 1234)
  "1,234")
(deftest format-d-16
  (format nil "~D" 123456789012345678901234567890)
  "123456789012345678901234567890")
(deftest format-d-17
  (format nil "~:D" 123456789012345678901234567890)
  "123,456,789,012,345,678,901,234,567,890")
(deftest format-d-18
  (format nil "~D" 1.5)
  "1.5")
(deftest format-d-19
  (format nil "~D" 'foo)
  "FOO")
(deftest format-d-20
  (format nil "~D" "str")
  "str")
(deftest format-d-21
  (format nil "~D" 1/2)
  "1/2")
(deftest format-d-22
  (format nil "~5D|" 'ab)
  "AB|")
(deftest format-d-23
  (format nil "~10:D|" 1234567)
  " 1,234,567|")
(deftest format-d-24
  (format nil "~v,vD|" 8 #\* 12)
  "******12|")
(deftest format-d-25
  (format nil "~D" 0)
  "0")
(deftest format-d-26
  (format nil "~:@D" 0)
  "+0")
(deftest format-d-27
  (format nil "~@D" 0)
  "+0")
(deftest format-d-28
  (format nil "~3D|" 12345)
  "12345|")
(deftest format-d-29
  (format nil "~D" '(1 2))
  "(1 2)")
(deftest format-d-30
  (format nil "~:D" '(1000 2000))
  "(1000 2000)")
(deftest format-d-31
  (format nil "~d" 7)
  "7")
(deftest format-d-32
  (let ((*print-base* 16))
    (format nil "~D" 255))
  "255")
(deftest format-d-33
  (let ((*print-radix* t))
    (format nil "~D" 255))
  "255")
(deftest format-b-1
  (format nil "~B" 10)
  "1010")
(deftest format-b-2
  (format nil "~B" -10)
  "-1010")
(deftest format-b-3
  (format nil "~:B" 255)
  "11,111,111")
(deftest format-b-4
  (format nil "~8,'0B" 5)
  "00000101")
(deftest format-b-5
  (format nil "~@B" 5)
  "+101")
(deftest format-b-6
  (format nil "~,,' ,4:B" 65535)
  "1111 1111 1111 1111")
(deftest format-b-7
  (format nil "~B" 1.5)
  "1.5")
(deftest format-b-8
  (format nil "~B" 0)
  "0")
(deftest format-o-1
  (format nil "~O" 8)
  "10")
(deftest format-o-2
  (format nil "~O" -64)
  "-100")
(deftest format-o-3
  (format nil "~:O" 16777215)
  "77,777,777")
(deftest format-o-4
  (format nil "~5,'0O" 8)
  "00010")
(deftest format-o-5
  (format nil "~@O" 511)
  "+777")
(deftest format-x-1
  (format nil "~X" 255)
  "FF")
(deftest format-x-2
  (format nil "~X" -255)
  "-FF")
(deftest format-x-3
  (format nil "~:X" 4294967295)
  "FF,FFF,FFF")
(deftest format-x-4
  (format nil "~8,'0X" 48879)
  "0000BEEF")
(deftest format-x-5
  (format nil "~@X" 255)
  "+FF")
(deftest format-x-6
  (format nil "~,,':,2:X" 3735928559)
  "DE:AD:BE:EF")
(deftest format-x-7
  (format nil "~X" 123456789012345678901234567890)
  "18EE90FF6C373E0EE4E3F0AD2")
(deftest format-x-8
  (format nil "~x" 171)
  "AB")
(deftest format-x-9
  (format nil "~X" '(10 11 12))
  "(A B C)")

;;; ~R
(deftest format-r-1
  (format nil "~R" 0)
  "zero")
(deftest format-r-2
  (format nil "~R" 1)
  "one")
(deftest format-r-3
  (format nil "~R" 13)
  "thirteen")
(deftest format-r-4
  (format nil "~R" 20)
  "twenty")
(deftest format-r-5
  (format nil "~R" 21)
  "twenty-one")
(deftest format-r-6
  (format nil "~R" 99)
  "ninety-nine")
(deftest format-r-7
  (format nil "~R" 100)
  "one hundred")
(deftest format-r-8
  (format nil "~R" 101)
  "one hundred one")
(deftest format-r-9
  (format nil "~R" 999)
  "nine hundred ninety-nine")
(deftest format-r-10
  (format nil "~R" 1000)
  "one thousand")
(deftest format-r-11
  (format nil "~R" 1001)
  "one thousand one")
(deftest format-r-12
  (format nil "~R" 1234567)
  "one million two hundred thirty-four thousand five hundred sixty-seven")
(deftest format-r-13
  (format nil "~R" -42)
  "negative forty-two")
(deftest format-r-14
  (format nil "~R" 1000000)
  "one million")
(deftest format-r-15
  (format nil "~R" 1000000000000)
  "one trillion")
(deftest format-r-16
  (format nil "~R" 123456789012345678901234567890)
  "one hundred twenty-three octillion four hundred fifty-six septillion seven hundred eighty-nine sextillion twelve quintillion three hundred forty-five quadrillion six hundred seventy-eight trillion nine hundred one billion two hundred thirty-four million five hundred sixty-seven thousand eight hundred ninety")
(deftest format-r-17
  (format nil "~:R" 0)
  "zeroth")
(deftest format-r-18
  (format nil "~:R" 1)
  "first")
(deftest format-r-19
  (format nil "~:R" 2)
  "second")
(deftest format-r-20
  (format nil "~:R" 3)
  "third")
(deftest format-r-21
  (format nil "~:R" 4)
  "fourth")
(deftest format-r-22
  (format nil "~:R" 11)
  "eleventh")
(deftest format-r-23
  (format nil "~:R" 12)
  "twelfth")
(deftest format-r-24
  (format nil "~:R" 13)
  "thirteenth")
(deftest format-r-25
  (format nil "~:R" 20)
  "twentieth")
(deftest format-r-26
  (format nil "~:R" 21)
  "twenty-first")
(deftest format-r-27
  (format nil "~:R" 22)
  "twenty-second")
(deftest format-r-28
  (format nil "~:R" 100)
  "one hundredth")
(deftest format-r-29
  (format nil "~:R" 101)
  "one hundred first")
(deftest format-r-30
  (format nil "~:R" 111)
  "one hundred eleventh")
(deftest format-r-31
  (format nil "~:R" 112)
  "one hundred twelfth")
(deftest format-r-32
  (format nil "~:R" 1000)
  "one thousandth")
(deftest format-r-33
  (format nil "~:R" 1234)
  "one thousand two hundred thirty-fourth")
(deftest format-r-34
  (format nil "~:R" -3)
  "negative third")
(deftest format-r-35
  (format nil "~:R" 1000000)
  "one millionth")
(deftest format-r-36
  (format nil "~@R" 1)
  "I")
(deftest format-r-37
  (format nil "~@R" 4)
  "IV")
(deftest format-r-38
  (format nil "~@R" 9)
  "IX")
(deftest format-r-39
  (format nil "~@R" 14)
  "XIV")
(deftest format-r-40
  (format nil "~@R" 40)
  "XL")
(deftest format-r-41
  (format nil "~@R" 90)
  "XC")
(deftest format-r-42
  (format nil "~@R" 400)
  "CD")
(deftest format-r-43
  (format nil "~@R" 900)
  "CM")
(deftest format-r-44
  (format nil "~@R" 1999)
  "MCMXCIX")
(deftest format-r-45
  (format nil "~@R" 2024)
  "MMXXIV")
(deftest format-r-46
  (format nil "~@R" 3999)
  "MMMCMXCIX")
(deftest format-r-47
  (format nil "~:@R" 4)
  "IIII")
(deftest format-r-48
  (format nil "~:@R" 9)
  "VIIII")
(deftest format-r-49
  (format nil "~:@R" 1999)
  "MDCCCCLXXXXVIIII")
(deftest format-r-50
  (format nil "~:@R" 4999)
  "MMMMDCCCCLXXXXVIIII")
(deftest format-r-51
  (format nil "~2R" 10)
  "1010")
(deftest format-r-52
  (format nil "~16R" 255)
  "FF")
(deftest format-r-53
  (format nil "~36R" 35)
  "Z")
(deftest format-r-54
  (format nil "~3R" 10)
  "101")
(deftest format-r-55
  (format nil "~16,8,'0R" 255)
  "000000FF")
(deftest format-r-56
  (format nil "~2,,,' ,4:R" 255)
  "1111 1111")
(deftest format-r-57
  (format nil "~8@R" 64)
  "+100")
(deftest format-r-58
  (format nil "~16:R" 65535)
  "F,FFF")
(deftest format-r-59
  (format nil "~r" 5)
  "five")
(deftest format-r-60
  (format nil "~R" 100000000000000000000000000000000000000000000000000000000000000000)
  "one hundred vigintillion")
(deftest format-r-err-1
  (signals-error (format nil "~@R" 0) error)
  t)
(deftest format-r-err-2
  (signals-error (format nil "~@R" 4000) error)
  t)
(deftest format-r-err-3
  (signals-error (format nil "~:@R" 5000) error)
  t)
(deftest format-r-err-4
  (signals-error (format nil "~R" 'x) error)
  t)
(deftest format-r-err-5
  (signals-error (format nil "~R" 1000000000000000000000000000000000000000000000000000000000000000000000) error)
  t)

;;; ~P
(deftest format-p-1
  (format nil "~D item~:P" 1)
  "1 item")
(deftest format-p-2
  (format nil "~D item~:P" 2)
  "2 items")
(deftest format-p-3
  (format nil "~D item~:P" 0)
  "0 items")
(deftest format-p-4
  (format nil "~D famil~:@P" 1)
  "1 family")
(deftest format-p-5
  (format nil "~D famil~:@P" 3)
  "3 families")
(deftest format-p-6
  (format nil "~P" 1)
  "")
(deftest format-p-7
  (format nil "~P" 2)
  "s")
(deftest format-p-8
  (format nil "~@P" 1)
  "y")
(deftest format-p-9
  (format nil "~@P" 5)
  "ies")
(deftest format-p-10
  (format nil "~P" 1.0)
  "s")
(deftest format-p-11
  (format nil "~P" 'x)
  "s")
(deftest format-p-12
  (format nil "~D cat~:P, ~D dog~:P" 1 2)
  "1 cat, 2 dogs")

;;; ~F
(deftest format-f-1
  (format nil "~F" 3.14159)
  "3.14159")
(deftest format-f-2
  (format nil "~F" 1.5d0)
  "1.5")
(deftest format-f-3
  (format nil "~F" 100.0)
  "100.0")
(deftest format-f-4
  (format nil "~F" 0.001)
  "0.001")
(deftest format-f-5
  (format nil "~F" 1.0e10)
  "10000000000.0")
(deftest format-f-6
  (format nil "~F" 1.0d20)
  "100000000000000000000.0")
(deftest format-f-7
  (format nil "~F" 1.0e-5)
  "0.00001")
(deftest format-f-8
  (format nil "~F" -2.5)
  "-2.5")
(deftest format-f-9
  (format nil "~F" 0.0)
  "0.0")
(deftest format-f-10
  (format nil "~F" -0.0)
  "-0.0")
(deftest format-f-11
  (format nil "~,2F" 3.14159)
  "3.14")
(deftest format-f-12
  (format nil "~,2F" 2.675)
  "2.67")
(deftest format-f-13
  (format nil "~,2F" 0.125)
  "0.13")
(deftest format-f-14
  (format nil "~,2F" 0.135)
  "0.14")
(deftest format-f-15
  (format nil "~,2F" 0.005)
  "0.00")
(deftest format-f-16
  (format nil "~,1F" 0.05)
  "0.1")
(deftest format-f-17
  (format nil "~,1F" 0.25)
  "0.3")
(deftest format-f-18
  (format nil "~,1F" 0.35)
  "0.3")
(deftest format-f-19
  (format nil "~,0F" 2.5)
  "3.")
(deftest format-f-20
  (format nil "~,0F" 3.5)
  "4.")
(deftest format-f-21
  (format nil "~,0F" 0.5)
  "1.")
(deftest format-f-22
  (format nil "~,3F" 1.0)
  "1.000")
(deftest format-f-23
  (format nil "~,3F" 123.4567)
  "123.457")
(deftest format-f-24
  (format nil "~10,2F|" 3.14159)
  "      3.14|")
(deftest format-f-25
  (format nil "~10,2F|" -3.14159)
  "     -3.14|")
(deftest format-f-26
  (format nil "~5,2F|" 123.456)
  "123.46|")
(deftest format-f-27
  (format nil "~5,2,,'*F|" 123.456)
  "*****|")
(deftest format-f-28
  (format nil "~3,1,,'#F|" 12.5)
  "###|")
(deftest format-f-29
  (format nil "~10,2,,,'0F|" 3.14159)
  "0000003.14|")
(deftest format-f-30
  (format nil "~@F" 2.5)
  "+2.5")
(deftest format-f-31
  (format nil "~10,2@F|" 2.5)
  "     +2.50|")
(deftest format-f-32
  (format nil "~,2,2F" 3.14159)
  "314.16")
(deftest format-f-33
  (format nil "~,2,-1F" 314.159)
  "31.42")
(deftest format-f-34
  (format nil "~4F|" 3.14159)
  "3.14|")
(deftest format-f-35
  (format nil "~4F|" 31.4159)
  "31.4|")
(deftest format-f-36
  (format nil "~4F|" 314.159)
  "314.|")
(deftest format-f-37
  (format nil "~2F|" 0.5)
  ".5|")
(deftest format-f-38
  (format nil "~1F|" 0.5)
  ".5|")
(deftest format-f-39
  (format nil "~3F|" 0.05)
  ".05|")
(deftest format-f-40
  (format nil "~6F|" 1.5)
  "   1.5|")
(deftest format-f-41
  (format nil "~F" 1/3)
  "0.33333334")
(deftest format-f-42
  (format nil "~,3F" 1/3)
  "0.333")
(deftest format-f-43
  (format nil "~F" 10)
  "10.0")
(deftest format-f-44
  (format nil "~,2F" 10)
  "10.00")
(deftest format-f-45
  (format nil "~F" 'abc)
  "ABC")
(deftest format-f-46
  (format nil "~8F|" 'abc)
  "ABC     |")
(deftest format-f-47
  (format nil "~F" (complex 1 2))
  "#C(1 2)")
(deftest format-f-48
  (format nil "~,5F" 0.001d0)
  "0.00100")
(deftest format-f-49
  (format nil "~,2F" 1.0d-10)
  "0.00")
(deftest format-f-50
  (format nil "~,2F" 999.995)
  "999.99")
(deftest format-f-51
  (format nil "~,2F" 9.995)
  "9.99")
(deftest format-f-52
  (format nil "~,1F" 9.96)
  "10.0")
(deftest format-f-53
  (format nil "~F" 1.2345679e8)
  "123456790.0")
(deftest format-f-54
  (format nil "~F" 1.23456789d8)
  "123456789.0")
(deftest format-f-55
  (format nil "~,4F" 1.00005)
  "1.0000")
(deftest format-f-56
  (format nil "~,10F" 0.1)
  "0.1000000000")
(deftest format-f-57
  (format nil "~,10F" 0.1d0)
  "0.1000000000")
(deftest format-f-58
  (format nil "~,20F" 0.1d0)
  "0.10000000000000000000")
(deftest format-f-59
  (format nil "~F" 1.0d-7)
  "0.0000001")
(deftest format-f-60
  (format nil "~F" most-positive-single-float)
  "340282350000000000000000000000000000000.0")
(deftest format-f-61
  (format nil "~,2F" 1234567.891d0)
  "1234567.89")
(deftest format-f-62
  (format nil "~7,3F|" 2.0)
  "  2.000|")
(deftest format-f-63
  (format nil "~7,3F|" -2.0)
  " -2.000|")
(deftest format-f-64
  (format nil "~1,1F|" 0.95)
  ".9|")
(deftest format-f-65
  (format nil "~0,0F|" 0.4)
  ".|")
(deftest format-f-66
  (format nil "~,0F" 0.4)
  "0.")
(deftest format-f-67
  (format nil "~,0F" 10.0)
  "10.")

;;; ~E
(deftest format-e-1
  (format nil "~E" 3.14159)
  "3.14159e+0")
(deftest format-e-2
  (format nil "~E" 1.5d0)
  "1.4999999999999997d+0")
(deftest format-e-3
  (format nil "~E" 0.001)
  "1.0e-3")
(deftest format-e-4
  (format nil "~E" 1.0e10)
  "1.0e+10")
(deftest format-e-5
  (format nil "~E" 1.0d-10)
  "1.0d-10")
(deftest format-e-6
  (format nil "~E" -2.5)
  "-2.5e+0")
(deftest format-e-7
  (format nil "~E" 0.0)
  "0.0e+0")
(deftest format-e-8
  (format nil "~E" 100.0)
  "1.0e+2")
(deftest format-e-9
  (format nil "~E" 1.0)
  "1.0e+0")
(deftest format-e-10
  (format nil "~E" 123456.0)
  "1.23456e+5")
(deftest format-e-11
  (format nil "~,2E" 3.14159)
  "3.14e+0")
(deftest format-e-12
  (format nil "~,2E" 3.14159e-4)
  "3.14e-4")
(deftest format-e-13
  (format nil "~,2,2E" 3.14159)
  "3.14e+00")
(deftest format-e-14
  (format nil "~,2,3E" 3.14159e20)
  "3.14e+020")
(deftest format-e-15
  (format nil "~10,2E|" 3.14159)
  "   3.14e+0|")
(deftest format-e-16
  (format nil "~12,3,2E|" -3.14159)
  "  -3.142e+00|")
(deftest format-e-17
  (format nil "~,2,,2E" 3.14159)
  "31.4e-1")
(deftest format-e-18
  (format nil "~,2,,0E" 3.14159)
  "0.31e+1")
(deftest format-e-19
  (format nil "~,2,,-1E" 3.14159)
  "0.03e+2")
(deftest format-e-20
  (format nil "~,3,,3E" 3.14159)
  "314.2e-2")
(deftest format-e-21
  (format nil "~,2,,,,,'dE" 3.14159)
  "3.14d+0")
(deftest format-e-22
  (format nil "~@E" 3.14159)
  "+3.14159e+0")
(deftest format-e-23
  (format nil "~8,2,1,,'*E|" 3.14159e20)
  "********|")
(deftest format-e-24
  (format nil "~8,2,1,,'*E|" 3.14159d200)
  "********|")
(deftest format-e-25
  (format nil "~5,2,,,'*E|" 314159.0)
  "*****|")
(deftest format-e-26
  (format nil "~E" 1/4)
  "2.5e-1")
(deftest format-e-27
  (format nil "~E" 5)
  "5.0e+0")
(deftest format-e-28
  (format nil "~E" 'abc)
  "ABC")
(deftest format-e-29
  (format nil "~,4E" 1.0d100)
  "1.0000d+100")
(deftest format-e-30
  (format nil "~E" 1.0d100)
  "1.0d+100")
(deftest format-e-31
  (format nil "~E" 1.0e-30)
  "1.0e-30")
(deftest format-e-32
  (format nil "~,1E" 0.05)
  "5.0e-2")
(deftest format-e-33
  (format nil "~,1E" 9.96)
  "10.0e+0")
(deftest format-e-34
  (format nil "~,0E" 3.5)
  "3.e+0")
(deftest format-e-35
  (format nil "~E" 9.999999)
  "9.999999e+0")
(deftest format-e-36
  (format nil "~,2E" 9.999)
  "10.00e+0")
(deftest format-e-37
  (format nil "~15,4,3,2,'x,'_,'EE|" 12345.678)
  "____12.346E+003|")
(deftest format-e-38
  (format nil "~,2,,,,,'xE" 100000.0d0)
  "1.00x+5")
(deftest format-e-39
  (format nil "~E" 1.2345678d7)
  "1.2345678d+7")
(deftest format-e-40
  (format nil "~9,2E|" 1.0)
  "  1.00e+0|")

;;; ~G
(deftest format-g-1
  (format nil "~G" 3.14159)
  "3.14159    ")
(deftest format-g-2
  (format nil "~G" 1.5d0)
  "1.5    ")
(deftest format-g-3
  (format nil "~G" 0.001)
  "1.000e-3")
(deftest format-g-4
  (format nil "~G" 1.0e10)
  "10000000000.    ")
(deftest format-g-5
  (format nil "~G" 100.0)
  "100.    ")
(deftest format-g-6
  (format nil "~G" 123456.0)
  "123456.    ")
(deftest format-g-7
  (format nil "~G" 1234567.0)
  "1234567.    ")
(deftest format-g-8
  (format nil "~G" 1.2345678e7)
  "12345678.    ")
(deftest format-g-9
  (format nil "~G" 0.1)
  "0.1    ")
(deftest format-g-10
  (format nil "~G" 0.01)
  "1.00e-2")
(deftest format-g-11
  (format nil "~G" 1.0)
  "1.    ")
(deftest format-g-12
  (format nil "~G" 0.0)
  "0.    ")
(deftest format-g-13
  (format nil "~,2G" 3.14159)
  "3.1    ")
(deftest format-g-14
  (format nil "~10,2G|" 3.14159)
  "   3.1    |")
(deftest format-g-15
  (format nil "~10,2G|" 1.0e10)
  "  1.00e+10|")
(deftest format-g-16
  (format nil "~G" 1/3)
  "0.33333334    ")
(deftest format-g-17
  (format nil "~G" 42)
  "42.    ")
(deftest format-g-18
  (format nil "~G" 'abc)
  "ABC")
(deftest format-g-19
  (format nil "~@G" 2.5)
  "+2.5    ")
(deftest format-g-20
  (format nil "~,3,2G" 1234.5)
  "1.235e+03")
(deftest format-g-21
  (format nil "~G" -0.5)
  "-0.5    ")

;;; ~$
(deftest format-dollar-1
  (format nil "~$" 3.14159)
  "3.14")
(deftest format-dollar-2
  (format nil "~$" 1)
  "1.00")
(deftest format-dollar-3
  (format nil "~$" 0.005)
  "0.00")
(deftest format-dollar-4
  (format nil "~$" -2.5)
  "-2.50")
(deftest format-dollar-5
  (format nil "~3$" 3.14159)
  "3.142")
(deftest format-dollar-6
  (format nil "~,3$" 3.14159)
  "003.14")
(deftest format-dollar-7
  (format nil "~2,3$" 3.14159)
  "003.14")
(deftest format-dollar-8
  (format nil "~2,3,10$|" 3.14159)
  "    003.14|")
(deftest format-dollar-9
  (format nil "~2,3,10,'*$|" 3.14159)
  "****003.14|")
(deftest format-dollar-10
  (format nil "~@$" 3.14159)
  "+3.14")
(deftest format-dollar-11
  (format nil "~:@$" 3.14159)
  "+3.14")
(deftest format-dollar-12
  (format nil "~2,1,10:$|" -3.5)
  "-     3.50|")
(deftest format-dollar-13
  (format nil "~2,1,10$|" -3.5)
  "     -3.50|")
(deftest format-dollar-14
  (format nil "~$" 'abc)
  "ABC")
(deftest format-dollar-15
  (format nil "~$" 1234567.9)
  "1234567.90")
(deftest format-dollar-16
  (format nil "~$" 1/3)
  "0.33")
(deftest format-dollar-17
  (format nil "~0$" 2.5)
  "3.")
(deftest format-dollar-18
  (format nil "~$" 100.0d0)
  "100.00")
(deftest format-dollar-19
  (format nil "~10$|" 1.5)
  "1.5000000000|")
(deftest format-dollar-20
  (format nil "~,,8$|" 1.5)
  "    1.50|")

;;; ~% ~& ~| ~~ and ~newline
(deftest format-layout-1
  (format nil "a~%b")
  "a
b")
(deftest format-layout-2
  (format nil "a~3%b")
  "a


b")
(deftest format-layout-3
  (format nil "a~0%b")
  "ab")
(deftest format-layout-4
  (format nil "~&a")
  "a")
(deftest format-layout-5
  (format nil "x~&a")
  "x
a")
(deftest format-layout-6
  (format nil "x~%~&a")
  "x
a")
(deftest format-layout-7
  (format nil "x~2&a")
  "x

a")
(deftest format-layout-8
  (format nil "~2&a")
  "
a")
(deftest format-layout-9
  (format nil "~0&a")
  "a")
(deftest format-layout-10
  (format nil "a~|b")
  "ab")
(deftest format-layout-11
  (format nil "a~2|b")
  "ab")
(deftest format-layout-12
  (format nil "~~")
  "~")
(deftest format-layout-13
  (format nil "~3~")
  "~~~")
(deftest format-layout-14
  (format nil "a~
           b")
  "ab")
(deftest format-layout-15
  (format nil "a~:
           b")
  "a           b")
(deftest format-layout-16
  (format nil "a~@
           b")
  "a
b")
(deftest format-layout-17
  (format nil "a ~
   	b c")
  "a b c")
(deftest format-layout-18
  (format nil "~vD~~" 3 1)
  "  1~")
(deftest format-layout-19
  (format nil "~v%" 2)
  "

")
(deftest format-layout-20
  (format nil "~v~" 2)
  "~~")
(deftest format-layout-21
  (let ((s (make-string-output-stream)))
    (write-string "abc" s)
    (format s "~&x")
    (get-output-stream-string s))
  "abc
x")
(deftest format-layout-22
  (let ((s (make-string-output-stream)))
    (write-string "abc" s)
    (terpri s)
    (format s "~&x")
    (get-output-stream-string s))
  "abc
x")
(deftest format-layout-err-1
  (signals-error (format nil "~:%") error)
  t)
(deftest format-layout-err-2
  (signals-error (format nil "~@%") error)
  t)
(deftest format-layout-err-3
  (signals-error (format nil "~:&") error)
  t)
(deftest format-layout-err-4
  (signals-error (format nil "~:|") error)
  t)
(deftest format-layout-err-5
  (signals-error (format nil "~@~") error)
  t)
(deftest format-layout-err-6
  (signals-error (format nil "~:@
  x") error)
  t)

;;; ~T
(deftest format-t-1
  (format nil "a~10Tb")
  "a         b")
(deftest format-t-2
  (format nil "abcdefghijkl~10Tb")
  "abcdefghijkl b")
(deftest format-t-3
  (format nil "abcdefghijkl~10,4Tb")
  "abcdefghijkl  b")
(deftest format-t-4
  (format nil "~5Tb")
  "     b")
(deftest format-t-5
  (format nil "ab~0Tc")
  "ab c")
(deftest format-t-6
  (format nil "ab~2Tc")
  "ab c")
(deftest format-t-7
  (format nil "abc~2,3Tc")
  "abc  c")
(deftest format-t-8
  (format nil "a~3@Tb")
  "a   b")
(deftest format-t-9
  (format nil "a~3,5@Tb")
  "a    b")
(deftest format-t-10
  (format nil "abcd~3,5@Tb")
  "abcd      b")
(deftest format-t-11
  (format nil "~@Tb")
  " b")
(deftest format-t-12
  (format nil "a~0,4@Tb")
  "a   b")
(deftest format-t-13
  (format nil "a~%b~5Tc")
  "a
b    c")
(deftest format-t-14
  (format nil "~A~8T~A~16T~A" 'name 'age 'city)
  "NAME    AGE     CITY")
(deftest format-t-15
  (format nil "abcdefghij~5,0Tx")
  "abcdefghijx")
(deftest format-t-16
  (format nil "~:Tx")
  "x")
(deftest format-t-17
  (format nil "x~:@Ty")
  "xy")
(deftest format-t-18
  (let ((s (make-string-output-stream)))
    (write-string "xyz" s)
    (format s "~6Ta")
    (get-output-stream-string s))
  "xyz   a")

;;; ~*
(deftest format-star-1
  (format nil "~A ~* ~A" 1 2 3)
  "1  3")
(deftest format-star-2
  (format nil "~A ~2* ~A" 1 2 3 4)
  "1  4")
(deftest format-star-3
  (format nil "~A ~:* ~A" 1)
  "1  1")
(deftest format-star-4
  (format nil "~A ~A ~2:*~A ~A" 1 2)
  "1 2 1 2")
(deftest format-star-5
  (format nil "~A ~A ~@*~A" 1 2)
  "1 2 1")
(deftest format-star-6
  (format nil "~A ~A ~1@*~A" 1 2)
  "1 2 2")
(deftest format-star-7
  (format nil "~A ~0*~A" 1 2)
  "1 2")
(deftest format-star-8
  (format nil "~{~A~*~^ ~}" '(1 2 3 4))
  "1 3")
(deftest format-star-9
  (format nil "~A~:*~S" "x")
  "x\"x\"")
(deftest format-star-10
  (format nil "~3@*~A ~0@*~A" 1 2 3 4)
  "4 1")
(deftest format-star-err-1
  (signals-error (format nil "~*") error)
  t)
(deftest format-star-err-2
  (signals-error (format nil "~:*") error)
  t)
(deftest format-star-err-3
  (signals-error (format nil "~5@*" 1) error)
  t)
(deftest format-star-err-4
  (signals-error (format nil "~:@*" 1) error)
  t)
(deftest format-star-err-5
  (signals-error (format nil "~A ~2:*" 1) error)
  t)

;;; ~?
(deftest format-indirect-1
  (format nil "~? ~D" "<~A ~A>" '(1 2) 3)
  "<1 2> 3")
(deftest format-indirect-2
  (format nil "~@? ~D" "<~A ~A>" 1 2 3)
  "<1 2> 3")
(deftest format-indirect-3
  (format nil "~?" "~~" nil)
  "~")
(deftest format-indirect-4
  (format nil "~?" "abc" '(1 2))
  "abc")
(deftest format-indirect-5
  (format nil "~@?" "~A" 1 2)
  "1")
(deftest format-indirect-6
  (format nil "~{~?~}" '("~A" (1) "~A~A" (2 3)))
  "123")
(deftest format-indirect-7
  (format nil "~? ~A" (formatter "[~A]") '(1) 2)
  "[1] 2")
(deftest format-indirect-err-1
  (signals-error (format nil "~? ~D" "~A~A" '(1) 2) error)
  t)
(deftest format-indirect-err-2
  (signals-error (format nil "~?" "~A") error)
  t)
(deftest format-indirect-err-3
  (signals-error (format nil "~:?" "x" nil) error)
  t)

;;; ~( ~)
(deftest format-case-1
  (format nil "~(HELLO World~)")
  "hello world")
(deftest format-case-2
  (format nil "~:(hello wORLD foo-bar~)")
  "Hello World Foo-Bar")
(deftest format-case-3
  (format nil "~@(hello WORLD~)")
  "Hello world")
(deftest format-case-4
  (format nil "~:@(hello world~)")
  "HELLO WORLD")
(deftest format-case-5
  (format nil "~(~A~)" 'foo)
  "foo")
(deftest format-case-6
  (format nil "~:(~A~)" '(a-b c1d |2E|))
  "(A-B C1d 2e)")
(deftest format-case-7
  (format nil "~@(~A~)" "  hELLO there")
  "  Hello there")
(deftest format-case-8
  (format nil "~@(123abc DEF~)")
  "123abc def")
(deftest format-case-9
  (format nil "~:(123abc dEF-ghi~)")
  "123abc Def-Ghi")
(deftest format-case-10
  (format nil "~(~A ~S~)" 'ab "CD")
  "ab \"cd\"")
(deftest format-case-11
  (format nil "x~(~:@(ab~) cD~)y")
  "xab cdy")
(deftest format-case-12
  (format nil "~:@(~R~)" 12)
  "TWELVE")
(deftest format-case-13
  (format nil "~@(~R~) apple~:P" 3 3)
  "Three apples")
(deftest format-case-14
  (format nil "~:(~A~)" "")
  "")
(deftest format-case-15
  (format nil "~@(~A~)" "élan ÉTÉ")
  "Élan été")
(deftest format-case-16
  (format nil "~:(o'neil mc-donald~)")
  "O'Neil Mc-Donald")

;;; ~[ ~; ~]
(deftest format-cond-1
  (format nil "~[zero~;one~;two~]" 0)
  "zero")
(deftest format-cond-2
  (format nil "~[zero~;one~;two~]" 1)
  "one")
(deftest format-cond-3
  (format nil "~[zero~;one~;two~]" 2)
  "two")
(deftest format-cond-4
  (format nil "~[zero~;one~;two~]" 3)
  "")
(deftest format-cond-5
  (format nil "~[zero~;one~:;other~]" 5)
  "other")
(deftest format-cond-6
  (format nil "~[zero~;one~:;other~]" 1)
  "one")
(deftest format-cond-7
  (format nil "~[zero~;one~:;other~]" -1)
  "other")
(deftest format-cond-8
  (format nil "~1[zero~;one~]")
  "one")
(deftest format-cond-9
  (format nil "~v[zero~;one~]" 1)
  "one")
(deftest format-cond-10
  (format nil "~#[none~;one~;two~:;many~]" 1 2)
  "two")
(deftest format-cond-11
  (format nil "~#[none~;one~;two~:;many~]")
  "none")
(deftest format-cond-12
  (format nil "~#[none~;one~;two~:;many~]" 1 2 3 4)
  "many")
(deftest format-cond-13
  (format nil "~:[false~;true~]" nil)
  "false")
(deftest format-cond-14
  (format nil "~:[false~;true~]" 5)
  "true")
(deftest format-cond-15
  (format nil "~@[x=~A~]" 5)
  "x=5")
(deftest format-cond-16
  (format nil "~@[x=~A~]" nil)
  "")
(deftest format-cond-17
  (format nil "~@[x=~A ~]~A" nil 2)
  "2")
(deftest format-cond-18
  (format nil "~@[~A~]~A" 1 2)
  "12")
(deftest format-cond-19
  (format nil "~[~]" 0)
  "")
(deftest format-cond-20
  (format nil "~[a~]" 1)
  "")
(deftest format-cond-21
  (format nil "~:[~;~A~]" t 'x)
  "X")
(deftest format-cond-22
  (format nil "~[a~;b~:;c~]" 100)
  "c")
(deftest format-cond-23
  (format nil "~[a~;~A~;c~]" 1 'x)
  "X")
(deftest format-cond-24
  (format nil "~:[~A~;~A~]" nil 1)
  "1")
(deftest format-cond-25
  (format nil "~[~;~]" 0)
  "")
(deftest format-cond-26
  (format nil "~[a~;b~:;c~;d~]" 1)
  "b")
(deftest format-cond-27
  (format nil "~0[a~;b~]" 5)
  "a")
(deftest format-cond-err-1
  (signals-error (format nil "~[a~;b~]" 'x) error)
  t)
(deftest format-cond-err-2
  (signals-error (format nil "~:[a~]" nil) error)
  t)
(deftest format-cond-err-3
  (signals-error (format nil "~@[a~;b~]" nil) error)
  t)
(deftest format-cond-err-4
  (signals-error (format nil "~[a") error)
  t)
(deftest format-cond-err-5
  (signals-error (format nil "a~]") error)
  t)
(deftest format-cond-err-6
  (signals-error (format nil "~:@[a~;b~]" nil) error)
  t)
(deftest format-cond-err-7
  (signals-error (format nil "a~;b") error)
  t)

;;; ~{ ~}
(deftest format-iter-1
  (format nil "~{~A~^, ~}" '(1 2 3))
  "1, 2, 3")
(deftest format-iter-2
  (format nil "~{~A~}" nil)
  "")
(deftest format-iter-3
  (format nil "~:{~A=~A~^; ~}" '((a 1) (b 2)))
  "A=1B=2")
(deftest format-iter-4
  (format nil "~@{~A~^-~}" 1 2 3)
  "1-2-3")
(deftest format-iter-5
  (format nil "~:@{<~A ~A>~}" '(1 2) '(3 4))
  "<1 2><3 4>")
(deftest format-iter-6
  (format nil "~1{~A~}" '(1 2 3))
  "1")
(deftest format-iter-7
  (format nil "~2{~A~}" '(1 2 3))
  "12")
(deftest format-iter-8
  (format nil "~0{~A~}" '(1 2))
  "")
(deftest format-iter-9
  (format nil "~{x~:}" nil)
  "x")
(deftest format-iter-10
  (format nil "~{~}" "~A " '(1 2))
  "1 2 ")
(deftest format-iter-11
  (format nil "~@{~}" "<~A>" 1 2)
  "<1><2>")
(deftest format-iter-12
  (format nil "~:{~A~:^, ~}" '((1) (2) (3)))
  "1, 2, 3")
(deftest format-iter-13
  (format nil "~:{~A~^~A~}" '((1) (2 3)))
  "123")
(deftest format-iter-14
  (format nil "~{~A ~A~^; ~}" '(1 2 3 4))
  "1 2; 3 4")
(deftest format-iter-15
  (format nil "~{~{~A~}~^/~}" '((1 2) (3)))
  "12/3")
(deftest format-iter-16
  (format nil "~{~#[~;~A~;~A and ~A~:;~@{~A~#[~;, and ~:;, ~]~}~]~}" '(1 2 3))
  "1, 2, and 3")
(deftest format-iter-17
  (format nil "~{~A~^ ~}|~A" '(1 2) 3)
  "1 2|3")
(deftest format-iter-18
  (format nil "~@{~A~}")
  "")
(deftest format-iter-19
  (format nil "~v{~A~}" 2 '(1 2 3))
  "12")
(deftest format-iter-20
  (format nil "~{~A~0^~A~}" '(1 2 3))
  "1")
(deftest format-iter-21
  (format nil "~{~A~1,1^~A~}" '(1 2))
  "1")
(deftest format-iter-22
  (format nil "~{~A~1,2^~A~}" '(1 2 3 4))
  "1234")
(deftest format-iter-23
  (format nil "~{~A~1,2,3^~A~}" '(1 2))
  "1")
(deftest format-iter-24
  (format nil "~{~A~3,2,1^~A~}" '(1 2 3 4))
  "1234")
(deftest format-iter-25
  (format nil "~:{~A~}" '((1 2) (3 4)))
  "13")
(deftest format-iter-26
  (format nil "~{~:[no~;yes~]~^,~}" '(nil t nil))
  "no,yes,no")
(deftest format-iter-27
  (format nil "~{~S~^ ~}" '("a" b #\c))
  "\"a\" B #\\c")
(deftest format-iter-28
  (format nil "~:@{~A~:^,~}" '(1) '(2) '(3))
  "1,2,3")
(deftest format-iter-29
  (format nil "~{ ~A~}" '(1))
  " 1")
(deftest format-iter-30
  (format nil "~{~A~^ ~:*~A~*~^ ~}" '(1 2 3))
  "1 1 3")
(deftest format-iter-err-1
  (signals-error (format nil "~{~A~:}" nil) error)
  t)
(deftest format-iter-err-2
  (signals-error (format nil "~{~A" '(1)) error)
  t)
(deftest format-iter-err-3
  (signals-error (format nil "~}") error)
  t)
(deftest format-iter-err-4
  (signals-error (format nil "~{~A~}" 5) error)
  t)
(deftest format-iter-err-5
  (signals-error (format nil "~:{~A~}" '(1 2)) error)
  t)
(deftest format-iter-err-6
  (signals-error (format nil "~:{~A~:}" nil) error)
  t)
(deftest format-iter-err-7
  (signals-error (format nil "~:^") error)
  t)

;;; ~^ outside iteration
(deftest format-up-1
  (format nil "~A~^ ~A" 1)
  "1")
(deftest format-up-2
  (format nil "~A~^ ~A" 1 2)
  "1 2")
(deftest format-up-3
  (format nil "a~^b")
  "a")
(deftest format-up-4
  (format nil "~A ~A~^ ~A" 1 2)
  "1 2")
(deftest format-up-5
  (format nil "~#^x")
  "")
(deftest format-up-6
  (format nil "~2,2^x")
  "")
(deftest format-up-7
  (format nil "~1,2^x")
  "x")
(deftest format-up-8
  (format nil "~[a~^b~;c~]d" 0)
  "a")
(deftest format-up-9
  (format nil "~(ab~^cd~)ef")
  "ab")
(deftest format-up-10
  (format nil "~@(xy~^z~)")
  "Xy")

;;; ~< ~> justification
(deftest format-just-1
  (format nil "~10<foo~;bar~>")
  "foo    bar")
(deftest format-just-2
  (format nil "~10:<foo~;bar~>")
  "  foo  bar")
(deftest format-just-3
  (format nil "~10@<foo~;bar~>")
  "foo  bar  ")
(deftest format-just-4
  (format nil "~10:@<foo~;bar~>")
  " foo bar  ")
(deftest format-just-5
  (format nil "~10<foobar~>")
  "    foobar")
(deftest format-just-6
  (format nil "~10:<foobar~>")
  "    foobar")
(deftest format-just-7
  (format nil "~10@<foobar~>")
  "foobar    ")
(deftest format-just-8
  (format nil "~10:@<foobar~>")
  "  foobar  ")
(deftest format-just-9
  (format nil "~15<~A~;~A~;~A~>" 'a 'b 'c)
  "A      B      C")
(deftest format-just-10
  (format nil "~3<abcdef~>")
  "abcdef")
(deftest format-just-11
  (format nil "~10,5<abcdefghijkl~>")
  "   abcdefghijkl")
(deftest format-just-12
  (format nil "~5,,2<a~;b~>")
  "a   b")
(deftest format-just-13
  (format nil "~12,,,'*<a~;b~;c~>")
  "a****b*****c")
(deftest format-just-14
  (format nil "~<abc~>")
  "abc")
(deftest format-just-15
  (format nil "~<a~;b~>")
  "ab")
(deftest format-just-16
  (format nil "~10<~A~^~;~A~>" 1)
  "")
(deftest format-just-17
  (format nil "~20<~A~;~A~^~;~A~>" 1 2)
  "                   1")
(deftest format-just-18
  (format nil "~%;; ~{~<~%;; ~1:;~A~>~^,~}.~%" '(a b c))
  "
;; A,B,C.
")
(deftest format-just-19
  (format nil "~10<~>")
  "          ")
(deftest format-just-20
  (format nil "~v<~A~>" 6 'x)
  "     X")
(deftest format-just-21
  (format nil "~6,,,'-<~A~>" 'x)
  "-----X")
(deftest format-just-22
  (format nil "~@<~A~>" 'x)
  "X")
(deftest format-just-23
  (format nil "~<~%* ~5,20:;~A ~A ~A ~A ~A~>" 'aaaa 'bbbb 'cccc 'dddd 'eeee)
  "
* AAAA BBBB CCCC DDDD EEEE")
(deftest format-just-24
  (format nil "~<~%* ~5,30:;~A ~A~>" 'aaaa 'bbbb)
  "AAAA BBBB")
(deftest format-just-25
  (format nil "~30<~A~;~A~>" "left" "right")
  "left                     right")
(deftest format-just-26
  (format nil "~30:<~A~>" "centered?")
  "                     centered?")
(deftest format-just-27
  (format nil "~30:@<~A~>" "centered")
  "           centered           ")
(deftest format-just-28
  (format nil "~4,3,1<~A~;~A~>" 'ab 'cd)
  "AB   CD")
(deftest format-just-err-1
  (signals-error (format nil "~<~W~>" 1) error)
  t)
(deftest format-just-err-2
  (signals-error (format nil "~<a~_b~>") error)
  t)
(deftest format-just-err-3
  (signals-error (format nil "~<a~@>") error)
  t)
(deftest format-just-err-4
  (signals-error (format nil "~<abc") error)
  t)
(deftest format-just-err-5
  (signals-error (format nil "abc~>") error)
  t)

;;; ~< ~:> logical blocks (print-pretty nil)
(deftest format-block-1
  (format nil "~<~A ~A~:>" '(1 2))
  "1 2")
(deftest format-block-2
  (format nil "~:<~A ~A~:>" '(1 2))
  "(1 2)")
(deftest format-block-3
  (format nil "~<[~;~A ~A~;]~:>" '(1 2))
  "[1 2]")
(deftest format-block-4
  (format nil "~@<~A ~A~:>" 1 2)
  "1 2")
(deftest format-block-5
  (format nil "~<~A~:>" 5)
  "5")
(deftest format-block-6
  (format nil "~<~A ~A~:>" '(1 2 . 3))
  "1 2")
(deftest format-block-7
  (format nil "~<~@{~A~^ ~}~:>" '(1 2 3))
  "1 2 3")
(deftest format-block-8
  (format nil "~:<~@{~A~^ ~}~:>" nil)
  "()")
(deftest format-block-9
  (format nil "~<a~_b~:>" nil)
  "ab")
(deftest format-block-10
  (format nil "~<a~:_b~:>" nil)
  "ab")
(deftest format-block-11
  (format nil "~<a~:@_b~:>" nil)
  "ab")
(deftest format-block-12
  (format nil "~<~A~^ ~A~:>" '(1))
  "1")
(deftest format-block-13
  (format nil "~<~;~A~;~:>" '(x))
  "X")
(deftest format-block-14
  (format nil "~@<~A~:@_~A~:>" 1 2)
  "12")
(deftest format-block-15
  (format nil "~@:<~A ~A~:>" 1 2)
  "(1 2)")
(deftest format-block-16
  (let ((*print-length* 2))
    (format nil "~<~@{~A~^ ~}~:>" '(1 2 3 4)))
  "1 2 ...")
(deftest format-block-17
  (format nil "~<~A ~A~:>~A" '(1 2) 3)
  "1 23")
(deftest format-block-18
  (format nil "~:<~W~:>" '(x))
  "(X)")
(deftest format-block-19
  (format nil "~<~A~2I ~A~:>" '(1 2))
  "1 2")
(deftest format-block-20
  (format nil "~<~A~:I ~A~:>" '(1 2))
  "1 2")
(deftest format-block-err-1
  (signals-error (format nil "~1<~A~:>" '(1)) error)
  t)
(deftest format-block-err-2
  (signals-error (format nil "~<a~;~A~;b~;c~:>" '(1)) error)
  t)
(deftest format-block-err-3
  (signals-error (format nil "~<~A~;~A~;b~:>" '(1)) error)
  t)
(deftest format-block-err-4
  (signals-error (format nil "~<~A~:>" 'nil) error)
  t)

;;; pretty printing directives with *print-pretty* t
(deftest format-pretty-1
  (let ((*print-pretty* t))
    (format nil "~<a~:@_b~:>" nil))
  "a
b")
(deftest format-pretty-2
  (let ((*print-pretty* t))
    (format nil "~:<a~:@_b~:>" nil))
  "(a
 b)")
(deftest format-pretty-3
  (let ((*print-pretty* t) (*print-right-margin* 20))
    (format nil "~<~@{~A~^ ~_~}~:>" '(aaaa bbbb cccc dddd eeee ffff)))
  "AAAA
BBBB
CCCC
DDDD
EEEE
FFFF")
(deftest format-pretty-4
  (let ((*print-pretty* t) (*print-right-margin* 20))
    (format nil "~<~@{~A~^ ~:_~}~:>" '(aaaa bbbb cccc dddd eeee ffff)))
  "AAAA BBBB CCCC DDDD
EEEE FFFF")
(deftest format-pretty-5
  (let ((*print-pretty* t) (*print-right-margin* 20))
    (format nil "~:<~@{~A~^ ~:_~}~:>" '(aaaa bbbb cccc dddd eeee ffff)))
  "(AAAA BBBB CCCC
 DDDD EEEE FFFF)")
(deftest format-pretty-6
  (let ((*print-pretty* t) (*print-right-margin* 20))
    (format nil "~@<~@{~A~^ ~}~:@>" 'aaaa 'bbbb 'cccc 'dddd 'eeee 'ffff))
  "AAAA BBBB CCCC DDDD
EEEE FFFF")
(deftest format-pretty-7
  (let ((*print-pretty* t) (*print-right-margin* 20))
    (format nil "~<;; ~@;~@{~A~^ ~}~:@>" '(aaaa bbbb cccc dddd eeee ffff)))
  ";; AAAA BBBB CCCC
;; DDDD EEEE FFFF")
(deftest format-pretty-8
  (let ((*print-pretty* t) (*print-right-margin* 30))
    (format nil "~<(~;~A ~2I~_~A ~_~A~;)~:>" '(defun foo (x y))))
  "(DEFUN FOO (X Y))")
(deftest format-pretty-9
  (let ((*print-pretty* t) (*print-right-margin* 10))
    (format nil "~<(~;~A ~:I~_~A ~_~A~;)~:>" '(abcd efgh ijkl)))
  "(ABCD
      EFGH
      IJKL)")
(deftest format-pretty-10
  (let ((*print-pretty* t) (*print-right-margin* 12))
    (format nil "~<~A ~@_~A ~@_~A~:>" '(aaaa bbbb cccc)))
  "AAAA BBBB CCCC")
(deftest format-pretty-11
  (let ((*print-pretty* t) (*print-right-margin* 20))
    (format nil "~<~A~:@_~A~:>" '(aaaa bbbb)))
  "AAAA
BBBB")
(deftest format-pretty-12
  (let ((*print-pretty* t))
    (format nil "~:<~W~^ ~W~:>" '(a b)))
  "(A B)")
(deftest format-pretty-13
  (let ((*print-pretty* t) (*print-right-margin* 15))
    (format nil "x~:<~@{~W~^ ~_~}~:>" '(aaaaa bbbbb ccccc)))
  "x(AAAAA
  BBBBB
  CCCCC)")
(deftest format-pretty-14
  (let ((*print-pretty* t))
    (format nil "~@<~A~:>" "a
b"))
  "a
b")
(deftest format-pretty-15
  (let ((*print-pretty* t))
    (format nil "~@<>> ~@;~A~:>" "a
b"))
  ">> a
>> b")

;;; ~/name/
(defun fmt-test-fn (stream arg colon at &rest params)
  (format stream "[~A ~A ~A ~S]" arg colon at params))
(deftest format-slash-1
  (format nil "~/fmt-test-fn/" 1)
  "[1 NIL NIL NIL]")
(deftest format-slash-2
  (format nil "~:/fmt-test-fn/" 1)
  "[1 T NIL NIL]")
(deftest format-slash-3
  (format nil "~@/fmt-test-fn/" 1)
  "[1 NIL T NIL]")
(deftest format-slash-4
  (format nil "~1,2/fmt-test-fn/" 1)
  "[1 NIL NIL (1 2)]")
(deftest format-slash-5
  (format nil "~v,'x/fmt-test-fn/" 3 1)
  "[1 NIL NIL (3 #\\x)]")
(deftest format-slash-6
  (format nil "~/cl-user::fmt-test-fn/" 1)
  "[1 NIL NIL NIL]")
(deftest format-slash-7
  (format nil "~#/fmt-test-fn/" 1 2 3)
  "[1 NIL NIL (3)]")
(deftest format-slash-8
  (format nil "~/pprint-fill/" '(1 2 3))
  "1 2 3")
(deftest format-slash-9
  (format nil "~:/pprint-linear/" '(1 2 3))
  "(1 2 3)")

;;; destinations
(deftest format-dest-1
  (format nil "abc")
  "abc")
(deftest format-dest-2
  (let ((s (make-string-output-stream)))
    (list (format s "x~Ay" 1) (get-output-stream-string s)))
  (nil "x1y"))
(deftest format-dest-3
  (let ((*standard-output* (make-string-output-stream)))
    (list (format t "hi ~A" 1) (get-output-stream-string *standard-output*)))
  (nil "hi 1"))
(deftest format-dest-4
  (let ((s (make-array 0 :element-type 'character :fill-pointer 0 :adjustable t)))
    (list (format s "ab~A" 1) (format s "cd") s))
  (nil nil "ab1cd"))
(deftest format-dest-5
  (let ((s (make-array 10 :element-type 'character :fill-pointer 3 :initial-element #\z)))
    (format s "ab")
    s)
  "zzzab")
(deftest format-dest-6
  (format nil (formatter "~A+~A") 1 2)
  "1+2")
(deftest format-dest-7
  (let ((s (make-string-output-stream)))
    (list (funcall (formatter "~A") s 1 2 3) (get-output-stream-string s)))
  ((2 3) "1"))
(deftest format-dest-8
  (format nil "")
  "")
(deftest format-dest-9
  (format nil "~A" (format nil "~A" 1))
  "1")
(deftest format-dest-10
  (format nil "~~~A~~" 'x)
  "~X~")
(deftest format-dest-err-1
  (signals-error (format 5 "x") error)
  t)
(deftest format-dest-err-2
  (signals-error (format nil 5) error)
  t)
(deftest format-dest-err-3
  (signals-error (format nil "~Q") error)
  t)
(deftest format-dest-err-4
  (signals-error (format nil "~") error)
  t)
(deftest format-dest-err-5
  (signals-error (format nil "~1,2") error)
  t)
(deftest format-dest-err-6
  (signals-error (format nil "~::A" 1) error)
  t)
(deftest format-dest-err-7
  (signals-error (format nil "~@:@A" 1) error)
  t)
(deftest format-dest-err-8
  (signals-error (format nil "~:1A" 1) error)
  t)
(deftest format-dest-err-9
  (signals-error (format nil "~1,2,3,4,5A" 1) error)
  t)
(deftest format-dest-err-10
  (signals-error (format nil "~/cl-user::fmt-test-fn" 1) error)
  t)
(deftest format-dest-err-11
  (signals-error (format nil "~C" 1) error)
  t)
(deftest format-dest-err-12
  (signals-error (format nil "~A") error)
  t)
(deftest format-dest-err-13
  (signals-error (format nil "~D ~D" 1) error)
  t)

;;; error messages
(defun fmt-err (control &rest args)
  (handler-case (progn (apply #'format nil control args) :no-error)
                (error (c) (princ-to-string c))))
(deftest format-message-1
  (fmt-err "~A~A" 1)
  "error in FORMAT: No more arguments
  ~A~A
     ^")
(deftest format-message-2
  (fmt-err "~Q" 1)
  "error in FORMAT: Unknown format directive (character: LATIN_CAPITAL_LETTER_Q)
  ~Q
   ^")
(deftest format-message-3
  (fmt-err "abc ~{~A" '(1))
  "error in FORMAT: No corresponding close brace
  abc ~{~A
       ^")
(deftest format-message-4
  (fmt-err "~1,2,3,4,5A" 1)
  "error in FORMAT: Too many parameters, expected no more than 4
  ~1,2,3,4,5A
           ^")
(deftest format-message-5
  (fmt-err "~:%")
  "error in FORMAT: The colon modifier cannot be used with this directive.
  ~:%
    ^")
(deftest format-message-6
  (fmt-err "~@%")
  "error in FORMAT: The at-sign modifier cannot be used with this directive.
  ~@%
    ^")
(deftest format-message-7
  (fmt-err "abc ~} def")
  "error in FORMAT: No corresponding open brace
  abc ~} def
       ^")
(deftest format-message-8
  (fmt-err "~:*")
  "error in FORMAT: Index -1 is out of bounds. It should have been between 0 and 0.
  ~:*
    ^")
(deftest format-message-9
  (fmt-err "~2@*" 1)
  "error in FORMAT: Index 2 is out of bounds. It should have been between 0 and 1.
  ~2@*
     ^")
(deftest format-message-10
  (fmt-err "~[a~;b~]" 'x)
  "error in FORMAT: The argument to ~[ is not an integer: X
  ~[a~;b~]
   ^")
(deftest format-message-11
  (fmt-err "~C" 1)
  "error in FORMAT: 1 is not of type CHARACTER.
  ~C
   ^")
(deftest format-message-12
  (fmt-err "abc~")
  "error in FORMAT: String ended before directive was found
  abc~
     ^")
(deftest format-message-13
  (fmt-err "~1,2")
  "error in FORMAT: String ended before directive was found
  ~1,2
  ^")
(deftest format-message-14
  (fmt-err "~? ~D" "~A~A" '(1) 2)
  "error in FORMAT: No more arguments
  ~A~A
     ^
while processing indirect format string:
  ~? ~D
   ^")
(deftest format-message-15
  (fmt-err "x~:^")
  "error in FORMAT: Attempt to use ~:^ outside a ~:{...~} construct
  x~:^
     ^")
(deftest format-message-16
  (fmt-err "~:[a~]" nil)
  "error in FORMAT: Must specify exactly two sections
  ~:[a~]
    ^")
(deftest format-message-17
  (fmt-err "~@[a~;b~]" nil)
  "error in FORMAT: Can only specify one section
  ~@[a~;b~]
    ^")
(deftest format-message-18
  (fmt-err "~v,vA" 1)
  "error in FORMAT: No more arguments
  ~v,vA
     ^")
(deftest format-message-19
  (fmt-err "~1<~A~:>" '(1))
  "error in FORMAT: No parameters can be supplied with ~<...~:>.
  ~1<~A~:>
   ^")
(deftest format-message-20
  (fmt-err "~<a~;~A~;b~;c~:>" '(1))
  "error in FORMAT: Too many segments for ~<...~:>
  ~<a~;~A~;b~;c~:>
   ^")
(deftest format-message-21
  (fmt-err "~:@*" 1)
  "error in FORMAT: The colon and the at-sign modifiers cannot be used simultaneously with this directive.
  ~:@*
     ^")
(deftest format-message-22
  (fmt-err "~@R" 4000)
  "Number too large to print in Roman numerals: 4,000")
(deftest format-message-23
  (fmt-err "~]")
  "error in FORMAT: No corresponding open bracket
  ~]
   ^")
(deftest format-message-24
  (fmt-err "~(abc")
  "error in FORMAT: No corresponding close paren
  ~(abc
   ^")
(deftest format-message-25
  (fmt-err "abc~)")
  "error in FORMAT: no corresponding open paren
  abc~)
      ^")
(deftest format-message-26
  (fmt-err "~:@[a~;b~]" nil)
  "error in FORMAT: The colon and the at-sign modifiers cannot be used simultaneously with this directive.
  ~:@[a~;b~]
     ^")
(deftest format-message-27
  (fmt-err "a~;b")
  "error in FORMAT: ~; not contained within either ~[...~] or ~<...~>
  a~;b
    ^")
(deftest format-message-28
  (fmt-err "~{~A~}" 5)
  "The value 5 is not of type LIST")

;; parsed control strings are cached per string object: a string changed in place is parsed
;; again, and a bad one signals every time
(deftest format-cache-sees-mutation
  (let ((s (copy-seq "a~Db")))
    (list (format nil s 10) (format nil s 11)
          (progn (setf (char s 2) #\X) (format nil s 255))
          (progn (setf (char s 0) #\z) (format nil s 255))))
  ("a10b" "a11b" "aFFb" "zFFb"))
(deftest format-cache-errors-every-time
  (let ((s "~[abc"))
    (list (signals-error (format nil s 0) error) (signals-error (format nil s 0) error)))
  (t t))
(deftest format-cache-many-strings
  (let ((out nil))
    (dotimes (i 200) (push (format nil (format nil "<~D:~~A>" i) i) out))
    (list (first out) (car (last out)) (length out)))
  ("<199:199>" "<0:0>" 200))
