;; expect: error SIMPLE-ERROR
;; 20,000 calls deep: deep enough for a long backtrace, within the stack even in the sanitizer builds
(progn (defun hostile-deep (n) (if (= n 0) (error "bottom") (1+ (hostile-deep (1- n))))) (hostile-deep 20000))
