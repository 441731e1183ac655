;; data.drop alone forces the data count section; several passive
;; segments and one active one.
(module
  (memory 1)
  (data "a") (data "bb") (data "ccc") (data (i32.const 0) "d")
  (func (data.drop 0) (data.drop 2)))
