;;;; characters.lisp: tests of the character functions (CLHS chapter 13); expected values from SBCL.

(defun type-error-info (thunk)
  (handler-case (progn (funcall thunk) :no-error)
    (type-error (e) (list (type-error-datum e) (type-error-expected-type e)))))

;;; comparisons

(deftest char=-two (list (char= #\a #\a) (char= #\a #\b) (char= #\a #\A))
  (t nil nil))
(deftest char=-one-arg (char= #\x)
  t)
(deftest char=-many (list (char= #\a #\a #\a #\a) (char= #\a #\a #\b #\a))
  (t nil))
(deftest char/=-all-pairs (list (char/= #\a #\b #\c) (char/= #\a #\b #\a) (char/= #\a) (char/= #\a #\a))
  (t nil t nil))
(deftest char<-family
  (list (char< #\a #\b #\c) (char< #\a #\c #\b) (char< #\a #\a) (char< #\A #\a) (char< #\z))
  (t nil nil t t))
(deftest char>-family
  (list (char> #\c #\b #\a) (char> #\c #\a #\b) (char> #\b #\b) (char> #\a #\A))
  (t nil nil t))
(deftest char<=-family
  (list (char<= #\a #\a #\b #\b) (char<= #\b #\a) (char<= #\0 #\9 #\A #\Z #\a #\z))
  (t nil t))
(deftest char>=-family
  (list (char>= #\b #\b #\a) (char>= #\a #\b) (char>= #\z #\a #\Z #\A))
  (t nil t))
(deftest char<-unicode
  (list (char< #\a #\é) (char< #\é #\É) (char> #\Σ #\σ))
  (t nil nil))
(deftest char-equal-case
  (list (char-equal #\a #\A) (char-equal #\A #\a #\A) (char-equal #\a #\b) (char-equal #\1 #\1) (char-equal #\x))
  (t t nil t t))
(deftest char-equal-unicode
  (list (char-equal #\é #\É) (char-equal #\Σ #\σ) (char-equal #\σ #\ς) (char-equal #\Σ #\ς) (char-equal #\ß #\ß))
  (t t nil nil t))
(deftest char-equal-titlecase-is-not-symmetric
  (let ((dz-up (code-char #x1C4)) (dz-title (code-char #x1C5)) (dz-down (code-char #x1C6)))
    (list (char-equal dz-title dz-up) (char-equal dz-title dz-down) (char-equal dz-up dz-title)
          (char-equal dz-down dz-title) (char-equal dz-up dz-down) (char-equal dz-down dz-up)))
  (t t nil nil t t))
(deftest char-equal-titlecase-many
  (let ((dz-up (code-char #x1C4)) (dz-title (code-char #x1C5)) (dz-down (code-char #x1C6)))
    (list (char-equal dz-title dz-up dz-down) (char-equal dz-up dz-down dz-title) (char-equal dz-title dz-up dz-title)))
  (t nil nil))
(deftest char-not-equal-family
  (list (char-not-equal #\a #\b #\c) (char-not-equal #\a #\b #\A) (char-not-equal #\a) (char-not-equal #\a #\A))
  (t nil t nil))
(deftest char-lessp-family
  (list (char-lessp #\a #\B #\c) (char-lessp #\A #\a) (char-lessp #\_ #\a) (char-lessp #\_ #\A) (char-lessp #\[ #\a)
        (char-lessp #\a #\[))
  (t nil t t t nil))
(deftest char-greaterp-family
  (list (char-greaterp #\C #\b #\A) (char-greaterp #\a #\A) (char-greaterp #\_ #\a) (char-greaterp #\a #\_))
  (t nil nil t))
(deftest char-not-greaterp-family
  (list (char-not-greaterp #\a #\A #\b #\B) (char-not-greaterp #\b #\a) (char-not-greaterp #\a))
  (t nil t))
(deftest char-not-lessp-family
  (list (char-not-lessp #\B #\b #\a #\A) (char-not-lessp #\a #\b) (char-not-lessp #\É #\é))
  (t nil t))
(deftest char-lessp-titlecase
  (let ((dz-up (code-char #x1C4)) (dz-title (code-char #x1C5)))
    (list (char-lessp dz-up dz-title) (char-greaterp dz-up dz-title) (char-not-lessp dz-up dz-title)
          (char-not-greaterp dz-up dz-title) (char-not-equal dz-up dz-title)))
  (nil nil t t t))
(deftest char=-type-error (signals-error (char= #\a 1) type-error)
  t)
(deftest char=-type-error-checks-every-argument (signals-error (char= #\a #\b 1) type-error)
  t)
(deftest char<-type-error-checks-every-argument (signals-error (char< #\b #\a 'x) type-error)
  t)
(deftest char-equal-type-error (signals-error (char-equal #\a "a") type-error)
  t)
(deftest char=-type-error-info (type-error-info (lambda () (char= #\a 1)))
  (1 character))
(deftest char=-no-arguments (signals-error (char=) program-error)
  t)
(deftest char-lessp-no-arguments (signals-error (char-lessp) program-error)
  t)
(deftest char-comparisons-via-apply
  (list (apply #'char< (list #\a #\b #\c #\d)) (apply #'char/= (list #\a #\b #\c #\d #\a)))
  (t nil))

;;; character, characterp

(deftest character-designators
  (list (character #\a) (character "b") (character 'c) (character '|d|) (character "é"))
  (#\a #\b #\C #\d #\LATIN_SMALL_LETTER_E_WITH_ACUTE))
(deftest character-errors
  (list (type-error-info (lambda () (character "ab")))
        (type-error-info (lambda () (character "")))
        (type-error-info (lambda () (character 65)))
        (type-error-info (lambda () (character 'abc)))
        (type-error-info (lambda () (character nil))))
  (("ab" (or character (string 1))) ("" (or character (string 1))) (65 (or character (string 1))) (abc (or character (string 1))) (nil (or character (string 1)))))
(deftest characterp-values
  (list (characterp #\a) (characterp "a") (characterp 'a) (characterp 97) (characterp (code-char 0))
        (characterp (code-char #x10FFFF)))
  (t nil nil nil t t))

;;; predicates

(deftest alpha-char-p-values
  (list (alpha-char-p #\a) (alpha-char-p #\Z) (alpha-char-p #\1) (alpha-char-p #\_) (alpha-char-p #\Space)
        (alpha-char-p #\é) (alpha-char-p #\Σ) (alpha-char-p (code-char #x4E00)) (alpha-char-p (code-char #x665)))
  (t t nil nil nil t t t nil))
(deftest alphanumericp-values
  (list (alphanumericp #\a) (alphanumericp #\7) (alphanumericp #\_) (alphanumericp #\-) (alphanumericp #\é)
        (alphanumericp (code-char #x665)) (alphanumericp (code-char #xB2)))
  (t t nil nil t t nil))
(deftest digit-char-p-decimal
  (list (digit-char-p #\0) (digit-char-p #\7) (digit-char-p #\9) (digit-char-p #\a) (digit-char-p #\Space))
  (0 7 9 nil nil))
(deftest digit-char-p-radix
  (list (digit-char-p #\a 16) (digit-char-p #\F 16) (digit-char-p #\g 16) (digit-char-p #\z 36) (digit-char-p #\Z 36)
        (digit-char-p #\1 2) (digit-char-p #\2 2) (digit-char-p #\9 9))
  (10 15 nil 35 35 1 nil nil))
(deftest digit-char-p-unicode-digits
  (list (digit-char-p (code-char #x665)) (digit-char-p (code-char #x665) 5) (digit-char-p (code-char #x665) 6)
        (digit-char-p (code-char #xFF19)) (digit-char-p (code-char #xB2)) (digit-char-p (code-char #xFF21) 16))
  (5 nil 5 9 nil nil))
(deftest digit-char-p-errors
  (list (type-error-info (lambda () (digit-char-p #\a 37)))
        (type-error-info (lambda () (digit-char-p #\a 1)))
        (type-error-info (lambda () (digit-char-p #\a 10.0)))
        (type-error-info (lambda () (digit-char-p 3))))
  ((37 (integer 2 36)) (1 (integer 2 36)) (10.0 (integer 2 36)) (3 character)))
(deftest digit-char-values
  (list (digit-char 0) (digit-char 9) (digit-char 10) (digit-char 10 16) (digit-char 15 16) (digit-char 35 36)
        (digit-char 36 36) (digit-char 1 2) (digit-char 2 2) (digit-char 1180591620717411303424))
  (#\0 #\9 nil #\A #\F #\Z nil #\1 nil nil))
(deftest digit-char-errors
  (list (type-error-info (lambda () (digit-char -1)))
        (type-error-info (lambda () (digit-char 1.0)))
        (type-error-info (lambda () (digit-char 1 37)))
        (type-error-info (lambda () (digit-char 1 1180591620717411303424))))
  ((-1 unsigned-byte) (1.0 unsigned-byte) (37 (integer 2 36)) (1180591620717411303424 (integer 2 36))))
(deftest graphic-char-p-values
  (list (graphic-char-p #\a) (graphic-char-p #\Space) (graphic-char-p #\~) (graphic-char-p #\Newline)
        (graphic-char-p #\Tab) (graphic-char-p (code-char 127)) (graphic-char-p (code-char 128))
        (graphic-char-p (code-char 159)) (graphic-char-p (code-char 160)) (graphic-char-p #\é)
        (graphic-char-p (code-char #xD800)) (graphic-char-p (code-char #x378)))
  (t t t nil nil nil nil nil t t t t))
(deftest standard-char-p-values
  (list (standard-char-p #\a) (standard-char-p #\~) (standard-char-p #\Space) (standard-char-p #\Newline)
        (standard-char-p #\Tab) (standard-char-p #\Return) (standard-char-p (code-char 127)) (standard-char-p #\é))
  (t t t t nil nil nil nil))
(deftest case-predicates-ascii
  (list (upper-case-p #\A) (upper-case-p #\a) (lower-case-p #\a) (lower-case-p #\A) (both-case-p #\a)
        (both-case-p #\1) (upper-case-p #\1) (lower-case-p #\-))
  (t nil t nil t nil nil nil))
(deftest case-predicates-unicode
  (list (upper-case-p #\É) (lower-case-p #\é) (upper-case-p #\Σ) (lower-case-p #\σ) (lower-case-p #\ς)
        (both-case-p #\ς) (lower-case-p #\ß) (both-case-p #\ß) (both-case-p (code-char #x4E00)))
  (t t t t nil nil nil nil nil))
(deftest case-predicates-titlecase
  (let ((dz-title (code-char #x1C5)))
    (list (upper-case-p dz-title) (lower-case-p dz-title) (both-case-p dz-title)))
  (nil nil t))
(deftest case-predicates-one-way-mappings
  (list (both-case-p (code-char #x130)) (both-case-p (code-char #x131)) (both-case-p (code-char #x212A))
        (upper-case-p (code-char #x212A)))
  (nil nil nil nil))
(deftest predicates-type-errors
  (list (signals-error (alpha-char-p 1) type-error) (signals-error (alphanumericp "a") type-error)
        (signals-error (graphic-char-p nil) type-error) (signals-error (standard-char-p 1) type-error)
        (signals-error (upper-case-p 'a) type-error) (signals-error (lower-case-p 97) type-error)
        (signals-error (both-case-p "a") type-error))
  (t t t t t t t))

;;; case conversion

(deftest char-upcase-ascii (list (char-upcase #\a) (char-upcase #\A) (char-upcase #\1) (char-upcase #\z) (char-upcase #\{))
  (#\A #\A #\1 #\Z #\{))
(deftest char-downcase-ascii (list (char-downcase #\A) (char-downcase #\a) (char-downcase #\@) (char-downcase #\Z))
  (#\a #\a #\@ #\z))
(deftest char-upcase-unicode
  (list (char-upcase #\é) (char-upcase #\σ) (char-upcase #\ς) (char-upcase #\ß) (char-upcase #\ÿ) (char-upcase #\ж))
  (#\LATIN_CAPITAL_LETTER_E_WITH_ACUTE #\GREEK_CAPITAL_LETTER_SIGMA #\GREEK_SMALL_LETTER_FINAL_SIGMA #\LATIN_SMALL_LETTER_SHARP_S #\LATIN_CAPITAL_LETTER_Y_WITH_DIAERESIS #\CYRILLIC_CAPITAL_LETTER_ZHE))
(deftest char-downcase-unicode
  (list (char-downcase #\É) (char-downcase #\Σ) (char-downcase #\Ÿ) (char-downcase #\Ж) (char-downcase (code-char #x130))
        (char-downcase (code-char #x212A)))
  (#\LATIN_SMALL_LETTER_E_WITH_ACUTE #\GREEK_SMALL_LETTER_SIGMA #\LATIN_SMALL_LETTER_Y_WITH_DIAERESIS #\CYRILLIC_SMALL_LETTER_ZHE #\LATIN_CAPITAL_LETTER_I_WITH_DOT_ABOVE #\KELVIN_SIGN))
(deftest char-case-titlecase
  (list (char-code (char-upcase (code-char #x1C5))) (char-code (char-downcase (code-char #x1C5)))
        (char-code (char-upcase (code-char #x1C6))) (char-code (char-downcase (code-char #x1C4))))
  (452 454 452 454))
(deftest char-upcase-type-error (type-error-info (lambda () (char-upcase "a")))
  ("a" character))

;;; codes

(deftest char-code-values (list (char-code #\a) (char-code #\Space) (char-code #\é) (char-code (code-char #x10FFFF)))
  (97 32 233 1114111))
(deftest char-int-values (list (char-int #\a) (char-int #\Newline) (char-int #\Σ))
  (97 10 931))
(deftest code-char-values (list (code-char 97) (code-char 10) (code-char 0) (code-char 233) (char-code (code-char #xD800)))
  (#\a #\Newline #\Nul #\LATIN_SMALL_LETTER_E_WITH_ACUTE 55296))
(deftest code-char-errors
  (list (type-error-info (lambda () (code-char 1114112))) (type-error-info (lambda () (code-char -1)))
        (type-error-info (lambda () (code-char 65.0))) (type-error-info (lambda () (code-char 1180591620717411303424))))
  ((1114112 (mod 1114112)) (-1 (mod 1114112)) (65.0 (mod 1114112)) (1180591620717411303424 (mod 1114112))))
(deftest char-code-type-error (type-error-info (lambda () (char-code 65)))
  (65 character))
(deftest char-code-limit-value char-code-limit
  1114112)

;;; names

(deftest char-name-control
  (list (char-name (code-char 0)) (char-name (code-char 7)) (char-name (code-char 8)) (char-name #\Tab)
        (char-name #\Newline) (char-name (code-char 11)) (char-name #\Page) (char-name #\Return)
        (char-name (code-char 27)) (char-name (code-char 31)) (char-name #\Space) (char-name #\Rubout))
  ("Nul" "Bel" "Backspace" "Tab" "Newline" "Vt" "Page" "Return" "Esc" "Us" "Space" "Rubout"))
(deftest char-name-graphic-ascii (list (char-name #\a) (char-name #\A) (char-name #\0) (char-name #\-) (char-name #\~))
  ("LATIN_SMALL_LETTER_A" "LATIN_CAPITAL_LETTER_A" "DIGIT_ZERO" "HYPHEN-MINUS" "TILDE"))
(deftest char-name-c1-controls
  (list (char-name (code-char 128)) (char-name (code-char 130)) (char-name (code-char 133)) (char-name (code-char 153))
        (char-name (code-char 159)))
  ("C80" "Break-Permitted" "Next-Line" "C99" "Application-Program-Command"))
(deftest char-name-unicode
  (list (char-name (code-char 160)) (char-name #\é) (char-name #\Σ) (char-name (code-char #x1F5CF))
        (char-name (code-char #x1F514)))
  ("NO-BREAK_SPACE" "LATIN_SMALL_LETTER_E_WITH_ACUTE" "GREEK_CAPITAL_LETTER_SIGMA" "UNICODE_PAGE" "BELL"))
(deftest char-name-algorithmic
  (list (char-name (code-char #xAC00)) (char-name (code-char #xD7A3)) (char-name (code-char #xC544))
        (char-name (code-char #xF900)) (char-name (code-char #x2F800)) (char-name (code-char #x1B170)))
  ("HANGUL_SYLLABLE_GA" "HANGUL_SYLLABLE_HIH" "HANGUL_SYLLABLE_A" "CJK_COMPATIBILITY_IDEOGRAPH-F900" "CJK_COMPATIBILITY_IDEOGRAPH-2F800" "NUSHU_CHARACTER-1B170"))
(deftest char-name-unnamed
  (list (char-name (code-char #x378)) (char-name (code-char #x4E00)) (char-name (code-char #xD800))
        (char-name (code-char #xE000)) (char-name (code-char #xFAFF)) (char-name (code-char #x10FFFF)))
  ("U378" "U4E00" "UD800" "UE000" "UFAFF" "U10FFFF"))
(deftest char-name-type-error (signals-error (char-name "a") type-error)
  t)
(deftest name-char-standard-names
  (list (name-char "Space") (name-char "Newline") (name-char "Tab") (name-char "Page") (name-char "Rubout")
        (name-char "Linefeed") (name-char "Return") (name-char "Backspace"))
  (#\  #\Newline #\Tab #\Page #\Rubout #\Newline #\Return #\Backspace))
(deftest name-char-is-case-insensitive
  (list (name-char "space") (name-char "SPACE") (name-char "nEwLiNe") (name-char "latin_small_letter_a")
        (name-char "Latin_Capital_Letter_E_With_Acute"))
  (#\  #\  #\Newline #\a #\LATIN_CAPITAL_LETTER_E_WITH_ACUTE))
(deftest name-char-alternate-names
  (list (name-char "Nul") (name-char "Null") (name-char "Bel") (name-char "Escape") (name-char "Esc")
        (name-char "Altmode") (name-char "Delete") (name-char "Del") (name-char "Lf") (name-char "Nl")
        (name-char "Cr") (name-char "Ff") (name-char "Formfeed") (name-char "Bs") (name-char "Ht") (name-char "Sp")
        (name-char "^@") (name-char "^a") (name-char "^["))
  (#\Nul #\Nul #\Bel #\Esc #\Esc #\Esc #\Rubout #\Rubout #\Newline #\Newline #\Return #\Page #\Page #\Backspace #\Tab #\  #\Nul #\Soh #\Esc))
(deftest name-char-bell-is-the-unicode-bell
  (list (char-code (name-char "Bell")) (char-code (name-char "Bel")) (char-code (name-char "UNICODE_PAGE"))
        (char-code (name-char "PAGE")))
  (128276 7 128463 12))
(deftest name-char-c1-names
  (list (name-char "Next-Line") (name-char "c80") (name-char "BREAK_PERMITTED_HERE"))
  (#\Next-Line #\C80 #\Break-Permitted))
(deftest name-char-unicode-1-names
  (list (name-char "BROKEN_VERTICAL_BAR") (name-char "LATIN_SMALL_LETTER_YOGH"))
  (#\BROKEN_BAR #\LATIN_SMALL_LETTER_YOGH))
(deftest name-char-hex
  (list (name-char "U+41") (name-char "u41") (name-char "U+0041") (name-char "U+0") (name-char "U+10FFFF")
        (name-char "U4E00") (name-char "U+D800"))
  (#\A #\A #\A #\Nul #\U10FFFF #\U4E00 #\UD800))
(deftest name-char-hex-with-unicode-digits
  (list (name-char "U+٤١") (name-char "u٤١"))
  (#\A #\A))
(deftest name-char-algorithmic
  (list (name-char "HANGUL_SYLLABLE_GA") (name-char "hangul_syllable_gags") (name-char "HANGUL_SYLLABLE_A")
        (name-char "CJK_COMPATIBILITY_IDEOGRAPH-F900") (name-char "cjk_compatibility_ideograph-2f800")
        (name-char "NUSHU_CHARACTER-1B170"))
  (#\HANGUL_SYLLABLE_GA #\HANGUL_SYLLABLE_GAGS #\HANGUL_SYLLABLE_A #\CJK_COMPATIBILITY_IDEOGRAPH-F900 #\CJK_COMPATIBILITY_IDEOGRAPH-2F800 #\NUSHU_CHARACTER-1B170))
(deftest name-char-unknown
  (list (name-char "") (name-char "a") (name-char "A") (name-char "ab") (name-char "Nbsp") (name-char "U")
        (name-char "U+") (name-char "U-41") (name-char "U+41 ") (name-char " Space") (name-char "LATIN SMALL LETTER A")
        (name-char "LATIN-SMALL-LETTER-A") (name-char "CJK_COMPATIBILITY_IDEOGRAPH-0F900")
        (name-char "CJK_COMPATIBILITY_IDEOGRAPH-FAFF") (name-char "HANGUL_SYLLABLE_") (name-char "é"))
  (nil nil nil nil nil nil nil nil nil nil nil nil nil nil nil nil))
(deftest name-char-designators
  (list (name-char 'space) (name-char '|Newline|) (name-char #\a) (name-char 'latin_small_letter_sharp_s))
  (#\  #\Newline nil #\LATIN_SMALL_LETTER_SHARP_S))
(deftest name-char-type-error (type-error-info (lambda () (name-char 12)))
  (12 (or string symbol character)))
(deftest name-char-hex-out-of-range (type-error-info (lambda () (name-char "U+110000")))
  (1114112 (mod 1114112)))
(deftest char-name-round-trip-sample
  (let ((bad nil))
    (dolist (code '(0 9 10 32 65 97 127 128 133 160 233 931 4096 #x1C5 #xAC00 #xD7A3 #xF900 #x1B170 #x1F600
                    #xD800 #xE000 #xFFFF #x10FFFF)
             bad)
      (let ((c (code-char code)))
        (unless (eql (name-char (char-name c)) c) (push code bad)))))
  nil)

;;; printing and reading characters by name

(deftest print-characters
  (list (prin1-to-string #\a) (prin1-to-string #\Space) (prin1-to-string #\Newline) (prin1-to-string (code-char 0))
        (prin1-to-string (code-char 127)) (prin1-to-string (code-char 133)) (prin1-to-string #\é)
        (prin1-to-string (code-char #x378)) (prin1-to-string (code-char #xAC00)))
  ("#\\a" "#\\ " "#\\Newline" "#\\Nul" "#\\Rubout" "#\\Next-Line" "#\\LATIN_SMALL_LETTER_E_WITH_ACUTE" "#\\U378" "#\\HANGUL_SYLLABLE_GA"))
(deftest read-characters-by-name
  (list (read-from-string "#\\LATIN_SMALL_LETTER_E_WITH_ACUTE") (read-from-string "#\\latin_capital_letter_a")
        (read-from-string "#\\U+E9") (read-from-string "#\\Next-Line") (read-from-string "#\\nul")
        (read-from-string "#\\HANGUL_SYLLABLE_GA"))
  (#\LATIN_SMALL_LETTER_E_WITH_ACUTE #\A #\LATIN_SMALL_LETTER_E_WITH_ACUTE #\Next-Line #\Nul #\HANGUL_SYLLABLE_GA))
