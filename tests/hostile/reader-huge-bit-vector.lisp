;; expect: error STORAGE-CONDITION
(length (read-from-string "#99999999999*1"))
