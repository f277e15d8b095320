;;; fix-slow: takes a few seconds to load, so that progress notifications can be seen
(defsystem "fix-slow"
  :version "1.0.0"
  :depends-on ("fix-util")
  :serial t
  :components ((:file "one") (:file "two")))
