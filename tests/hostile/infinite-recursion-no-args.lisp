;; expect: error STORAGE-CONDITION
;; unbounded recursion through a global function of no arguments (a call specialised by argument count)
(progn (defun hostile-inf0 () (1+ (hostile-inf0))) (hostile-inf0))
