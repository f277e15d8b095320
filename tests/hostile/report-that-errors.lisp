;; expect: error BAD-REPORT
(progn (define-condition bad-report (error) () (:report (lambda (c s) (declare (ignore c s)) (error "no")))) (error 'bad-report))
