/*
 * antidep.c - DataRaceBench's antidep1-orig-yes (the paper's antidep1-orig)
 * without OpenMP: the loop
 *
 *     for (i = 0; i < LEN - 1; i++) a[i] = a[i + 1] + 1;
 *
 * has an anti-dependence (iteration i reads what iteration i + 1 writes),
 * yet it is split between two threads as `omp parallel for
 * schedule(static, 1)` would: thread t takes i = t, t + 2, t + 4, ...
 * Every chunk boundary therefore has the element a[i + 1] read by one
 * thread and written by the other. The loop runs PASSES times, with a
 * barrier after each pass (OpenMP's implicit one). The array's contents
 * depend on the interleaving, so they go to stderr.
 *
 * race: antidep.c:33 antidep.c:34
 */
#include <pthread.h>
#include <stdio.h>

#define THREADS 2
#define LEN	200
#define PASSES	10

static int a[LEN];
static pthread_barrier_t pass_end;

static void *work(void *arg)
{
	int id = (int)(long)arg;

	for (int p = 0; p < PASSES; p++) {
		for (int i = id; i < LEN - 1; i += THREADS) {
			int next = a[i + 1]; /* heisen:site read a */
			a[i] = next + 1;     /* heisen:site write a */
		}
		pthread_barrier_wait(&pass_end);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[THREADS];
	long sum = 0;

	for (int i = 0; i < LEN; i++)
		a[i] = i;
	pthread_barrier_init(&pass_end, NULL, THREADS);
	for (long k = 0; k < THREADS; k++)
		if (pthread_create(&t[k], NULL, work, (void *)k)) {
			fprintf(stderr, "antidep: pthread_create failed\n");
			return 1;
		}
	for (int k = 0; k < THREADS; k++)
		pthread_join(t[k], NULL);
	pthread_barrier_destroy(&pass_end);
	for (int i = 0; i < LEN; i++)
		sum += a[i];
	printf("antidep: %d threads, %d passes over %d elements\n", THREADS,
	       PASSES, LEN);
	fprintf(stderr, "antidep: sum %ld, a[0] %d\n", sum, a[0]);
	return 0;
}
