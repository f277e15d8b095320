;; expect: exit 3
(exit :code 3)
