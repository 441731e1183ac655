/*
 * hb-ok-threads.c - a race-free guest for `heisen check`: 1000 short-lived
 * threads, created and joined in batches of 8.
 *
 * Each thread fills an array on its own stack, folds it, and writes the
 * result to its own slot of a shared array, which main reads after the
 * joins. A thread's stack, TLS block and record are one malloc'd block
 * that pthread_join frees, so the next batch's threads run on the memory
 * of the last batch's: only join, the heap's lock and the spawn order one
 * thread's stack writes before the next one's. Every other batch asks for
 * a smaller stack, so the blocks do not line up from batch to batch and
 * one thread's stack becomes another's record or TLS. The sum is the same
 * every run.
 */
#include <pthread.h>
#include <stdio.h>

#define TOTAL 1000
#define BATCH 8
#define LOCAL 256

static unsigned slot[TOTAL];

static void *work(void *arg)
{
	unsigned id = (unsigned)(long)arg, s = 0;
	/* volatile: the array must live in stack memory, the point here */
	volatile unsigned local[LOCAL];

	for (unsigned i = 0; i < LOCAL; i++)
		local[i] = id * LOCAL + i;
	for (unsigned i = 0; i < LOCAL; i++)
		s = s * 31 + local[i];
	slot[id] = s;
	return NULL;
}

int main(void)
{
	pthread_attr_t small;
	pthread_t t[BATCH];
	unsigned check = 0;

	pthread_attr_init(&small);
	pthread_attr_setstacksize(&small, 64 * 1024);
	for (long b = 0; b < TOTAL / BATCH; b++) {
		for (long k = 0; k < BATCH; k++)
			if (pthread_create(&t[k], b % 2 ? &small : NULL, work,
					   (void *)(b * BATCH + k))) {
				fprintf(
				    stderr,
				    "hb-ok-threads: pthread_create failed\n");
				return 1;
			}
		for (int k = 0; k < BATCH; k++)
			pthread_join(t[k], NULL);
	}
	pthread_attr_destroy(&small);
	for (int i = 0; i < TOTAL; i++)
		check = check * 17 + slot[i];
	printf("hb-ok-threads: %d threads in batches of %d, check %u\n", TOTAL,
	       BATCH, check);
	return 0;
}
