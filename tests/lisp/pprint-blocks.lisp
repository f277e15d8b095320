;;;; pprint-blocks.lisp: logical blocks begun outside a printer call (PPRINT-FILL and friends,
;;;; PPRINT-LOGICAL-BLOCK, FORMAT's ~<...~:>) under *PRINT-CIRCLE*, their argument checks, and
;;;; SOFTWARE-VERSION.

(defmacro with-circle-pretty (&body body)
  `(let ((*print-circle* t) (*print-pretty* t) (*print-right-margin* 80) (*print-readably* nil))
     ,@body))

;;; A shared element gets a label when the block is the outermost printing operation.
(deftest pprint-blocks-circle-linear
  (with-circle-pretty
    (let* ((shared (list 'p 'q)) (outer (list shared 'mid shared)))
      (with-output-to-string (s) (pprint-linear s outer))))
  "(#1=(P Q) MID #1#)")

(deftest pprint-blocks-circle-fill-no-parens
  (with-circle-pretty
    (let ((shared (list 7)))
      (with-output-to-string (s) (pprint-fill s (list shared shared) nil))))
  "#1=(7) #1#")

;;; A list that is its own tail: the block's object gets the label, the tail refers to it.
(deftest pprint-blocks-circle-tail
  (with-circle-pretty
    (let ((ring (list 'x 'y)))
      (setf (cddr ring) ring)
      (with-output-to-string (s) (pprint-fill s ring))))
  "#1=(X Y . #1#)")

(deftest pprint-blocks-circle-logical-block
  (with-circle-pretty
    (let ((shared (list 3 4)))
      (with-output-to-string (s)
        (pprint-logical-block (s (list shared 'k shared) :prefix "[" :suffix "]")
          (loop (write (pprint-pop) :stream s)
                (pprint-exit-if-list-exhausted)
                (write-char #\Space s))))))
  "[#1=(3 4) K #1#]")

;;; Without *print-circle*, nothing changes.
(deftest pprint-blocks-no-circle
  (let ((*print-circle* nil) (*print-pretty* t) (*print-right-margin* 80))
    (let ((shared (list 'a)))
      (with-output-to-string (s) (pprint-fill s (list shared shared)))))
  "((A) (A))")

;;; FORMAT's logical block: shared elements, a dotted shared tail, a circular list.
(deftest pprint-blocks-format-shared
  (with-circle-pretty
    (let ((e (list "e")))
      (format nil "~:<~@{~S~^ ~}~:>" (list e 1 e))))
  "(#1=(\"e\") 1 #1#)")

(deftest pprint-blocks-format-dotted
  (with-circle-pretty
    (let ((e (list 9)))
      (format nil "~:<~@{~A~^ ~}~:>" (cons e e))))
  "(#1=(9) . #1#)")

(deftest pprint-blocks-format-ring
  (with-circle-pretty
    (let ((ring (list 5 6)))
      (setf (cddr ring) ring)
      (list (format nil "~:<~@{~A~^ ~}~:>" ring)
            ;; without ~:< there are no parentheses, so the label stands before the first element
            (format nil "~<~@{~A~^ ~}~:>" ring))))
  ("#1=(5 6 . #1#)" "#1=5 6 . #1#"))

;;; A body that takes no argument from a circular list still cannot loop forever.
(deftest pprint-blocks-format-ring-no-progress
  (with-circle-pretty
    (let ((ring (list 5)))
      (setf (cdr ring) ring)
      (signals-error (format nil "~<~@{x~}~:>" ring) error)))
  t)

;;; :PREFIX, :PER-LINE-PREFIX and :SUFFIX must be strings; NIL given explicitly is no exception.
(deftest pprint-blocks-suffix-nil
  (handler-case (with-output-to-string (s)
                  (pprint-logical-block (s (list 1) :suffix nil) (write 1 :stream s)))
    (type-error (e) (list :type-error (type-error-datum e))))
  (:type-error nil))

(deftest pprint-blocks-prefix-nil
  (handler-case (with-output-to-string (s)
                  (pprint-logical-block (s (list 1) :prefix nil) (write 1 :stream s)))
    (type-error (e) (list :type-error (type-error-datum e))))
  (:type-error nil))

(deftest pprint-blocks-suffix-symbol
  (signals-error (with-output-to-string (s)
                   (pprint-logical-block (s (list 1) :suffix 'close) (write 1 :stream s)))
                 type-error)
  t)

(deftest pprint-blocks-options-default
  (let ((*print-pretty* t))
    (with-output-to-string (s)
      (pprint-logical-block (s (list 1)) (write 1 :stream s))))
  "1")

;;; SOFTWARE-VERSION is the kernel release, not the system's name as SOFTWARE-TYPE gives.
(deftest software-version-differs-from-type
  (let ((v (software-version)))
    (and (stringp v) (plusp (length v)) (not (equal v (software-type)))
         (digit-char-p (char v 0)) t))
  t)

;;; ~T inside ~<...~:> is PPRINT-TAB, which does nothing when *PRINT-PRETTY* is false; outside a
;;; block it moves to the column as ever.
(deftest pprint-blocks-tab-in-block-not-pretty
  (let ((*print-pretty* nil))
    (list (format nil "~@<Some words ~10There~:>")
          (format nil "~@<Some wor ~3,2@There~:>")
          (format nil "Some words ~10There")))
  ("Some words here" "Some wor here" "Some words  here"))

(deftest pprint-blocks-tab-in-block-pretty
  (let ((*print-pretty* t) (*print-right-margin* 80))
    (format nil "~@<Some words ~10There~:>"))
  "Some words  here")

;;; ~@<...~:@> puts a fill newline after each run of blanks in its text, so it wraps at
;;; *PRINT-RIGHT-MARGIN* when *PRINT-PRETTY* is true (and, as in SBCL, not when it is false).
(deftest pprint-blocks-fill-wraps-at-margin
  (let ((*print-right-margin* 30))
    (list (let ((*print-pretty* t))
            (format nil "~@<Some words here that should wrap nicely at thirty columns ok~:@>"))
          (let ((*print-pretty* t))
            (format nil "ab: ~@<~{~A~^ ~}~:@>" '("one two" "three four five" "six seven" "eight nine ten")))
          (let ((*print-pretty* nil))
            (format nil "~@<Some words here that should wrap nicely at thirty columns ok~:@>"))))
  ("Some words here that should
wrap nicely at thirty columns
ok" "ab: one two three four five
    six seven eight nine ten" "Some words here that should wrap nicely at thirty columns ok"))

;;; Only what is printed counts for sharing: nothing past *PRINT-LENGTH* or below *PRINT-LEVEL*
;;; earns a label. The plain printer checks a shared tail before the length limit ("2 . #1#"),
;;; PPRINT-POP after it ("2 ...").
(defun pprint-blocks-shared-tail ()
  (let ((tail (list 1))) (list* tail 2 tail)))

(deftest pprint-blocks-circle-length-plain
  (let ((*print-circle* t) (*print-pretty* nil))
    (mapcar (lambda (n) (let ((*print-length* n)) (prin1-to-string (pprint-blocks-shared-tail))))
            '(nil 0 1 2 3)))
  ("(#1=(1) 2 . #1#)" "(...)" "((1) ...)" "(#1=(1) 2 . #1#)" "(#1=(1) 2 . #1#)"))

(deftest pprint-blocks-circle-length-pretty
  (let ((*print-circle* t) (*print-pretty* t) (*print-right-margin* 80))
    (mapcar (lambda (n) (let ((*print-length* n)) (prin1-to-string (pprint-blocks-shared-tail))))
            '(nil 0 1 2 3)))
  ("(#1=(1) 2 . #1#)" "(...)" "((1) ...)" "((1) 2 ...)" "(#1=(1) 2 . #1#)"))

(deftest pprint-blocks-circle-length-block
  (let ((*print-circle* t) (*print-pretty* t) (*print-right-margin* 80))
    (mapcar (lambda (n)
              (let ((*print-length* n))
                (with-output-to-string (s)
                  (pprint-logical-block (s (pprint-blocks-shared-tail) :prefix "<" :suffix ">")
                    (pprint-exit-if-list-exhausted)
                    (loop (write (pprint-pop) :stream s)
                          (pprint-exit-if-list-exhausted)
                          (write-char #\Space s))))))
            '(1 2 3)))
  ("<(1) ...>" "<(1) 2 ...>" "<#1=(1) 2 . #1#>"))

(deftest pprint-blocks-circle-level
  (let ((*print-circle* t) (*print-pretty* nil))
    (let* ((v (list 5)) (z (list (list v) v)))
      (mapcar (lambda (n) (let ((*print-level* n)) (prin1-to-string z))) '(1 2 3))))
  ("(# #)" "((#1=#) #1#)" "((#1=(5)) #1#)"))
