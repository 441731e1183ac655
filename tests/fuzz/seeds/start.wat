;; A start function that initialises memory.
(module
  (memory 1)
  (global $ready (mut i32) (i32.const 0))
  (func $init
    (i32.store (i32.const 0) (i32.const 42))
    (global.set $ready (i32.const 1)))
  (start $init)
  (func (export "ready") (result i32) global.get $ready))
