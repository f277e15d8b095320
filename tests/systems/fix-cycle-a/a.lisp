(defun fix-cycle-a-loaded () t)
