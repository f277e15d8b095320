;;;; gen-chardata.lisp: writes runtime/chardata.h, the Unicode tables behind runtime/character.c.
;;;;
;;;; tinycl's characters must behave like SBCL's, so the tables are taken from the behaviour of
;;;; the reference implementation: this script asks SBCL, for every code point, what CHAR-NAME,
;;;; ALPHA-CHAR-P, DIGIT-CHAR-P, CHAR-UPCASE and CHAR-DOWNCASE answer, checks that the predicates
;;;; derived from them (UPPER-CASE-P, ALPHANUMERICP, GRAPHIC-CHAR-P, ...) follow the rules
;;;; character.c uses, and which extra names NAME-CHAR accepts.
;;;;
;;;; Usage: sbcl --script tools/gen-chardata.lisp > runtime/chardata.h

(defvar *out* *standard-output*)

(defun emit (fmt &rest args) (apply #'format *out* fmt args))

(defun fail (fmt &rest args)
  (format *error-output* "gen-chardata: ~?~%" fmt args)
  (sb-ext:exit :code 1))

(defun emit-numbers (type name numbers &key (per-line 16))
  (emit "static const ~A ~A[~D] = {~%" type name (length numbers))
  (loop for n in numbers for i from 0
        do (emit "~:[~;~%~]~D," (and (plusp i) (zerop (mod i per-line))) n))
  (emit "~%};~%~%"))

;;; ---- checks of the rules character.c relies on ----

(defun check-rules ()
  (dotimes (i char-code-limit)
    (let* ((c (code-char i))
           (up (char-code (char-upcase c)))
           (down (char-code (char-downcase c)))
           (alpha (alpha-char-p c))
           (digit (digit-char-p c)))
      (unless (eq (not (upper-case-p c)) (not (and (/= down i) (= up i))))
        (fail "upper-case-p rule fails for ~X" i))
      (unless (eq (not (lower-case-p c)) (not (and (/= up i) (= down i))))
        (fail "lower-case-p rule fails for ~X" i))
      (unless (eq (not (both-case-p c)) (not (or (/= up i) (/= down i))))
        (fail "both-case-p rule fails for ~X" i))
      (unless (eq (not (alphanumericp c)) (not (or alpha digit)))
        (fail "alphanumericp rule fails for ~X" i))
      (unless (eq (not (graphic-char-p c)) (not (or (< 31 i 127) (< 159 i))))
        (fail "graphic-char-p rule fails for ~X" i))
      (when (and digit (>= i 128))
        (dotimes (radix 35)
          (unless (eql (digit-char-p c (+ radix 2)) (and (< digit (+ radix 2)) digit))
            (fail "digit-char-p radix rule fails for ~X" i)))))))

;;; ---- ranges of a predicate ----

(defun ranges (pred)
  (let ((out '()) (start nil))
    (dotimes (i char-code-limit)
      (if (funcall pred i)
          (unless start (setf start i))
          (when start (push (list start (1- i)) out) (setf start nil))))
    (when start (push (list start (1- char-code-limit)) out))
    (nreverse out)))

;;; ---- names ----

(defparameter *hangul-l* #("G" "GG" "N" "D" "DD" "R" "M" "B" "BB" "S" "SS" "" "J" "JJ" "C" "K" "T" "P" "H"))
(defparameter *hangul-v* #("A" "AE" "YA" "YAE" "EO" "E" "YEO" "YE" "O" "WA" "WAE" "OE" "YO" "U" "WEO" "WE" "WI"
                           "YU" "EU" "YI" "I"))
(defparameter *hangul-t* #("" "G" "GG" "GS" "N" "NJ" "NH" "D" "L" "LG" "LM" "LB" "LS" "LT" "LP" "LH" "M" "B" "BS"
                           "S" "SS" "NG" "J" "C" "K" "T" "P" "H"))

(defun hangul-name (i)
  (let ((s (- i #xAC00)))
    (format nil "HANGUL_SYLLABLE_~A~A~A" (aref *hangul-l* (floor s 588))
            (aref *hangul-v* (floor (mod s 588) 28)) (aref *hangul-t* (mod s 28)))))

(defun c-escape (word)
  (with-output-to-string (s)
    (loop for ch across word
          do (unless (<= 32 (char-code ch) 126) (fail "non-ASCII name word ~S" word))
             (when (find ch "\\\"?") (write-char #\\ s))
             (write-char ch s))))

(defun split-name (name)
  (loop with start = 0
        for pos = (position #\_ name :start start)
        collect (subseq name start pos)
        while pos do (setf start (1+ pos))))

(defun hex-suffix-prefix (i name)
  "The prefix P when NAME is P-<hex code of I>, else NIL."
  (let ((suffix (format nil "-~X" i)))
    (when (and (> (length name) (length suffix))
               (string= suffix name :start2 (- (length name) (length suffix))))
      (subseq name 0 (- (length name) (length suffix))))))

(defun generate ()
  (check-rules)
  (let ((table '())          ; (code name) for names kept in the table
        (hex-ranges '())     ; (start end prefix)
        (word-counts (make-hash-table :test 'equal))
        (seen (make-hash-table :test 'equal))
        (aliases '()))
    ;; classify every name
    (dotimes (i char-code-limit)
      (let* ((name (char-name (code-char i)))
             (prefix (hex-suffix-prefix i name)))
        (unless name (fail "no name for ~X" i))
        (when (gethash (string-upcase name) seen) (fail "duplicate name ~A" name))
        (setf (gethash (string-upcase name) seen) i)
        (cond ((string= name (format nil "U~X" i)))
              ((<= #xAC00 i #xD7A3)
               (unless (string= name (hangul-name i)) (fail "Hangul name of ~X is ~A" i name)))
              ((and prefix (not (find #\- prefix)))
               (let ((last (first hex-ranges)))
                 (if (and last (= (second last) (1- i)) (string= (third last) prefix))
                     (setf (second last) i)
                     (push (list i i prefix) hex-ranges))))
              (t
               (let ((words (split-name name)))
                 (when (some (lambda (w) (zerop (length w))) words) (fail "empty word in ~A" name))
                 (dolist (w words) (incf (gethash w word-counts 0))))
               (push (list i name) table)))))
    (setf table (nreverse table) hex-ranges (nreverse hex-ranges))
    ;; names NAME-CHAR accepts besides CHAR-NAME's: the traditional alternates and Unicode 1.0 names
    (flet ((consider (i name)
             (let ((c (name-char name)))
               (when (and c (= (char-code c) i)
                          (not (eql (gethash (string-upcase name) seen) i)))
                 (setf (gethash (string-upcase name) seen) i)
                 (dolist (w (split-name name)) (incf (gethash w word-counts 0)))
                 (push (list i name) aliases)))))
      (dolist (entry sb-impl::*base-char-name-alist*)
        (dolist (name (rest entry)) (consider (first entry) name)))
      (dotimes (i char-code-limit)
        (let ((u1 (sb-unicode:unicode-1-name (code-char i))))
          (when u1 (consider i (substitute #\_ #\Space u1))))))
    (setf aliases (sort (nreverse aliases) #'< :key #'first))
    ;; words by frequency: the 128 commonest take one byte
    (let* ((words (sort (loop for w being the hash-keys of word-counts using (hash-value n) collect (cons w n))
                        (lambda (a b) (or (> (cdr a) (cdr b))
                                          (and (= (cdr a) (cdr b)) (string< (car a) (car b)))))))
           (index (make-hash-table :test 'equal))
           (name-bytes '()) (nbytes 0) (runs '()) (alias-rows '()))
      (when (> (length words) 32767) (fail "too many words"))
      (loop for (w) in words for k from 0 do (setf (gethash w index) k))
      (labels ((encode (name)
                 (let ((words (split-name name)) (bytes '()))
                   (when (> (length words) 255) (fail "too many words in ~A" name))
                   (push (length words) bytes)
                   (dolist (w words)
                     (let ((k (gethash w index)))
                       (if (< k 128)
                           (push k bytes)
                           (progn (push (logior #x80 (ash k -8)) bytes) (push (logand k #xFF) bytes)))))
                   (nreverse bytes))))
        (loop for (i name) in table
              do (let ((last (first runs)))
                   (if (and last (= (+ (first last) (second last)) i))
                       (incf (second last))
                       (push (list i 1 nbytes) runs)))
                 (let ((bytes (encode name)))
                   (incf nbytes (length bytes))
                   (push bytes name-bytes)))
        (setf runs (nreverse runs))
        (loop for (i name) in aliases
              do (let ((bytes (encode name)))
                   (push (list i nbytes) alias-rows)
                   (incf nbytes (length bytes))
                   (push bytes name-bytes)))
        (setf alias-rows (nreverse alias-rows)))
      (setf name-bytes (apply #'append (nreverse name-bytes)))
      ;; ---- output ----
      (emit "/* chardata.h: Unicode tables of runtime/character.c, generated by tools/gen-chardata.lisp ~
             from the~%   behaviour of ~A ~A. Do not edit. */~%~%" (lisp-implementation-type) (lisp-implementation-version))
      (emit "/* Code points with ALPHA-CHAR-P true, as inclusive ranges. */~%")
      (emit-numbers "uint32_t" "cd_alpha" (apply #'append (ranges (lambda (i) (alpha-char-p (code-char i))))))
      (emit "/* Decimal digits beyond ASCII: ranges (first last value-of-first). */~%")
      (let ((rows '()))
        (dotimes (i char-code-limit)
          (let ((d (and (>= i 128) (digit-char-p (code-char i)))))
            (when d
              (let ((last (first rows)))
                (if (and last (= (second last) (1- i)) (= d (+ (third last) (- i (first last)))))
                    (setf (second last) i)
                    (push (list i i d) rows))))))
        (emit-numbers "uint32_t" "cd_digits" (apply #'append (nreverse rows)) :per-line 12))
      (emit "/* Characters with case: (code upcase downcase), by code. */~%")
      (let ((rows '()))
        (dotimes (i char-code-limit)
          (let* ((c (code-char i)) (up (char-code (char-upcase c))) (down (char-code (char-downcase c))))
            (when (or (/= up i) (/= down i)) (push (list i up down) rows))))
        (emit-numbers "uint32_t" "cd_case" (apply #'append (nreverse rows)) :per-line 12))
      (emit "/* Words of character names, by frequency; a name is a count byte then its words, each one~%   ~
             byte (index < 128) or two (0x80|index>>8, index&0xFF), joined with '_'. */~%")
      (emit "#define CD_NWORDS ~D~%static const char cd_word_text[] =~%" (length words))
      (let ((offsets '()) (pos 0))
        (loop for (w) in words for k from 0
              do (push pos offsets) (incf pos (1+ (length w)))
                 (emit "~:[~;~%~]\"~A\\0\"" (and (plusp k) (zerop (mod k 8))) (c-escape w)))
        (emit ";~%~%")
        (emit-numbers "uint32_t" "cd_word_off" (nreverse offsets) :per-line 12))
      (emit-numbers "uint8_t" "cd_names" name-bytes :per-line 24)
      (emit "/* Runs of consecutive named codes: (first count offset-in-cd_names). */~%")
      (emit-numbers "uint32_t" "cd_name_runs" (apply #'append runs) :per-line 12)
      (emit "/* Other names NAME-CHAR accepts: (code offset-in-cd_names), by code. */~%")
      (emit-numbers "uint32_t" "cd_aliases" (apply #'append alias-rows) :per-line 12)
      (emit "/* Codes named PREFIX-<hex code>: (first last prefix-index). */~%")
      (let ((prefixes (remove-duplicates (mapcar #'third hex-ranges) :test #'string= :from-end t)))
        (emit "static const char *const cd_hex_prefixes[~D] = {~{\"~A\"~^, ~}};~%" (length prefixes) prefixes)
        (emit-numbers "uint32_t" "cd_hex_ranges"
                      (loop for (a b p) in hex-ranges append (list a b (position p prefixes :test #'string=)))
                      :per-line 12)))))

(generate)
