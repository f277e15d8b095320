;; expect: error TIMEOUT
(progn
  (defun spin (a b) (cond ((null b) a) ((null a) (spin b b)) (t (spin (cdr a) b))))
  (spin (list 1 2) (list 3)))
