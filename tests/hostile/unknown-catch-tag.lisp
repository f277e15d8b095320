;; expect: error CONTROL-ERROR
(throw (quote no-such-tag) 1)
