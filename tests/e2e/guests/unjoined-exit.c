/*
 * unjoined-exit.c - a guest for t_unjoined: a thread main never joins
 * writes a global in a loop while main writes it once and calls exit(),
 * which ends every thread.
 */
#include <pthread.h>
#include <stdlib.h>

static volatile int progress;

static void *work(void *arg)
{
	for (int i = 0; i < 1000; i++)
		progress = i;
	return NULL;
}

int main(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, work, NULL))
		return 1;
	progress = -1;
	exit(0);
}
