/*
 * barrier-phases.c - a 1-D heat-diffusion stencil in phases: each of four
 * threads owns a slice of the grid, reads its neighbours' cells from the
 * previous phase and writes the next one. A barrier separates reading
 * from writing; the thread that gets PTHREAD_BARRIER_SERIAL_THREAD
 * records the phase's checksum. Integer arithmetic, so the output is the
 * same on every machine and under any interleaving.
 */
#include <pthread.h>
#include <stdio.h>

#define THREADS 4
#define CELLS	256
#define PHASES	40

static long grid[2][CELLS];
static long checksum[PHASES];
static pthread_barrier_t barrier;

static void *work(void *arg)
{
	int id = (int)(long)arg;
	int lo = id * (CELLS / THREADS), hi = lo + CELLS / THREADS;

	for (int p = 0; p < PHASES; p++) {
		const long *src = grid[p % 2];
		long *dst = grid[(p + 1) % 2];
		for (int i = lo; i < hi; i++) {
			long left = src[(i + CELLS - 1) % CELLS];
			long right = src[(i + 1) % CELLS];
			dst[i] = (left + 2 * src[i] + right) / 4 + (i == 0); /* heisen:site write dst */
		}
		/* Everyone has written dst: one thread sums it. One barrier
		 * per phase is enough: the next phase only reads dst, and
		 * the one after, which overwrites it, starts after the next
		 * barrier, which the summing thread must reach too. */
		if (pthread_barrier_wait(&barrier) ==
		    PTHREAD_BARRIER_SERIAL_THREAD) {
			long sum = 0;
			for (int i = 0; i < CELLS; i++)
				sum += dst[i] * (i + 1); /* heisen:site read dst */
			checksum[p] = sum; /* heisen:site write checksum */
		}
	}
	return NULL;
}

int main(void)
{
	pthread_t t[THREADS];

	for (int i = 0; i < CELLS; i++)
		grid[0][i] = (i * 7919) % 1000;
	pthread_barrier_init(&barrier, NULL, THREADS);
	for (long i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, work, (void *)i)) {
			fprintf(stderr,
				"barrier-phases: pthread_create failed\n");
			return 1;
		}
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&barrier);
	for (int p = 0; p < PHASES; p += 8)
		printf("phase %2d: checksum %ld\n", p + 1, checksum[p]);
	printf("final: cell[0] %ld cell[%d] %ld checksum %ld\n",
	       grid[PHASES % 2][0], CELLS / 2, grid[PHASES % 2][CELLS / 2],
	       checksum[PHASES - 1]);
	return 0;
}
