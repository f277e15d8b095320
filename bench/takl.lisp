;;;; takl.lisp -- the Takeuchi function on lists: numbers are represented by
;;;; lists of that length and compared by walking them.  Measures CAR/CDR/NULL,
;;;; list walking and calls.  Prints one line "checksum takl N".

(defun count-list (n)
  "A fresh list of length N holding N, N-1, ... 1."
  (let ((l '()))
    (do ((i 1 (1+ i))) ((> i n) l)
      (setq l (cons i l)))))

(defun list-shorter-p (a b)
  "True when list A is strictly shorter than list B."
  (cond ((null b) nil)
        ((null a) t)
        (t (list-shorter-p (cdr a) (cdr b)))))

(defun takl (x y z)
  (if (not (list-shorter-p y x))
      z
      (takl (takl (cdr x) y z)
            (takl (cdr y) z x)
            (takl (cdr z) x y))))

(defun list-len (l)
  (let ((n 0))
    (do ((c l (cdr c))) ((null c) n)
      (setq n (+ n 1)))))

(defun run-takl (repeats)
  (let ((x (count-list 18)) (y (count-list 12)) (z (count-list 6))
        (sum 0))
    (dotimes (i repeats)
      (setq sum (+ sum (list-len (takl x y z)))))
    sum))

(format t "checksum takl ~D~%" (run-takl 60))
