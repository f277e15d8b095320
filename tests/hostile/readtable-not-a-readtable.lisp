;; expect: ok
(setf *readtable* 42)
