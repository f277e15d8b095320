;;;; gc-memory.lisp: what a program leaves alive. LOAD records where each list of its file starts
;;;; (for the cross-reference and warnings), in a table kept until the top-level form ends; the
;;;; lists that the form's own code reads (READ-FROM-STRING, READ on a string stream) must not be
;;;; recorded there, or a loaded program that parses text keeps all it ever parsed (bench/strings
;;;; grew to 50 MB that way).

(in-package :cl-user)

(defun gc-memory-in-use ()
  (tinycl:gc :full t)
  (sys::%heap-size))

;; evaluated while this file is being loaded, as a loaded program's top-level form is
(defvar *gc-memory-read-growth*
  (let ((before (gc-memory-in-use)) (last nil))
    (dotimes (i 20000)
      (setq last (read-from-string "(a (b c) (d e f))"))
      (with-input-from-string (in "((1 2) (3 4))") (read in)))
    (prog1 (- (gc-memory-in-use) before)
      (unless (equal last '(a (b c) (d e f))) (error "read ~S" last)))))

(deftest gc-memory.reads-during-load-not-kept
  (< *gc-memory-read-growth* 1000000)
  t)

;; the lists of the file itself still have their places: the call sites of a definition
(defun gc-memory-defined-here (x) (list (car x)))

(deftest gc-memory.load-still-records-places
  (mapcar #'cadr (gethash '(defun gc-memory-defined-here) (sys::%xref-sites)))
  (list car))

;; the same in the code of a session call: the tests run inside the call (run-tests "gc-memory")
(deftest gc-memory.reads-during-a-call-not-kept
  (let ((before (gc-memory-in-use)))
    (dotimes (i 20000) (read-from-string "(a (b c) (d e f))"))
    (< (- (gc-memory-in-use) before) 1000000))
  t)
