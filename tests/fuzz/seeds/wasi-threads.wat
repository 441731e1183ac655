;; The shape of a wasi-threads program: imported shared env.memory,
;; wasi.thread-spawn, a WASI import, _start and wasi_thread_start.
(module
  (import "env" "memory" (memory 2 1024 shared))
  (import "wasi" "thread-spawn" (func $spawn (param i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (global $sp (mut i32) (i32.const 65536))
  (func (export "_start")
    (drop (call $spawn (i32.const 0)))
    (drop (i32.atomic.rmw.add (i32.const 1024) (i32.const 1)))
    (drop (memory.atomic.wait32 (i32.const 1028) (i32.const 0) (i64.const -1)))
    (call $exit (i32.load (i32.const 1024))))
  (func (export "wasi_thread_start") (param $tid i32) (param $arg i32)
    (global.set $sp (i32.load (local.get $arg)))
    (i32.store (i32.const 1024) (i32.add (i32.load (i32.const 1024)) (i32.const 1)))
    (drop (memory.atomic.notify (i32.const 1028) (i32.const 1)))))
