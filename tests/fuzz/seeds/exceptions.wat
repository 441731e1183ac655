;; Legacy exception handling: a tag section, try with catch and
;; catch_all, delegate to an outer try and to the caller, rethrow of an
;; outer catch, a v128 payload.
(module
  (memory 1)
  (tag $e (param i32))
  (tag $v (param v128 i64))
  (func $thrower (param i32) (local.get 0) (throw $e))
  (func (export "run") (param i32) (result i32) (local i32)
    (try (result i32)
      (do
        (try (result i32)
          (do (try (result i32) (do (call $thrower (local.get 0)) (i32.const 0)) (delegate 1)))
          (catch_all (i32.const -1))))
      (catch $e
        (local.set 1)
        (try (do (v128.const i64x2 1 2) (i64.const 3) (throw $v))
          (catch $v (drop) (drop)
            (try (do (local.get 1) (throw $e)) (catch $e (drop) (rethrow 1)))))
        (local.get 1))))
  (func (export "caller") (result i32)
    (try (result i32) (do (try (result i32) (do (i32.const 5) (throw $e)) (delegate 1))) (catch $e))))
