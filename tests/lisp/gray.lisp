;;;; gray.lisp: tests of Gray streams on their own: user-defined character and binary streams
;;;; through every CL stream function, the protocol's default methods, and the CL generic
;;;; functions (CLOSE, OPEN-STREAM-P, ...). Written against SB-GRAY so that the file also runs
;;;; in SBCL (with framework.lisp), where the expected values come from.

;;; a character input stream over a string
(defclass gt-in (sb-gray:fundamental-character-input-stream)
  ((text :initarg :text) (pos :initform 0)))
(defmethod sb-gray:stream-read-char ((s gt-in))
  (with-slots (text pos) s
    (if (< pos (length text)) (prog1 (char text pos) (incf pos)) :eof)))
(defmethod sb-gray:stream-unread-char ((s gt-in) c)
  (declare (ignore c))
  (decf (slot-value s 'pos))
  nil)
(defun gt-in (text) (make-instance 'gt-in :text text))

;;; a character output stream that tracks its column
(defclass gt-out (sb-gray:fundamental-character-output-stream)
  ((chars :initform (make-array 0 :element-type 'character :adjustable t :fill-pointer 0))
   (column :initform 0)
   (calls :initform nil)))
(defmethod sb-gray:stream-write-char ((s gt-out) c)
  (vector-push-extend c (slot-value s 'chars))
  (setf (slot-value s 'column) (if (char= c #\Newline) 0 (1+ (slot-value s 'column))))
  c)
(defmethod sb-gray:stream-line-column ((s gt-out)) (slot-value s 'column))
(defmethod sb-gray:stream-finish-output ((s gt-out)) (push :finish (slot-value s 'calls)) nil)
(defmethod sb-gray:stream-force-output ((s gt-out)) (push :force (slot-value s 'calls)) nil)
(defun gt-text (s) (coerce (slot-value s 'chars) 'simple-string))

;;; binary streams over a list of bytes
(defclass gt-bin-in (sb-gray:fundamental-binary-input-stream) ((bytes :initarg :bytes)))
(defmethod sb-gray:stream-read-byte ((s gt-bin-in))
  (if (slot-value s 'bytes) (pop (slot-value s 'bytes)) :eof))
(defmethod stream-element-type ((s gt-bin-in)) '(unsigned-byte 8))
(defclass gt-bin-out (sb-gray:fundamental-binary-output-stream) ((bytes :initform nil)))
(defmethod sb-gray:stream-write-byte ((s gt-bin-out) b) (push b (slot-value s 'bytes)) b)
(defmethod stream-element-type ((s gt-bin-out)) '(unsigned-byte 8))

(deftest gray-stream-predicates
  (let ((i (gt-in "x")) (o (make-instance 'gt-out)))
    (list (streamp i) (typep i 'stream) (input-stream-p i) (output-stream-p i)
          (input-stream-p o) (output-stream-p o) (open-stream-p i) (interactive-stream-p i)
          (stream-element-type i) (streamp (make-instance 'standard-object))))
  (t t t nil nil t t nil character nil))

(deftest gray-read-char-peek-unread
  (let ((s (gt-in "abc")))
    (list (read-char s) (peek-char nil s) (read-char s) (progn (unread-char #\b s) (read-char s))
          (read-char s) (read-char s nil :end) (peek-char nil s nil :end)))
  (#\a #\b #\b #\b #\c :end :end))

(deftest gray-read-char-eof-error
  (handler-case (read-char (gt-in ""))
    (end-of-file (e) (list :eof (typep (stream-error-stream e) 'gt-in))))
  (:eof t))

(deftest gray-read-line
  (let ((s (gt-in (format nil "one~%two~%last"))))
    (list (multiple-value-list (read-line s)) (multiple-value-list (read-line s))
          (multiple-value-list (read-line s)) (read-line s nil :eof)))
  (("one" nil) ("two" nil) ("last" t) :eof))

(deftest gray-read
  (let ((s (gt-in "(1 \"two\" #\\3) sym 4.5")))
    (list (read s) (read s) (read s) (read s nil :eof)))
  ((1 "two" #\3) sym 4.5 :eof))

(deftest gray-peek-char-skip-whitespace
  (let ((s (gt-in "   x")))
    (list (peek-char t s) (read-char s)))
  (#\x #\x))

(deftest gray-listen-and-no-hang
  (list (listen (gt-in "a")) (listen (gt-in "")) (read-char-no-hang (gt-in "b"))
        (read-char-no-hang (gt-in "") nil :eof))
  (t nil #\b :eof))

(deftest gray-read-sequence-default
  (let ((s (gt-in "hello")) (v (make-string 7 :initial-element #\-)))
    (list (read-sequence v s :start 1 :end 4) (copy-seq v) (read-sequence v s) v))
  (4 "-hel---" 2 "loel---"))

(deftest gray-write-functions
  (let ((o (make-instance 'gt-out)))
    (write-char #\a o)
    (write-string "xbcx" o :start 1 :end 3)
    (terpri o)
    (list (fresh-line o) (progn (write-line "l" o) (fresh-line o)) (write-sequence "seq" o)
          (gt-text o)))
  (nil nil "seq" "abc
l
seq"))

(deftest gray-format-and-print
  (let ((o (make-instance 'gt-out)))
    (format o "~A|~5T|~%~&~S" 12 "q")
    (print 'sym o)
    (prin1 '(1 #\a) o)
    (princ " " o)
    (write 3/4 :stream o)
    (gt-text o))
  "12|  |
\"q\"
SYM (1 #\\a) 3/4")

(deftest gray-standard-output-binding
  (let ((o (make-instance 'gt-out)))
    (let ((*standard-output* o)) (princ "to stdout") (format t "~D" 7) (terpri))
    (gt-text o))
  "to stdout7
")

(deftest gray-finish-force-output
  (let ((o (make-instance 'gt-out)))
    (finish-output o) (force-output o) (clear-output o)
    (reverse (slot-value o 'calls)))
  (:finish :force))

(deftest gray-close
  (let ((s (gt-in "abc")))
    (list (open-stream-p s) (close s) (open-stream-p s)))
  (t t nil))

(defclass gt-closing (gt-in) ((log :initform nil)))
(defmethod close ((s gt-closing) &key abort)
  (push (list :close abort) (slot-value s 'log))
  (call-next-method))

(deftest gray-close-method-and-with-open-stream
  (let ((s (make-instance 'gt-closing :text "z")))
    (list (with-open-stream (x s) (read-char x)) (open-stream-p s) (close s :abort t)
          (slot-value s 'log)))
  (#\z nil t ((:close t) (:close nil))))

(deftest gray-binary
  (let ((i (make-instance 'gt-bin-in :bytes '(1 2 3 4 5))) (o (make-instance 'gt-bin-out))
        (v (make-array 3 :element-type '(unsigned-byte 8) :initial-element 0)))
    (list (read-byte i) (read-sequence v i) (copy-seq v) (read-sequence v i) (read-byte i nil :eof)
          (stream-element-type i)
          (progn (write-byte 9 o) (write-sequence #(7 8) o) (reverse (slot-value o 'bytes)))))
  (1 3 #(2 3 4) 1 :eof (unsigned-byte 8) (9 7 8)))

(deftest gray-file-position-default
  (file-position (gt-in "abc"))
  nil)

(deftest gray-composite-streams
  (let* ((i (gt-in "in")) (o (make-instance 'gt-out)) (tw (make-two-way-stream i o)))
    (write-string "out" tw)
    (list (read-char tw) (eq (two-way-stream-input-stream tw) i) (gt-text o)))
  (#\i t "out"))

(deftest gray-missing-method-is-an-error
  (handler-case (progn (read-char (make-instance 'sb-gray:fundamental-character-input-stream)) :no-error)
    (error () :error))
  :error)

(deftest gray-not-a-stream
  (handler-case (read-char (make-instance 'standard-object))
    (type-error () :type-error))
  :type-error)

(deftest gray-reader-errors-name-the-instance
  (list (handler-case (read (gt-in ")")) (reader-error (e) (typep (stream-error-stream e) 'gt-in)))
        (handler-case (read (gt-in "(1 2")) (end-of-file (e) (typep (stream-error-stream e) 'gt-in))))
  (t t))

(defvar *gt-loaded* nil)
(deftest gray-load-from-instance
  (list (load (gt-in "(setq *gt-loaded* (list 1 2)) (push 0 *gt-loaded*)")) *gt-loaded*)
  (t (0 1 2)))

(deftest gray-composite-accessors-give-the-instance
  (let* ((a (make-instance 'gt-out)) (b (gt-in "x"))
         (br (make-broadcast-stream a)) (cc (make-concatenated-stream b)))
    (list (eq (first (broadcast-stream-streams br)) a) (eq (first (concatenated-stream-streams cc)) b)
          (read-char cc) (progn (write-char #\y br) (gt-text a))
          (handler-case (make-two-way-stream a a) (type-error (e) (eq (type-error-datum e) a)))))
  (t t #\x "y" t))

(deftest gray-subtypep
  (list (subtypep 'gt-in 'stream) (subtypep 'sb-gray:fundamental-stream 'stream) (subtypep 'stream 'gt-in)
        (subtypep 'gt-in 'standard-object) (subtypep 'gt-in '(or stream integer))
        (subtypep 'file-stream 'stream) (subtypep 'gt-in 'file-stream) (subtypep 'stream 'standard-object))
  (t t nil t t t nil nil))
