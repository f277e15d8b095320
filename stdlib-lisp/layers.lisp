;;;; layers.lisp: built-in systems. Some portable libraries are nothing but a list of
;;;; implementations with a branch for each, and refuse a Lisp they do not list. For those,
;;;; tinycl provides the tinycl branch itself as a system of the same name, version and exported
;;;; API, which the loader finds before the copy on disk (as ASDF does for UIOP; see
;;;; *BUILTIN-SYSTEMS* in asdf.lisp). Each is described in docs/compatibility.md. A layer's code
;;;; is kept as text and read only when the system is loaded, so the boot pays for none of it.

(in-package "ASDF")

(defun %load-layer-text (text)
  ;; the forms of TEXT, read and evaluated one at a time (an IN-PACKAGE affects the next ones)
  (let ((*package* (find-package "COMMON-LISP-USER"))
        (*readtable* (copy-readtable nil))
        (*read-eval* t))
    (with-input-from-string (in text)
      (do ((form (read in nil in) (read in nil in)))
          ((eq form in) t)
        (eval form)))))

(defun %register-builtin-system (name version description text)
  ;; the system object is made when the name is first looked up (asdf.lisp)
  (push (list name version description #'(lambda () (%load-layer-text text))) *builtin-systems*))

;;; trivial-gray-streams 2.0: on SBCL it imports SB-GRAY's symbols and bridges SB-GRAY's
;;; sequence and file-position functions to its own portable ones; this is that branch for
;;; TINYCL-GRAY.
(%register-builtin-system "trivial-gray-streams" "2.0"
  "Compatibility layer for Gray Streams (tinycl's built-in layer over TINYCL-GRAY)."
  "
(defpackage impl-specific-gray
  (:use :cl)
  (:import-from :tinycl-gray
   #:fundamental-stream #:fundamental-input-stream #:fundamental-output-stream
   #:fundamental-character-stream #:fundamental-binary-stream
   #:fundamental-character-input-stream #:fundamental-character-output-stream
   #:fundamental-binary-input-stream #:fundamental-binary-output-stream
   #:stream-read-char #:stream-unread-char #:stream-read-char-no-hang #:stream-peek-char
   #:stream-listen #:stream-read-line #:stream-clear-input #:stream-write-char
   #:stream-line-column #:stream-start-line-p #:stream-write-string #:stream-terpri
   #:stream-fresh-line #:stream-finish-output #:stream-force-output #:stream-clear-output
   #:stream-advance-to-column #:stream-read-byte #:stream-write-byte)
  (:export
   #:fundamental-stream #:fundamental-input-stream #:fundamental-output-stream
   #:fundamental-character-stream #:fundamental-binary-stream
   #:fundamental-character-input-stream #:fundamental-character-output-stream
   #:fundamental-binary-input-stream #:fundamental-binary-output-stream
   #:stream-read-char #:stream-unread-char #:stream-read-char-no-hang #:stream-peek-char
   #:stream-listen #:stream-read-line #:stream-clear-input #:stream-write-char
   #:stream-line-column #:stream-start-line-p #:stream-write-string #:stream-terpri
   #:stream-fresh-line #:stream-finish-output #:stream-force-output #:stream-clear-output
   #:stream-advance-to-column #:stream-read-byte #:stream-write-byte))

(defpackage :trivial-gray-streams
  (:use :cl)
  (:import-from #:impl-specific-gray
   #:stream-read-char #:stream-unread-char #:stream-read-char-no-hang #:stream-peek-char
   #:stream-listen #:stream-read-line #:stream-clear-input #:stream-write-char
   #:stream-line-column #:stream-start-line-p #:stream-write-string #:stream-terpri
   #:stream-fresh-line #:stream-finish-output #:stream-force-output #:stream-clear-output
   #:stream-advance-to-column #:stream-read-byte #:stream-write-byte)
  (:export
   #:fundamental-stream #:fundamental-input-stream #:fundamental-output-stream
   #:fundamental-character-stream #:fundamental-binary-stream
   #:fundamental-character-input-stream #:fundamental-character-output-stream
   #:fundamental-binary-input-stream #:fundamental-binary-output-stream
   #:stream-read-char #:stream-unread-char #:stream-read-char-no-hang #:stream-peek-char
   #:stream-listen #:stream-read-line #:stream-clear-input #:stream-write-char
   #:stream-line-column #:stream-start-line-p #:stream-write-string #:stream-terpri
   #:stream-fresh-line #:stream-finish-output #:stream-force-output #:stream-clear-output
   #:stream-advance-to-column #:stream-read-byte #:stream-write-byte
   #:stream-read-sequence #:stream-write-sequence #:stream-file-position
   #:trivial-gray-stream-mixin))

(in-package :trivial-gray-streams)

(defclass fundamental-stream (impl-specific-gray:fundamental-stream) ())
(defclass fundamental-input-stream (fundamental-stream impl-specific-gray:fundamental-input-stream) ())
(defclass fundamental-output-stream (fundamental-stream impl-specific-gray:fundamental-output-stream) ())
(defclass fundamental-character-stream (fundamental-stream impl-specific-gray:fundamental-character-stream) ())
(defclass fundamental-binary-stream (fundamental-stream impl-specific-gray:fundamental-binary-stream) ())
(defclass fundamental-character-input-stream
    (fundamental-input-stream fundamental-character-stream impl-specific-gray:fundamental-character-input-stream) ())
(defclass fundamental-character-output-stream
    (fundamental-output-stream fundamental-character-stream impl-specific-gray:fundamental-character-output-stream) ())
(defclass fundamental-binary-input-stream
    (fundamental-input-stream fundamental-binary-stream impl-specific-gray:fundamental-binary-input-stream) ())
(defclass fundamental-binary-output-stream
    (fundamental-output-stream fundamental-binary-stream impl-specific-gray:fundamental-binary-output-stream) ())

(defgeneric stream-read-sequence (stream sequence start end &key &allow-other-keys))
(defgeneric stream-write-sequence (stream sequence start end &key &allow-other-keys))
(defgeneric stream-file-position (stream))
(defgeneric (setf stream-file-position) (newval stream))

;; the portable methods answer FALLBACK: the implementation's own default then runs
(defmethod stream-read-sequence ((stream fundamental-input-stream) seq start end &key)
  (declare (ignore seq start end))
  'fallback)
(defmethod stream-write-sequence ((stream fundamental-output-stream) seq start end &key)
  (declare (ignore seq start end))
  'fallback)

(defmacro or-fallback (&body body)
  `(let ((result ,@body))
     (if (eq result 'fallback) (call-next-method) result)))

(defmethod stream-terpri ((stream fundamental-output-stream))
  (write-char #\\Newline stream))

(defmethod stream-file-position ((stream t)) nil)
(defmethod (setf stream-file-position) (newval (stream t))
  (declare (ignore newval))
  nil)

(defmethod tinycl-gray:stream-read-sequence ((s fundamental-input-stream) seq &optional start end)
  (or-fallback (stream-read-sequence s seq (or start 0) (or end (length seq)))))
(defmethod tinycl-gray:stream-write-sequence ((s fundamental-output-stream) seq &optional start end)
  (or-fallback (stream-write-sequence s seq (or start 0) (or end (length seq)))))
(defmethod tinycl-gray:stream-file-position ((stream fundamental-stream) &optional position)
  (if position
      (setf (stream-file-position stream) position)
      (stream-file-position stream)))
(defmethod tinycl-gray:stream-line-length ((stream fundamental-stream)) 80)

(defclass trivial-gray-stream-mixin () ())
")

;;; trivial-features: its .asd stops on a Lisp it does not list, and its per-implementation
;;; files only push the features naming the byte order, word size, processor and system.
;;; tinycl's *FEATURES* has them from the start (set in C for the machine it runs on), so the
;;; layer has nothing left to do.
(%register-builtin-system "trivial-features" nil
  "Ensures consistent *FEATURES* across multiple CLs (tinycl's built-in layer: nothing to add)."
  "t")

(in-package "COMMON-LISP-USER")
