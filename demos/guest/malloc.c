/*
 * malloc.c - a lock around wasi-libc's allocator, and the allocator as a
 * race detector should see it.
 *
 * wasi-libc's dlmalloc was built single-threaded. heisen cc links with
 * `-Wl,--wrap=malloc` (and the other entry points), which sends every
 * call, including libc's own, to the __wrap_ functions here; they take
 * one lock and call the original (__real_). dlmalloc's internal calls
 * between its own functions stay inside the lock.
 *
 * Each allocation and free is also told to the host (internal.h's
 * hints, inside the lock so that the host sees them in the heap's own
 * order): a race on a heap block can then say where it was allocated,
 * and `heisen check` can forget what the block's bytes were before.
 *
 * For `heisen check` the allocator is what a native one is to
 * ThreadSanitizer: not synchronisation. The lock and dlmalloc's own
 * accesses run inside a nosync region, so two threads' unrelated
 * accesses are not ordered by the malloc calls between them. A block's
 * earlier life cannot race with its next one: each allocation makes the
 * block's usable bytes new memory (heisen.hint.new_memory). And free()
 * writes the block, as TSan has it: a copy of its first FREE_WRITE bytes
 * onto themselves (the bytes stay), seen by check on the program's
 * free() call, so an access another thread makes to the block without
 * ordering itself before the free is a race.
 *
 * Cost: one uncontended atomic compare-and-swap and exchange per call, a
 * host call per hint and per region edge, and a copy of up to 1 KiB per
 * free.
 * Limitation: one lock for the whole heap, so allocation-heavy threads
 * serialise.
 */
#include "internal.h"

#include <stdlib.h>

/* TSan's bound on the bytes of a free it records (tsan_rtl_access.cpp,
 * MemoryRangeFreed: more costs memory and finds little). */
#define FREE_WRITE 1024

static int heap_lock;

void *__real_malloc(size_t);
void __real_free(void *);
void *__real_calloc(size_t, size_t);
void *__real_realloc(void *, size_t);
int __real_posix_memalign(void **, size_t, size_t);
void *__real_aligned_alloc(size_t, size_t);
size_t __real_malloc_usable_size(void *);

/* The heap's critical section: the lock, and no ordering for check. */
static void heap_enter(void)
{
	__heisen_nosync_enter();
	__heisen_lock_word(&heap_lock, NULL);
}

static void heap_leave(void)
{
	__heisen_unlock_word(&heap_lock);
	__heisen_nosync_leave();
}

/* A block handed out, inside the heap's section: told to the host with
 * the size asked for (a report names it), and its whole usable area,
 * which a free's write covers, made new for check. A macro, so that the
 * allocation stack the host takes starts at the __wrap_ function. */
#define ALLOCATED(p, n)                                                        \
	(__heisen_hint_alloc((p), (n)),                                        \
	 __heisen_hint_new_memory((p), __real_malloc_usable_size(p)))

/* The write a free is, before the block goes back to the heap. Its size
 * is in the block's own header, whose size bits nobody else changes
 * while the block is allocated. */
static void free_write(void *p)
{
	size_t n;

	__heisen_nosync_enter();
	n = __real_malloc_usable_size(p);
	__heisen_nosync_leave();
	__heisen_touch_write(p, n < FREE_WRITE ? n : FREE_WRITE);
}

void *__wrap_malloc(size_t n)
{
	void *p;

	heap_enter();
	p = __real_malloc(n);
	if (p)
		ALLOCATED(p, n);
	heap_leave();
	return p;
}

void __wrap_free(void *p)
{
	if (!p)
		return;
	free_write(p);
	heap_enter();
	__heisen_hint_free(p);
	__real_free(p);
	heap_leave();
}

void *__wrap_calloc(size_t n, size_t size)
{
	void *p;

	heap_enter();
	p = __real_calloc(n, size);
	if (p) /* n * size did not overflow: calloc checked */
		ALLOCATED(p, n * size);
	heap_leave();
	return p;
}

void *__wrap_realloc(void *old, size_t n)
{
	void *p;

	/* The old block is freed whether or not it moves, as TSan's
	 * allocator always moves it. */
	if (old)
		free_write(old);
	heap_enter();
	p = __real_realloc(old, n);
	/* NULL with n > 0: old stays; with n == 0: old was freed. */
	if (old && (p || !n))
		__heisen_hint_free(old);
	if (p)
		ALLOCATED(p, n);
	heap_leave();
	return p;
}

int __wrap_posix_memalign(void **out, size_t align, size_t n)
{
	int rc;

	heap_enter();
	rc = __real_posix_memalign(out, align, n);
	if (!rc)
		ALLOCATED(*out, n);
	heap_leave();
	return rc;
}

void *__wrap_aligned_alloc(size_t align, size_t n)
{
	void *p;

	heap_enter();
	p = __real_aligned_alloc(align, n);
	if (p)
		ALLOCATED(p, n);
	heap_leave();
	return p;
}

size_t __wrap_malloc_usable_size(void *p)
{
	size_t n;

	heap_enter();
	n = __real_malloc_usable_size(p);
	heap_leave();
	return n;
}
