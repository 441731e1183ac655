/*
 * exit3.c - a guest for the campaign robustness tests: it starts two
 * threads that wait forever, then exits with status 3 from main. exit()
 * ends every thread, so the run ends with exit status 3, not a hang.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;
static pthread_barrier_t started;

static void *wait_forever(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&started);
	pthread_mutex_lock(&lock);
	for (;;)
		pthread_cond_wait(&never, &lock);
}

int main(void)
{
	pthread_t t[2];

	pthread_barrier_init(&started, NULL, 3);
	for (int k = 0; k < 2; k++)
		if (pthread_create(&t[k], NULL, wait_forever, NULL)) {
			fprintf(stderr, "exit3: pthread_create failed\n");
			return 1;
		}
	pthread_barrier_wait(&started);
	printf("exit3: threads started, exiting with 3\n");
	exit(3);
}
