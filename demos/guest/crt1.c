/*
 * crt1.c - heisen's replacement for wasi-libc's crt1-command.o.
 *
 * Why: wasm-ld wraps every export of a command module that does not call
 * __wasm_call_ctors itself in NAME.command_export, which runs the
 * constructors before and libc's exit-time cleanup (__wasm_call_dtors:
 * atexit handlers, stdio flush) after. For wasi_thread_start that would
 * run the cleanup each time a thread finishes. Calling __wasm_call_ctors
 * here, once, on the main thread, turns the wrapping off for every export.
 *
 * _start also gives the main thread its TLS block before the constructors
 * (which may use TLS) and ends with exit(), as crt1-command does for a
 * non-zero status: returning from main ends the program even while other
 * threads still run, as on POSIX.
 *
 * First of all it tells heisen where the main thread's stack is: wasm-ld
 * puts it between the data and the heap, [__data_end, __heap_base), 8 MiB
 * as heisen cc links it (-z stack-size), and the engine traps a function
 * that moves the stack pointer below it; and where errno is, which this
 * libc keeps once for all threads.
 */
#include <errno.h>
#include <stdlib.h>

#include "internal.h"

/* Marks the module as C for the engine (core/engine_int.h, ENG_C_CALLS):
 * a call through a function pointer of another type runs as a native
 * ABI runs it, where Wasm would trap (`void *work()` started by
 * pthread_create; docs/porting.md). Every program heisen cc links has
 * this file, and nothing else puts the section in a module. */
__asm__(".section .custom_section.heisen.c_calls,\"\",@\n"
	"\t.int8 1\n"
	"\t.text\n");

extern void __wasm_call_ctors(void);
extern int __original_main(void);
extern void __heisen_init_main_thread(void);
extern char __data_end, __heap_base;

__attribute__((export_name("_start"))) void _start(void)
{
	__heisen_hint_stack(&__data_end, &__heap_base);
	/* Debian's wasi-libc keeps one errno for every thread; natively
	 * each has its own, so two threads' uses of it are no race. */
	__heisen_hint_thread_local(&errno, sizeof errno);
	__heisen_init_main_thread();
	__wasm_call_ctors();
	exit(__original_main());
}
