;; memory.atomic.wait32 was dispatched to wait64's handler (their labels
;; shared one address), so it checked 8-byte alignment and compared 8
;; bytes. Here mem[8] = 0 and mem[12] = 1: wait32 at 8 for 0 must time out
;; (2); the broken engine saw 0x100000000 != 0 and returned 1 ("not
;; equal"). A wait32 at 4-aligned 20 must not trap as unaligned.
;; expect-exit: 4
(module
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory 1 1 shared)
  (func (export "_start")
    (i32.store (i32.const 8) (i32.const 0))
    (i32.store (i32.const 12) (i32.const 1))
    (call $exit
      (i32.add
        (memory.atomic.wait32 (i32.const 8) (i32.const 0) (i64.const 1000))
        (memory.atomic.wait32 (i32.const 20) (i32.const 0) (i64.const 1000))))))
