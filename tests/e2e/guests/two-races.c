/*
 * two-races.c - exactly two races, in two functions, for suppressions
 * (t_suppress.sh): a rule that names one must silence that one and leave
 * the other, whichever it names.
 *
 * Two workers start together and, ROUNDS times each, store their id into
 * `left` through via_left() -> store_left() and into `right` through
 * via_right() -> store_right(). Nothing orders the two workers' stores,
 * so each store site races with itself in the other thread: two bugs,
 * one a function. Nothing reads the variables until both workers are
 * joined, so there is no third. Each store is reached through its own
 * caller, so that called_from: can tell the two apart as well as race:.
 *
 * race: two-races.c:28 two-races.c:28
 * race: two-races.c:33 two-races.c:33
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#define ROUNDS 10000

/* volatile: every store of the loop stays a store to memory. */
static volatile int left, right;

static __attribute__((noinline)) void store_left(int v)
{
	left = v; /* heisen:site write left */
}

static __attribute__((noinline)) void store_right(int v)
{
	right = v; /* heisen:site write right */
}

static __attribute__((noinline)) void via_left(int v) { store_left(v); }

static __attribute__((noinline)) void via_right(int v) { store_right(v); }

static pthread_barrier_t start;

static void *worker(void *arg)
{
	int id = (int)(intptr_t)arg;

	/* Start together, so that the stores of both overlap in time and a
	 * sweep sees them meet as well. */
	pthread_barrier_wait(&start);
	for (int i = 0; i < ROUNDS; i++) {
		via_left(id);
		via_right(id);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[2];

	pthread_barrier_init(&start, NULL, 2);
	for (int k = 0; k < 2; k++)
		if (pthread_create(&t[k], NULL, worker,
				   (void *)(intptr_t)(k + 1))) {
			fprintf(stderr, "two-races: pthread_create failed\n");
			return 1;
		}
	for (int k = 0; k < 2; k++)
		pthread_join(t[k], NULL);
	pthread_barrier_destroy(&start);
	/* Who stored last depends on the interleaving: stderr. */
	fprintf(stderr, "two-races: left %d, right %d\n", left, right);
	printf("two-races: 2 workers, %d rounds\n", ROUNDS);
	return 0;
}
