;; expect: error READER-ERROR
(type-of (car '#1=#1#))
