;; expect: error SIMPLE-ERROR
(progn (defun hostile-deep (n) (if (= n 0) (error "bottom") (1+ (hostile-deep (1- n))))) (hostile-deep 100000))
