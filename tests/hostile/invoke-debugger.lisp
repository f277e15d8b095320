;; expect: error SIMPLE-ERROR
(invoke-debugger (make-condition (quote simple-error) :format-control "dbg"))
