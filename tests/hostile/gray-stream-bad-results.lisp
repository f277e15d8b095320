;; expect: error TYPE-ERROR
;; a Gray stream method returning something that is neither a character nor :EOF
(progn
  (defclass liar (gray:fundamental-character-input-stream) ())
  (defmethod gray:stream-read-char ((s liar)) 42)
  (read (make-instance 'liar)))
