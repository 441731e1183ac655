/*
 * __typedef_sigset_t.h - replaces wasi-libc's header of the same name
 * for heisen guests (heisen cc puts this directory before the sysroot).
 *
 * Why: wasi-libc's sigset_t is a placeholder `unsigned char`, 8 bits for
 * 64 signals, and every header that needs the type (signal.h, poll.h,
 * sys/select.h) gets it from here, so it must be right before any of
 * them is read. This is musl's and glibc's size (128 bytes); the guest
 * library's signal.c uses the first 64 bits, signal N at bit N - 1.
 * wasi-libc's own code only passes sigset_t pointers on (pselect, ppoll),
 * so its size changes nothing there.
 *
 * The same include guard as wasi-libc's keeps the two from clashing.
 */
#ifndef __wasilibc___typedef_sigset_t_h
#define __wasilibc___typedef_sigset_t_h

typedef struct __sigset_t {
	unsigned long __bits[128 / sizeof(long)];
} sigset_t;

#endif
