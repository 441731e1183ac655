/*
 * malloc.c - a lock around wasi-libc's allocator.
 *
 * wasi-libc's dlmalloc was built single-threaded. heisen cc links with
 * `-Wl,--wrap=malloc` (and the other entry points), which sends every
 * call, including libc's own, to the __wrap_ functions here; they take
 * one lock and call the original (__real_). dlmalloc's internal calls
 * between its own functions stay inside the lock.
 *
 * Each allocation and free is also told to the host (internal.h's
 * hints, inside the lock so that the host sees them in the heap's own
 * order): a race on a heap block can then say where it was allocated.
 *
 * Cost: one uncontended atomic compare-and-swap and exchange per call,
 * and a host call per hint.
 * Limitation: one lock for the whole heap, so allocation-heavy threads
 * serialise.
 */
#include "internal.h"

#include <stdlib.h>

static int heap_lock;

void *__real_malloc(size_t);
void __real_free(void *);
void *__real_calloc(size_t, size_t);
void *__real_realloc(void *, size_t);
int __real_posix_memalign(void **, size_t, size_t);
void *__real_aligned_alloc(size_t, size_t);
size_t __real_malloc_usable_size(void *);

void *__wrap_malloc(size_t n)
{
	void *p;

	__heisen_lock_word(&heap_lock, NULL);
	p = __real_malloc(n);
	if (p)
		__heisen_hint_alloc(p, n);
	__heisen_unlock_word(&heap_lock);
	return p;
}

void __wrap_free(void *p)
{
	if (!p)
		return;
	__heisen_lock_word(&heap_lock, NULL);
	__heisen_hint_free(p);
	__real_free(p);
	__heisen_unlock_word(&heap_lock);
}

void *__wrap_calloc(size_t n, size_t size)
{
	void *p;

	__heisen_lock_word(&heap_lock, NULL);
	p = __real_calloc(n, size);
	if (p) /* n * size did not overflow: calloc checked */
		__heisen_hint_alloc(p, n * size);
	__heisen_unlock_word(&heap_lock);
	return p;
}

void *__wrap_realloc(void *old, size_t n)
{
	void *p;

	__heisen_lock_word(&heap_lock, NULL);
	p = __real_realloc(old, n);
	/* NULL with n > 0: old stays; with n == 0: old was freed. */
	if (old && (p || !n))
		__heisen_hint_free(old);
	if (p)
		__heisen_hint_alloc(p, n);
	__heisen_unlock_word(&heap_lock);
	return p;
}

int __wrap_posix_memalign(void **out, size_t align, size_t n)
{
	int rc;

	__heisen_lock_word(&heap_lock, NULL);
	rc = __real_posix_memalign(out, align, n);
	if (!rc)
		__heisen_hint_alloc(*out, n);
	__heisen_unlock_word(&heap_lock);
	return rc;
}

void *__wrap_aligned_alloc(size_t align, size_t n)
{
	void *p;

	__heisen_lock_word(&heap_lock, NULL);
	p = __real_aligned_alloc(align, n);
	if (p)
		__heisen_hint_alloc(p, n);
	__heisen_unlock_word(&heap_lock);
	return p;
}

size_t __wrap_malloc_usable_size(void *p)
{
	size_t n;

	__heisen_lock_word(&heap_lock, NULL);
	n = __real_malloc_usable_size(p);
	__heisen_unlock_word(&heap_lock);
	return n;
}
