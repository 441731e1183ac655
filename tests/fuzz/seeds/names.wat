;; Assembled with --debug-names: module, function and local names.
(module $named_module
  (func $add (param $lhs i32) (param $rhs i32) (result i32)
    (local $tmp i32)
    (local.set $tmp (i32.add (local.get $lhs) (local.get $rhs)))
    (local.get $tmp))
  (func $caller (export "caller") (result i32)
    (call $add (i32.const 1) (i32.const 2)))
  (func $unnamed_locals (param i32 i64) (local f32 f64)))
