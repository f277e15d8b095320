;; expect: error ABORT
(abort)
