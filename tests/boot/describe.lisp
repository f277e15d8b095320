;;; describe.lisp: print what the booted interpreter holds, one stable line per fact, so that the
;;; boot from the stdlib sources and the boot from the image can be compared (tests/run-boot.sh).
(let ((*package* (find-package "KEYWORD"))
      (*print-readably* nil)
      (*print-circle* t))
  (dolist (name (sort (mapcar #'package-name (list-all-packages)) #'string<))
    (let ((p (find-package name)) (syms nil))
      (format t "package ~A ~S ~S ~S~%" name
              (sort (copy-list (package-nicknames p)) #'string<)
              (sort (mapcar #'package-name (package-use-list p)) #'string<)
              (length (package-shadowing-symbols p)))
      (do-symbols (s p) (when (eq (symbol-package s) p) (push s syms)))
      (dolist (s (sort (remove-duplicates syms) #'string< :key #'symbol-name))
        (format t "~S ~S~@[ value:~S~]~@[ function:~S~]~:[~; macro~]~:[~; special-op~] plist:~S~%"
                s (nth-value 1 (find-symbol (symbol-name s) p))
                ;; an integer as INTEGER: TYPE-OF names its range, and a counter such as
                ;; SYS::*CLOS-EPOCH* differs between the boots (the image's start bumps it)
                (and (boundp s) (if (integerp (symbol-value s)) 'integer (type-of (symbol-value s))))
                (and (fboundp s) (not (macro-function s)) (not (special-operator-p s))
                     (type-of (fdefinition s)))
                (macro-function s) (special-operator-p s)
                (loop for (k) on (symbol-plist s) by #'cddr collect k)))
      (format t "~A~%" (sys::%list-definitions nil name)))))
