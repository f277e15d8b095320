;; expect: error
(defconstant pi 3)
