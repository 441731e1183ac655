/*
 * trap.c - a guest for the campaign robustness tests: two threads do some
 * work, then the second one traps (unreachable). A trap in any thread
 * ends the whole program abnormally; a campaign must record the run as a
 * trap and carry on.
 */
#include <pthread.h>
#include <stdio.h>

#define ITERS 2000

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;

static void *work(void *arg)
{
	long id = (long)arg;

	for (int i = 0; i < ITERS; i++) {
		pthread_mutex_lock(&lock);
		counter++;
		pthread_mutex_unlock(&lock);
	}
	if (id == 1)
		__builtin_trap();
	return NULL;
}

int main(void)
{
	pthread_t t[2];

	for (long k = 0; k < 2; k++)
		if (pthread_create(&t[k], NULL, work, (void *)k)) {
			fprintf(stderr, "trap: pthread_create failed\n");
			return 1;
		}
	for (int k = 0; k < 2; k++)
		pthread_join(t[k], NULL);
	printf("trap: no trap (counter %ld)\n", counter);
	return 0;
}
