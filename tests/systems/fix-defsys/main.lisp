(defun fix-defsys-main () (fix-util:double 4))
