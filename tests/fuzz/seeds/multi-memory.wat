;; Three memories (one imported and shared, like the probe mask), plain
;; and atomic accesses addressing each, memory.size/grow/copy across them.
;; The atomic op names its memory by index: wat2wasm 1.0.32 asserts on a
;; named memory there.
(module
  (import "heisen" "mask" (memory $mask 1 1 shared))
  (memory $a 1)
  (memory $b 2 4 shared)
  (data (memory $a) (i32.const 0) "abc")
  (func (export "f") (param $p i32) (result i32)
    (i32.store8 $a (local.get $p) (i32.load8_u $mask (i32.const 3)))
    (i64.store $b offset=16 (local.get $p) (i64.load $a (local.get $p)))
    (f32.store $a align=2 (local.get $p) (f32.load $b (local.get $p)))
    (drop (i32.atomic.rmw.add 2 (local.get $p) (i32.const 1)))
    (i64.atomic.store 2 offset=8 (local.get $p) (i64.atomic.load 0 (local.get $p)))
    (memory.copy $b $a (i32.const 0) (i32.const 0) (i32.const 3))
    (memory.fill $b (i32.const 0) (i32.const 0) (i32.const 8))
    (drop (memory.grow $b (i32.const 1)))
    (i32.add (memory.size $a) (memory.size $b))))
