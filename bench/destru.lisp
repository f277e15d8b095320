;;;; destru.lisp -- destructive list surgery: NREVERSE, DELETE-IF, NCONC, RPLACA,
;;;; RPLACD and NTHCDR on a list that is rebuilt, cut and spliced every round.
;;;; Measures list mutation and the sequence functions on lists.
;;;; Prints one line "checksum destru N".

(defun next-random (x)
  "A small linear congruential step; all values stay below 65521."
  (mod (+ (* x 1103) 12345) 65521))

(defun fresh-list (n seed)
  "N pseudo-random numbers starting from SEED."
  (let ((l '()) (x seed))
    (dotimes (i n l)
      (setq x (next-random x))
      (setq l (cons x l)))))

(defun rotate-halves (l n)
  "Destructively swap the first N elements of L with the rest."
  (if (or (null l) (<= n 0))
      l
      (let ((cut (nthcdr (1- n) l)))
        (if (or (null cut) (null (cdr cut)))
            l
            (let ((back (cdr cut)))
              (rplacd cut nil)
              (nconc back l))))))

(defun destru-round (l size round)
  ;; 1. reverse in place
  (setq l (nreverse l))
  ;; 2. drop the multiples of 7 in place
  (setq l (delete-if #'(lambda (x) (= 0 (mod x 7))) l))
  ;; 3. bump every other element in place
  (do ((c l (cddr c))) ((null c))
    (rplaca c (next-random (+ (car c) round))))
  ;; 4. splice fresh cells back on so the list keeps its size
  (let ((len (length l)))
    (when (< len size)
      (setq l (nconc l (fresh-list (- size len) round)))))
  ;; 5. cut in two and swap the halves
  (rotate-halves l (1+ (mod round (floor size 2)))))

(defun list-checksum (l)
  (let ((sum 0) (i 0))
    (dolist (x l sum)
      (setq i (1+ i))
      (setq sum (mod (+ sum (* i x)) 1000000007)))))

(defun run-destru (rounds size)
  (let ((l (fresh-list size 1)) (sum 0))
    (dotimes (r rounds)
      (setq l (destru-round l size r))
      (setq sum (mod (+ sum (car l)) 1000000007)))
    (mod (+ sum (list-checksum l)) 1000000007)))

(format t "checksum destru ~D~%" (run-destru 5000 2000))
