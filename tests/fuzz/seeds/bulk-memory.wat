;; Passive and active data, memory.init/copy/fill, data.drop; needs the
;; data count section.
(module
  (memory 1)
  (data $active (i32.const 16) "active")
  (data $p0 "passive zero")
  (data $p1 "\00\01\02\03")
  (data (memory 0) (offset (i32.const 64)) "explicit memory 0")
  (func (export "f") (param $d i32)
    (memory.init $p0 (local.get $d) (i32.const 0) (i32.const 4))
    (memory.init $p1 (local.get $d) (i32.const 1) (i32.const 2))
    (memory.copy (i32.const 100) (local.get $d) (i32.const 8))
    (memory.fill (i32.const 200) (i32.const 255) (i32.const 16))
    (data.drop $p0)
    (data.drop $active)))
