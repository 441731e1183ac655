/*
 * unjoined-global-ok.c - unjoined-global.c's race-free twin: the thread is
 * still never joined, but both adds hold one mutex.
 */
#include <pthread.h>

static int counter;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *work(void *arg)
{
	pthread_mutex_lock(&m);
	counter++;
	pthread_mutex_unlock(&m);
	return NULL;
}

int main(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, work, NULL))
		return 1;
	pthread_mutex_lock(&m);
	counter++;
	pthread_mutex_unlock(&m);
	return 0;
}
