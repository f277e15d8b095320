;; expect: error STORAGE-CONDITION|TIMEOUT
;; a Gray stream whose STREAM-WRITE-CHAR writes to itself: the recursion goes through the C
;; stream functions and must end in an error, not a crash
(progn
  (defclass selfish (gray:fundamental-character-output-stream) ())
  (defmethod gray:stream-write-char ((s selfish) c) (write-char c s))
  (format (make-instance 'selfish) "~A" 'boom))
