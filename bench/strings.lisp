;;;; strings.lisp -- building and taking apart strings: FORMAT to strings,
;;;; string output streams, PRINC-TO-STRING, then reading the text back with
;;;; string input streams (READ-LINE, READ-CHAR) and READ-FROM-STRING.
;;;; Only string features every implementation (tinycl included) had when this
;;;; suite was written.  Prints one line "checksum strings N".

(defun make-record (i)
  "One line of text describing I, e.g. (12 \"84\" \"n12\" TAG)."
  (format nil "(~D ~S ~S ~A)" i (princ-to-string (* i 7)) (format nil "n~D" i) 'tag))

(defun build-batch (start n)
  "N records, one per line, in one fresh string."
  (let ((out (make-string-output-stream)))
    (dotimes (k n)
      (write-string (make-record (+ start k)) out)
      (write-char #\Newline out))
    (get-output-stream-string out)))

(defun scan-chars (text)
  "Walk TEXT character by character; return a number mixing the counts of
characters, even digits, odd digits and parentheses."
  (let ((in (make-string-input-stream text))
        (total 0) (even 0) (odd 0) (parens 0))
    (do ((c (read-char in nil nil) (read-char in nil nil)))
        ((null c))
      (setq total (+ total 1))
      (case c
        ((#\0 #\2 #\4 #\6 #\8) (setq even (+ even 1)))
        ((#\1 #\3 #\5 #\7 #\9) (setq odd (+ odd 1)))
        ((#\( #\)) (setq parens (+ parens 1)))))
    (+ total (* 3 even) (* 5 odd) (* 7 parens))))

(defun parse-batch (text)
  "Read every line of TEXT back as a list and check it against its index."
  (let ((in (make-string-input-stream text)) (sum 0))
    (do ((line (read-line in nil nil) (read-line in nil nil)))
        ((null line))
      (let* ((rec (read-from-string line))
             (i (car rec))
             (seven (read-from-string (cadr rec))))
        (unless (and (= seven (* 7 i))
                     (equal (caddr rec) (format nil "n~D" i)))
          (error "bad record ~S" line))
        (setq sum (+ sum i seven))))
    sum))

(defun run-strings (batches batch-size)
  (let ((sum 0))
    (dotimes (b batches)
      (let ((text (build-batch (* b batch-size) batch-size)))
        (setq sum (+ sum (scan-chars text) (parse-batch text)))))
    sum))

(format t "checksum strings ~D~%" (run-strings 120 500))
