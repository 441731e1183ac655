/*
 * deadlock.c - a guest for the campaign robustness tests: two threads take
 * two mutexes in opposite order. Each takes its first mutex, then both
 * meet at a barrier, so that each then blocks forever on the mutex the
 * other holds: the program never ends, and a campaign must time the run
 * out.
 */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m[2] = {PTHREAD_MUTEX_INITIALIZER,
			       PTHREAD_MUTEX_INITIALIZER};
static pthread_barrier_t both_hold_one;

static void *work(void *arg)
{
	int id = (int)(long)arg;

	pthread_mutex_lock(&m[id]);
	pthread_barrier_wait(&both_hold_one);
	pthread_mutex_lock(&m[1 - id]);
	pthread_mutex_unlock(&m[1 - id]);
	pthread_mutex_unlock(&m[id]);
	return NULL;
}

int main(void)
{
	pthread_t t[2];

	pthread_barrier_init(&both_hold_one, NULL, 2);
	for (long k = 0; k < 2; k++)
		if (pthread_create(&t[k], NULL, work, (void *)k)) {
			fprintf(stderr, "deadlock: pthread_create failed\n");
			return 1;
		}
	for (int k = 0; k < 2; k++)
		pthread_join(t[k], NULL);
	printf("deadlock: no deadlock\n");
	return 0;
}
