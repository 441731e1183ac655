/*
 * fib.c - benchmark kernel: naive doubly recursive Fibonacci.
 *
 * Measures calls, returns and small-integer arithmetic; the call depth
 * stays at N, the call count is about 2 * fib(N).
 *
 *   fib [N]        prints "fib n=N checksum=C"; N defaults to DEFAULT_SIZE
 *
 * Built three ways by tests/bench/kernels.sh: natively, for wasm32-wasi,
 * and with -DNO_LIBC -DSIZE=N as a module without imports that exports
 * run() -> i32 returning the same checksum (for wasm-interp, which has no
 * WASI). The kernel itself uses no library function.
 */
#include <stdint.h>

#ifndef NO_LIBC
#include <stdio.h>
#include <stdlib.h>
#endif

#define NAME "fib"
#define DEFAULT_SIZE 40
#define MIN_SIZE 0
#define MAX_SIZE 46

static uint32_t fib(uint32_t n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static uint32_t kernel(long n)
{
	return fib((uint32_t)n);
}

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
			fprintf(stderr, "usage: %s [N]  (N in %d..%d, default %d)\n",
				NAME, MIN_SIZE, MAX_SIZE, DEFAULT_SIZE);
			return 2;
		}
	}
	printf("%s n=%ld checksum=%lu\n", NAME, n, (unsigned long)kernel(n));
	return 0;
}
#endif
