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
 */
#include <stdlib.h>

extern void __wasm_call_ctors(void);
extern int __original_main(void);
extern void __heisen_init_main_thread(void);

__attribute__((export_name("_start"))) void _start(void)
{
	__heisen_init_main_thread();
	__wasm_call_ctors();
	exit(__original_main());
}
