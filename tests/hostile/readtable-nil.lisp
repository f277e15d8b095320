;; expect: ok
(setf *readtable* nil)
