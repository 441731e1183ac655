/*
 * __errno.h - replaces wasi-libc's header of the same name for heisen
 * guests (heisen cc puts this directory before the sysroot).
 *
 * Why: wasi-libc declares `extern _Thread_local int errno`, but Debian's
 * wasi-libc was built without the atomics feature, so its errno is a plain
 * global. Code compiled with -matomics then emits a TLS relocation against
 * a non-TLS symbol and wasm-ld refuses to link ("relocation
 * R_WASM_MEMORY_ADDR_TLS_SLEB cannot be used against non-TLS symbol
 * errno"). Declaring errno as what it really is makes such programs link.
 *
 * Limitation: errno is shared by all threads. Read it right after the
 * failing call; two threads failing at once can see each other's value.
 * The same include guard as wasi-libc's keeps the two from clashing.
 */
#ifndef __wasilibc___errno_h
#define __wasilibc___errno_h

#ifdef __cplusplus
extern "C" {
#endif

extern int errno;

#define errno errno

#ifdef __cplusplus
}
#endif

#endif
