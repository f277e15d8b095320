;; expect: ok
(dotimes (i 100000) (intern (format nil "SYM~D" i))) nil
