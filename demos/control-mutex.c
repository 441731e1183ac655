/*
 * control-mutex.c - a race-free control for the detector: four threads
 * update a shared counter and a shared statistics struct, every access
 * under one mutex (the final print follows the joins, which order it
 * after every update). The results are exact and the same on every run.
 *
 * race: none
 */
#include <pthread.h>
#include <stdio.h>

#define THREADS 4
#define ITERS	300

struct stats {
	long count;
	long sum;
	unsigned max;
	unsigned last[THREADS]; /* the latest value each thread added */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t start;
static long counter;
static struct stats stats;

static void *work(void *arg)
{
	int id = (int)(long)arg;

	pthread_barrier_wait(&start);
	for (int i = 0; i < ITERS; i++) {
		unsigned v = (unsigned)(id * ITERS + i) * 2654435761u >> 20;
		pthread_mutex_lock(&lock);
		counter++;
		stats.count++;
		stats.sum += v;
		if (v > stats.max)
			stats.max = v;
		stats.last[id] = v;
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[THREADS];

	pthread_barrier_init(&start, NULL, THREADS);
	for (long k = 0; k < THREADS; k++)
		if (pthread_create(&t[k], NULL, work, (void *)k)) {
			fprintf(stderr,
				"control-mutex: pthread_create failed\n");
			return 1;
		}
	for (int k = 0; k < THREADS; k++)
		pthread_join(t[k], NULL);
	pthread_barrier_destroy(&start);
	printf("control-mutex: counter %ld, count %ld, sum %ld, max %u, "
	       "last %u %u %u %u\n",
	       counter, stats.count, stats.sum, stats.max, stats.last[0],
	       stats.last[1], stats.last[2], stats.last[3]);
	return counter == (long)THREADS * ITERS ? 0 : 1;
}
