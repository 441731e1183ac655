;; wait32/wait64/notify on an imported shared memory, and atomic.fence.
(module
  (import "env" "memory" (memory 1 16 shared))
  (func (export "wait32") (param $p i32) (param $v i32) (result i32)
    (memory.atomic.wait32 (local.get $p) (local.get $v) (i64.const -1)))
  (func (export "wait64") (param $p i32) (param $v i64) (result i32)
    (memory.atomic.wait64 offset=8 (local.get $p) (local.get $v) (i64.const 1000)))
  (func (export "wake") (param $p i32) (result i32)
    atomic.fence
    (memory.atomic.notify (local.get $p) (i32.const 1))))
