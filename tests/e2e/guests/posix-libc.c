/*
 * posix-libc.c - the parts of libc that glibc locks and Debian's
 * wasi-libc does not, called from four threads at once: random and
 * rand, getenv beside setenv, strerror, localtime_r and asctime_r, and
 * puts; main calls exit while the threads still print, so libc's
 * exit-time flush of stdout meets them. heisen check must find no race
 * (the guest library's locks, demos/guest/libc.c and stdio.c). Not
 * strftime: its number parsing writes errno, which all threads share
 * (docs/porting.md).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void *worker(void *arg)
{
	long id = (long)arg;
	char line[160], when[32];

	for (int i = 0; i < 100000; i++) {
		time_t t = 86400L * i;
		struct tm tm;
		localtime_r(&t, &tm);
		asctime_r(&tm, when);
		when[strlen(when) - 1] = '\0';
		snprintf(line, sizeof line, "t%ld %d %ld %d %s %s %s", id, i,
			 random() % 100, rand() % 10, when,
			 getenv("HOME") ? "home" : "-", strerror(EINVAL));
		puts(line);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[4];

	srandom(1);
	srand(2);
	setenv("HOME", "/nowhere", 1);
	for (long i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 50; i++) {
		printf("main %ld\n", random() % 10);
		setenv("LAST", i % 2 ? "odd" : "even", 1);
	}
	exit(0);
}
