;; expect: error SIMPLE-CONDITION
(break "stop here")
