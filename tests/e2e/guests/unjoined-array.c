/*
 * unjoined-array.c - a guest for t_unjoined: main and a thread it never
 * joins write one element of a global array, each holding a lock, but
 * not the same lock: each mutex orders nothing for the other.
 *
 * The global has external linkage: a static one that nothing reads
 * would lose its stores to the optimiser.
 */
#include <pthread.h>

int slots[8];
static pthread_mutex_t mine = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t theirs = PTHREAD_MUTEX_INITIALIZER;

static void *work(void *arg)
{
	pthread_mutex_lock(&theirs);
	slots[3] = 7;
	pthread_mutex_unlock(&theirs);
	return NULL;
}

int main(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, work, NULL))
		return 1;
	pthread_mutex_lock(&mine);
	slots[3] = 5;
	pthread_mutex_unlock(&mine);
	return 0;
}
