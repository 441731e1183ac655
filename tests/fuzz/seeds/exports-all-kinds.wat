;; Exports of every kind, including re-exported imports and a
;; mutable global.
(module
  (import "env" "imp" (func $imp))
  (func $f (export "f") (result i32) i32.const 42)
  (table $t (export "table") 2 funcref)
  (memory $m (export "memory") 1)
  (global $g (export "g") (mut i32) (i32.const 7))
  (global $c (export "c") f64 (f64.const 1.5))
  (export "imp" (func $imp))
  (export "f-again" (func $f))
  (export "" (global $c)))
