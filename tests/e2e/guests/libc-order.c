/*
 * libc-order.c - a guest for t_posix: three races whose two threads each
 * call into libc between their accesses, where glibc's internal locks
 * order nothing for ThreadSanitizer and the guest library's must order
 * nothing for heisen check (demos/guest/detector.c):
 *   x    written, then printf, by one thread; printf, then read, by another
 *   y    the same around random()
 *   when a struct tm that localtime_r fills in one thread while another
 *        reads it
 * Each second thread starts 20 ms late, so the calls come in that order.
 * With "ok" as its argument, a mutex orders each pair, and nothing races.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int x, y, ok;
static struct tm when;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void lock(void)
{
	if (ok)
		pthread_mutex_lock(&m);
}

static void unlock(void)
{
	if (ok)
		pthread_mutex_unlock(&m);
}

static void *first(void *arg)
{
	time_t t = 86400;

	lock();
	x = 1;
	y = 1;
	localtime_r(&t, &when);
	unlock();
	printf("first\n");
	(void)random();
	return arg;
}

static void *second(void *arg)
{
	long sum;

	usleep(20000);
	printf("second\n");
	(void)random();
	lock();
	sum = x + y + when.tm_year;
	unlock();
	return (void *)sum;
}

int main(int argc, char **argv)
{
	pthread_t a, b;
	void *sum;

	ok = argc > 1 && !strcmp(argv[1], "ok");
	if (pthread_create(&a, NULL, first, NULL) ||
	    pthread_create(&b, NULL, second, NULL))
		return 1;
	pthread_join(a, NULL);
	pthread_join(b, &sum);
	printf("sum %ld\n", (long)sum);
	return 0;
}
