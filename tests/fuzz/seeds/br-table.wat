;; br_table with many targets, an empty target list, and a value-carrying
;; br_table out of nested blocks.
(module
  (func (export "switch") (param $i i32) (result i32)
    (block $d
      (block $c
        (block $b
          (block $a
            (br_table $a $b $c $a $b $c $d (local.get $i)))
          (return (i32.const 10)))
        (return (i32.const 11)))
      (return (i32.const 12)))
    (block $only (br_table $only (local.get $i)))
    (block $v (result i32)
      (br_table $v $v $v (i32.const 99) (local.get $i)))))
