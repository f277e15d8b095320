;;; fix-defsys: needs fix-util loaded to read its own definition
(defsystem "fix-defsys"
  :version "0.0.1"
  :defsystem-depends-on ("fix-util")
  :around-compile "ignored"
  :components ((:file "main")))
