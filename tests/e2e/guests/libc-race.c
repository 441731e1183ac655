/*
 * libc-race.c - a guest for t_world's attribution: main and a thread
 * sprintf into one buffer, so the racing writes are in musl's vsnprintf
 * (and, through heisen's stdio wrapper, its memcpy); the report's
 * SUMMARY must name this file's calls, not libc's files.
 */
#include <pthread.h>
#include <stdio.h>

static char shared[64];

static void *work(void *arg)
{
	sprintf(shared, "thread %d", 1); /* thread's call */
	return NULL;
}

int main(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, work, NULL))
		return 1;
	sprintf(shared, "main %d", 2); /* main's call */
	pthread_join(t, NULL);
	puts(shared);
	return 0;
}
