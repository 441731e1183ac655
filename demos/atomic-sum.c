/*
 * atomic-sum.c - four threads update shared totals without locks: a C11
 * atomic_long with atomic_fetch_add, a plain long with the GCC builtin
 * __atomic_fetch_add, and a running maximum with a compare-and-swap
 * loop. Race-free (every shared access is atomic), so the results are
 * exact and the same on every run.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#define THREADS 4
#define ITERS	50000

static atomic_long total;
static long squares;
static _Atomic unsigned max_hash;
static atomic_int ready;

/* A deterministic per-(thread, i) value. */
static unsigned hash(unsigned x)
{
	x ^= x >> 16;
	x *= 0x7feb352dU;
	x ^= x >> 15;
	x *= 0x846ca68bU;
	x ^= x >> 16;
	return x;
}

static void *work(void *arg)
{
	unsigned id = (unsigned)(long)arg;

	/* Start together, to make the atomics actually contend. */
	atomic_fetch_add(&ready, 1); /* heisen:site atomic-rmw ready */
	while (atomic_load(&ready) < THREADS) /* heisen:site atomic-read ready */
		;
	for (unsigned i = 0; i < ITERS; i++) {
		unsigned h = hash(id * ITERS + i), cur;
		atomic_fetch_add(&total, (long)(h % 100)); /* heisen:site atomic-rmw total */
		__atomic_fetch_add(&squares, (long)((h % 10) * (h % 10)),
				   __ATOMIC_RELAXED);
		cur = atomic_load(&max_hash); /* heisen:site atomic-read max_hash */
		while (h > cur &&
		       !atomic_compare_exchange_weak(&max_hash, &cur, h)) /* heisen:site atomic-rmw max_hash */
			;
	}
	return NULL;
}

int main(void)
{
	pthread_t t[THREADS];

	for (long i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, work, (void *)i)) {
			fprintf(stderr, "atomic-sum: pthread_create failed\n");
			return 1;
		}
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	printf("atomic-sum: total %ld squares %ld max %u\n",
	       atomic_load(&total), __atomic_load_n(&squares, __ATOMIC_RELAXED),
	       atomic_load(&max_hash));
	return 0;
}
