/*
 * hb-destroy.c - a race that destroying a mutex must not hide: the worker
 * writes `result`, then locks and unlocks a mutex nobody else uses; main
 * destroys that mutex once the worker is done with it and reads `result`
 * before joining. POSIX makes pthread_mutex_destroy no synchronisation,
 * so the read races with the write (ThreadSanitizer reports it); the
 * guest library's destroy reads the mutex word with an atomic, which must
 * not order main after the worker under `heisen check`.
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

int result;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg)
{
	result = 42; /* heisen:site write result */
	pthread_mutex_lock(&m);
	pthread_mutex_unlock(&m);
	return NULL;
}

int main(void)
{
	pthread_t t;
	int seen;

	if (pthread_create(&t, NULL, worker, NULL))
		return 1;
	/* Time, not synchronisation: by then the worker has let go of m. */
	usleep(100000);
	if (pthread_mutex_destroy(&m))
		return 2;
	seen = result; /* heisen:site read result */
	pthread_join(t, NULL);
	printf("hb-destroy: %d\n", seen);
	return 0;
}
