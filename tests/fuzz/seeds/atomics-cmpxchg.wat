;; Compare-and-exchange at every width, as a spin-lock would use it.
(module
  (memory 1 1 shared)
  (func (export "lock") (param $p i32)
    (loop $spin
      (br_if $spin
        (i32.atomic.rmw.cmpxchg (local.get $p) (i32.const 0) (i32.const 1)))))
  (func (export "widths") (param $p i32) (result i64)
    (drop (i32.atomic.rmw8.cmpxchg_u (local.get $p) (i32.const 0) (i32.const 1)))
    (drop (i32.atomic.rmw16.cmpxchg_u (local.get $p) (i32.const 0) (i32.const 1)))
    (drop (i64.atomic.rmw8.cmpxchg_u (local.get $p) (i64.const 0) (i64.const 1)))
    (drop (i64.atomic.rmw16.cmpxchg_u (local.get $p) (i64.const 0) (i64.const 1)))
    (drop (i64.atomic.rmw32.cmpxchg_u (local.get $p) (i64.const 0) (i64.const 1)))
    (i64.atomic.rmw.cmpxchg offset=8 (local.get $p) (i64.const 0) (i64.const 1))))
