;;; fix-clos: classes, conditions, methods on PRINT-OBJECT, keywords and features, so that a
;;; plain reset can be seen to keep a loaded system usable
(defsystem "fix-clos"
  :version "2.0.1"
  :description "CLOS definitions that must survive a reset"
  :components ((:file "clos"))
  :perform (load-op :after (o c) (pushnew :fix-clos-loaded *features*)))
