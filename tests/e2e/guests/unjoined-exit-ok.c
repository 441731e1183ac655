/*
 * unjoined-exit-ok.c - unjoined-exit.c's race-free twin: every write of
 * the global holds one mutex; main still calls exit() without joining.
 */
#include <pthread.h>
#include <stdlib.h>

static int progress;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *work(void *arg)
{
	for (int i = 0; i < 1000; i++) {
		pthread_mutex_lock(&m);
		progress = i;
		pthread_mutex_unlock(&m);
	}
	return NULL;
}

int main(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, work, NULL))
		return 1;
	pthread_mutex_lock(&m);
	progress = -1;
	pthread_mutex_unlock(&m);
	exit(0);
}
