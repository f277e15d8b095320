;;;; streams.lisp: tests of streams (CLHS chapter 21) other than files: string streams, the
;;;; composite streams, sequences, queries; expected values from SBCL (the file also runs in SBCL
;;;; with framework.lisp).

(defvar *ts-sink* nil)

(defmacro ts-err (form)
  `(handler-case (progn (setq *ts-sink* ,form) :no-error)
     (end-of-file () 'end-of-file)
     (stream-error () 'stream-error)
     (type-error () 'type-error)
     (error () 'error)))

(defun ts-query (fn input &rest args)
  ;; call the query function FN with *QUERY-IO* reading INPUT; returns (result output)
  (let ((out (make-string-output-stream)))
    (with-input-from-string (in input)
      (let ((*query-io* (make-two-way-stream in out)))
        (list (apply fn args) (get-output-stream-string out))))))

;;; ------------------------------------------------------------------
;;; string input streams

(deftest string-input-read-char
  (let ((s (make-string-input-stream "abc")))
    (list (read-char s) (peek-char nil s) (read-char s) (read-char s) (read-char s nil :eof)
          (ts-err (read-char s))))
  (#\a #\b #\b #\c :eof end-of-file))

(deftest string-input-bounds
  (let ((s (make-string-input-stream "hello world" 2 5)))
    (list (read-line s) (read-char s nil :eof)))
  ("llo" :eof))

(deftest string-input-bad-bounds
  (list (ts-err (make-string-input-stream "abc" 2 1)) (ts-err (make-string-input-stream "abc" 0 4))
        (ts-err (make-string-input-stream 'abc)))
  (type-error type-error type-error))

(deftest string-input-unread
  (let ((s (make-string-input-stream "xy")))
    (let ((c (read-char s)))
      (unread-char c s)
      (list (read-char s) (read-char s))))
  (#\x #\y))

(deftest string-input-file-position
  (let ((s (make-string-input-stream "hello world" 2)))
    (list (file-position s) (read-char s) (file-position s) (file-position s 3) (read-char s)
          (file-position s :start) (read-char s)))
  (0 #\l 1 5 #\Space 2 #\l))

(deftest peek-char-types
  (let ((s (make-string-input-stream "   xyz!")))
    (list (peek-char t s) (peek-char #\! s) (read-char s) (peek-char nil s nil :eof) (peek-char t s nil :eof)))
  (#\x #\! #\! :eof :eof))

(deftest read-line-values
  (let ((s (make-string-input-stream (format nil "one~%two"))))
    (list (multiple-value-list (read-line s)) (multiple-value-list (read-line s))
          (multiple-value-list (read-line s nil :done))))
  (("one" nil) ("two" t) (:done t)))

(deftest listen-and-read-char-no-hang
  (let ((s (make-string-input-stream "a")))
    (list (listen s) (read-char-no-hang s) (listen s) (read-char-no-hang s nil :eof)))
  (t #\a nil :eof))

(deftest string-input-element-type-and-format
  (let ((s (make-string-input-stream "a")))
    (list (stream-element-type s) (stream-external-format s) (input-stream-p s) (output-stream-p s)
          (interactive-stream-p s) (open-stream-p s)))
  (character nil t nil nil t))

(deftest with-input-from-string-index
  (let (i j)
    (list (with-input-from-string (s "hello world" :index i :start 2) (read s))
          i
          (with-input-from-string (s "hello world" :index j :start 2 :end 4) (read-char s))
          j))
  (llo 6 #\l 3))

;;; ------------------------------------------------------------------
;;; string output streams

(deftest string-output-basics
  (let ((s (make-string-output-stream)))
    (write-string "abc" s)
    (write-char #\d s)
    (list (file-position s) (get-output-stream-string s) (get-output-stream-string s)
          (progn (write-line "x" s) (get-output-stream-string s))))
  (4 "abcd" "" "x
"))

(deftest write-string-bounds
  (with-output-to-string (s)
    (write-string "hello" s :start 1 :end 3)
    (write-line "world" s :end 2))
  "elwo
")

(deftest fresh-line-and-terpri
  (let ((s (make-string-output-stream)))
    (list (fresh-line s) (write-char #\a s) (fresh-line s) (fresh-line s) (terpri s)
          (get-output-stream-string s)))
  (nil #\a t nil nil "a

"))

(deftest with-output-to-string-result
  (list (with-output-to-string (o) (write-string "abc" o) (princ 12 o))
        (with-output-to-string (o nil :element-type 'base-char) (write-string "abc" o)))
  ("abc12" "abc"))

(deftest string-output-element-type
  (list (stream-element-type (make-string-output-stream)) (output-stream-p (make-string-output-stream)))
  (character t))

(deftest closed-string-streams
  (let ((o (make-string-output-stream)) (i (make-string-input-stream "abc")))
    (close o)
    (close i)
    (list (ts-err (write-char #\a o)) (ts-err (read-char i)) (ts-err (write-string "x" o))
          (open-stream-p o) (close o)))
  (stream-error stream-error stream-error nil t))

(deftest get-output-stream-string-type
  (ts-err (get-output-stream-string (make-string-input-stream "x")))
  type-error)

;;; ------------------------------------------------------------------
;;; sequences

(deftest read-sequence-into-string
  (let ((v (format nil "-----")))
    (list (read-sequence v (make-string-input-stream "abc")) v))
  (3 "abc--"))

(deftest read-sequence-bounds
  (let ((v (format nil "-----")))
    (list (read-sequence v (make-string-input-stream "abcdefg") :start 1 :end 3) v))
  (3 "-ab--"))

(deftest read-sequence-into-list
  (let ((v (list 1 2 3 4)))
    (list (read-sequence v (make-string-input-stream "ab")) v))
  (2 (#\a #\b 3 4)))

(deftest write-sequence-cases
  (list (with-output-to-string (o) (write-sequence "hello" o :start 1 :end 3))
        (with-output-to-string (o) (write-sequence '(#\a #\b) o))
        (with-output-to-string (o) (write-sequence #(#\x #\y) o :start 1))
        (ts-err (with-output-to-string (o) (write-sequence '(1 2) o)))
        (ts-err (with-output-to-string (o) (write-sequence "abc" o :end 4))))
  ("el" "ab" "y" type-error type-error))

(deftest write-sequence-returns-sequence
  (let ((seq "abc")) (eq seq (write-sequence seq (make-string-output-stream))))
  t)

;;; ------------------------------------------------------------------
;;; composite streams

(deftest two-way-stream
  (let* ((in (make-string-input-stream "q"))
         (out (make-string-output-stream))
         (s (make-two-way-stream in out)))
    (write-string "hi" s)
    (list (read-char s) (get-output-stream-string out)
          (eq (two-way-stream-input-stream s) in) (eq (two-way-stream-output-stream s) out)
          (input-stream-p s) (output-stream-p s)))
  (#\q "hi" t t t t))

(deftest echo-stream
  (let* ((out (make-string-output-stream))
         (s (make-echo-stream (make-string-input-stream "abc") out)))
    (list (read-char s) (read-char s) (get-output-stream-string out)))
  (#\a #\b "ab"))

(deftest broadcast-stream
  (let* ((a (make-string-output-stream)) (b (make-string-output-stream))
         (s (make-broadcast-stream a b)))
    (write-string "xy" s)
    (list (get-output-stream-string a) (get-output-stream-string b)
          (list-length (broadcast-stream-streams s))
          (file-length (make-broadcast-stream))))
  ("xy" "xy" 2 0))

(deftest broadcast-stream-with-no-streams
  (let ((s (make-broadcast-stream)))
    (list (write-string "lost" s) (output-stream-p s)))
  ("lost" t))

(deftest concatenated-stream
  (let ((s (make-concatenated-stream (make-string-input-stream "ab") (make-string-input-stream "")
                                     (make-string-input-stream "c"))))
    (list (read-char s) (read-line s) (read-char s nil :eof)))
  (#\a "bc" :eof))

(deftest synonym-stream
  (let* ((*ts-sink* (make-string-output-stream))
         (s (make-synonym-stream '*ts-sink*)))
    (write-string "via" s)
    (list (get-output-stream-string *ts-sink*) (synonym-stream-symbol s)))
  ("via" *ts-sink*))

(deftest composite-constructor-errors
  (list (ts-err (make-two-way-stream (make-string-output-stream) (make-string-output-stream)))
        (ts-err (make-broadcast-stream (make-string-input-stream "x")))
        (ts-err (make-concatenated-stream (make-string-output-stream)))
        (ts-err (make-synonym-stream "X")))
  (type-error type-error type-error type-error))

(deftest file-length-of-string-stream
  (ts-err (file-length (make-string-input-stream "abc")))
  type-error)

(deftest stream-type-errors
  (list (ts-err (read-char 3)) (ts-err (write-char #\a 3)) (ts-err (write-char "a"))
        (ts-err (read-byte (make-string-input-stream "a"))))
  (type-error type-error type-error type-error))

(deftest standard-streams
  (list (streamp *standard-output*) (streamp *terminal-io*) (output-stream-p *error-output*)
        (input-stream-p *standard-input*) (streamp *query-io*) (streamp *debug-io*) (streamp *trace-output*))
  (t t t t t t t))

;;; ------------------------------------------------------------------
;;; queries

(deftest y-or-n-p-yes (ts-query #'y-or-n-p "y") (t "(y or n) "))

(deftest y-or-n-p-retries
  (ts-query #'y-or-n-p "maybe
n" "Go ~A?" 1)
  (t "Go 1? (y or n) 
Please type \"y\" for yes or \"n\" for no.
Go 1? (y or n) 
Please type \"y\" for yes or \"n\" for no.
Go 1? (y or n) "))

(deftest y-or-n-p-no (car (ts-query #'y-or-n-p "N")) nil)

(defun ts-bell-first (result)
  ;; YES-OR-NO-P beeps (writes #\Bel) first: (value bell-first-p rest-of-output)
  (let ((in (make-string-input-stream (cadr result))))
    (list (car result) (eql (read-char in) #\Bel)
          (with-output-to-string (o)
            (tagbody
             next
               (let ((c (read-char in nil nil)))
                 (when c (write-char c o) (go next))))))))

(deftest yes-or-no-p-yes (ts-bell-first (ts-query #'yes-or-no-p "yes
" "Go?")) (t t "
Go? (yes or no) "))

(deftest yes-or-no-p-retries
  (ts-bell-first (ts-query #'yes-or-no-p "y
 NO 
"))
  (nil t "
(yes or no) 
Please type \"yes\" for yes or \"no\" for no.
(yes or no) "))

(deftest y-or-n-p-end-of-file
  (ts-err (ts-query #'y-or-n-p ""))
  end-of-file)

;;; A broadcast stream answers FILE-POSITION and STREAM-EXTERNAL-FORMAT from its last
;;; component; with none, 0 and :DEFAULT (CLHS 21.2, BROADCAST-STREAM).
(deftest broadcast-stream-position-and-format
  (let ((s (make-string-output-stream)))
    (write-string "abc" s)
    (list (file-position (make-broadcast-stream))
          (stream-external-format (make-broadcast-stream))
          (file-position (make-broadcast-stream (make-broadcast-stream) s))))
  (0 :default 3))

;; the reader reads string input streams inline: pushed-back characters, partial reads, the end
;; and closed streams still behave
(deftest reader-on-string-stream-after-read-char
  (let ((s (make-string-input-stream "ab (c d) e")))
    (list (read-char s) (progn (unread-char #\a s) (read s)) (read s) (read s) (read s nil :eof)))
  (#\a ab (c d) e :eof))
(deftest reader-on-closed-string-stream
  (let ((s (make-string-input-stream "x y")))
    (read s)
    (close s)
    (signals-error (read s) error))
  t)

;;; an echo stream echoes a character when it is read, not when it is peeked at
(deftest peek-char-on-echo-stream-does-not-echo
  (with-input-from-string (is "  ab")
    (let* ((os (make-string-output-stream))
           (es (make-echo-stream is os)))
      (list (peek-char nil es) (get-output-stream-string os)
            (peek-char t es) (get-output-stream-string os)
            (read-char es) (get-output-stream-string os))))
  (#\Space "" #\a "  " #\a "a"))

;;; (peek-char t) skips the current readtable's whitespace
(deftest peek-char-t-uses-readtable
  (let ((*readtable* (copy-readtable nil)))
    (set-syntax-from-char #\Space #\a)
    (with-input-from-string (s "  x")
      (list (peek-char t s) (read-char s))))
  (#\Space #\Space))

(deftest with-output-to-string-base-char
  (let ((s (with-output-to-string (o nil :element-type 'base-char) (write-char #\8 o))))
    (list s (typep s 'simple-base-string)
          (stream-element-type (make-string-output-stream :element-type 'base-char))))
  ("8" t base-char))

;;; the :element-type form is evaluated even when a string is given, outside the body's declarations
(deftest with-output-to-string-evaluates-element-type
  (block done
    (let ((x :bad))
      (declare (special x))
      (let ((x :good) (str (make-array 10 :element-type 'character :fill-pointer 0)))
        (with-output-to-string (s str :element-type (return-from done x))
          (declare (special x))))))
  :good)
