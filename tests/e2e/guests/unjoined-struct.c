/*
 * unjoined-struct.c - a guest for t_unjoined: main and a thread it never
 * joins write the same field of a global struct with no lock.
 *
 * The global has external linkage: a static one that nothing reads
 * would lose its stores to the optimiser.
 */
#include <pthread.h>

struct config {
	int verbose;
	int level;
} cfg;

static void *work(void *arg)
{
	cfg.level = 2;
	return NULL;
}

int main(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, work, NULL))
		return 1;
	cfg.level = 1;
	return 0;
}
