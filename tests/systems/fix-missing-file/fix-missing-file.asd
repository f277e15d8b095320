;;; fix-missing-file: names a component whose file does not exist
(defsystem "fix-missing-file"
  :version "0.1.0"
  :components ((:file "present")
               (:file "absent")))
