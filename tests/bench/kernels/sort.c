/*
 * sort.c - benchmark kernel: quicksort of N pseudo-random 32-bit integers.
 *
 * The array is filled by xorshift32, sorted in place by a median-of-three
 * quicksort (Hoare partition, insertion sort below 16 elements, recursion
 * on the smaller side only), checked for order, and folded into a
 * position-weighted checksum. Measures data-dependent branches, i32 loads
 * and stores, and calls.
 *
 *   sort [N]       prints "sort n=N checksum=C"; N defaults to DEFAULT_SIZE
 *
 * Entry points, the size argument and the no-libc build: harness.h.
 */
#define NAME "sort"
#define DEFAULT_SIZE 4000000
#define MIN_SIZE 1
#define MAX_SIZE 100000000

#include "harness.h"

static uint32_t xorshift32(uint32_t *s)
{
	uint32_t x = *s;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *s = x;
}

static void insertion_sort(int32_t *a, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		int32_t v = a[i];
		size_t j = i;

		for (; j > 0 && a[j - 1] > v; j--)
			a[j] = a[j - 1];
		a[j] = v;
	}
}

static void quicksort(int32_t *a, size_t n)
{
	while (n > 16) {
		size_t mid = n / 2, i = 0, j = n - 1;
		int32_t x = a[0], y = a[mid], z = a[n - 1], pivot, t;

		/* Median of the first, middle and last elements. */
		if (x > y) {
			t = x; x = y; y = t;
		}
		if (y > z) {
			t = y; y = z; z = t;
			if (x > y)
				y = x;
		}
		pivot = y;
		for (;;) { /* Hoare: a[0..j] <= pivot <= a[j+1..n-1] */
			while (a[i] < pivot)
				i++;
			while (a[j] > pivot)
				j--;
			if (i >= j)
				break;
			t = a[i]; a[i] = a[j]; a[j] = t;
			i++;
			j--;
		}
		/* Recurse into the smaller part, loop on the larger. */
		if (j + 1 < n - (j + 1)) {
			quicksort(a, j + 1);
			a += j + 1;
			n -= j + 1;
		} else {
			quicksort(a + j + 1, n - (j + 1));
			n = j + 1;
		}
	}
	insertion_sort(a, n);
}

static uint32_t kernel(long n)
{
	int32_t *a = xalloc((size_t)n * sizeof *a);
	uint32_t seed = 2463534242u, h = 0;

	for (long i = 0; i < n; i++)
		a[i] = (int32_t)(xorshift32(&seed) >> 1) - 0x40000000;
	quicksort(a, (size_t)n);
	for (long i = 0; i < n; i++) {
		if (i > 0 && a[i - 1] > a[i]) {
			h = 0xdeadbeefu; /* not sorted: a checksum nothing matches */
			break;
		}
		h = h * 31u + (uint32_t)a[i] * (uint32_t)(i + 1);
	}
	xfree(a);
	return h;
}
