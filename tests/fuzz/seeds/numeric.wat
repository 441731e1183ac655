;; Arithmetic, comparisons and conversions over the four number types,
;; including sign-extension and saturating truncation.
(module
  (func (export "i32") (param i32 i32) (result i32)
    (i32.add (i32.mul (local.get 0) (local.get 1))
      (i32.xor (i32.rotl (local.get 0) (i32.const 3))
        (i32.add (i32.clz (local.get 1)) (i32.add (i32.popcnt (local.get 0))
          (i32.add (i32.div_s (local.get 0) (i32.const 7)) (i32.rem_u (local.get 1) (i32.const 9))))))))
  (func (export "i64") (param i64 i64) (result i64)
    (i64.or (i64.shl (local.get 0) (local.get 1))
      (i64.sub (i64.extend32_s (local.get 1)) (i64.ctz (local.get 0)))))
  (func (export "f32") (param f32 f32) (result f32)
    (f32.copysign (f32.sqrt (f32.max (local.get 0) (local.get 1)))
      (f32.nearest (f32.div (local.get 0) (f32.const 3.25)))))
  (func (export "f64") (param f64 f64) (result f64)
    (f64.add (f64.floor (local.get 0)) (f64.trunc (f64.neg (local.get 1)))))
  (func (export "conv") (param f64) (result i32)
    (i32.add
      (i32.add (i32.trunc_sat_f64_s (local.get 0)) (i32.wrap_i64 (i64.trunc_sat_f64_u (local.get 0))))
      (i32.add (i32.extend8_s (i32.reinterpret_f32 (f32.demote_f64 (local.get 0))))
        (i32.add (f64.lt (local.get 0) (f64.convert_i64_u (i64.reinterpret_f64 (local.get 0))))
          (i64.eqz (i64.trunc_f32_s (f32.convert_i32_s (i32.const 5)))))))))
