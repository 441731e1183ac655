/*
 * matmul.c - benchmark kernel: dense double-precision matrix multiply.
 *
 * C = A * B for N x N row-major matrices, i-k-j loop order (the inner loop
 * streams a row of B into a row of C). Measures f64 loads, multiplies,
 * adds and stores. Every element of A and B is a small multiple of 1/8
 * or 1/4, so every product and sum is exact in double precision and the
 * checksum does not depend on evaluation order.
 *
 *   matmul [N]     prints "matmul n=N checksum=C"; N defaults to DEFAULT_SIZE
 *
 * Built three ways by tests/bench/kernels.sh: natively, for wasm32-wasi,
 * and with -DNO_LIBC -DSIZE=N as a module without imports that exports
 * run() -> i32 returning the same checksum (for wasm-interp, which has no
 * WASI). The kernel itself uses no library function but the allocator.
 */
#include <stddef.h>
#include <stdint.h>

#ifndef NO_LIBC
#include <stdio.h>
#include <stdlib.h>
#endif

#define NAME "matmul"
#define DEFAULT_SIZE 600
#define MIN_SIZE 1
#define MAX_SIZE 2000

#ifdef NO_LIBC
/*
 * No libc: a bump allocator over the linear memory above __heap_base
 * (placed by wasm-ld), growing the memory as needed. Nothing is freed.
 */
extern unsigned char __heap_base;
static uintptr_t heap_next;

static void *xalloc(size_t bytes)
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

static void xfree(void *p)
{
	(void)p;
}
#else
static void *xalloc(size_t bytes)
{
	void *p = malloc(bytes);

	if (!p) {
		fprintf(stderr, "%s: out of memory (%zu bytes)\n", NAME, bytes);
		exit(2);
	}
	return p;
}

static void xfree(void *p)
{
	free(p);
}
#endif

static uint32_t xorshift32(uint32_t *s)
{
	uint32_t x = *s;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *s = x;
}

static uint32_t kernel(long n)
{
	size_t cells = (size_t)n * (size_t)n;
	double *a = xalloc(cells * sizeof *a);
	double *b = xalloc(cells * sizeof *b);
	double *c = xalloc(cells * sizeof *c);
	uint32_t seed = 0x9e3779b9u, h = 2166136261u;

	for (size_t i = 0; i < cells; i++) {
		a[i] = ((int)(xorshift32(&seed) >> 8 & 31) - 16) * 0.125;
		b[i] = ((int)(xorshift32(&seed) >> 8 & 31) - 15) * 0.25;
	}
	for (long i = 0; i < n; i++) {
		double *crow = c + i * n;
		const double *arow = a + i * n;

		/* k = 0 initialises the row, so no separate zeroing pass. */
		for (long j = 0; j < n; j++)
			crow[j] = arow[0] * b[j];
		for (long k = 1; k < n; k++) {
			const double aik = arow[k];
			const double *brow = b + k * n;

			for (long j = 0; j < n; j++)
				crow[j] += aik * brow[j];
		}
	}
	/* Each element is an exact multiple of 1/32. */
	for (size_t i = 0; i < cells; i++)
		h = (h ^ (uint32_t)(int64_t)(c[i] * 32.0)) * 16777619u;
	xfree(c);
	xfree(b);
	xfree(a);
	return h;
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
			fprintf(stderr, "usage: %s [N]  (N in %ld..%ld, default %ld)\n",
				NAME, (long)MIN_SIZE, (long)MAX_SIZE, (long)DEFAULT_SIZE);
			return 2;
		}
	}
	printf("%s n=%ld checksum=%lu\n", NAME, n, (unsigned long)kernel(n));
	return 0;
}
#endif
