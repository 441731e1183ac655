/*
 * detector.c - what the guest library tells a race detector beyond the
 * hints themselves: regions of code whose synchronisation is the
 * library's own business, and the accesses a libc call makes to the
 * program's memory inside one.
 *
 * Why: glibc's internal locks (its allocator's, stdio's, the time zone's)
 * are invisible to ThreadSanitizer, so a printf in each of two threads
 * orders nothing for TSan; the guest library's locks around wasi-libc
 * (malloc.c, stdio.c, libc.c) are real atomics that `heisen check` would
 * take for synchronisation, and a race between the two threads' other
 * accesses would go unseen. Inside a region (heisen.hint.nosync) the
 * detector neither records accesses nor orders threads; a region opened
 * inside another (setenv's malloc) keeps the outer one, and a signal
 * handler run at a safe point inside one (pthread_mutex_lock) runs
 * outside it. Where TSan's interceptors record a libc call's access to
 * the program's memory (a localtime_r result, fwrite's buffer), the
 * library repeats it outside the region with __heisen_touch_write and
 * __heisen_touch_read.
 */
#include "internal.h"

#include <string.h>

static _Thread_local int depth;

void __heisen_nosync_enter(void)
{
	if (!depth++)
		__heisen_hint_nosync(1);
}

void __heisen_nosync_leave(void)
{
	if (depth > 0 && !--depth)
		__heisen_hint_nosync(0);
}

int __heisen_nosync_pause(void)
{
	int d = depth;

	if (d) {
		depth = 0;
		__heisen_hint_nosync(0);
	}
	return d;
}

void __heisen_nosync_resume(int d)
{
	if (d && !depth) {
		depth = d;
		__heisen_hint_nosync(1);
	}
}

void __heisen_touch_write(void *p, size_t n)
{
	/* Hidden from the optimiser, which would drop a copy it could see
	 * is onto itself. */
	void *volatile to = p;

	if (n)
		__builtin_memmove(to, p, n);
}

void __heisen_touch_read(const void *p, size_t n)
{
	static _Thread_local unsigned char sink[256];
	unsigned char *volatile to = sink; /* as above: kept */
	const unsigned char *s = p;

	while (n) {
		size_t k = n < sizeof sink ? n : sizeof sink;
		__builtin_memcpy(to, s, k);
		s += k;
		n -= k;
	}
}
