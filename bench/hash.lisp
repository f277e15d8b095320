;;;; hash.lisp -- hash tables: SETF GETHASH, GETHASH, REMHASH and
;;;; HASH-TABLE-COUNT on an EQL table with fixnum keys and an EQUAL table with
;;;; list keys (so EQUAL hashing of conses is exercised), with growth, deletion
;;;; and re-insertion.  Prints one line "checksum hash N".

(defun key-of (i)
  "A scrambled fixnum key, different for every I below 2^20."
  (mod (* i 40503) 1048573))

(defun eql-round (table n round)
  (let ((hits 0))
    ;; insert / overwrite
    (dotimes (i n)
      (setf (gethash (key-of (+ i round)) table) (+ i round)))
    ;; look up, half of them present
    (dotimes (i n)
      (let ((v (gethash (key-of (* 2 i)) table)))
        (when v (setq hits (+ hits 1 (mod v 3))))))
    ;; delete every third key we inserted
    (dotimes (i n)
      (when (= 0 (mod i 3))
        (remhash (key-of (+ i round)) table)))
    (+ hits (hash-table-count table))))

(defun equal-round (table n round)
  (let ((hits 0))
    (dotimes (i n)
      (let ((k (list (mod (+ i round) 97) (mod i 89) 'k)))
        (setf (gethash k table) (+ 1 (or (gethash k table) 0)))))
    (dotimes (i n)
      (let ((v (gethash (list (mod i 97) (mod i 89) 'k) table)))
        (when v (setq hits (+ hits v)))))
    (dotimes (i (floor n 4))
      (remhash (list (mod i 97) (mod (* 3 i) 89) 'k) table))
    (+ hits (hash-table-count table))))

(defun run-hash (rounds n)
  (let ((sum 0))
    (dotimes (r rounds)
      (let ((eql-table (make-hash-table))
            (equal-table (make-hash-table :test 'equal)))
        (dotimes (k 3)
          (setq sum (+ sum (eql-round eql-table n (+ r k))
                       (equal-round equal-table n (+ r k)))))))
    sum))

(format t "checksum hash ~D~%" (run-hash 25 10000))
