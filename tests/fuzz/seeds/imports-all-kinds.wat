;; One import of each kind, with and without maxima, mutable and
;; immutable globals, and a table of externref.
(module
  (type $v (func))
  (import "env" "f0" (func $f0 (type $v)))
  (import "env" "f1" (func $f1 (param i32 f64) (result i64)))
  (import "env" "t0" (table 1 funcref))
  (import "env" "t1" (table 0 10 externref))
  (import "env" "memory" (memory 1 2))
  (import "env" "g0" (global i32))
  (import "env" "g1" (global (mut i64)))
  (import "env" "g2" (global f32))
  (import "" "" (global (mut f64)))
  (func (result i64)
    call $f0
    i32.const 1 f64.const 2 call $f1
    global.get 1 i64.add))
