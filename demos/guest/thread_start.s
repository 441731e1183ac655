# thread_start.s - the wasi-threads entry point, before any C code runs.
#
# The host calls wasi_thread_start(tid, start_arg) on a fresh instance
# whose __stack_pointer is the main thread's initial value and whose
# __tls_base is 0. start_arg is the thread's struct __pthread
# (demos/guest/internal.h): +0 stack top, +4 TLS block, +8 exited flag.
# Written in assembly because C code may touch the shadow stack and TLS
# before its first statement.
#
# The exited flag is stored here, after the C entry has returned, because
# from then on this thread executes no code that reads or writes its
# block: pthread_join (or the detached-thread reaper) may free it at once.
# The notify that follows may then land on reused memory and wake some
# unrelated waiter there; that is a spurious wakeup, which every futex
# loop (ours and any correct program's) already tolerates.

	.text
	.globaltype __stack_pointer, i32
	.functype __wasm_init_tls (i32) -> ()
	.functype __heisen_thread_entry (i32, i32) -> ()

	.globl wasi_thread_start
	.type wasi_thread_start,@function
wasi_thread_start:
	.functype wasi_thread_start (i32, i32) -> ()
	local.get 1
	i32.load 0
	global.set __stack_pointer
	local.get 1
	i32.load 4
	call __wasm_init_tls
	local.get 0
	local.get 1
	call __heisen_thread_entry
	local.get 1
	i32.const 1
	i32.atomic.store 8
	local.get 1
	i32.const 8
	i32.add
	i32.const -1
	memory.atomic.notify 0
	drop
	end_function

# __heisen_thread_exit(t): pthread_exit on a thread other than main, once
# the C side of the thread's end is done. Marks t exited as the return
# path above does, then asks heisen (heisen.thread.exit) to end this
# thread: the engine unwinds the C frames that Wasm cannot, and the OS
# thread and its slot go. Nothing here touches t's block or the shadow
# stack after the store, which may free them at once. A runtime other
# than heisen that gives the import an empty body gets the old
# behaviour: the thread sleeps until the program ends (a spurious wakeup
# from the dummy word's reuse just sleeps again).
	.functype __heisen_host_thread_exit () -> ()
	.import_module __heisen_host_thread_exit, heisen.thread
	.import_name __heisen_host_thread_exit, exit

	.globl __heisen_thread_exit
	.type __heisen_thread_exit,@function
__heisen_thread_exit:
	.functype __heisen_thread_exit (i32) -> ()
	local.get 0
	i32.const 1
	i32.atomic.store 8
	local.get 0
	i32.const 8
	i32.add
	i32.const -1
	memory.atomic.notify 0
	drop
	call __heisen_host_thread_exit
	loop
	i32.const park_word
	i32.const 0
	i64.const -1
	memory.atomic.wait32 0
	drop
	br 0
	end_loop
	unreachable
	end_function

	.section .bss.park_word,"",@
	.p2align 2
park_word:
	.int32 0
	.size park_word, 4
