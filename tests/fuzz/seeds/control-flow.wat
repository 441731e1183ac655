;; Nested blocks, loops and ifs with br, br_if, return, unreachable,
;; select and an early exit from inside a loop.
(module
  (func $fib (export "fib") (param $n i32) (result i32)
    (local $a i32) (local $b i32) (local $t i32)
    (local.set $b (i32.const 1))
    (block $done
      (loop $next
        (br_if $done (i32.eqz (local.get $n)))
        (local.set $t (i32.add (local.get $a) (local.get $b)))
        (local.set $a (local.get $b))
        (local.set $b (local.get $t))
        (local.set $n (i32.sub (local.get $n) (i32.const 1)))
        (br $next)))
    (local.get $a))
  (func (export "nested") (param $x i32) (result i32)
    (if (result i32) (i32.lt_s (local.get $x) (i32.const 0))
      (then (unreachable))
      (else
        (block $out (result i32)
          (loop $l (result i32)
            (if (i32.gt_u (local.get $x) (i32.const 100))
              (then (return (i32.const -1))))
            (br_if $out (i32.const 5) (i32.eqz (local.get $x)))
            (local.set $x (i32.shr_u (local.get $x) (i32.const 1)))
            (br $l))))))
  (func (result i32)
    (block (result i32) (i32.const 1) (br 0))
    (return)))
