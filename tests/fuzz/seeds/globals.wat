;; Globals of every value type with constant and global.get
;; initialisers, mutable and not, read and written.
(module
  (import "env" "base" (global $base i32))
  (global $a i32 (i32.const -1))
  (global $b (mut i64) (i64.const 0x7fffffffffffffff))
  (global $c f32 (f32.const nan:0x200000))
  (global $d (mut f64) (f64.const -inf))
  (global $e i32 (global.get $base))
  (global $v v128 (v128.const i32x4 1 2 3 4))
  (global $r funcref (ref.null func))
  (global $x externref (ref.null extern))
  (memory 1)
  (data (global.get $base) "at base")
  (func (export "f") (result i64)
    (global.set $b (i64.extend_i32_s (i32.add (global.get $a) (global.get $e))))
    (global.set $d (f64.promote_f32 (global.get $c)))
    (global.get $b)))
