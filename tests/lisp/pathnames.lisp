;;;; pathnames.lisp: tests of pathnames (CLHS chapter 19) with SBCL's Unix namestrings; expected
;;;; values from SBCL (the file also runs in SBCL with framework.lisp). Patterns (SBCL's
;;;; SB-IMPL::PATTERN objects) are only examined through the pathname functions.

(defun pn-parts (x)
  (let ((p (pathname x)))
    (list (pathname-directory p) (pathname-name p) (pathname-type p) (pathname-version p))))

(defvar *pn-sink* nil)

(defmacro pn-err (form)
  `(handler-case (progn (setq *pn-sink* ,form) :no-error)
     (file-error () 'file-error)
     (type-error () 'type-error)
     (error () 'error)))

;;; ------------------------------------------------------------------
;;; parsing Unix namestrings

(deftest parse-empty (pn-parts "") (nil nil nil nil))
(deftest parse-name (pn-parts "foo") (nil "foo" nil :newest))
(deftest parse-name-type (pn-parts "foo.lisp") (nil "foo" "lisp" :newest))
(deftest parse-absolute-file (pn-parts "/tmp/foo.lisp") ((:absolute "tmp") "foo" "lisp" :newest))
(deftest parse-absolute-directory (pn-parts "/tmp/") ((:absolute "tmp") nil nil nil))
(deftest parse-root (pn-parts "/") ((:absolute) nil nil nil))
(deftest parse-relative-directory (pn-parts "tmp/") ((:relative "tmp") nil nil nil))
(deftest parse-dot-directory (pn-parts "./foo") ((:relative ".") "foo" nil :newest))
(deftest parse-up (pn-parts "../../a/b.c") ((:relative :up :up "a") "b" "c" :newest))
(deftest parse-up-inside (pn-parts "a/../b") ((:relative "a" :up) "b" nil :newest))
(deftest parse-dotfile (pn-parts ".bashrc") (nil ".bashrc" nil :newest))
(deftest parse-dotfile-with-type (pn-parts ".bashrc.bak") (nil ".bashrc" "bak" :newest))
(deftest parse-trailing-dot (pn-parts "foo.") (nil "foo" "" :newest))
(deftest parse-last-dot-splits (pn-parts "foo.tar.gz") (nil "foo.tar" "gz" :newest))
(deftest parse-dot (pn-parts ".") (nil "." nil :newest))
(deftest parse-dot-dot-file (pn-parts "..") (nil "." "" :newest))
(deftest parse-three-dots (pn-parts "...") (nil ".." "" :newest))
(deftest parse-double-slash (pn-parts "a//b") ((:relative "a") "b" nil :newest))
(deftest parse-leading-double-slash (pn-parts "//a") ((:absolute) "a" nil :newest))
(deftest parse-wild-name (pn-parts "*.lisp") (nil :wild "lisp" :newest))
(deftest parse-wild-type (pn-parts "foo.*") (nil "foo" :wild :newest))
(deftest parse-wild-directory (pn-parts "/tmp/*/*.*") ((:absolute "tmp" :wild) :wild :wild :newest))
(deftest parse-wild-inferiors (pn-parts "/tmp/**/x.l") ((:absolute "tmp" :wild-inferiors) "x" "l" :newest))
(deftest parse-home (pn-parts "~/x.l") ((:absolute :home) "x" "l" :newest))
(deftest parse-user-home (pn-parts "~root/a") ((:absolute (:home "root")) "a" nil :newest))
(deftest parse-escaped-star (pn-parts "a\\*b") (nil "a*b" nil :newest))
(deftest parse-space (pn-parts "a b.c") (nil "a b" "c" :newest))

(deftest parse-patterns-are-wild
  (list (not (null (wild-pathname-p "foo*bar.l*" :name)))
        (not (null (wild-pathname-p "foo*bar.l*" :type)))
        (not (null (wild-pathname-p "a?b" :name)))
        (not (null (wild-pathname-p "[ab]c" :name)))
        (wild-pathname-p "a\\*b"))
  (t t t t nil))

;;; ------------------------------------------------------------------
;;; namestrings

(deftest namestring-round-trips
  (let ((r nil))
    (dolist (s '("" "foo" "foo.lisp" "/tmp/foo.lisp" "/tmp/" "/" "tmp/" "./foo" "../foo" "a/../b"
                 ".bashrc" ".bashrc.bak" "foo." "a.b.c" "*.lisp" "/tmp/*/*.*" "/tmp/**/x.l"
                 "foo*bar.l*" "~/" "~/x.l" "~root/a" "/a/b/c/" "foo.*" "*" "**/" "a\\*b" "a?b"
                 "[ab]c" "..." "." ".." "a b.c"))
      (unless (equal (namestring (pathname s)) s) (push s r)))
    r)
  nil)

(deftest namestring-normalises (list (namestring "a//b") (namestring "//a")) ("a/b" "/a"))

(deftest namestring-escapes-literal-characters
  (list (namestring (make-pathname :name "a.b"))
        (namestring (make-pathname :name "foo*"))
        (namestring (make-pathname :name "a\\b"))
        (namestring (make-pathname :name "x" :type "a.b"))
        (namestring (make-pathname :directory '(:absolute "a*"))))
  ("a\\.b" "foo\\*" "a\\\\b" "x.a\\.b" "/a\\*/"))

(deftest namestring-of-made-pathnames
  (list (namestring (make-pathname :directory '(:relative "a") :name "b" :type "c"))
        (namestring (make-pathname :directory '(:absolute :up "a") :name "b"))
        (namestring (make-pathname :directory '(:relative :wild-inferiors :wild "x") :name :wild :type :wild))
        (namestring (make-pathname :directory "foo"))
        (namestring (make-pathname :directory '(:relative ".") :name "x"))
        (namestring (make-pathname :type "" :name "x"))
        (namestring (make-pathname :name "x" :version 3)))
  ("a/b.c" "/../a/b" "**/*/x/*.*" "/foo/" "./x" "x." "x"))

(deftest namestring-errors
  (list (pn-err (namestring (make-pathname :type "lisp")))
        (pn-err (namestring (make-pathname :directory '(:absolute :back "a") :name "b")))
        (pn-err (namestring (make-pathname :name "" :type ""))))
  (file-error error file-error))

(deftest file-directory-host-namestrings
  (list (file-namestring "/a/b/c.d") (directory-namestring "/a/b/c.d") (host-namestring "/a/b/c.d")
        (file-namestring "/a/b/") (directory-namestring "c.d"))
  ("c.d" "/a/b/" "" "" ""))

(deftest enough-namestring-cases
  (list (enough-namestring "/a/b/c.d" "/a/")
        (enough-namestring "/a/b/c.d" "/x/")
        (enough-namestring "/a/b/c.d" "/a/b/c.e")
        (enough-namestring "/a/b/c.d" "/a/b/")
        (enough-namestring "rel/c.d" "/a/"))
  ("b/c.d" "/a/b/c.d" "c.d" "c.d" "rel/c.d"))

;;; ------------------------------------------------------------------
;;; make-pathname, accessors

(deftest make-pathname-components
  (pn-parts (make-pathname :directory '(:absolute "usr" "lib") :name "x" :type "so"))
  ((:absolute "usr" "lib") "x" "so" nil))

(deftest make-pathname-defaults
  (list (namestring (make-pathname :name "x" :defaults "/tmp/y.z"))
        (pathname-version (make-pathname :name "x" :defaults "/tmp/y.z"))
        (namestring (make-pathname :type "l" :defaults "/tmp/y.z"))
        (namestring (make-pathname :directory '(:relative "sub") :defaults "/tmp/y.z"))
        (namestring (make-pathname :directory nil :defaults "/tmp/y.z"))
        (pathname-name (make-pathname :name nil :defaults "/tmp/y.z"))
        (pathname-version (make-pathname :name "q" :defaults (make-pathname :name "w"))))
  ("/tmp/x.z" :newest "/tmp/y.l" "sub/y.z" "y.z" nil nil))

(deftest make-pathname-directory-forms
  (list (pathname-directory (make-pathname :directory "foo"))
        (pathname-directory (make-pathname :directory :wild))
        (pathname-directory (make-pathname :directory '(:absolute "a" :back)))
        (pathname-directory (make-pathname :directory '(:relative)))
        (namestring (make-pathname :directory '(:relative)))
        (namestring (make-pathname :directory '(:absolute))))
  ((:absolute "foo") (:absolute :wild-inferiors) (:absolute) (:relative) "" "/"))

(deftest make-pathname-version
  (list (pathname-version (make-pathname :name "x" :version :newest))
        (pathname-version (make-pathname :name "x"))
        (namestring (make-pathname :name "x" :version :wild)))
  (:newest nil "x"))

(deftest make-pathname-case-common
  (list (pathname-name (make-pathname :case :common :name "FOO"))
        (pathname-name (make-pathname :case :common :name "foo"))
        (pathname-name (make-pathname :case :common :name "Foo")))
  ("foo" "FOO" "Foo"))

(deftest make-pathname-errors
  (list (pn-err (make-pathname :name 3))
        (pn-err (make-pathname :directory '(:absolute 3)))
        (pn-err (make-pathname :host "nosuchhost")))
  (type-error error type-error))

(deftest pathname-designators
  (list (pathnamep (pathname "x")) (pathnamep "x") (pathnamep #p"x")
        (let ((p #p"/tmp/")) (eq p (pathname p)))
        (pn-err (pathname 3)))
  (t nil t t type-error))

(deftest pathname-of-stream-without-file
  (list (pn-err (pathname (make-string-input-stream "x")))
        (pn-err (pathname (make-synonym-stream '*pn-sink*)))
        (pn-err (pathname (make-synonym-stream '*terminal-io*))))
  (type-error type-error type-error))

(deftest sharp-p-reader-and-printer
  (list (pathnamep (read-from-string "#p\"/tmp/x.l\""))
        (prin1-to-string #p"/tmp/a b")
        (princ-to-string #p"/tmp/a b")
        (format nil "~A ~S" #p"x" #p"y"))
  (t "#P\"/tmp/a b\"" "/tmp/a b" "x #P\"y\""))

(deftest pathname-equal
  (list (equal #p"/tmp/a" #p"/tmp/a") (equal #p"/tmp/a" "/tmp/a") (equal #p"/tmp/a" #p"/tmp/b"))
  (t nil nil))

(deftest parse-namestring-values
  (list (multiple-value-list (parse-namestring "abc"))
        (multiple-value-list (parse-namestring "/tmp/x.l" nil *default-pathname-defaults* :start 1))
        (multiple-value-list (parse-namestring "abcdef" nil *default-pathname-defaults* :start 2 :end 4))
        (multiple-value-list (parse-namestring #p"abc")))
  ((#p"abc" 3) (#p"tmp/x.l" 7) (#p"cd" 2) (#p"abc" 0)))

(deftest parse-namestring-host-error
  (pn-err (parse-namestring "foo" "nosuchhost"))
  type-error)

;;; ------------------------------------------------------------------
;;; merging

(deftest merge-pathnames-cases
  (list (namestring (merge-pathnames "foo" "/tmp/bar.lisp"))
        (namestring (merge-pathnames "foo.l" "/tmp/bar.lisp"))
        (namestring (merge-pathnames "a/foo" "/tmp/x/"))
        (namestring (merge-pathnames "../foo" "/tmp/x/"))
        (namestring (merge-pathnames "../foo" "x/"))
        (namestring (merge-pathnames "/abs/foo" "/tmp/x/"))
        (namestring (merge-pathnames "" "/a/b/c.d"))
        (namestring (merge-pathnames (make-pathname :directory '(:relative :back "q")) "/a/b/"))
        (namestring (merge-pathnames (make-pathname :directory '(:relative :up "q")) "/a/b/")))
  ("/tmp/foo.lisp" "/tmp/foo.l" "/tmp/x/a/foo" "/tmp/x/../foo" "x/../foo" "/abs/foo" "/a/b/c.d"
   "/a/q/" "/a/b/../q/"))

(deftest merge-pathnames-version
  (list (pathname-version (merge-pathnames "foo" "bar/"))
        (pathname-version (merge-pathnames (make-pathname :name "foo") "bar/"))
        (pathname-version (merge-pathnames (make-pathname :name "foo") "bar/" nil)))
  (:newest :newest nil))

(deftest merge-pathnames-uses-defaults
  (equal (merge-pathnames "x") (merge-pathnames "x" *default-pathname-defaults*))
  t)

(deftest default-pathname-defaults-is-absolute-directory
  (let ((d *default-pathname-defaults*))
    (list (pathnamep d) (car (pathname-directory d)) (pathname-name d)))
  (t :absolute nil))

(deftest user-homedir-pathname-is-directory
  (let ((h (user-homedir-pathname)))
    (list (pathnamep h) (car (pathname-directory h)) (pathname-name h)))
  (t :absolute nil))

;;; ------------------------------------------------------------------
;;; wildcards

(deftest wild-pathname-p-fields
  (list (not (null (wild-pathname-p "/tmp/*.l")))
        (wild-pathname-p "/tmp/x.l")
        (not (null (wild-pathname-p "/tmp/*.l" :name)))
        (wild-pathname-p "/tmp/*.l" :type)
        (not (null (wild-pathname-p "/**/x.l" :directory)))
        (wild-pathname-p "/**/x.l" :host)
        (pn-err (wild-pathname-p "/tmp/x.l" :bogus)))
  (t nil t nil t nil type-error))

(deftest pathname-match-p-cases
  (list (pathname-match-p "/tmp/foo.lisp" "/tmp/*.lisp")
        (pathname-match-p "/tmp/foo.lisp" "/tmp/*.l")
        (pathname-match-p "/tmp/a/b/foo.lisp" "/tmp/**/*.lisp")
        (pathname-match-p "/tmp/foo.lisp" "/tmp/**/*.lisp")
        (pathname-match-p "/tmp/foo.lisp" "/tmp/f*o.*")
        (pathname-match-p "/tmp/foo.lisp" "/tmp/f?o.*")
        (pathname-match-p "/tmp/foo.lisp" "/tmp/f?.*")
        (pathname-match-p "foo.lisp" "*.*")
        (pathname-match-p "/tmp/foo" "/tmp/*.*")
        (pathname-match-p "/tmp/a/foo" "/tmp/*.*")
        (pathname-match-p "/tmp/bc" "/tmp/[ab]c")
        (pathname-match-p "/tmp/xc" "/tmp/[ab]c"))
  (t nil t t t t nil t t nil t nil))

(deftest translate-pathname-cases
  (list (namestring (translate-pathname "/tmp/foo.lisp" "/tmp/*.lisp" "/var/*.fasl"))
        (namestring (translate-pathname "/tmp/a/b/foo.lisp" "/tmp/**/*.lisp" "/var/**/*.fasl"))
        (namestring (translate-pathname "/tmp/foo-bar.lisp" "/tmp/foo-*.lisp" "/var/x-*.l"))
        (namestring (translate-pathname "/tmp/foo.lisp" "/tmp/*.*" "/var/"))
        (pn-err (translate-pathname "/tmp/foo.lisp" "/x/*.*" "/var/")))
  ("/var/foo.fasl" "/var/a/b/foo.fasl" "/var/x-bar.l" "/var/foo.lisp" error))

(deftest compile-file-pathname-cases
  (list (namestring (compile-file-pathname "/tmp/x.lisp"))
        (namestring (compile-file-pathname "/tmp/x"))
        (namestring (compile-file-pathname "/tmp/x.lisp" :output-file "/var/y")))
  ("/tmp/x.fasl" "/tmp/x.fasl" "/var/y.fasl"))

(deftest probe-file-wild-is-error
  (pn-err (probe-file "/tmp/*.lisp"))
  file-error)

;;; A pathname without a namestring prints as SBCL prints it, and not readably
(deftest print-pathname-without-namestring
  (list (prin1-to-string (make-pathname :type "x" :directory '(:relative "a")))
        (signals-error (write-to-string (make-pathname :type "x") :readably t) print-not-readable)
        (prin1-to-string (make-pathname :name "a" :type "x")))
  ("#<PATHNAME (with no namestring) :HOST NIL :DEVICE NIL :DIRECTORY (:RELATIVE \"a\") :NAME NIL :TYPE \"x\" :VERSION NIL>"
   t "#P\"a.x\""))

;;; CLHS 19.2.2.4.3: :UP/:BACK right after :ABSOLUTE or :WILD-INFERIORS
(deftest directory-up-after-absolute
  (list (signals-error (directory (make-pathname :directory '(:absolute :up))) file-error)
        (signals-error (directory (make-pathname :directory '(:absolute :back))) file-error)
        (signals-error (directory (make-pathname :directory '(:relative :wild-inferiors :up))) file-error)
        (signals-error (directory (make-pathname :directory '(:relative :wild-inferiors :back))) file-error))
  (t t t t))

;;; the expected type of the TYPE-ERROR does not contain the datum
(deftest pathname-designator-type-error
  (let ((s (make-synonym-stream '*terminal-io*)))
    (handler-case (pathname-name s)
      (type-error (c) (typep (type-error-datum c) (type-error-expected-type c)))))
  nil)

(deftest pathname-accessor-keys
  (list (signals-error (pathname-host "/a/b" '#:bogus t) program-error)
        (pathname-name "/a/b.c" :case :local))
  (t "b"))

;;; as SBCL: a version missing from both the pathname and the defaults is the default version
(deftest merge-pathnames-default-version
  (list (pathname-version (merge-pathnames (make-pathname) (make-pathname :directory '(:absolute "a"))))
        (pathname-version (merge-pathnames (make-pathname) (make-pathname :directory '(:absolute "a")) nil)))
  (:newest nil))

;;; as SBCL on Unix, EQUAL does not compare pathname versions
(deftest equal-pathnames-ignores-version
  (list (equal (make-pathname :version :wild) #p"")
        (equal (make-pathname :name "a" :version 3) #p"a")
        (equal #p"a" #p"b"))
  (t t nil))
