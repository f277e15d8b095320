(defun fix-missing-dep-loaded () t)
