/*
 * unjoined-scanf-ok.c - unjoined-scanf.c's race-free twin: main reads the
 * number before it creates the thread, which pthread_create orders
 * before everything the thread does.
 */
#include <pthread.h>
#include <stdio.h>

static int limit;
static volatile int seen;

static void *work(void *arg)
{
	seen = limit;
	return NULL;
}

int main(void)
{
	pthread_t t;

	if (scanf("%d", &limit) != 1)
		return 0;
	if (pthread_create(&t, NULL, work, NULL))
		return 1;
	return 0;
}
