/*
 * unjoined-struct-ok.c - unjoined-struct.c's race-free twin: main and the
 * unjoined thread write different fields of the struct, which are
 * different bytes.
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
	cfg.verbose = 1;
	return 0;
}
