;;; fix-broken: its second file signals an error halfway through
(defsystem "fix-broken"
  :version "0.1.0"
  :depends-on ("fix-util")
  :serial t
  :components ((:file "first")
               (:file "second")
               (:file "third")))
