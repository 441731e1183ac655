/*
 * fib.c - benchmark kernel: naive doubly recursive Fibonacci.
 *
 * Measures calls, returns and small-integer arithmetic; the call depth
 * stays at N, the call count is about 2 * fib(N).
 *
 *   fib [N]        prints "fib n=N checksum=C"; N defaults to DEFAULT_SIZE
 *
 * Entry points, the size argument and the no-libc build: harness.h.
 */
#define NAME "fib"
#define DEFAULT_SIZE 40
#define MIN_SIZE 0
#define MAX_SIZE 46

#include "harness.h"

static uint32_t fib(uint32_t n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static uint32_t kernel(long n)
{
	return fib((uint32_t)n);
}
