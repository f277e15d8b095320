;; expect: exit 44
; as SBCL: any (signed-byte 32) code is accepted and the system keeps its low 8 bits
(exit :code 300)
