;;;; logical-pathnames.lisp: logical pathnames (CLHS 19.3): defining hosts, parsing and printing
;;;; "HOST:DIR;NAME.TYPE.VERSION", translating to files, and opening through them. Expected values
;;;; from SBCL. The files live in a directory under /tmp that the tests create and remove.

(defparameter *lp-dir*
  (format nil "/tmp/tinycl-lp-test-~D-~D/" (get-universal-time) (random 1000000 (make-random-state t))))

(deftest lp-define-host
  (progn (setf (logical-pathname-translations "LPTEST")
               `(("SRC;**;*.*.*" ,(concatenate 'string *lp-dir* "source/**/*.*"))
                 ("**;*.*.*" ,(concatenate 'string *lp-dir* "**/*.*"))))
         (list (length (logical-pathname-translations "lptest"))
               (first (first (logical-pathname-translations "LPTEST")))))
  (2 "SRC;**;*.*.*"))

(deftest lp-parse-components
  (let ((p (pathname "lptest:a;b;foo-bar.lisp.3")))
    (list (typep p 'logical-pathname) (pathname-host p) (pathname-directory p) (pathname-name p)
          (pathname-type p) (pathname-version p)))
  (t "LPTEST" (:absolute "A" "B") "FOO-BAR" "LISP" 3))

(deftest lp-parse-relative-and-wild
  (let ((p (pathname "LPTEST:;X;**;*.L*.*")))
    (list (pathname-directory p) (pathname-name p) (pathname-type p) (pathname-version p)
          (wild-pathname-p p)))
  ((:relative "X" :wild-inferiors) :wild (sys::%pattern "L" :multi-char-wild) :wild t))

(deftest lp-namestrings
  (let ((p (pathname "LPTEST:A;B;FOO.TXT.NEWEST")))
    (list (namestring p) (host-namestring p) (directory-namestring p) (file-namestring p)
          (prin1-to-string p)))
  ("LPTEST:A;B;FOO.TXT.NEWEST" "LPTEST" "A;B;" "FOO.TXT.NEWEST" "#P\"LPTEST:A;B;FOO.TXT.NEWEST\""))

(deftest lp-read-print-round-trip
  (let ((p (read-from-string "#P\"LPTEST:DOC;README.TXT\"")))
    (list (typep p 'logical-pathname) (equal p (read-from-string (prin1-to-string p)))))
  (t t))

(deftest lp-undefined-host-is-physical
  (let ((p (pathname "NO-SUCH-LP-HOST:foo")))
    (list (typep p 'logical-pathname) (pathname-name p)))
  (nil "NO-SUCH-LP-HOST:foo"))

(deftest lp-type-and-class
  (let ((p (logical-pathname "LPTEST:FOO")))
    (list (type-of p) (class-name (class-of p)) (typep p 'pathname) (typep #p"/tmp/x" 'logical-pathname)
          (subtypep 'logical-pathname 'pathname)))
  (logical-pathname logical-pathname t nil t))

(deftest lp-make-pathname
  (namestring (make-pathname :host "lptest" :directory '(:absolute "sub") :name "file" :type "txt"))
  "LPTEST:SUB;FILE.TXT")

(deftest lp-merge
  (list (namestring (merge-pathnames "LPTEST:FOO" "LPTEST:A;B;BAR.LISP"))
        (namestring (merge-pathnames ";C;FOO" "LPTEST:A;B;BAR.LISP"))
        (typep (merge-pathnames "foo.txt" "LPTEST:A;") 'logical-pathname))
  ("LPTEST:FOO.LISP.NEWEST" "LPTEST:A;B;C;FOO.LISP.NEWEST" t))

(deftest lp-translate
  (list (namestring (translate-logical-pathname "LPTEST:SRC;X;MAIN.LISP"))
        (namestring (translate-logical-pathname "LPTEST:DOC;README.TXT"))
        (namestring (translate-logical-pathname #p"/already/physical.txt")))
  #.(list (concatenate 'string *lp-dir* "source/x/main.lisp")
          (concatenate 'string *lp-dir* "doc/readme.txt")
          "/already/physical.txt"))

(deftest lp-translate-pathname-to-physical
  (namestring (translate-pathname "LPTEST:A;FOO.TXT" "LPTEST:**;*.*" "/x/**/*.*"))
  "/x/a/foo.txt")

(deftest lp-pathname-match-p
  (list (pathname-match-p "LPTEST:FOO.LSP" "LPTEST:*.LSP")
        (pathname-match-p "LPTEST:FOO.TXT" "LPTEST:*.LSP"))
  (t nil))

(deftest lp-open-write-read-delete
  (let ((lp "LPTEST:DATA;NOTE.TXT"))
    (ensure-directories-exist (translate-logical-pathname lp))
    (with-open-file (s lp :direction :output :if-exists :supersede)
      (write-string "hello" s))
    (prog1 (list (with-open-file (s lp) (read-line s))
                 (namestring (truename lp))
                 (typep (with-open-file (s lp) (logical-pathname s)) 'logical-pathname)
                 (length (directory "LPTEST:DATA;*.*")))
      (delete-file lp)))
  #.(list "hello" (concatenate 'string *lp-dir* "data/note.txt") t 1))

(deftest lp-errors
  (list (signals-error (logical-pathname "NO-COLON-HERE") type-error)
        (signals-error (logical-pathname "LPTEST:BAD NAME") type-error)
        (signals-error (logical-pathname (make-string-input-stream "x")) type-error)
        (signals-error (logical-pathname-translations "NO-SUCH-LP-HOST") type-error)
        (signals-error (load-logical-pathname-translations "NO-SUCH-LP-HOST") file-error)
        (signals-error (parse-namestring "A B" "LPTEST") parse-error)
        (signals-error (make-pathname :host "NO-SUCH-LP-HOST") type-error))
  (t t t t t t t))

(deftest lp-load-defined-host-returns-nil
  (load-logical-pathname-translations "LPTEST")
  nil)

(deftest lp-no-translation
  (progn (setf (logical-pathname-translations "LPTEST3") '(("A;*.*" "/tmp/*.*")))
         (signals-error (translate-logical-pathname "LPTEST3:B;X.Y") file-error))
  t)

(deftest lp-cleanup
  (progn (ignore-errors (delete-directory (concatenate 'string *lp-dir* "data/")))
         (ignore-errors (delete-directory *lp-dir*))
         t)
  t)
