/*
 * unjoined-return.c - a guest for t_unjoined: a thread main never joins
 * fills a global buffer while main writes its first element and returns
 * from main.
 *
 * The global has external linkage: a static one that nothing reads
 * would lose its stores to the optimiser.
 */
#include <pthread.h>

int buf[256];

static void *work(void *arg)
{
	for (int i = 0; i < 256; i++)
		buf[i] = i;
	return NULL;
}

int main(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, work, NULL))
		return 1;
	buf[0] = -1;
	return 0;
}
