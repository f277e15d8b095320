;;; fix-missing-dep: depends on a system that exists nowhere
(defsystem "fix-missing-dep"
  :version "0.1.0"
  :depends-on ("fix-util" "no-such-system-xyz")
  :components ((:file "main")))
