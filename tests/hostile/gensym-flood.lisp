;; expect: ok
(dotimes (i 100000) (gensym)) nil
