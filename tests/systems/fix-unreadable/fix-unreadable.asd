;;; fix-unreadable: this definition does not read (an unterminated list)
(defsystem "fix-unreadable"
  :version "0.1.0"
  :components ((:file "package")
