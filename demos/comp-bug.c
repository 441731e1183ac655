/*
 * comp-bug.c - after the comp-opt-bug and comp-unopt-bug benchmarks of the
 * Beanstalk paper: one racy source, built twice (`make demos`):
 * comp-unopt-bug.wasm at -O0 and comp-opt-bug.wasm at -O2.
 *
 * Each round, after a barrier, a producer hands a value to a consumer
 * through plain ints: it marks data busy (-1), writes it, then sets ready
 * to the round number. The consumer polls a bounded number of times,
 * yielding in between, reading data and then ready, and takes the value
 * once ready shows the round. Nothing orders the plain accesses, so data
 * and ready race in both builds, but the compiler changes which accesses
 * remain and in what order:
 *   -O0  every access stays, in source order: the busy mark is a store of
 *        its own, and each poll reads data, then ready, while the
 *        producer may be writing either.
 *   -O2  the busy mark is a dead store (data is overwritten before any
 *        other thread may read it, as far as C lets the compiler assume)
 *        and disappears; the producer's two stores swap (ready first),
 *        and the consumer's read of data sinks below its check of ready.
 *        The consumer can now see ready and read data while the producer
 *        is still writing it.
 * The values the consumer gets depend on the interleaving (it often gives
 * up before ready shows the round), so they go to stderr.
 *
 * race: comp-bug.c:51 comp-bug.c:65
 * race: comp-bug.c:50 comp-bug.c:64
 * race-O0: comp-bug.c:49 comp-bug.c:64
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>

#define ROUNDS 100
#define POLLS  10

struct handoff {
	int data;
	int ready;
};

static pthread_barrier_t round_start;

static void *produce(void *arg)
{
	struct handoff *m = arg;

	for (int k = 1; k <= ROUNDS; k++) {
		pthread_barrier_wait(&round_start);
		m->data = -1;
		m->data = 3 * k;
		m->ready = k;
	}
	return NULL;
}

static void *consume(void *arg)
{
	struct handoff *m = arg;
	long taken = 0, sum = 0;

	for (int k = 1; k <= ROUNDS; k++) {
		pthread_barrier_wait(&round_start);
		for (int p = 0; p < POLLS; p++) {
			int d = m->data;
			if (m->ready == k) {
				taken++;
				sum += d;
				break;
			}
			sched_yield();
		}
	}
	fprintf(stderr, "comp-bug: took %ld of %d values, sum %ld\n", taken,
		ROUNDS, sum);
	return NULL;
}

int main(void)
{
	static struct handoff m;
	pthread_t p, c;

	pthread_barrier_init(&round_start, NULL, 2);
	if (pthread_create(&c, NULL, consume, &m) ||
	    pthread_create(&p, NULL, produce, &m)) {
		fprintf(stderr, "comp-bug: pthread_create failed\n");
		return 1;
	}
	pthread_join(p, NULL);
	pthread_join(c, NULL);
	pthread_barrier_destroy(&round_start);
	printf("comp-bug: %d handoff rounds\n", ROUNDS);
	return 0;
}
