;;;; types.lisp: tests of the type system (CLHS chapter 4): typep, subtypep, type-of, coerce,
;;;; deftype and the type macros; expected values from SBCL.

;;; type-of

(deftest type-of-integers
  (list (type-of 0) (type-of 1) (type-of 5) (type-of -1) (type-of 4611686018427387903)
        (type-of 4611686018427387904) (type-of -4611686018427387904) (type-of -4611686018427387905))
  (bit bit (integer 0 4611686018427387903) fixnum (integer 0 4611686018427387903) (integer 4611686018427387904) fixnum bignum))

(deftest type-of-numbers
  (list (type-of 1/2) (type-of 1.0) (type-of 1d0))
  (ratio single-float double-float))

(deftest type-of-characters
  (list (type-of #\a) (type-of #\Tab) (type-of #\Newline) (type-of #\Rubout) (type-of #\λ))
  (standard-char base-char standard-char base-char extended-char))

(deftest type-of-symbols
  (list (type-of 'a) (type-of :a) (type-of nil) (type-of t))
  (symbol keyword null boolean))

(deftest type-of-misc
  (list (type-of '(1)) (type-of (make-hash-table)) (type-of *package*) (type-of #'car)
        (type-of (lambda (x) x)) (type-of *readtable*))
  (cons hash-table package compiled-function compiled-function readtable))

(deftest type-of-condition
  (type-of (make-condition 'simple-error))
  simple-error)

(deftest type-of-is-a-type-of-the-object
  (let ((objects (list 0 5 -5 4611686018427387904 1/3 1.5 2d0 #\a #\λ 'a :k nil t '(1) "s"
                       #(1) #*1 (make-array '(2 2)) (make-array 3 :fill-pointer 1)
                       (make-array 2 :element-type 'character :adjustable t) (make-hash-table) #'car))
        (bad nil))
    (dolist (x objects) (unless (typep x (type-of x)) (push x bad)))
    bad)
  nil)

;;; typep: atomic types

(deftest typep-numbers
  (list (typep 1/2 'ratio) (typep 1 'ratio) (typep 1 'rational) (typep 1.0 'rational)
        (typep 4611686018427387903 'fixnum) (typep 4611686018427387904 'fixnum)
        (typep 4611686018427387904 'bignum) (typep -4611686018427387904 'fixnum)
        (typep 1 'bit) (typep 2 'bit) (typep 1.0 'short-float) (typep 1d0 'long-float)
        (typep 1.0 'double-float) (typep 1 'real) (typep 1.5 'float) (typep 1 'number))
  (t nil t nil t nil t t t nil t t nil t t t))

(deftest typep-symbols-and-lists
  (list (typep 1 'atom) (typep '(1) 'atom) (typep nil 'list) (typep nil 'boolean) (typep t 'boolean)
        (typep 'a 'boolean) (typep nil 'symbol) (typep nil 'sequence) (typep nil 'null) (typep nil 'atom)
        (typep :a 'keyword) (typep 'a 'keyword) (typep nil 'keyword) (typep :a 'symbol) (typep '(1) 'cons)
        (typep nil 'cons))
  (t nil t t t nil t t t t t nil nil t t nil))

(deftest typep-characters
  (list (typep #\a 'standard-char) (typep #\Tab 'standard-char) (typep #\Newline 'standard-char)
        (typep #\Rubout 'base-char) (typep #\λ 'base-char) (typep #\a 'extended-char)
        (typep #\λ 'extended-char) (typep #\a 'character) (typep "a" 'character))
  (t nil t t nil nil t t nil))

(deftest typep-functions
  (list (typep #'car 'compiled-function) (typep #'car 'function) (typep (lambda (x) x) 'function)
        (typep 'car 'function))
  (t t t nil))

(deftest typep-t-and-nil
  (list (typep 1 nil) (typep 1 t) (typep nil t) (typep nil nil))
  (nil t t nil))

(deftest typep-other-built-ins
  (list (typep (make-hash-table) 'hash-table) (typep *package* 'package) (typep *readtable* 'readtable)
        (typep *standard-output* 'stream) (typep 1 'stream) (typep 1 'hash-table))
  (t t t t nil nil))

(deftest typep-class-names-on-non-instances
  (list (typep 1 'standard-object) (typep 1 'error) (typep 1 'condition) (typep 1 'structure-object)
        (typep 1 'restart) (typep 1 'generic-function) (typep 1 'class))
  (nil nil nil nil nil nil nil))

(deftest typep-conditions
  (let ((c (make-condition 'simple-error :format-control "x")))
    (list (typep c 'simple-error) (typep c 'error) (typep c 'condition) (typep c 'simple-condition)
          (typep c 'warning) (typep c 'atom) (typep c 'type-error) (typep c t)))
  (t t t t nil t nil t))

;;; typep: compound types

(deftest typep-integer-ranges
  (list (typep 5 '(integer * 10)) (typep 5 '(integer (5) *)) (typep 5 '(integer (4) (6)))
        (typep 5 '(integer 5 5)) (typep 5 '(integer 6)) (typep 5 '(integer)) (typep 1 '(integer 3 1))
        (typep 1180591620717411303424 '(integer 0)) (typep 1180591620717411303424 '(integer 0 (1180591620717411303424))))
  (t nil t t nil t nil t nil))

(deftest typep-mod-and-bytes
  (list (typep 5 '(mod 5)) (typep 4 '(mod 5)) (typep 5 '(unsigned-byte 3)) (typep 8 '(unsigned-byte 3))
        (typep -4 '(signed-byte 3)) (typep -5 '(signed-byte 3)) (typep 5 'unsigned-byte)
        (typep -5 'unsigned-byte) (typep 5 '(unsigned-byte *)) (typep -5 'signed-byte)
        (typep 18446744073709551616 '(unsigned-byte 64)) (typep 18446744073709551615 '(unsigned-byte 64)))
  (nil t t nil t nil t nil t t nil t))

(deftest typep-eql-and-member
  (list (typep 5 '(eql 5)) (typep 5.0 '(eql 5)) (typep 5 '(member 1 5)) (typep 'a '(member a b))
        (typep "a" '(member "a")) (typep 1 '(member)) (typep nil '(member nil)) (typep #\a '(eql #\a)))
  (t nil t t nil nil t t))

(deftest typep-real-ranges
  (list (typep 1/2 '(rational 0 1/2)) (typep 1/2 '(rational 0 (1/2))) (typep 0.5 '(float 0.5))
        (typep 0.5 '(single-float 0.0 1.0)) (typep 0.5d0 '(real 0 1)) (typep 2 '(real (1) (2)))
        (typep 0.5 '(float 0 1)) (typep 1.5 '(real 1 3/2)) (typep 1.5d0 '(double-float 1d0 (1.5d0)))
        (typep 1/3 '(real 0.3 0.34)))
  (t nil t t t nil t t nil t))

(deftest typep-and-or-not-satisfies
  (list (typep 1 '(satisfies integerp)) (typep 1 '(and integer (satisfies plusp)))
        (typep 1 '(or string (not integer))) (typep 1 '(and)) (typep 1 '(or))
        (typep 1 '(and number (not (integer 2 3)))) (typep 2 '(and number (not (integer 2 3))))
        (typep 1.0 '(or integer single-float)) (typep "x" '(not (satisfies stringp))))
  (t t nil t nil t nil t nil))

(deftest typep-cons-types
  (list (typep '(1 . "a") '(cons integer string)) (typep '(1 . "a") '(cons integer))
        (typep '(1 . "a") '(cons * symbol)) (typep '(1 . "a") '(cons)) (typep nil '(cons))
        (typep (list 1 2) '(cons integer (cons integer null)))
        (typep (list 1 2) '(cons integer (cons integer (cons integer)))))
  (t t nil t nil t nil))

(deftest typep-array-types
  (list (typep #(1 2) '(vector * 2)) (typep #(1 2) '(vector t 3)) (typep #(1 2) '(simple-vector 2))
        (typep #(1 2) '(vector t)) (typep "ab" '(string 2)) (typep "ab" '(simple-string *))
        (typep "ab" '(simple-base-string 2)) (typep "ab" 'base-string) (typep #*10 '(bit-vector 2))
        (typep #*10 '(simple-bit-vector 3)) (typep "abc" '(array character (3)))
        (typep "abc" '(array base-char (3))) (typep "abc" '(vector t)) (typep "abc" 'sequence)
        (typep "abc" 'simple-string) (typep "abc" '(simple-array character (*))))
  (t nil t t t t nil nil t nil t nil nil t t t))

(deftest typep-multidimensional-array-types
  (let ((a (make-array '(2 3))))
    (list (typep a '(array t (2 *))) (typep a '(array * 2)) (typep a '(simple-array * (2 3)))
          (typep a '(array t (3 2))) (typep a 'simple-array) (typep a 'vector) (typep a '(array t 3))
          (typep a '(array t (* * *)))))
  (t t t nil t nil nil nil))

(deftest typep-non-simple-arrays
  (list (typep (make-array 3 :element-type 'character :fill-pointer 1) 'simple-string)
        (typep (make-array 3 :element-type 'character :fill-pointer 1) 'string)
        (typep (make-array 3 :fill-pointer 1) 'simple-array)
        (typep (make-array 3 :displaced-to (make-array 5)) 'simple-array)
        (typep (make-array 3 :adjustable t) '(vector t 3))
        (typep (make-array 3 :adjustable t) '(array t (3)))
        (typep (make-array 3 :adjustable t) 'simple-vector)
        (typep (make-array 0 :element-type nil) 'string)
        (typep (make-array 3 :element-type nil) '(array nil (3))))
  (nil t nil nil t t nil nil t))

(deftest typep-complex-types
  (list (typep 1 '(complex)) (typep 1 'complex))
  (nil nil))

;;; typep: errors

(deftest typep-malformed-specifiers
  (list (signals-error (typep 1 '(not)) error)
        (signals-error (typep 1 '(eql)) error)
        (signals-error (typep 1 '(eql 1 2)) error)
        (signals-error (typep 1 '(satisfies)) error)
        (signals-error (typep 1 '(mod -1)) error)
        (signals-error (typep 1 '(mod 0)) error)
        (signals-error (typep 1 '(mod *)) error)
        (signals-error (typep 1 '(unsigned-byte 0)) error)
        (signals-error (typep 1 '(vector t 2 3)) error)
        (signals-error (typep 2 '(integer 1.5 3)) error)
        (signals-error (typep 0.5 '(double-float 0.0)) error)
        (signals-error (typep 1 '(cons 1)) error)
        (signals-error (typep 1 "abc") error)
        (signals-error (typep 1 5) error))
  (t t t t t t t t t t t t t t))

(deftest typep-function-and-values-types
  (list (signals-error (typep #'car '(function (t) t)) error)
        (signals-error (typep 1 '(values)) error))
  (t t))

(deftest typep-unknown-type
  (list (handler-case (typep 1 'no-such-type-xyz) (error () :error))
        (handler-case (typep 1 '(no-such-type-xyz 1)) (error () :error))
        (handler-case (typep 1 'no-such-type-xyz) (error (c) (princ-to-string c))))
  (:error :error "unknown type specifier: NO-SUCH-TYPE-XYZ"))

;;; subtypep

(deftest subtypep-numeric-tower
  (list (multiple-value-list (subtypep 'integer 'number)) (multiple-value-list (subtypep 'number 'integer))
        (multiple-value-list (subtypep 'ratio 'rational)) (multiple-value-list (subtypep 'ratio '(not integer)))
        (multiple-value-list (subtypep 'real '(or rational float)))
        (multiple-value-list (subtypep 'float '(or single-float double-float)))
        (multiple-value-list (subtypep 'short-float 'single-float))
        (multiple-value-list (subtypep 'long-float 'double-float))
        (multiple-value-list (subtypep '(or fixnum bignum) 'integer))
        (multiple-value-list (subtypep 'integer '(or fixnum bignum)))
        (multiple-value-list (subtypep 'bignum '(not fixnum)))
        (multiple-value-list (subtypep '(not integer) '(not fixnum)))
        (multiple-value-list (subtypep '(not fixnum) '(not integer))))
  ((t t) (nil t) (t t) (t t) (t t) (t t) (t t) (t t) (t t) (t t) (t t) (t t) (nil t)))

(deftest subtypep-integer-ranges
  (list (multiple-value-list (subtypep '(integer 0 5) 'fixnum))
        (multiple-value-list (subtypep 'fixnum '(signed-byte 63)))
        (multiple-value-list (subtypep '(signed-byte 63) 'fixnum))
        (multiple-value-list (subtypep 'fixnum '(signed-byte 64)))
        (multiple-value-list (subtypep '(unsigned-byte 62) 'fixnum))
        (multiple-value-list (subtypep '(unsigned-byte 63) 'fixnum))
        (multiple-value-list (subtypep '(integer 0 10) '(integer 0 (10))))
        (multiple-value-list (subtypep '(integer 0 (10)) '(integer 0 9)))
        (multiple-value-list (subtypep '(mod 10) '(integer 0 9)))
        (multiple-value-list (subtypep '(unsigned-byte 8) '(mod 256)))
        (multiple-value-list (subtypep '(signed-byte 8) '(integer -128 127)))
        (multiple-value-list (subtypep 'bit '(unsigned-byte 1)))
        (multiple-value-list (subtypep '(integer 1 10) '(or (integer 1 5) (integer 6 10))))
        (multiple-value-list (subtypep '(integer 1 10) '(or (integer 1 5) (integer 7 10))))
        (multiple-value-list (subtypep '(and integer (not (integer * 0)) (not (integer 1 *))) nil)))
  ((t t) (t t) (t t) (t t) (t t) (nil t) (nil t) (t t) (t t) (t t) (t t) (t t) (t t) (nil t) (t t)))

(deftest subtypep-real-ranges
  (list (multiple-value-list (subtypep '(rational 0 (1)) '(rational 0 1)))
        (multiple-value-list (subtypep '(rational 0 1) '(rational 0 (1))))
        (multiple-value-list (subtypep '(double-float 0d0 1d0) '(double-float (0d0) 1d0)))
        (multiple-value-list (subtypep '(rational 1 10) '(or (rational 1 5) (rational 6 10))))
        (multiple-value-list (subtypep '(rational 1 10) '(or (rational 1 5) (rational (5) 10))))
        (multiple-value-list (subtypep '(and real (not (integer * 0)) (not (integer 1 *))) 'ratio))
        (multiple-value-list (subtypep '(and ratio (rational 1 1)) nil))
        (multiple-value-list (subtypep '(and ratio (rational 1/2 1/2)) nil))
        (multiple-value-list (subtypep '(real 0 1) '(or (rational 0 1) (float 0 1))))
        (multiple-value-list (subtypep '(float 0 1) 'single-float))
        (multiple-value-list (subtypep '(float 1.0 2.0) '(float 0.0 3.0)))
        (multiple-value-list (subtypep '(double-float 1d0 2d0) '(float 0 3))))
  ((t t) (nil t) (nil t) (nil t) (t t) (nil t) (t t) (nil t) (t t) (nil t) (t t) (t t)))

(deftest subtypep-member-and-eql
  (list (multiple-value-list (subtypep '(member 1 2 3) '(integer 1 3)))
        (multiple-value-list (subtypep '(integer 1 3) '(member 1 2 3)))
        (multiple-value-list (subtypep '(integer 1 3) '(member 1 3)))
        (multiple-value-list (subtypep '(and (integer 0 10) (not (member 0 1 2 3 4 5 6 7 8 9 10))) nil))
        (multiple-value-list (subtypep '(eql 1.0) 'single-float))
        (multiple-value-list (subtypep '(eql 1.0) 'integer))
        (multiple-value-list (subtypep '(member 1 1.0) 'real))
        (multiple-value-list (subtypep '(eql 5) '(integer 0 5)))
        (multiple-value-list (subtypep '(eql 6) '(integer 0 5)))
        (multiple-value-list (subtypep '(eql nil) 'null))
        (multiple-value-list (subtypep 'null '(eql nil)))
        (multiple-value-list (subtypep '(member) nil))
        (multiple-value-list (subtypep '(eql (1 2)) '(cons integer t)))
        (multiple-value-list (subtypep '(eql "abc") 'string))
        (multiple-value-list (subtypep 'string '(eql "abc"))))
  ((t t) (t t) (nil t) (t t) (t t) (nil t) (t t) (t t) (nil t) (t t) (t t) (t t) (t t) (t t) (nil t)))

(deftest subtypep-symbols
  (list (multiple-value-list (subtypep 'keyword 'symbol)) (multiple-value-list (subtypep 'symbol 'keyword))
        (multiple-value-list (subtypep 'boolean 'symbol)) (multiple-value-list (subtypep 'null 'boolean))
        (multiple-value-list (subtypep 'null 'list)) (multiple-value-list (subtypep 'null 'symbol))
        (multiple-value-list (subtypep '(member t nil) 'boolean))
        (multiple-value-list (subtypep 'boolean '(member t nil)))
        (multiple-value-list (subtypep '(and symbol (not keyword) (not null)) '(not boolean)))
        (multiple-value-list (subtypep '(member :a :b) 'keyword))
        (multiple-value-list (subtypep '(eql a) 'symbol))
        (multiple-value-list (subtypep '(and symbol (not (member a b))) '(not (eql a)))))
  ((t t) (nil t) (t t) (t t) (t t) (t t) (t t) (t t) (nil t) (t t) (t t) (t t)))

(deftest subtypep-characters
  (list (multiple-value-list (subtypep 'character 'base-char))
        (multiple-value-list (subtypep 'standard-char 'base-char))
        (multiple-value-list (subtypep 'base-char 'character))
        (multiple-value-list (subtypep '(or base-char extended-char) 'character))
        (multiple-value-list (subtypep 'character '(or base-char extended-char)))
        (multiple-value-list (subtypep '(member #\a #\b) 'standard-char))
        (multiple-value-list (subtypep '(member #\a #\Tab) 'standard-char))
        (multiple-value-list (subtypep 'extended-char 'base-char))
        (multiple-value-list (subtypep '(and base-char extended-char) nil)))
  ((nil t) (t t) (t t) (t t) (t t) (t t) (nil t) (nil t) (t t)))

(deftest subtypep-conses-and-lists
  (list (multiple-value-list (subtypep 'atom '(not cons))) (multiple-value-list (subtypep '(not cons) 'atom))
        (multiple-value-list (subtypep '(cons integer) 'cons)) (multiple-value-list (subtypep 'cons '(cons integer)))
        (multiple-value-list (subtypep '(cons t t) 'cons)) (multiple-value-list (subtypep 'cons '(cons t t)))
        (multiple-value-list (subtypep 'list '(or cons null))) (multiple-value-list (subtypep '(or cons null) 'list))
        (multiple-value-list (subtypep '(cons integer string) '(cons number array)))
        (multiple-value-list (subtypep '(cons number array) '(cons integer string)))
        (multiple-value-list (subtypep '(cons integer) '(or (cons fixnum) (cons bignum))))
        (multiple-value-list (subtypep '(or (cons fixnum) (cons bignum)) '(cons integer)))
        (multiple-value-list (subtypep '(cons (integer 0 5) (integer 0 5))
                                       '(or (cons (integer 0 2) t) (cons t (integer 0 5)))))
        (multiple-value-list (subtypep '(cons (integer 0 5) (integer 0 6))
                                       '(or (cons (integer 0 2) t) (cons t (integer 0 5)))))
        (multiple-value-list (subtypep '(cons nil t) nil)))
  ((t t) (t t) (t t) (nil t) (t t) (t t) (t t) (t t) (t t) (nil t) (t t) (t t) (t t) (nil t) (t t)))

(deftest subtypep-sequences
  (list (multiple-value-list (subtypep 'vector 'sequence)) (multiple-value-list (subtypep 'list 'sequence))
        (multiple-value-list (subtypep 'null 'sequence)) (multiple-value-list (subtypep 'hash-table 'sequence))
        (multiple-value-list (subtypep 'sequence '(or list vector)))
        (multiple-value-list (subtypep '(or list vector) 'sequence)))
  ((t t) (t t) (t t) (nil t) (nil t) (t t)))

(deftest subtypep-arrays
  (list (multiple-value-list (subtypep '(simple-array t (3)) '(vector t)))
        (multiple-value-list (subtypep '(vector t 3) '(vector t *)))
        (multiple-value-list (subtypep 'simple-string 'string))
        (multiple-value-list (subtypep '(simple-vector 3) '(simple-vector 4)))
        (multiple-value-list (subtypep 'simple-vector '(vector t)))
        (multiple-value-list (subtypep '(vector t) 'simple-vector))
        (multiple-value-list (subtypep '(array t (2 3)) '(array t 2)))
        (multiple-value-list (subtypep '(array t 2) '(array t (* *))))
        (multiple-value-list (subtypep '(array t (* *)) '(array t 2)))
        (multiple-value-list (subtypep '(array * (2 3)) '(array * (2 *))))
        (multiple-value-list (subtypep '(array * (2 *)) '(array * (2 3))))
        (multiple-value-list (subtypep 'simple-array 'array))
        (multiple-value-list (subtypep 'array 'simple-array))
        (multiple-value-list (subtypep '(and (array t (3)) (array t (4))) nil))
        (multiple-value-list (subtypep '(and vector (not simple-array)) 'vector)))
  ((t t) (t t) (t t) (nil t) (t t) (nil t) (t t) (t t) (t t) (t t) (nil t) (t t) (nil t) (t t) (t t)))

(deftest subtypep-strings-and-bit-vectors
  (list (multiple-value-list (subtypep 'bit-vector '(vector bit)))
        (multiple-value-list (subtypep '(vector bit) 'bit-vector))
        (multiple-value-list (subtypep '(array bit (*)) 'bit-vector))
        (multiple-value-list (subtypep 'simple-base-string 'simple-string))
        (multiple-value-list (subtypep 'base-string 'string))
        (multiple-value-list (subtypep 'string 'base-string))
        (multiple-value-list (subtypep 'string '(vector character)))
        (multiple-value-list (subtypep '(vector nil) 'string))
        (multiple-value-list (subtypep '(array (integer 0 1)) '(array bit)))
        (multiple-value-list (subtypep '(simple-array character (*)) 'simple-string))
        (multiple-value-list (subtypep 'string '(or simple-string (and string (not simple-array)))))
        (multiple-value-list (subtypep '(string 3) '(array character (3))))
        (multiple-value-list (subtypep '(array character (3)) '(string 3))))
  ((t t) (t t) (t t) (t t) (t t) (nil t) (nil t) (nil t) (t t) (t t) (t t) (nil t) (t t)))

(deftest subtypep-complex
  (list (multiple-value-list (subtypep '(complex (integer 0 1)) '(complex (integer 0 2))))
        (multiple-value-list (subtypep '(complex (integer 0 2)) '(complex (integer 0 1))))
        (multiple-value-list (subtypep '(complex integer) '(complex rational)))
        (multiple-value-list (subtypep '(complex rational) '(complex integer)))
        (multiple-value-list (subtypep '(complex single-float) '(complex float)))
        (multiple-value-list (subtypep 'complex '(complex real)))
        (multiple-value-list (subtypep '(complex real) 'complex))
        (multiple-value-list (subtypep 'complex 'number))
        (multiple-value-list (subtypep 'complex 'real)))
  ((t t) (nil t) (t t) (nil t) (t t) (t t) (t t) (t t) (nil t)))

(deftest subtypep-other-built-ins
  (list (multiple-value-list (subtypep 'function 'compiled-function))
        (multiple-value-list (subtypep 'compiled-function 'function))
        (multiple-value-list (subtypep 'hash-table 'atom))
        (multiple-value-list (subtypep 'stream 'atom))
        (multiple-value-list (subtypep 'file-stream 'stream))
        (multiple-value-list (subtypep 'stream 'file-stream))
        (multiple-value-list (subtypep 'package '(not symbol)))
        (multiple-value-list (subtypep 'logical-pathname 'pathname))
        (multiple-value-list (subtypep 'pathname 'logical-pathname))
        (multiple-value-list (subtypep '(and hash-table package) nil))
        (multiple-value-list (subtypep '(function (integer) t) 'function))
        (multiple-value-list (subtypep 'function '(function (integer) t))))
  ((nil t) (t t) (t t) (t t) (t t) (nil t) (t t) (t t) (nil t) (t t) (t t) (nil t)))

(deftest subtypep-classes
  (list (multiple-value-list (subtypep 'error 'condition))
        (multiple-value-list (subtypep 'condition 'error))
        (multiple-value-list (subtypep 'simple-error 'simple-condition))
        (multiple-value-list (subtypep 'type-error 'serious-condition))
        (multiple-value-list (subtypep 'reader-error 'stream-error))
        (multiple-value-list (subtypep 'warning 'error))
        (multiple-value-list (subtypep 'standard-object 'structure-object))
        (multiple-value-list (subtypep 'error 'atom))
        (multiple-value-list (subtypep 'error 'number))
        (multiple-value-list (subtypep 'restart 'atom)))
  ((t t) (nil t) (t t) (t t) (t t) (nil t) (nil t) (t t) (nil t) (t t)))

(deftest subtypep-and-or-not-edge-cases
  (list (multiple-value-list (subtypep t nil)) (multiple-value-list (subtypep nil nil))
        (multiple-value-list (subtypep '(and) '(or))) (multiple-value-list (subtypep '(or) '(and)))
        (multiple-value-list (subtypep 'atom t)) (multiple-value-list (subtypep '(integer * *) 'integer)))
  ((nil t) (t t) (nil t) (t t) (t t) (t t)))

(deftest subtypep-satisfies-and-unknown
  (list (multiple-value-list (subtypep '(satisfies evenp) 'integer))
        (multiple-value-list (subtypep 'integer '(satisfies evenp)))
        (multiple-value-list (subtypep '(satisfies evenp) '(satisfies evenp)))
        (multiple-value-list (subtypep '(satisfies evenp) t))
        (multiple-value-list (subtypep nil '(satisfies evenp)))
        (multiple-value-list (subtypep '(and integer (satisfies evenp)) 'integer))
        (multiple-value-list (subtypep 'integer '(or integer (satisfies evenp))))
        (multiple-value-list (subtypep '(satisfies evenp) '(or (satisfies evenp) (satisfies oddp))))
        (multiple-value-list (subtypep '(and (satisfies evenp) (satisfies oddp)) '(satisfies evenp)))
        (multiple-value-list (subtypep 'no-such-type-xyz 'no-such-type-xyz))
        (multiple-value-list (subtypep 'no-such-type-xyz t))
        (multiple-value-list (subtypep 'standard-object 'no-such-type-xyz))
        (multiple-value-list (subtypep '(or integer no-such-type-xyz) 'no-such-type-xyz))
        (multiple-value-list (subtypep 'no-such-type-xyz '(or integer no-such-type-xyz))))
  ((nil nil) (nil nil) (t t) (t t) (t t) (t t) (t t) (t t) (t t) (t t) (t t) (nil nil) (nil nil) (t t)))

;;; coerce

(deftest coerce-to-sequences
  (list (coerce '(1 2) 'vector) (coerce '(1 2) '(vector t 2)) (coerce '(#\a #\b) 'string)
        (coerce "abc" 'list) (coerce #(1 2) 'list) (coerce #*101 'list) (coerce '(1 0 1) 'bit-vector)
        (coerce '(1 0 1) 'simple-bit-vector) (coerce "abc" 'simple-vector)
        (coerce "abc" '(simple-array character (*))) (coerce "abc" '(array t (*)))
        (coerce '(1 2) 'sequence) (coerce nil 'list) (coerce nil 'vector) (coerce '(1 2) 'cons)
        (coerce #(1 2) 'cons) (coerce "ab" '(string 2)) (coerce '(#\a) 'base-string)
        (coerce #(#\a #\b) 'string) (coerce '(1 2) '(simple-array t (2))))
  (#(1 2) #(1 2) "ab" (#\a #\b #\c) (1 2) (1 0 1) #*101 #*101 #(#\a #\b #\c) "abc" #(#\a #\b #\c) (1 2) nil #() (1 2) (1 2) "ab" "a" "ab" #(1 2)))

(deftest coerce-returns-same-object-when-already-of-type
  (let ((v (vector 1 2)) (l (list 1 2)) (s "ab"))
    (list (eq v (coerce v 'vector)) (eq v (coerce v 'simple-vector)) (eq l (coerce l 'list))
          (eq s (coerce s 'string)) (eq s (coerce s 'array)) (eq v (coerce v 'sequence)) (eq v (coerce v t))))
  (t t t t t t t))

(deftest coerce-fill-pointer-vector
  (let ((v (make-array 3 :fill-pointer 2 :initial-contents '(a b c))))
    (list (coerce v 'list) (coerce v 'simple-vector)))
  ((a b) #(a b)))

(deftest coerce-element-types
  (list (type-of (coerce '(#\a) 'base-string)) (type-of (coerce #(1 0) 'bit-vector))
        (type-of (coerce "ab" 'simple-vector)))
  ((simple-base-string 1) (simple-bit-vector 2) (simple-vector 2)))

(deftest coerce-sequence-errors
  (list (signals-error (coerce '(1 2) '(vector t 3)) error)
        (signals-error (coerce '(1 #\b) 'string) type-error)
        (signals-error (coerce '(1 2) 'array) type-error)
        (signals-error (coerce '(1 2) '(array t (2 1))) type-error)
        (signals-error (coerce '(1) 'null) type-error)
        (signals-error (coerce #() 'cons) type-error)
        (signals-error (coerce "ab" '(string 3)) type-error)
        (signals-error (coerce '(1 2) '(vector character)) type-error)
        (signals-error (coerce '(a b) 'hash-table) type-error))
  (t t t t t t t t t))

(deftest coerce-to-character
  (list (coerce "a" 'character) (coerce 'a 'character) (coerce #\a 'character)
        (signals-error (coerce "ab" 'character) type-error)
        (signals-error (coerce 'ab 'character) type-error)
        (signals-error (coerce 65 'character) type-error))
  (#\a #\A #\a t t t))

(deftest coerce-to-floats
  (list (coerce 1 'float) (coerce 1 'single-float) (coerce 1 'double-float) (coerce 1/2 'double-float)
        (coerce 1.5d0 'single-float) (coerce 1.5 'double-float) (coerce 1 'short-float)
        (coerce 1 'long-float) (coerce 1 '(float 0 2)) (coerce 1.5 'float))
  (1.0 1.0 1.0d0 0.5d0 1.5 1.5d0 1.0 1.0d0 1.0 1.5))

(deftest coerce-number-errors
  (list (signals-error (coerce 1.5 'integer) type-error)
        (signals-error (coerce 1.0 'integer) type-error)
        (signals-error (coerce 5 '(float 0 2)) type-error)
        (signals-error (coerce 3 'bit) type-error))
  (t t t t))

(deftest coerce-numbers-already-of-type
  (list (coerce 1 'real) (coerce 1 'number) (coerce 1 t) (coerce 1 'bit) (coerce 1 '(integer 0 5))
        (coerce 1 '(or integer string)) (coerce "ab" '(or list vector)) (coerce 1 'complex))
  (1 1 1 1 1 1 "ab" 1))

(deftest coerce-to-function
  (list (funcall (coerce '(lambda (x) (list x x)) 'function) 4)
        (eq (coerce 'car 'function) #'car)
        (signals-error (coerce 'when 'function) error)
        (signals-error (coerce 'if 'function) error)
        (signals-error (coerce 'no-such-function-xyz 'function) undefined-function)
        (signals-error (coerce 5 'function) type-error))
  ((4 4) t t t t t))

(deftest coerce-unknown-type
  (handler-case (coerce 1 'no-such-type-xyz) (error () :error))
  :error)

;;; deftype

(deftype small-int () '(integer 0 10))

(deftest deftype-simple
  (list (typep 5 'small-int) (typep 11 'small-int) (multiple-value-list (subtypep 'small-int 'fixnum))
        (multiple-value-list (subtypep 'fixnum 'small-int)))
  (t nil (t t) (nil t)))

(deftype block-named-type (&optional (kind :int))
  "A type whose expander leaves through its implicit block."
  (declare (ignorable kind))
  (if (eq kind :int) (return-from block-named-type 'integer))
  'string)

(deftest deftype-body-in-block-named-by-the-type
  (list (typep 3 'block-named-type) (typep "x" 'block-named-type)
        (typep "x" '(block-named-type :str)) (typep 3 '(block-named-type :str)))
  (t nil t nil))

(deftype my-range (&optional lo hi) `(integer ,lo ,hi))

(deftest deftype-optional-defaults-to-star
  (list (typep 5 'my-range) (typep 5 '(my-range 6)) (typep 5 '(my-range 0 5))
        (multiple-value-list (subtypep '(my-range 0 3) '(my-range 0 4))))
  (t nil t (t t)))

(deftype pair-of (a &optional (b a)) `(cons ,a ,b))

(deftest deftype-optional-with-default
  (list (typep '(1 . 2) '(pair-of integer)) (typep '(1 . a) '(pair-of integer))
        (typep '(1 . a) '(pair-of integer symbol)))
  (t nil t))

(deftype int-between (&key (lo 0) hi) `(integer ,lo ,hi))

(deftest deftype-keys
  (list (typep 5 '(int-between)) (typep -1 '(int-between)) (typep 50 '(int-between :hi 40))
        (typep -5 '(int-between :lo -10)))
  (t nil nil t))

(deftype my-list () 'list)
(deftype my-list-2 () 'my-list)

(deftest deftype-chain
  (list (typep nil 'my-list-2) (multiple-value-list (subtypep 'my-list-2 'sequence)) (coerce #(1 2) 'my-list-2))
  (t (t t) (1 2)))

(defun small-even-p (x) (or (eql x 0) (eql x 2) (eql x 4) (eql x 6) (eql x 8)))

(deftype even-integer () '(and integer (satisfies small-even-p)))

(deftest deftype-with-satisfies
  (list (typep 4 'even-integer) (typep 3 'even-integer) (multiple-value-list (subtypep 'even-integer 'integer)))
  (t nil (t t)))

(deftype whole-member (&whole w x) (list 'member w x))

(deftest deftype-whole
  (list (typep 3 '(whole-member 3)) (typep '(whole-member 3) '(whole-member 3)))
  (t nil))

(deftest deftype-returns-name
  (deftype returned-type () 'integer)
  returned-type)

(deftest deftype-in-make-array
  (progn (deftype my-char () 'character)
         (list (stringp (make-array 2 :element-type 'my-char :initial-element #\a))
               (upgraded-array-element-type 'my-char)))
  (t character))

(deftest deftype-in-typecase
  (list (typecase 5 (string 's) (small-int 'small) (t 'other))
        (typecase 50 (string 's) (small-int 'small) (t 'other)))
  (small other))

;;; typecase, etypecase, ctypecase

(deftest typecase-basics
  (list (typecase 1 (string 's) (otherwise 'o)) (typecase 1 (string 's) (t 'o)) (typecase 1 (string 's))
        (typecase 1 ((integer 0 5))) (typecase "a" ((or integer string) 1 2 3))
        (typecase 'x (null 'null) (symbol 'symbol))
        (typecase nil (null 'null) (symbol 'symbol)))
  (o o nil nil 3 symbol null))

(deftest typecase-evaluates-key-once
  (let ((n 0))
    (list (typecase (incf n) (string 's) (float 'f) (integer 'i)) n))
  (i 1))

(deftest etypecase-match
  (etypecase 1 (string 's) (integer 'i))
  i)

(deftest etypecase-failure
  (handler-case (etypecase 1.5 (integer 1) (string 2))
    (type-error (e) (list (type-error-datum e) (type-error-expected-type e))))
  (1.5 (or integer string)))

(deftest ctypecase-match
  (let ((x 1)) (ctypecase x (integer 'i)))
  i)

(deftest ctypecase-failure
  (handler-case (let ((x 1.5)) (ctypecase x (integer 1) (symbol 2)))
    (type-error (e) (list (type-error-datum e) (type-error-expected-type e))))
  (1.5 (or integer symbol)))

(deftest ctypecase-store-value
  (let ((x 1.5))
    (handler-bind ((type-error (lambda (c) (declare (ignore c)) (store-value 7))))
      (list (ctypecase x (integer (list :int x)) (symbol :sym)) x)))
  ((:int 7) 7))

;;; check-type

(deftest check-type-passes
  (let ((x 1)) (check-type x integer))
  nil)

(deftest check-type-failure
  (handler-case (let ((x 1.5)) (check-type x integer))
    (type-error (e) (list (type-error-datum e) (type-error-expected-type e))))
  (1.5 integer))

(deftest check-type-message
  (list (handler-case (let ((x 1.5)) (check-type x integer)) (error (e) (princ-to-string e)))
        (handler-case (let ((x 1.5)) (check-type x integer "an integer please")) (error (e) (princ-to-string e))))
  ("The value of X is 1.5, which is not of type INTEGER." "The value of X is 1.5, which is not an integer please."))

(deftest check-type-store-value
  (let ((x 1.5))
    (handler-bind ((type-error (lambda (c) (declare (ignore c)) (store-value 42))))
      (check-type x integer))
    x)
  42)

(deftest check-type-store-value-rechecks
  (let ((x 1.5) (tries 0))
    (handler-bind ((type-error (lambda (c) (declare (ignore c))
                                 (incf tries)
                                 (store-value (if (< tries 3) 'still-bad 3)))))
      (check-type x integer))
    (list x tries))
  (3 3))

(deftest check-type-place
  (let ((v (vector 1 'a)))
    (handler-bind ((type-error (lambda (c) (declare (ignore c)) (store-value 2))))
      (check-type (aref v 1) integer))
    v)
  #(1 2))

(deftest ctypecase-literal-key
  (ctypecase 1 (integer 'i))
  i)

;;; user-defined condition classes as types

(define-condition my-test-error (simple-error) ())

(deftest condition-class-types
  (list (typep (make-condition 'my-test-error) 'my-test-error) (typep (make-condition 'my-test-error) 'error)
        (typep (make-condition 'my-test-error) 'simple-condition) (typep 1 'my-test-error)
        (type-of (make-condition 'my-test-error))
        (multiple-value-list (subtypep 'my-test-error 'error))
        (multiple-value-list (subtypep 'my-test-error 'simple-condition))
        (multiple-value-list (subtypep 'error 'my-test-error))
        (multiple-value-list (subtypep 'my-test-error 'warning))
        (multiple-value-list (subtypep 'my-test-error '(or warning simple-error)))
        (multiple-value-list (subtypep 'my-test-error 'number)))
  (t t t nil my-test-error (t t) (t t) (nil t) (nil t) (t t) (nil t)))

;;; complex numbers (read at run time: the reader needs COMPLEX from the numbers module)

(deftest type-of-complexes
  (let ((r nil))
    (dolist (s '("#c(1 2)" "#c(1.0 2.0)" "#c(1/2 2)" "#c(1d0 2d0)" "#c(3 -5)" "#c(1/2 1/3)" "#c(1.0 -2.0)"))
      (push (type-of (read-from-string s)) r))
    r)
  ((complex (single-float -2.0 1.0)) (complex (rational 1/3 1/2)) (complex (integer -5 3)) (complex (double-float 1.0d0 2.0d0)) (complex (rational 1/2 2)) (complex (single-float 1.0 2.0)) (complex (integer 1 2))))

(deftest typep-complexes
  (let ((c12 (read-from-string "#c(1 2)")) (c34 (read-from-string "#c(3 4)"))
        (ch (read-from-string "#c(1/2 2)")) (cf (read-from-string "#c(1.0 2.0)")))
    (list (typep c12 'complex) (typep c12 '(complex *)) (typep c34 '(complex (integer 1 2)))
          (typep c12 '(complex (integer 1 2))) (typep c12 '(complex integer)) (typep ch '(complex integer))
          (typep cf '(complex double-float)) (typep cf '(complex single-float)) (typep c12 'number)
          (typep c12 'real)))
  (t t nil t t nil nil t t nil))

(deftest coerce-to-complex
  (let ((c12 (read-from-string "#c(1 2)")))
    (list (prin1-to-string (coerce 1 'complex)) (prin1-to-string (coerce 1.0 'complex))
          (prin1-to-string (coerce 1 '(complex float))) (prin1-to-string (coerce 1 '(complex double-float)))
          (prin1-to-string (coerce 1/2 '(complex rational))) (prin1-to-string (coerce c12 'complex))
          (prin1-to-string (coerce c12 '(complex float)))
          (signals-error (coerce c12 'float) type-error)))
  ("1" "#C(1.0 0.0)" "#C(1.0 0.0)" "#C(1.0d0 0.0d0)" "1/2" "#C(1 2)" "#C(1.0 2.0)" t))

(deftest coerce-ratio-to-single-float-rounds-once
  (coerce (/ 3 (expt 2 151)) 'single-float)
  0.0)

;; DEFTYPE's documentation string is (documentation name 'type), and setf-able
(deftest deftype-documentation
  (progn
    (deftype doc-ty () "doc of doc-ty" 'integer)
    (list (documentation 'doc-ty 'type)
          (progn (setf (documentation 'doc-ty 'type) "new") (documentation 'doc-ty 'type))
          (documentation 'doc-ty 'function)))
  ("doc of doc-ty" "new" nil))

;; COERCE to a sequence type named by a symbol, and the element type of (UNSIGNED-BYTE n) and
;; (SIGNED-BYTE n) arrays, are found without SUBTYPEP (runtime/types.c, runtime/array.c); the
;; element types are tinycl's upgrading (BIT, octets or T), SBCL has more kinds of arrays
(deftest coerce-sequence-type-names
  (list (coerce #(1 2) 'list) (coerce #(1 2) 'cons) (coerce #() 'null) (coerce '(1 2) 'vector)
        (coerce '(1 2) 'simple-vector) (coerce '(#\a #\b) 'string) (coerce '(#\a) 'simple-string)
        (coerce '(#\a) 'base-string) (coerce '(1 0) 'bit-vector) (coerce "ab" 'list)
        (signals-error (coerce #() 'cons) type-error) (signals-error (coerce #(1) 'null) type-error)
        (signals-error (coerce '(1 a) 'string) type-error))
  ((1 2) (1 2) nil #(1 2) #(1 2) "ab" "a" "a" #*10 (#\a #\b) t t t))

(deftest upgraded-byte-element-types
  (mapcar (lambda (ty) (let ((u (upgraded-array-element-type ty)))
                         (list (subtypep ty u) (array-element-type (make-array 2 :element-type ty)))))
          '((unsigned-byte 1) (unsigned-byte 2) (unsigned-byte 8) (unsigned-byte 9) (signed-byte 8)))
  ((t bit) (t (unsigned-byte 8)) (t (unsigned-byte 8)) (t t) (t t)))

(deftest subseq-of-octets-keeps-type
  (let ((v (make-array 4 :element-type '(unsigned-byte 2) :initial-contents '(0 1 2 3))))
    (list (array-element-type (subseq v 1)) (subseq v 1) (coerce v 'list)))
  ((unsigned-byte 8) #(1 2 3) (0 1 2 3)))
