;; expect: ok
(length (coerce (list (code-char #xD800)) (quote string)))
