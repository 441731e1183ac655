;; The smallest module: header only.
(module)
