/*
 * unjoined-global.c - a guest for t_unjoined: main and a thread it never
 * joins both add to a plain global with no lock, and main returns at
 * once. Natively the thread runs while main adds; `heisen check` must
 * let it run too (docs/check.md, "Threads main never joins").
 */
#include <pthread.h>

static int counter;

static void *work(void *arg)
{
	counter++;
	return NULL;
}

int main(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, work, NULL))
		return 1;
	counter++;
	return 0;
}
