/*
 * unjoined-array-ok.c - unjoined-array.c's race-free twin: main and the
 * unjoined thread write the element under the same mutex.
 *
 * The global has external linkage: a static one that nothing reads
 * would lose its stores to the optimiser.
 */
#include <pthread.h>

int slots[8];
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *work(void *arg)
{
	pthread_mutex_lock(&m);
	slots[3] = 7;
	pthread_mutex_unlock(&m);
	return NULL;
}

int main(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, work, NULL))
		return 1;
	pthread_mutex_lock(&m);
	slots[3] = 5;
	pthread_mutex_unlock(&m);
	return 0;
}
