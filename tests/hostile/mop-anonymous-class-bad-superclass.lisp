;; expect: error
(make-instance 'standard-class :direct-superclasses '(42))
