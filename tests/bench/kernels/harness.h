/*
 * harness.h - what every benchmark kernel shares: the allocator and the
 * two entry points around the kernel's own `kernel(n) -> checksum`.
 *
 * A kernel file defines NAME, DEFAULT_SIZE, MIN_SIZE and MAX_SIZE, includes
 * this header, then defines kernel(). Built three ways by
 * tests/bench/kernels.sh: natively and for wasm32-wasi, where main() parses
 * an optional size and prints "NAME n=N checksum=C"; and with -DNO_LIBC
 * -DSIZE=N as a module without imports exporting run() -> i32 (the same
 * checksum, for wasm-interp, which has no WASI), where a bump allocator and
 * memcpy/memset stand in for libc.
 */
#ifndef HEISEN_BENCH_HARNESS_H
#define HEISEN_BENCH_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#ifndef NO_LIBC
#include <stdio.h>
#include <stdlib.h>
#endif

static uint32_t kernel(long n);

#ifdef NO_LIBC
/*
 * No libc: a bump allocator over the linear memory above __heap_base
 * (placed by wasm-ld), growing the memory as needed. Nothing is freed.
 */
extern unsigned char __heap_base;
static uintptr_t heap_next;

__attribute__((unused)) static void *xalloc(size_t bytes)
{
	uintptr_t p, end, have;

	if (heap_next == 0)
		heap_next = (uintptr_t)&__heap_base;
	p = (heap_next + 15) & ~(uintptr_t)15;
	end = p + bytes;
	have = (uintptr_t)__builtin_wasm_memory_size(0) * 65536;
	if (end > have && __builtin_wasm_memory_grow(
				  0, (end - have + 65535) / 65536) == (size_t)-1)
		__builtin_trap();
	heap_next = end;
	return (void *)p;
}

__attribute__((unused)) static void xfree(void *p)
{
	(void)p;
}

/* The compiler may turn copy loops into memcpy calls; libc is absent. */
void *memcpy(void *restrict dst, const void *restrict src, size_t n);
void *memcpy(void *restrict dst, const void *restrict src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	while (n--)
		*d++ = *s++;
	return dst;
}

void *memset(void *dst, int c, size_t n);
void *memset(void *dst, int c, size_t n)
{
	unsigned char *d = dst;

	while (n--)
		*d++ = (unsigned char)c;
	return dst;
}
#else
__attribute__((unused)) static void *xalloc(size_t bytes)
{
	void *p = malloc(bytes);

	if (!p) {
		fprintf(stderr, "%s: out of memory (%zu bytes)\n", NAME, bytes);
		exit(2);
	}
	return p;
}

__attribute__((unused)) static void xfree(void *p)
{
	free(p);
}
#endif

#ifdef NO_LIBC
#ifndef SIZE
#define SIZE DEFAULT_SIZE
#endif
__attribute__((export_name("run"))) int32_t run(void)
{
	static volatile long size = SIZE; /* opaque to the optimiser */

	return (int32_t)kernel(size);
}
#else
int main(int argc, char **argv)
{
	long n = DEFAULT_SIZE;

	if (argc > 1) {
		char *end;

		n = strtol(argv[1], &end, 10);
		if (argc > 2 || end == argv[1] || *end != '\0' ||
		    n < MIN_SIZE || n > MAX_SIZE) {
			fprintf(stderr, "usage: %s [N]  (N in %ld..%ld, default %ld)\n",
				NAME, (long)MIN_SIZE, (long)MAX_SIZE, (long)DEFAULT_SIZE);
			return 2;
		}
	}
	printf("%s n=%ld checksum=%lu\n", NAME, n, (unsigned long)kernel(n));
	return 0;
}
#endif

#endif
