;; call_indirect through two tables, recursion, and calls to imports.
(module
  (type $un (func (param i32) (result i32)))
  (import "env" "log" (func $log (param i32)))
  (table $t0 2 funcref)
  (table $t1 1 funcref)
  (elem (table $t0) (i32.const 0) $inc $dec)
  (elem (table $t1) (i32.const 0) func $inc)
  (func $inc (type $un) (i32.add (local.get 0) (i32.const 1)))
  (func $dec (type $un) (i32.sub (local.get 0) (i32.const 1)))
  (func (export "dispatch") (param $which i32) (param $x i32) (result i32)
    (call $log (local.get $x))
    (i32.add
      (call_indirect $t0 (type $un) (local.get $x) (local.get $which))
      (call_indirect $t1 (type $un) (local.get $x) (i32.const 0)))))
