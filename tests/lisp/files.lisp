;;;; files.lisp: tests of files, file streams and LOAD (CLHS chapters 20, 21, 24.1); expected values
;;;; from SBCL (the file also runs in SBCL with framework.lisp). The tests work in a temporary
;;;; directory under /tmp that the first test creates and the last one removes.

(defvar *tf-dir*
  (format nil "/tmp/~A-files-test-~D-~D/" (lisp-implementation-type) (get-universal-time)
          (random 1000000 (make-random-state t))))

(defun tf (name) (merge-pathnames name *tf-dir*))

(defun tf-ext (name)
  (find-symbol name (or (find-package "SB-EXT") (find-package "TINYCL"))))

(defvar *tf-sink* nil)

(defmacro tf-err (form)
  `(handler-case (progn (setq *tf-sink* ,form) :no-error)
     (file-does-not-exist () 'file-does-not-exist)
     (file-exists () 'file-exists)
     (file-error () 'file-error)
     (end-of-file () 'end-of-file)
     (reader-error () 'reader-error)
     (stream-error () 'stream-error)
     (type-error () 'type-error)
     (error () 'error)))

(defun tf-write (name &rest lines)
  (with-open-file (s (tf name) :direction :output :if-exists :supersede)
    (dolist (l lines) (write-line l s)))
  name)

(defun tf-read-all (name)
  (with-open-file (s (tf name))
    (let ((r nil))
      (tagbody
       next
         (let ((l (read-line s nil nil)))
           (when l (push l r) (go next))))
      (let ((out nil)) (dolist (x r out) (push x out))))))

(defun tf-member (x list) (dolist (y list nil) (when (equal x y) (return t))))

(defun tf-names (pathnames)
  (let ((r nil)) (dolist (p pathnames r) (push (file-namestring p) r))))

(defun tf-chars (s)
  (let ((r nil))
    (with-input-from-string (in s)
      (tagbody
       next
         (let ((c (read-char in nil nil)))
           (when c (push c r) (go next)))))
    (let ((l nil)) (dolist (c r l) (push c l)))))

(defun tf-search (needle haystack)
  ;; the index of NEEDLE in HAYSTACK, with only basic operators
  (let ((n (tf-chars needle)) (h (tf-chars haystack)) (i 0))
    (tagbody
     next
       (when (null h) (return-from tf-search nil))
       (let ((a n) (b h))
         (tagbody
          cmp
            (when (null a) (return-from tf-search i))
            (when (and b (eql (car a) (car b))) (setq a (cdr a) b (cdr b)) (go cmp))))
       (setq h (cdr h) i (+ i 1))
       (go next))))

(defun tf-set= (a b)
  (and (= (list-length a) (list-length b))
       (dolist (x a t) (unless (tf-member x b) (return nil)))))

;;; ------------------------------------------------------------------
;;; setup

(deftest files-setup
  (list (nth-value 1 (ensure-directories-exist *tf-dir*))
        (nth-value 1 (ensure-directories-exist *tf-dir*))
        (not (null (probe-file *tf-dir*))))
  (t nil t))

(deftest ensure-directories-exist-values
  (let ((spec (format nil "~Ad1/d2/x.l" *tf-dir*)))
    (multiple-value-bind (p created) (ensure-directories-exist spec)
      (list (equal p spec) created (not (null (probe-file (tf "d1/d2/")))))))
  (t t t))

(deftest ensure-directories-exist-wild
  (tf-err (ensure-directories-exist (tf "*/x.l")))
  file-error)

;;; ------------------------------------------------------------------
;;; writing and reading characters

(deftest write-then-read-lines
  (progn (tf-write "a.txt" "hello" "world") (tf-read-all "a.txt"))
  ("hello" "world"))

(deftest output-file-position-and-length
  (with-open-file (s (tf "b.txt") :direction :output :if-exists :supersede)
    (write-string "hello" s)
    (terpri s)
    (file-position s))
  6)

(deftest input-positions
  (progn
    (tf-write "c.txt" "hello" "more")
    (with-open-file (s (tf "c.txt"))
      (list (read-line s) (file-position s) (read-line s) (read-line s nil :eof) (file-length s))))
  ("hello" 6 "more" :eof 11))

(deftest read-line-second-value
  (progn
    (with-open-file (s (tf "d.txt") :direction :output :if-exists :supersede) (write-string "no newline" s))
    (with-open-file (s (tf "d.txt"))
      (list (multiple-value-list (read-line s)) (multiple-value-list (read-line s nil :eof)))))
  (("no newline" t) (:eof t)))

(deftest read-char-at-end-of-file
  (with-open-file (s (tf "d.txt"))
    (file-position s :end)
    (list (read-char s nil :eof) (tf-err (read-char s)) (peek-char nil s nil :e2)))
  (:eof end-of-file :e2))

(deftest set-file-position
  (with-open-file (s (tf "c.txt"))
    (list (file-position s 6) (read-char s) (file-position s) (file-position s :start) (read-char s)
          (file-position s :end) (read-char s nil :eof) (tf-err (file-position s -1))))
  (t #\m 7 t #\h t :eof type-error))

(deftest unread-char-and-position
  (with-open-file (s (tf "c.txt"))
    (let ((c (read-char s)))
      (unread-char c s)
      (list (file-position s) (read-char s) (peek-char nil s) (file-position s))))
  (0 #\h #\e 1))

(deftest if-exists-error-default
  (list (tf-err (open (tf "a.txt") :direction :output))
        (tf-err (open (tf "a.txt") :direction :output :if-exists :error)))
  (file-exists file-exists))

(deftest if-exists-nil
  (with-open-file (s (tf "a.txt") :direction :output :if-exists nil) s)
  nil)

(deftest if-exists-append
  (progn
    (tf-write "e.txt" "one")
    (with-open-file (s (tf "e.txt") :direction :output :if-exists :append)
      (list (file-position s) (progn (write-line "two" s) (file-position s)))))
  (4 8))

(deftest if-exists-append-content (tf-read-all "e.txt") ("one" "two"))

(deftest if-exists-supersede
  (progn (tf-write "e.txt" "new") (tf-read-all "e.txt"))
  ("new"))

(deftest if-exists-overwrite
  (progn
    (tf-write "f.txt" "abcdef")
    (with-open-file (s (tf "f.txt") :direction :output :if-exists :overwrite) (write-string "XY" s))
    (tf-read-all "f.txt"))
  ("XYcdef"))

(deftest if-exists-rename
  (progn
    (tf-write "g.txt" "old")
    (with-open-file (s (tf "g.txt") :direction :output :if-exists :rename) (write-line "new" s))
    (list (tf-read-all "g.txt") (tf-read-all "g.txt.bak")))
  (("new") ("old")))

(deftest if-exists-rename-and-delete
  (progn
    (tf-write "h.txt" "old")
    (with-open-file (s (tf "h.txt") :direction :output :if-exists :rename-and-delete) (write-line "new" s))
    (list (tf-read-all "h.txt") (probe-file (tf "h.txt.bak"))))
  (("new") nil))

(deftest if-exists-new-version
  (tf-err (open (tf "h.txt") :direction :output :if-exists :new-version))
  file-error)

(deftest if-does-not-exist-cases
  (list (tf-err (open (tf "missing.txt")))
        (open (tf "missing.txt") :if-does-not-exist nil)
        (open (tf "missing.txt") :direction :output :if-does-not-exist nil)
        (tf-err (open (tf "missing.txt") :direction :output :if-exists :append))
        (probe-file (tf "missing.txt")))
  (file-does-not-exist nil nil file-does-not-exist nil))

(deftest if-does-not-exist-create
  (with-open-file (s (tf "created.txt") :if-does-not-exist :create)
    (list (read-char s nil :eof) (not (null (probe-file (tf "created.txt"))))))
  (:eof t))

(deftest open-argument-errors
  (list (tf-err (open (tf "a.txt") :direction :bogus))
        (tf-err (open (tf "a.txt") :direction :output :if-exists :bogus))
        (tf-err (open (tf "a.txt") :if-does-not-exist :bogus))
        (tf-err (open (tf "a.txt") :external-format :bogus))
        (tf-err (open 3)))
  (type-error type-error type-error error type-error))

(deftest open-in-missing-directory
  (tf-err (open (tf "nodir/x") :direction :output))
  file-error)

(deftest open-directory-for-output
  (tf-err (open *tf-dir* :direction :output :if-exists :supersede))
  file-error)

(deftest open-wild-pathname
  (tf-err (open (tf "*.txt")))
  file-error)

(deftest io-direction
  (progn
    (tf-write "io.txt" "rad")
    (with-open-file (s (tf "io.txt") :direction :io :if-exists :overwrite)
      (list (read-line s) (progn (file-position s 0) (write-string "Q" s)) (file-position s 0) (read-line s))))
  ("rad" "Q" t "Qad"))

(deftest probe-direction
  (let ((s (open (tf "a.txt") :direction :probe)))
    (list (open-stream-p s) (equal (pathname s) (tf "a.txt")) (equal (truename s) (truename (tf "a.txt")))))
  (nil t t))

(deftest stream-pathname-and-truename
  (with-open-file (s (tf "a.txt"))
    (list (equal (pathname s) (tf "a.txt")) (file-namestring s) (equal (truename s) (truename (tf "a.txt")))
          (streamp s) (input-stream-p s) (output-stream-p s) (stream-element-type s)))
  (t "a.txt" t t t nil character))

;;; ------------------------------------------------------------------
;;; closing

(deftest close-values
  (let ((s (open (tf "a.txt"))))
    (list (close s) (open-stream-p s) (close s) (tf-err (read-char s)) (tf-err (read-line s))))
  (t nil t stream-error stream-error))

(deftest closed-output-stream
  (let ((s (open (tf "closed.txt") :direction :output :if-exists :supersede)))
    (write-string "data" s)
    (close s)
    (list (tf-err (write-char #\a s)) (tf-read-all "closed.txt")))
  (stream-error ("data")))

(deftest with-open-file-closes
  (let ((saved nil))
    (with-open-file (s (tf "a.txt")) (setq saved s))
    (open-stream-p saved))
  nil)

(deftest with-open-file-abort-deletes-created-file
  (progn
    (catch 'out
      (with-open-file (s (tf "aborted.txt") :direction :output)
        (write-line "x" s)
        (throw 'out nil)))
    (probe-file (tf "aborted.txt")))
  nil)

(deftest close-abort-keeps-existing-file
  (let ((s (open (tf "a.txt") :direction :output :if-exists :append)))
    (close s :abort t)
    (tf-read-all "a.txt"))
  ("hello" "world"))

;;; ------------------------------------------------------------------
;;; binary files

(deftest binary-write-and-read
  (progn
    (with-open-file (s (tf "b.bin") :direction :output :if-exists :supersede :element-type '(unsigned-byte 8))
      (write-byte 200 s)
      (write-sequence '(1 2 3) s)
      (list (file-position s) (stream-element-type s)))
    (with-open-file (s (tf "b.bin") :element-type '(unsigned-byte 8))
      (let ((v (list 0 0 0 0 0 0)))
        (list (read-sequence v s) v (file-length s) (read-byte s nil :eof)))))
  (4 (200 1 2 3 0 0) 4 :eof))

(deftest binary-read-into-vector
  (with-open-file (s (tf "b.bin") :element-type '(unsigned-byte 8))
    (let ((v (read-from-string "#(9 9 9 9 9 9)")))
      (list (read-sequence v s :start 1 :end 3) (prin1-to-string v))))
  (3 "#(9 200 1 9 9 9)"))

(deftest binary-read-byte-eof
  (with-open-file (s (tf "b.bin") :element-type '(unsigned-byte 8))
    (file-position s 4)
    (list (read-byte s nil :eof) (tf-err (read-byte s))))
  (:eof end-of-file))

(deftest binary-character-mismatch
  (list (with-open-file (s (tf "b.bin") :element-type '(unsigned-byte 8)) (tf-err (read-char s)))
        (with-open-file (s (tf "a.txt")) (tf-err (read-byte s)))
        (with-open-file (s (tf "x.bin") :direction :output :if-exists :supersede :element-type '(unsigned-byte 8))
          (tf-err (write-char #\a s)))
        (with-open-file (s (tf "x.bin") :direction :output :if-exists :supersede :element-type '(unsigned-byte 8))
          (tf-err (write-byte 256 s)))
        (with-open-file (s (tf "x.bin") :direction :output :if-exists :supersede :element-type '(unsigned-byte 8))
          (tf-err (write-byte -1 s))))
  (type-error type-error type-error type-error type-error))

(deftest binary-wide-elements
  (progn
    (with-open-file (s (tf "w.bin") :direction :output :if-exists :supersede :element-type '(unsigned-byte 16))
      (write-byte 258 s)
      (write-byte 65535 s))
    (list (with-open-file (s (tf "w.bin") :element-type '(unsigned-byte 8))
            (list (read-byte s) (read-byte s) (file-length s)))
          (with-open-file (s (tf "w.bin") :element-type '(signed-byte 16))
            (list (read-byte s) (read-byte s) (file-length s) (stream-element-type s)))
          (with-open-file (s (tf "w.bin") :element-type '(unsigned-byte 12))
            (stream-element-type s))))
  ((2 1 4) (258 -1 2 (signed-byte 16)) (unsigned-byte 16)))

(deftest signed-bytes
  (progn
    (with-open-file (s (tf "s.bin") :direction :output :if-exists :supersede :element-type '(signed-byte 8))
      (write-sequence '(-128 -1 0 127) s))
    (list (with-open-file (s (tf "s.bin") :element-type '(signed-byte 8))
            (let ((l (list 0 0 0 0))) (read-sequence l s) l))
          (with-open-file (s (tf "s.bin") :element-type '(unsigned-byte 8))
            (let ((l (list 0 0 0 0))) (read-sequence l s) l))))
  ((-128 -1 0 127) (128 255 0 127)))

(deftest bivalent-stream
  (progn
    (tf-write "bv.txt" "AB")
    (with-open-file (s (tf "bv.txt") :element-type :default)
      (list (read-byte s) (read-char s) (stream-element-type s))))
  (65 #\B character))

;;; ------------------------------------------------------------------
;;; external formats

(deftest external-format-utf-8
  (progn
    (with-open-file (s (tf "u.txt") :direction :output :if-exists :supersede)
      (write-string "é" s)
      (list (file-position s) (file-string-length s "é") (file-string-length s #\a) (stream-external-format s))))
  (2 2 1 :utf-8))

(deftest external-format-latin-1-reading-utf-8
  (with-open-file (s (tf "u.txt") :external-format :latin-1)
    (list (read-line s nil :eof) (read-char s nil :eof) (stream-external-format s)))
  ("Ã©" :eof :latin-1))

(deftest external-format-latin-1-writing
  (progn
    (with-open-file (s (tf "l.txt") :direction :output :if-exists :supersede :external-format :latin-1)
      (write-string "é" s)
      (file-position s)))
  1)

(deftest external-format-decoding-error
  (with-open-file (s (tf "l.txt")) (tf-err (read-char s)))
  stream-error)

(deftest external-format-encoding-error
  (with-open-file (s (tf "l2.txt") :direction :output :if-exists :supersede :external-format :latin-1)
    (tf-err (progn (write-string "λ" s) (finish-output s))))
  stream-error)

(deftest binary-stream-external-format
  (with-open-file (s (tf "b.bin") :element-type '(unsigned-byte 8))
    (stream-external-format s))
  :latin-1)

;;; ------------------------------------------------------------------
;;; file system functions

(deftest probe-file-and-truename
  (list (equal (probe-file (tf "a.txt")) (truename (tf "a.txt")))
        (probe-file (tf "zz"))
        (tf-err (truename (tf "zz")))
        (pathname-name (probe-file (tf "d1")))
        (car (last (pathname-directory (probe-file (tf "d1"))))))
  (t nil file-error nil "d1"))

(deftest probe-file-relative-to-defaults
  (let ((*default-pathname-defaults* (pathname *tf-dir*)))
    (equal (probe-file "a.txt") (truename (tf "a.txt"))))
  t)

(deftest file-write-date-and-author
  (list (integerp (file-write-date (tf "a.txt")))
        (> (file-write-date (tf "a.txt")) 3900000000)
        (stringp (file-author (tf "a.txt")))
        (tf-err (file-write-date (tf "zz")))
        (tf-err (file-author (tf "zz"))))
  (t t t file-error file-error))

(deftest rename-file-values
  (progn
    (tf-write "r1.txt" "r")
    (multiple-value-bind (new old-true new-true) (rename-file (tf "r1.txt") "r2")
      (list (file-namestring new) (file-namestring old-true) (file-namestring new-true)
            (probe-file (tf "r1.txt")) (tf-read-all "r2.txt"))))
  ("r2.txt" "r1.txt" "r2.txt" nil ("r")))

(deftest rename-missing-file
  (tf-err (rename-file (tf "zz") "yy"))
  file-error)

(deftest delete-file-cases
  (progn
    (tf-write "del.txt" "x")
    (list (delete-file (tf "del.txt")) (probe-file (tf "del.txt")) (tf-err (delete-file (tf "del.txt")))))
  (t nil file-error))

(deftest directory-listing
  (progn
    (dolist (n '("dir/one.lisp" "dir/two.lisp" "dir/three.txt" "dir/noext" "dir/sub/four.lisp"))
      (ensure-directories-exist (tf n))
      (tf-write n "x"))
    (list (tf-set= (tf-names (directory (tf "dir/*.lisp"))) '("one.lisp" "two.lisp"))
          (tf-set= (tf-names (directory (tf "dir/*.*"))) '("one.lisp" "two.lisp" "three.txt" "noext" ""))
          (tf-set= (tf-names (directory (tf "dir/*"))) '("noext" ""))
          (tf-set= (tf-names (directory (tf "dir/**/*.lisp"))) '("one.lisp" "two.lisp" "four.lisp"))
          (tf-names (directory (tf "dir/t*.txt")))
          (directory (tf "nonexistent/*.*"))
          (list-length (directory (tf "dir/*/")))
          (equal (directory (tf "dir/one.lisp")) (list (truename (tf "dir/one.lisp"))))))
  (t t t t ("three.txt") nil 1 t))

(deftest directory-returns-truenames
  (let ((r (directory (tf "dir/*.lisp"))))
    (dolist (p r t) (unless (equal p (truename p)) (return nil))))
  t)

;;; ------------------------------------------------------------------
;;; LOAD

(deftest load-file
  (progn
    (tf-write "l1.lisp"
              "(defvar cl-user::*tf-loaded* nil)"
              "(setq cl-user::*tf-loaded* (list *load-pathname* *load-truename* (package-name *package*)))"
              "(in-package :keyword)"
              "(cl:defun cl-user::tf-loaded-fn () 42)")
    (list (load (tf "l1.lisp"))
          (equal (first (symbol-value (find-symbol "*TF-LOADED*" "CL-USER"))) (tf "l1.lisp"))
          (equal (second (symbol-value (find-symbol "*TF-LOADED*" "CL-USER"))) (truename (tf "l1.lisp")))
          (third (symbol-value (find-symbol "*TF-LOADED*" "CL-USER")))
          (package-name *package*)
          (funcall (find-symbol "TF-LOADED-FN" "CL-USER"))))
  (t t t "COMMON-LISP-USER" "COMMON-LISP-USER" 42))

(deftest load-default-type
  (progn
    (setf (symbol-value (find-symbol "*TF-LOADED*" "CL-USER")) nil)
    (load (tf "l1"))
    (file-namestring (first (symbol-value (find-symbol "*TF-LOADED*" "CL-USER")))))
  "l1.lisp")

(deftest load-missing
  (list (tf-err (load (tf "nothere.lisp")))
        (load (tf "nothere.lisp") :if-does-not-exist nil)
        (tf-err (load *tf-dir*))
        (tf-err (load 3)))
  (file-error nil file-error type-error))

(deftest load-from-string-stream
  (let ((*standard-output* (make-string-output-stream)))
    (list (load (make-string-input-stream "(setq cl-user::*tf-sink* (list *load-pathname* (+ 1 2)))"))
          *tf-sink*))
  (t (nil 3)))

(deftest load-from-file-stream
  (with-open-file (s (tf "l1.lisp"))
    (load s)
    (equal (first (symbol-value (find-symbol "*TF-LOADED*" "CL-USER"))) (tf "l1.lisp")))
  t)

(deftest load-print
  (progn
    (tf-write "l2.lisp" "(+ 1 2)" "(values 4 5)" "(values)" ":kw")
    (let ((out (make-string-output-stream)))
      (let ((*standard-output* out)) (load (tf "l2.lisp") :print t))
      ;; the number of semicolons grows with the nesting of LOAD
      (let ((text (get-output-stream-string out)))
        (list (not (null (tf-search "; 3
" text)))
              (not (null (tf-search "; 4, 5
;" text)))
              (not (null (tf-search "; 
" text)))
              (not (null (tf-search "; :KW
" text)))))))
  (t t t t))

(deftest load-verbose
  (let ((out (make-string-output-stream)))
    (let ((*standard-output* out)) (load (tf "l2.lisp") :verbose t))
    (not (null (tf-search "; loading #P" (get-output-stream-string out)))))
  t)

(deftest load-reader-error
  (progn
    (tf-write "l3.lisp" "(+ 1 2)" "(unbalanced")
    (tf-err (load (tf "l3.lisp"))))
  reader-error)

(deftest load-binds-readtable-and-package
  (let ((pkg *package*) (rt *readtable*))
    (tf-write "l4.lisp" "(setq *readtable* (copy-readtable nil))" "(in-package :keyword)")
    (load (tf "l4.lisp"))
    (list (eq *package* pkg) (eq *readtable* rt)))
  (t t))

(deftest compile-file-then-load
  (progn
    (tf-write "cf.lisp" "(defpackage :tf-cf-pkg (:use :cl))" "(in-package :tf-cf-pkg)"
              "(defun cl-user::tf-cf-fn () (symbol-name 'local))")
    (let ((*standard-output* (make-string-output-stream)))
      (multiple-value-bind (out warnings failure) (compile-file (tf "cf.lisp"))
        (load out)
        (list (not (null out)) warnings failure (funcall (find-symbol "TF-CF-FN" "CL-USER"))
              (file-namestring (compile-file-pathname (tf "cf.lisp")))))))
  (t nil nil "LOCAL" "cf.fasl"))

(deftest provide-and-require
  (progn
    (tf-write "mod.lisp" "(setq cl-user::*tf-sink* :module-loaded)" "(provide \"TF-MOD\")")
    (setq *tf-sink* nil)
    (list (provide "TF-PROVIDED") (require "TF-PROVIDED")
          (require "TF-MOD" (tf "mod.lisp")) *tf-sink*
          (tf-member "TF-MOD" *modules*)
          (tf-err (require "TF-NO-SUCH-MODULE"))))
  (t nil ("TF-MOD") :module-loaded t error))

;;; ------------------------------------------------------------------
;;; integer element types of any size or range, as SBCL

(defun tf-elements (type values)
  (with-open-file (o (tf "e.bin") :direction :output :if-exists :supersede :element-type type)
    (dolist (v values) (write-byte v o)))
  (with-open-file (i (tf "e.bin") :element-type type)
    (list (stream-element-type i) (file-length i)
          (loop for b = (read-byte i nil :eof) until (eq b :eof) collect b))))

(deftest file-element-type-wide
  (list (tf-elements '(unsigned-byte 65) (list 0 1 (1- (ash 1 65))))
        (tf-elements '(signed-byte 100) (list -1 (- (ash 1 99)) (1- (ash 1 99)) 7)))
  (((unsigned-byte 72) 3 (0 1 36893488147419103231))
   ((signed-byte 104) 4 (-1 -633825300114114700748351602688 633825300114114700748351602687 7))))

(deftest file-element-type-integer-ranges
  (list (tf-elements '(integer 0 1) '(0 1 1 0))
        (tf-elements '(integer -1002 13112) '(-1002 13112 0))
        (tf-elements '(or (integer 0 1) (integer 100 200)) '(0 1 100 200)))
  (((unsigned-byte 8) 4 (0 1 1 0))
   ((signed-byte 16) 3 (-1002 13112 0))
   ((unsigned-byte 8) 4 (0 1 100 200))))

;;; ------------------------------------------------------------------
;;; OPEN defaults, echo streams of bytes, FILE-LENGTH type errors

(deftest open-probe-missing-file-is-nil
  (open (tf "no-such-file.txt") :direction :probe)
  nil)

(deftest open-input-ignores-if-exists-append
  (progn
    (with-open-file (o (tf "app.txt") :direction :output :if-exists :supersede)
      (write-string "abcdefghij" o))
    (list (with-open-file (i (tf "app.txt") :if-exists :append) (read-line i nil))
          (with-open-file (i (tf "app.txt") :direction :input :if-exists :append) (read-line i nil))))
  ("abcdefghij" "abcdefghij"))

(deftest echo-stream-echoes-bytes
  (progn
    (with-open-file (o (tf "in.bin") :direction :output :if-exists :supersede :element-type '(unsigned-byte 8))
      (dolist (b '(2 3 5 7 11)) (write-byte b o)))
    (list (with-open-file (i (tf "in.bin") :element-type '(unsigned-byte 8))
            (with-open-file (o (tf "out.bin") :direction :output :if-exists :supersede :element-type '(unsigned-byte 8))
              (let ((e (make-echo-stream i o)) (v (make-array 3)))
                (list (read-byte e) (read-sequence v e) v))))
          (with-open-file (i (tf "out.bin") :element-type '(unsigned-byte 8))
            (loop for b = (read-byte i nil) while b collect b))))
  ((2 3 #(3 5 7)) (2 3 5 7)))

(deftest file-length-type-error-excludes-datum
  (let ((s (make-synonym-stream '*standard-output*)))
    (let ((*standard-output* (make-string-output-stream)))
      (handler-case (file-length s)
        (type-error (c) (list (typep s (type-error-expected-type c))
                              (typep (type-error-datum c) (type-error-expected-type c)))))))
  (nil nil))

;;; ------------------------------------------------------------------
;;; cleanup

(deftest files-cleanup
  (progn
    (funcall (tf-ext "DELETE-DIRECTORY") *tf-dir* :recursive t)
    (probe-file *tf-dir*))
  nil)
