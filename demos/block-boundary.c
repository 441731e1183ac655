/*
 * block-boundary.c - a blocked Gauss-Seidel relaxation of a 1-D array,
 * one block per thread, with a race at every block boundary that never
 * happens close together in time.
 *
 * Each sweep starts at a barrier. A thread first updates the first cell
 * of its block, then walks its interior left to right, and last updates
 * its block's final cell from the first cell of its right neighbour's
 * block. That cell is the one the neighbour wrote first thing in the same
 * sweep, and nothing orders the write before the read: the barrier only
 * orders whole sweeps. The program counts on the neighbour being done
 * with its first cell long before the reader reaches its last, which is
 * how it nearly always runs; the read sees the old value only if the
 * neighbour starts the sweep a whole block late.
 *
 * A collision sweep (heisen sweep) needs both accesses within one probe's
 * delay of each other, but a block's worth of work separates them, so it
 * sees this race rarely or never; happens-before (heisen check) sees it in
 * every run. The read's value depends on the timing, so the checksum goes
 * to stderr.
 *
 * hb-race: block-boundary.c:42 block-boundary.c:47
 */
#include <pthread.h>
#include <stdio.h>

#define THREADS 4
#define BLOCK	2048
#define N	(THREADS * BLOCK)
#define SWEEPS	8

static int x[N];
static pthread_barrier_t sweep_start;

static void *relax(void *arg)
{
	int id = (int)(long)arg;
	int lo = id * BLOCK, hi = lo + BLOCK;

	for (int s = 0; s < SWEEPS; s++) {
		pthread_barrier_wait(&sweep_start);
		x[lo] = (x[lo] + x[lo + 1]) / 2; /* heisen:site write x */
		for (int i = lo + 1; i < hi - 1; i++)
			x[i] = (x[i - 1] + x[i] + x[i + 1]) / 3;
		if (hi == N)
			continue;  /* the last block keeps its end fixed */
		int right = x[hi]; /* heisen:site read x */
		x[hi - 1] = (x[hi - 2] + x[hi - 1] + right) / 3;
	}
	return NULL;
}

int main(void)
{
	pthread_t t[THREADS];
	long sum = 0;

	for (int i = 0; i < N; i++)
		x[i] = i * 7919 % 1000;
	pthread_barrier_init(&sweep_start, NULL, THREADS);
	for (long k = 0; k < THREADS; k++)
		if (pthread_create(&t[k], NULL, relax, (void *)k)) {
			fprintf(stderr,
				"block-boundary: pthread_create failed\n");
			return 1;
		}
	for (int k = 0; k < THREADS; k++)
		pthread_join(t[k], NULL);
	pthread_barrier_destroy(&sweep_start);
	for (int i = 0; i < N; i++)
		sum += x[i];
	printf("block-boundary: %d threads, %d sweeps over %d cells\n", THREADS,
	       SWEEPS, N);
	fprintf(stderr, "block-boundary: sum %ld\n", sum);
	return 0;
}
