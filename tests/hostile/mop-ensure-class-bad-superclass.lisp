;; expect: error TYPE-ERROR
(sb-mop:ensure-class 'h-bad :direct-superclasses '(42 "x"))
