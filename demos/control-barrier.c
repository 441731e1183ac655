/*
 * control-barrier.c - a race-free control for the detector: four threads
 * run phases separated by pthread_barrier_wait. In each phase a thread
 * reads every thread's slot from the previous phase's buffer and writes
 * only its own slot of the other buffer; the barrier orders each write
 * before the next phase's reads, and a read of a buffer before the
 * barrier that precedes the next write to it. Integer arithmetic, so the
 * result is the same on every run.
 *
 * race: none
 */
#include <pthread.h>
#include <stdio.h>

#define THREADS 4
#define PHASES	100

static unsigned slot[2][THREADS];
static pthread_barrier_t phase_end;

static void *work(void *arg)
{
	int id = (int)(long)arg;

	for (int p = 0; p < PHASES; p++) {
		const unsigned *prev = slot[p % 2];
		unsigned next = prev[id];
		for (int k = 0; k < THREADS; k++)
			next = next * 31 + prev[k];
		slot[(p + 1) % 2][id] = next;
		pthread_barrier_wait(&phase_end);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[THREADS];
	unsigned check = 0;

	for (int k = 0; k < THREADS; k++)
		slot[0][k] = (unsigned)k + 1;
	pthread_barrier_init(&phase_end, NULL, THREADS);
	for (long k = 0; k < THREADS; k++)
		if (pthread_create(&t[k], NULL, work, (void *)k)) {
			fprintf(stderr,
				"control-barrier: pthread_create failed\n");
			return 1;
		}
	for (int k = 0; k < THREADS; k++)
		pthread_join(t[k], NULL);
	pthread_barrier_destroy(&phase_end);
	for (int k = 0; k < THREADS; k++)
		check = check * 31 + slot[PHASES % 2][k];
	printf("control-barrier: %d threads, %d phases, check %u\n", THREADS,
	       PHASES, check);
	return 0;
}
