;; A SIMD function: v128 loads/stores with lanes, shuffles, splats, lane
;; ops and arithmetic across shapes.
(module
  (memory 1)
  (func (export "simd") (param $p i32) (result i32)
    (local $v v128)
    (local.set $v (v128.load (local.get $p)))
    (local.set $v (i8x16.shuffle 0 17 2 19 4 21 6 23 8 25 10 27 12 29 14 31
      (local.get $v) (v128.const i8x16 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16)))
    (local.set $v (i32x4.add (local.get $v) (i32x4.splat (i32.const 3))))
    (local.set $v (f64x2.mul (local.get $v) (f64x2.splat (f64.const 0.5))))
    (local.set $v (v128.load32_lane 2 (local.get $p) (local.get $v)))
    (v128.store64_lane offset=16 1 (local.get $p) (local.get $v))
    (local.set $v (i16x8.replace_lane 7 (local.get $v) (i32.const 9)))
    (local.set $v (v128.bitselect (local.get $v) (v128.const i64x2 -1 0) (local.get $v)))
    (v128.store offset=32 (local.get $p) (v128.load8_splat (local.get $p)))
    (i32.add
      (i8x16.extract_lane_u 3 (local.get $v))
      (v128.any_true (i8x16.eq (local.get $v) (v128.const f32x4 1.0 2.0 3.0 4.0))))))
