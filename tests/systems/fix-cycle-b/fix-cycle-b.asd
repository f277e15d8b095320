(defsystem "fix-cycle-b" :version "0.1.0" :depends-on ("fix-cycle-a") :components ((:file "b")))
