;; Blocks, loops and ifs with type-index block types taking parameters
;; and returning several values.
(module
  (type $pair (func (param i32 i32) (result i32 i32)))
  (func $swap (type $pair) local.get 1 local.get 0)
  (func (export "f") (param i32 i32) (result i32 i64)
    (local.get 0) (local.get 1)
    (block (type $pair) call $swap)
    (loop (param i32 i32) (result i32 i32) nop)
    (if (param i32 i32) (result i32 i32) (local.get 0)
      (then call $swap)
      (else nop))
    i32.add
    (block (result i32 i64) (i32.const 1) (i64.const 2))
    drop
    i32.add
    i64.const 3))
