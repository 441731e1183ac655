/*
 * heap-race.c - a race on heap memory: main allocates one tally, two
 * threads count events into it without a lock. A report of the race
 * names the block (its size, the offset of the racing field) and where
 * it was allocated, as well as both accesses: open_tally, called by main.
 *
 * race: heap-race.c:31 heap-race.c:31
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define EVENTS 2000

struct tally {
	unsigned seen[4];
	unsigned total;
};

static __attribute__((noinline)) struct tally *open_tally(void)
{
	return calloc(1, sizeof(struct tally));
}

static void *count(void *arg)
{
	volatile struct tally *t = arg;

	for (int i = 0; i < EVENTS; i++)
		/* The read and the write of one line: updates get lost. */
		t->total = t->total + 1; /* heisen:site read,write total */
	return NULL;
}

int main(void)
{
	pthread_t a, b;
	struct tally *t = open_tally();

	if (!t || pthread_create(&a, NULL, count, t) ||
	    pthread_create(&b, NULL, count, t))
		return 1;
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	/* Lost updates vary from run to run: only stderr shows the sum. */
	fprintf(stderr, "heap-race: %u of %u events\n", t->total, 2 * EVENTS);
	printf("heap-race: %d events each\n", EVENTS);
	free(t);
	return 0;
}
