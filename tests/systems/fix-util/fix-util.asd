;;; fix-util: a small library with a version, a description and two files
(defsystem "fix-util"
  :version "1.2.0"
  :description "Utilities for the tinycl loader tests"
  :author "tinycl tests"
  :license "MIT"
  :serial t
  :components ((:file "package")
               (:file "util")))
