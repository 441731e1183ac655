/*
 * hb-grow.c - a hostile guest for `heisen check`: threads touch memory
 * that the heap grows, with memory.grow, while they run.
 *
 * Each round, each of three threads mallocs a block larger than any
 * before (ROUND_KIB KiB times the round number), which the heap can only
 * get by growing linear memory, and writes it while the others grow it
 * further for theirs; after a barrier it reads and checks the block its
 * right neighbour wrote. A block is freed two rounds later, once its
 * reader has passed the next barrier, so memory is reused too. The
 * detector's shadow must cover memory that did not exist when the run
 * began. Race-free (the barrier orders each block's writes before its
 * reads, and the reads before the free); the sum is the same every run.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS	  3
#define ROUNDS	  8
#define ROUND_KIB 768
#define STRIDE	  16 /* words between the words written */

struct block {
	size_t words;
	unsigned *w;
};

static struct block blocks[THREADS][ROUNDS];
static unsigned long sum[THREADS];
static int bad[THREADS];
static pthread_barrier_t written;

static unsigned word_at(int owner, int round, size_t i)
{
	return (unsigned)(owner * 100003 + round * 1009) + (unsigned)i;
}

static void *work(void *arg)
{
	int id = (int)(long)arg, from = (id + 1) % THREADS;

	for (int r = 0; r < ROUNDS; r++) {
		struct block *mine = &blocks[id][r], *theirs = &blocks[from][r];
		size_t words =
		    (size_t)(r + 1) * ROUND_KIB * 1024 / sizeof(unsigned);

		if (r >= 2)
			free(blocks[id][r - 2].w);
		mine->w = malloc(words * sizeof(unsigned));
		mine->words = mine->w ? words : 0;
		for (size_t i = 0; i < mine->words; i += STRIDE)
			mine->w[i] = word_at(id, r, i);
		pthread_barrier_wait(&written);
		bad[id] |= theirs->words == 0;
		for (size_t i = 0; i < theirs->words; i += STRIDE) {
			bad[id] |= theirs->w[i] != word_at(from, r, i);
			sum[id] += theirs->w[i] % 1000;
		}
	}
	return NULL;
}

int main(void)
{
	pthread_t t[THREADS];
	unsigned long total = 0;

	pthread_barrier_init(&written, NULL, THREADS);
	for (long k = 0; k < THREADS; k++)
		if (pthread_create(&t[k], NULL, work, (void *)k)) {
			fprintf(stderr, "hb-grow: pthread_create failed\n");
			return 1;
		}
	for (int k = 0; k < THREADS; k++)
		pthread_join(t[k], NULL);
	pthread_barrier_destroy(&written);
	for (int k = 0; k < THREADS; k++) {
		if (bad[k]) {
			fprintf(stderr, "hb-grow: thread %d read a bad block\n",
				k);
			return 1;
		}
		total += sum[k];
		for (int r = ROUNDS - 2; r < ROUNDS; r++)
			free(blocks[k][r].w);
	}
	printf(
	    "hb-grow: %d threads, %d rounds of blocks up to %d KiB, sum %lu\n",
	    THREADS, ROUNDS, ROUNDS * ROUND_KIB, total);
	return 0;
}
