/*
 * unjoined-return-ok.c - unjoined-return.c's race-free twin: main and the
 * unjoined thread store to the buffer with atomic stores, which do not
 * race.
 *
 * The global has external linkage: a static one that nothing reads
 * would lose its stores to the optimiser.
 */
#include <pthread.h>
#include <stdatomic.h>

_Atomic int buf[256];

static void *work(void *arg)
{
	for (int i = 0; i < 256; i++)
		atomic_store_explicit(&buf[i], i, memory_order_relaxed);
	return NULL;
}

int main(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, work, NULL))
		return 1;
	atomic_store_explicit(&buf[0], -1, memory_order_relaxed);
	return 0;
}
