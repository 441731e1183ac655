/*
 * hb-ok-barrier.c - a race-free guest for `heisen check`: four threads run
 * PHASES phases over two buffers, one barrier reused between them.
 *
 * In phase p a thread reads its own block and the block of another thread
 * (a different one each phase) from buffer p % 2 and writes its own block
 * of the other buffer, so every phase hands data from thread to thread
 * and the barrier is the only thing that orders the writes before the
 * next phase's reads. One barrier per phase is enough: a buffer is read
 * in one phase and written again only in the next, after the barrier
 * every reader has passed. The thread that gets
 * PTHREAD_BARRIER_SERIAL_THREAD sums the buffer just written, which only
 * the next phase reads. Integer arithmetic, so the output is the same
 * every run.
 */
#include <pthread.h>
#include <stdio.h>

#define THREADS 4
#define BLOCK	64
#define PHASES	60

static unsigned buf[2][THREADS][BLOCK];
static unsigned phase_sum[PHASES];
static pthread_barrier_t phase_end;

static void *work(void *arg)
{
	int id = (int)(long)arg;

	for (int p = 0; p < PHASES; p++) {
		unsigned(*src)[BLOCK] = buf[p % 2];
		unsigned(*dst)[BLOCK] = buf[(p + 1) % 2];
		int from = (id + 1 + p % (THREADS - 1)) % THREADS;

		for (int i = 0; i < BLOCK; i++)
			dst[id][i] =
			    (src[id][i] ^ src[from][BLOCK - 1 - i] >> 3) *
				2654435761u +
			    (unsigned)p;
		if (pthread_barrier_wait(&phase_end) ==
		    PTHREAD_BARRIER_SERIAL_THREAD) {
			unsigned s = 0;
			for (int k = 0; k < THREADS; k++)
				for (int i = 0; i < BLOCK; i++)
					s = s * 31 + dst[k][i];
			phase_sum[p] = s;
		}
	}
	return NULL;
}

int main(void)
{
	pthread_t t[THREADS];
	unsigned check = 0;

	for (int k = 0; k < THREADS; k++)
		for (int i = 0; i < BLOCK; i++)
			buf[0][k][i] = (unsigned)(k * BLOCK + i);
	pthread_barrier_init(&phase_end, NULL, THREADS);
	for (long k = 0; k < THREADS; k++)
		if (pthread_create(&t[k], NULL, work, (void *)k)) {
			fprintf(stderr,
				"hb-ok-barrier: pthread_create failed\n");
			return 1;
		}
	for (int k = 0; k < THREADS; k++)
		pthread_join(t[k], NULL);
	pthread_barrier_destroy(&phase_end);
	for (int p = 0; p < PHASES; p++)
		check = check * 17 + phase_sum[p];
	printf("hb-ok-barrier: %d threads, %d phases, check %u, last %u\n",
	       THREADS, PHASES, check, phase_sum[PHASES - 1]);
	return 0;
}
