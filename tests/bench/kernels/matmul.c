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
 * Entry points, the size argument and the no-libc build: harness.h.
 */
#define NAME "matmul"
#define DEFAULT_SIZE 600
#define MIN_SIZE 1
#define MAX_SIZE 2000

#include "harness.h"

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
