;; expect: error TYPE-ERROR
; as SBCL: an exit code outside (signed-byte 32) is a TYPE-ERROR, not a silent 0
(exit :code (expt 2 40))
