;;;; gray.lisp: Gray streams (the classic proposal, as SBCL's SB-GRAY has it): the
;;;; FUNDAMENTAL-*-STREAM classes, the STREAM-* generic functions with their default methods,
;;;; and CLOSE, OPEN-STREAM-P, INPUT-STREAM-P, OUTPUT-STREAM-P, INTERACTIVE-STREAM-P and
;;;; STREAM-ELEMENT-TYPE as generic functions. The CL stream functions written in C reach these
;;;; generic functions when given an instance (runtime/gray.c, through SYS::*GRAY-PROTOCOL*,
;;;; filled at the end of this file); built-in streams never come here.

(defpackage "TINYCL-GRAY"
  (:use "COMMON-LISP")
  (:nicknames "GRAY" "SB-GRAY")
  (:export "FUNDAMENTAL-STREAM" "FUNDAMENTAL-INPUT-STREAM" "FUNDAMENTAL-OUTPUT-STREAM"
           "FUNDAMENTAL-CHARACTER-STREAM" "FUNDAMENTAL-BINARY-STREAM"
           "FUNDAMENTAL-CHARACTER-INPUT-STREAM" "FUNDAMENTAL-CHARACTER-OUTPUT-STREAM"
           "FUNDAMENTAL-BINARY-INPUT-STREAM" "FUNDAMENTAL-BINARY-OUTPUT-STREAM"
           "STREAM-READ-CHAR" "STREAM-UNREAD-CHAR" "STREAM-READ-CHAR-NO-HANG" "STREAM-PEEK-CHAR"
           "STREAM-LISTEN" "STREAM-READ-LINE" "STREAM-CLEAR-INPUT" "STREAM-WRITE-CHAR"
           "STREAM-LINE-COLUMN" "STREAM-LINE-LENGTH" "STREAM-START-LINE-P" "STREAM-WRITE-STRING"
           "STREAM-TERPRI" "STREAM-FRESH-LINE" "STREAM-FINISH-OUTPUT" "STREAM-FORCE-OUTPUT"
           "STREAM-CLEAR-OUTPUT" "STREAM-ADVANCE-TO-COLUMN" "STREAM-READ-BYTE" "STREAM-WRITE-BYTE"
           "STREAM-READ-SEQUENCE" "STREAM-WRITE-SEQUENCE" "STREAM-FILE-POSITION"))

(in-package "TINYCL-GRAY")

;;; The CL functions the protocol lets methods specialise. Their built-in behaviour stays the
;;; method on T, so a built-in stream or a wrong argument gets exactly the old answer.
(macrolet ((generic (name lambda-list call doc)
             (let ((builtin (intern (concatenate 'string "%BUILTIN-" (symbol-name name)) "SYSTEM")))
               `(progn
                  (unless (fboundp ',builtin)   ; loaded twice, the primitive stays the primitive
                    (setf (fdefinition ',builtin) (fdefinition ',name)))
                  (tinycl:without-package-locks
                    (fmakunbound ',name)
                    (defgeneric ,name ,lambda-list (:documentation ,doc))
                    (defmethod ,name ((stream t) ,@(cdr lambda-list))
                      (,builtin stream ,@call)))))))
  (generic close (stream &key abort) (:abort abort) "Close STREAM; with ABORT true, undo what can be undone.")
  (generic open-stream-p (stream) () "Whether STREAM is open.")
  (generic input-stream-p (stream) () "Whether STREAM can do input.")
  (generic output-stream-p (stream) () "Whether STREAM can do output.")
  (generic interactive-stream-p (stream) () "Whether STREAM is interactive (a terminal).")
  (generic stream-element-type (stream) () "The type of the elements STREAM reads or writes."))

;;; The classes

(defclass fundamental-stream (standard-object stream)
  ((open-p :initform t :accessor %stream-open-p))
  (:documentation "The superclass of every Gray stream."))
(defclass fundamental-input-stream (fundamental-stream) ()
  (:documentation "A Gray stream that does input."))
(defclass fundamental-output-stream (fundamental-stream) ()
  (:documentation "A Gray stream that does output."))
(defclass fundamental-character-stream (fundamental-stream) ()
  (:documentation "A Gray stream of characters."))
(defclass fundamental-binary-stream (fundamental-stream) ()
  (:documentation "A Gray stream of integers (bytes)."))
(defclass fundamental-character-input-stream (fundamental-input-stream fundamental-character-stream) ())
(defclass fundamental-character-output-stream (fundamental-output-stream fundamental-character-stream) ())
(defclass fundamental-binary-input-stream (fundamental-input-stream fundamental-binary-stream) ())
(defclass fundamental-binary-output-stream (fundamental-output-stream fundamental-binary-stream) ())

;;; The CL generic functions on Gray streams

(defmethod open-stream-p ((stream fundamental-stream)) (%stream-open-p stream))
(defmethod close ((stream fundamental-stream) &key abort)
  (declare (ignore abort))
  (setf (%stream-open-p stream) nil)
  t)
(defmethod input-stream-p ((stream fundamental-stream)) nil)
(defmethod input-stream-p ((stream fundamental-input-stream)) t)
(defmethod output-stream-p ((stream fundamental-stream)) nil)
(defmethod output-stream-p ((stream fundamental-output-stream)) t)
(defmethod interactive-stream-p ((stream fundamental-stream)) nil)
(defmethod stream-element-type ((stream fundamental-character-stream)) 'character)

;;; Character input

(defgeneric stream-read-char (stream)
  (:documentation "The next character of STREAM, or :EOF. READ-CHAR calls it."))
(defgeneric stream-unread-char (stream character)
  (:documentation "Put CHARACTER, the last one read, back. UNREAD-CHAR calls it."))
(defgeneric stream-read-char-no-hang (stream)
  (:documentation "The next character if one is available, NIL if none is yet, :EOF at end."))
(defmethod stream-read-char-no-hang ((stream fundamental-input-stream))
  (stream-read-char stream))
(defgeneric stream-peek-char (stream)
  (:documentation "The next character without consuming it, or :EOF."))
(defmethod stream-peek-char ((stream fundamental-input-stream))
  (let ((c (stream-read-char stream)))
    (unless (eq c :eof) (stream-unread-char stream c))
    c))
(defgeneric stream-listen (stream)
  (:documentation "Whether a character is available now."))
(defmethod stream-listen ((stream fundamental-input-stream))
  (let ((c (stream-read-char-no-hang stream)))
    (when (characterp c)
      (stream-unread-char stream c)
      t)))
(defgeneric stream-read-line (stream)
  (:documentation "The next line and whether end of file ended it (two values)."))
(defmethod stream-read-line ((stream fundamental-input-stream))
  (let ((line (make-array 80 :element-type 'character :fill-pointer 0 :adjustable t)))
    (do ((c (stream-read-char stream) (stream-read-char stream)))
        ((or (eq c :eof) (char= c #\Newline))
         (values (coerce line 'simple-string) (eq c :eof)))
      (vector-push-extend c line))))
(defgeneric stream-clear-input (stream)
  (:documentation "Discard the input waiting in STREAM."))
(defmethod stream-clear-input ((stream fundamental-input-stream)) nil)

;;; Character output

(defgeneric stream-write-char (stream character)
  (:documentation "Write CHARACTER. WRITE-CHAR, and every character output, call it."))
(defgeneric stream-line-column (stream)
  (:documentation "The column the next character goes to, or NIL if it is not known."))
(defmethod stream-line-column ((stream fundamental-output-stream)) nil)
(defgeneric stream-line-length (stream)
  (:documentation "The line width of STREAM, or NIL (an SBCL extension)."))
(defmethod stream-line-length ((stream fundamental-output-stream)) nil)
(defgeneric stream-start-line-p (stream)
  (:documentation "Whether STREAM is at the start of a line."))
(defmethod stream-start-line-p ((stream fundamental-output-stream))
  (eql (stream-line-column stream) 0))
(defgeneric stream-write-string (stream string &optional start end)
  (:documentation "Write the characters of STRING from START to END."))
(defmethod stream-write-string ((stream fundamental-output-stream) string &optional (start 0) end)
  (let ((end (or end (length string))))
    (do ((i start (1+ i))) ((>= i end) string)
      (stream-write-char stream (char string i)))))
(defgeneric stream-terpri (stream)
  (:documentation "End the line. TERPRI calls it."))
(defmethod stream-terpri ((stream fundamental-output-stream))
  (stream-write-char stream #\Newline))
(defgeneric stream-fresh-line (stream)
  (:documentation "End the line unless at the start of one; true if it did."))
(defmethod stream-fresh-line ((stream fundamental-output-stream))
  (unless (stream-start-line-p stream)
    (stream-terpri stream)
    t))
(defgeneric stream-finish-output (stream)
  (:documentation "Send the pending output and wait until it is done."))
(defmethod stream-finish-output ((stream fundamental-output-stream)) nil)
(defgeneric stream-force-output (stream)
  (:documentation "Start sending the pending output."))
(defmethod stream-force-output ((stream fundamental-output-stream)) nil)
(defgeneric stream-clear-output (stream)
  (:documentation "Discard the pending output."))
(defmethod stream-clear-output ((stream fundamental-output-stream)) nil)
(defgeneric stream-advance-to-column (stream column)
  (:documentation "Write spaces up to COLUMN; NIL if the column is not known."))
(defmethod stream-advance-to-column ((stream fundamental-output-stream) column)
  (let ((now (stream-line-column stream)))
    (when now
      (dotimes (i (- column now)) (stream-write-char stream #\Space))
      t)))

;;; Binary input and output

(defgeneric stream-read-byte (stream)
  (:documentation "The next integer of STREAM, or :EOF. READ-BYTE calls it."))
(defgeneric stream-write-byte (stream integer)
  (:documentation "Write INTEGER. WRITE-BYTE calls it."))

;;; Sequences and positions

(defgeneric stream-read-sequence (stream sequence &optional start end)
  (:documentation "Fill SEQUENCE from START to END; the index of the first element not filled."))
(defmethod stream-read-sequence ((stream fundamental-input-stream) sequence &optional (start 0) end)
  (let ((end (or end (length sequence)))
        (chars (typep stream 'fundamental-character-stream)))
    (do ((i start (1+ i))) ((>= i end) i)
      (let ((x (if chars (stream-read-char stream) (stream-read-byte stream))))
        (when (eq x :eof) (return i))
        (setf (elt sequence i) x)))))
(defgeneric stream-write-sequence (stream sequence &optional start end)
  (:documentation "Write the elements of SEQUENCE from START to END."))
(defmethod stream-write-sequence ((stream fundamental-output-stream) sequence &optional (start 0) end)
  (let ((end (or end (length sequence))))
    (if (and (stringp sequence) (typep stream 'fundamental-character-stream))
        (stream-write-string stream sequence start end)
        (do ((i start (1+ i))) ((>= i end))
          (let ((x (elt sequence i)))
            (if (characterp x) (stream-write-char stream x) (stream-write-byte stream x)))))
    sequence))
(defgeneric stream-file-position (stream &optional position)
  (:documentation "FILE-POSITION of a Gray stream: the position, or with POSITION, set it."))
(defmethod stream-file-position ((stream fundamental-stream) &optional position)
  (declare (ignore position))
  nil)

;;; What runtime/gray.c calls, in the order of its GrayOp enumeration.
(defvar sys::*gray-protocol*)
(setq sys::*gray-protocol*
      (vector (find-class 'fundamental-stream)
              #'stream-read-char #'stream-unread-char #'stream-read-char-no-hang #'stream-peek-char
              #'stream-listen #'stream-read-line #'stream-clear-input #'stream-write-char
              #'stream-line-column #'stream-write-string #'stream-terpri #'stream-fresh-line
              #'stream-finish-output #'stream-force-output #'stream-clear-output
              #'stream-read-byte #'stream-write-byte #'stream-read-sequence #'stream-write-sequence
              #'stream-file-position #'stream-element-type #'open-stream-p #'close
              #'input-stream-p #'output-stream-p #'interactive-stream-p))

(in-package "COMMON-LISP-USER")
