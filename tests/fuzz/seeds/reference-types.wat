;; funcref/externref values, tables ops, typed select, ref.is_null.
(module
  (table $f 1 10 funcref)
  (table $e 0 externref)
  (global $ge (mut externref) (ref.null extern))
  (global $gf funcref (ref.func $id))
  (func $id (param externref) (result externref) local.get 0)
  (func (export "f") (param $x externref) (param $c i32) (result i32)
    (local $r funcref)
    (global.set $ge (select (result externref) (local.get $x) (global.get $ge) (local.get $c)))
    (drop (table.grow $e (local.get $x) (i32.const 2)))
    (table.set $e (i32.const 0) (call $id (local.get $x)))
    (table.fill $e (i32.const 0) (ref.null extern) (i32.const 1))
    (local.set $r (table.get $f (i32.const 0)))
    (table.set $f (i32.const 0) (global.get $gf))
    (drop (select (i32.const 1) (i32.const 2) (local.get $c)))
    (i32.add
      (ref.is_null (local.get $r))
      (i32.add (table.size $f) (ref.is_null (table.get $e (i32.const 1)))))))
