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
 * failing call; two threads failing at once can see each other's value,
 * and `heisen check` rightly reports their stores as a race.
 *
 * It cannot be made per-thread here. libc.a's functions store to errno at
 * an address fixed at link time (R_WASM_MEMORY_ADDR_LEB relocations), in
 * linear memory that every thread shares; only code compiled for TLS
 * adds __tls_base. A _Thread_local errno defined in the guest library
 * still links, silently: wasm-ld resolves libc's relocations to errno's
 * offset in the TLS block as if it were an absolute address, so libc
 * would store its error codes a few bytes above address 0 and the
 * program would never see them. A per-thread errno needs a wasi-libc
 * built with the atomics feature (the wasm32-wasi-threads target).
 *
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
