;; Function types over every value type, multi-value results, and
;; duplicated types (the type section does not deduplicate).
(module
  (type (func))
  (type (func (param i32 i64 f32 f64) (result i32)))
  (type (func (param v128 funcref externref) (result externref)))
  (type (func (result i32 i64 f32 f64 v128)))
  (type (func (param i32) (param i32) (result i32 i32)))
  (type (func (param i32) (param i32) (result i32 i32)))
  (func (type 1) local.get 0)
  (func (type 3)
    i32.const 1 i64.const 2 f32.const 3 f64.const 4 v128.const i32x4 1 2 3 4)
  (func (type 4) local.get 1 local.get 0))
