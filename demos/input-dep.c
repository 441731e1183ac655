/*
 * input-dep.c - after the input-dep benchmark of the Beanstalk paper: a
 * race that only some inputs reach. `input-dep [N]` histograms a fixed
 * stream of values with N worker threads (default 2, at most 8), each
 * taking a slice of the stream and adding into one shared histogram with
 * plain increments. With one worker nothing is shared while threads run
 * and the program is race-free; with two or more, the workers' increments
 * of the same bins race. The counts can lose updates under a race, so
 * the total goes to stderr.
 *
 * race: input-dep.c:34 input-dep.c:34
 * args: 2
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_WORKERS 8
#define VALUES	    2400
#define BINS	    16

static unsigned hist[BINS];
static int workers = 2;
static pthread_barrier_t start;

static void *work(void *arg)
{
	int id = (int)(long)arg;
	int lo = id * (VALUES / workers), hi = lo + VALUES / workers;

	pthread_barrier_wait(&start); /* so that the slices overlap in time */
	for (int i = lo; i < hi; i++) {
		unsigned x = (unsigned)i * 2654435761u; /* Knuth's hash */
		hist[x >> 28]++; /* heisen:site read,write hist */
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[MAX_WORKERS];
	unsigned total = 0;

	if (argc > 1) {
		workers = atoi(argv[1]);
		if (workers < 1 || workers > MAX_WORKERS) {
			fprintf(stderr, "usage: input-dep [WORKERS 1-%d]\n",
				MAX_WORKERS);
			return 2;
		}
	}
	pthread_barrier_init(&start, NULL, (unsigned)workers);
	for (long k = 0; k < workers; k++)
		if (pthread_create(&t[k], NULL, work, (void *)k)) {
			fprintf(stderr, "input-dep: pthread_create failed\n");
			return 1;
		}
	for (int k = 0; k < workers; k++)
		pthread_join(t[k], NULL);
	pthread_barrier_destroy(&start);
	for (int b = 0; b < BINS; b++)
		total += hist[b];
	printf("input-dep: %d worker(s), %d values, %d bins\n", workers, VALUES,
	       BINS);
	fprintf(stderr, "input-dep: counted %u of %d\n", total,
		VALUES / workers * workers);
	return 0;
}
