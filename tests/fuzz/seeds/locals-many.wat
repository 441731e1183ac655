;; Many local groups of every type, including a large group count.
(module
  (func (export "f") (param i32 i64) (result f64)
    (local i32 i32 i64 f32 f32 f32 f64 v128 funcref externref i32)
    (local $big1 i32) (local $big2 i32) (local $big3 i64)
    (local.set 2 (local.get 0))
    (local.set 12 (local.tee 3 (local.get 2)))
    (local.set 4 (local.get 1))
    (f64.add (local.get 8) (f64.convert_i32_u (local.get 12)))))
