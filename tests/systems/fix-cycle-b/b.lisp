(defun fix-cycle-b-loaded () t)
