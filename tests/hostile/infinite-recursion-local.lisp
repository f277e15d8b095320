;; expect: error STORAGE-CONDITION
;; unbounded recursion through a LABELS function (a call specialised by argument count) and a fused test
(labels ((down (n) (if (< n 0) n (1+ (down (1+ n)))))) (down 0))
