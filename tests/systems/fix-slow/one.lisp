(sleep 1.3) (defun fix-slow-one () 1)
