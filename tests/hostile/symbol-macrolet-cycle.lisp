;; expect: error TIMEOUT
(symbol-macrolet ((a b) (b a)) a)
