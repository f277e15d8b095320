;; expect: ok
(progn (dotimes (i 100000) (write-string "xxxxxxxxxx")) nil)
