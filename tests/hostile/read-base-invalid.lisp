;; expect: ok
(setf *read-base* 1)
