/*
 * control-atomics.c - a race-free control for the detector: the shared
 * data is touched only through C11 atomics and __atomic builtins. Two
 * threads pass values through a single-producer, single-consumer ring
 * whose indices and slots are atomic (release stores, acquire loads),
 * and four threads bump a shared total and a running maximum. The
 * results are exact and the same on every run.
 *
 * race: none
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>

#define CAP	4
#define ITEMS	1000
#define BUMPERS 2
#define BUMPS	500

static _Atomic unsigned head, tail;
static atomic_int slot[CAP];
static atomic_long total;
static unsigned max_seen; /* only through __atomic builtins */

static void *produce(void *arg)
{
	(void)arg;
	for (int v = 1; v <= ITEMS; v++) {
		unsigned t = atomic_load_explicit(&tail, memory_order_relaxed);
		while (t - atomic_load_explicit(&head, memory_order_acquire) ==
		       CAP)
			sched_yield(); /* the consumer may need this CPU */
		atomic_store_explicit(&slot[t % CAP], v, memory_order_relaxed);
		atomic_store_explicit(&tail, t + 1, memory_order_release);
	}
	return NULL;
}

static void *consume(void *arg)
{
	long sum = 0;

	(void)arg;
	for (int n = 0; n < ITEMS; n++) {
		unsigned h = atomic_load_explicit(&head, memory_order_relaxed);
		while (atomic_load_explicit(&tail, memory_order_acquire) == h)
			sched_yield();
		sum +=
		    atomic_load_explicit(&slot[h % CAP], memory_order_relaxed);
		atomic_store_explicit(&head, h + 1, memory_order_release);
	}
	atomic_fetch_add(&total, sum);
	return NULL;
}

static void *bump(void *arg)
{
	unsigned id = (unsigned)(long)arg;

	for (unsigned i = 0; i < BUMPS; i++) {
		unsigned v = (id * BUMPS + i) * 2654435761u >> 16;
		unsigned cur = __atomic_load_n(&max_seen, __ATOMIC_RELAXED);
		atomic_fetch_add(&total, 1);
		while (v > cur && !__atomic_compare_exchange_n(
				      &max_seen, &cur, v, 1, __ATOMIC_RELAXED,
				      __ATOMIC_RELAXED))
			;
	}
	return NULL;
}

int main(void)
{
	pthread_t t[2 + BUMPERS];
	long want = (long)ITEMS * (ITEMS + 1) / 2 + (long)BUMPERS * BUMPS;

	if (pthread_create(&t[0], NULL, consume, NULL) ||
	    pthread_create(&t[1], NULL, produce, NULL)) {
		fprintf(stderr, "control-atomics: pthread_create failed\n");
		return 1;
	}
	for (long k = 0; k < BUMPERS; k++)
		if (pthread_create(&t[2 + k], NULL, bump, (void *)k)) {
			fprintf(stderr,
				"control-atomics: pthread_create failed\n");
			return 1;
		}
	for (int k = 0; k < 2 + BUMPERS; k++)
		pthread_join(t[k], NULL);
	printf("control-atomics: total %ld (%s), max %u\n", atomic_load(&total),
	       atomic_load(&total) == want ? "exact" : "WRONG",
	       __atomic_load_n(&max_seen, __ATOMIC_RELAXED));
	return atomic_load(&total) == want ? 0 : 1;
}
