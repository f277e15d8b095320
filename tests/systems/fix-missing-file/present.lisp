(defun fix-missing-file-present () t)
