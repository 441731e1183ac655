/*
 * internal.h - what the guest library's files share: the thread record
 * (whose first fields thread_start.s reads), futex helpers and the small
 * lock the library uses for its own state.
 */
#ifndef HEISEN_GUEST_INTERNAL_H
#define HEISEN_GUEST_INTERNAL_H

#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

/* One per thread, at the start of the block that also holds the thread's
 * TLS block and shadow stack. The first three fields are read and written
 * by thread_start.s at fixed offsets. */
struct __pthread {
	uintptr_t stack_top; /* +0: initial __stack_pointer (thread_start.s) */
	void *tls;	     /* +4: TLS block for __wasm_init_tls */
	int exited;	     /* +8: 1 once the thread no longer touches its
				block; stored by thread_start.s; a futex */
	int tid;	     /* wasi-threads id (0 for main); written by the
				thread itself */
	void *(*fn)(void *);
	void *arg;
	void *result; /* set before `exited`, read after it */
	int detached; /* on the reap list; freed by a later create */
	struct __pthread *reap_next;  /* reap list link, under reap_lock */
	void *keys[PTHREAD_KEYS_MAX]; /* pthread_setspecific values */
};

_Static_assert(offsetof(struct __pthread, tls) == 4, "thread_start.s");
_Static_assert(offsetof(struct __pthread, exited) == 8, "thread_start.s");

/* memory.atomic.wait32: 0 woken, 1 value differed, 2 timed out.
 * timeout_ns < 0 waits forever. */
static inline int futex_wait(int *addr, int expected, int64_t timeout_ns)
{
	return __builtin_wasm_memory_atomic_wait32(addr, expected, timeout_ns);
}

static inline void futex_wake(int *addr, unsigned n)
{
	__builtin_wasm_memory_atomic_notify(addr, n);
}

#define FUTEX_ALL UINT32_MAX

/* The 3-state futex lock (0 free, 1 locked, 2 locked and maybe waiters).
 * Not recursive. abs == NULL waits forever; otherwise returns ETIMEDOUT
 * after the CLOCK_REALTIME deadline. */
int __heisen_lock_word(int *w, const struct timespec *abs);
void __heisen_unlock_word(int *w);

#endif
