/*
 * parallel-sum.c - split an array into four slices, sum each slice on its
 * own thread, collect the partial sums through pthread_join's result and
 * check them against a sequential sum. Threads share only read-only data
 * and their own result slot, so there is nothing to race on.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS 4
#define N	(1 << 18)

static unsigned *data;

struct slice {
	int lo, hi;
	unsigned long long sum;
};

static void *work(void *arg)
{
	struct slice *s = arg;

	s->sum = 0; /* heisen:site write s->sum */
	for (int i = s->lo; i < s->hi; i++)
		s->sum += data[i]; /* heisen:site read,write s->sum */
	return s;
}

int main(void)
{
	pthread_t t[THREADS];
	struct slice sl[THREADS];
	unsigned long long total = 0, check = 0;
	unsigned x = 12345;

	data = malloc(N * sizeof *data);
	if (!data) {
		fprintf(stderr, "parallel-sum: out of memory\n");
		return 1;
	}
	for (int i = 0; i < N; i++) {
		x = x * 1103515245u +
		    12345u; /* a fixed LCG: same data everywhere */
		data[i] = x >> 8;
		check += data[i];
	}
	for (int i = 0; i < THREADS; i++) {
		sl[i].lo = i * (N / THREADS);
		sl[i].hi = sl[i].lo + N / THREADS;
		if (pthread_create(&t[i], NULL, work, &sl[i])) {
			fprintf(stderr,
				"parallel-sum: pthread_create failed\n");
			return 1;
		}
	}
	for (int i = 0; i < THREADS; i++) {
		void *r;
		pthread_join(t[i], &r);
		printf("slice %d: %llu\n", i, ((struct slice *)r)->sum);
		total += ((struct slice *)r)->sum;
	}
	printf("parallel-sum: %d values, total %llu (%s)\n", N, total,
	       total == check ? "matches sequential sum" : "MISMATCH");
	free(data);
	return total == check ? 0 : 1;
}
