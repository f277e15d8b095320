(sleep 1.3) (defun fix-slow-two () 2)
