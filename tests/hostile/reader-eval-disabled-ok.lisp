;; expect: ok
(let ((*read-eval* nil)) (ignore-errors (read-from-string "#.(loop)")))
