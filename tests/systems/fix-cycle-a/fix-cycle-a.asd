;;; fix-cycle-a and fix-cycle-b depend on each other
(defsystem "fix-cycle-a" :version "0.1.0" :depends-on ("fix-cycle-b") :components ((:file "a")))
