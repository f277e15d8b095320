;; expect: error TIMEOUT
(progn (define-symbol-macro sm-itself sm-itself) sm-itself)
