;;; fix-app: dependencies, nested modules with :serial and :pathname, a static file,
;;; :if-feature, a version read from a file, and a secondary system in the same file
(defsystem "fix-app"
  :version (:read-file-form "version.sexp")
  :description "An application for the tinycl loader tests"
  :author "tinycl tests"
  :license "BSD"
  :depends-on ("fix-util" (:version "fix-util" "1.0") (:feature :tinycl "fix-util"))
  :in-order-to ((test-op (test-op "fix-app/test")))
  :components ((:static-file "version.sexp")
               (:file "package")
               (:module "src"
                :depends-on ("package")
                :components ((:module "core"
                              :serial t
                              :components ((:file "base")
                                           (:file "more")))
                             (:module "extras"
                              :pathname "extra/"
                              :depends-on ("core")
                              :components ((:file "extra")
                                           (:file "never" :if-feature :no-such-feature)))))))

(defsystem "fix-app/test"
  :description "Tests of fix-app"
  :depends-on ("fix-app")
  :pathname "test/"
  :components ((:file "tests"))
  :perform (test-op (o c) (funcall (intern "RUN" "FIX-APP-TEST"))))
