/*
 * hb-ok-errno.c - two threads whose libc calls fail at the same time.
 *
 * Debian's wasi-libc was not built for threads: errno is one global, and
 * every failing call in either thread writes it. That race is the C
 * runtime's, not this program's; heisen check must not report it (the
 * built-in rule of docs/check.md). Each thread only looks at the return
 * values, which are its own.
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#define CALLS 2000

static void *fail_often(void *arg)
{
	long failed = 0;

	for (int i = 0; i < CALLS; i++)
		failed += close(1000 + (int)(long)arg) < 0;
	return (void *)failed;
}

int main(void)
{
	pthread_t t[2];
	long total = 0;

	for (long k = 0; k < 2; k++)
		if (pthread_create(&t[k], NULL, fail_often, (void *)k))
			return 1;
	for (int k = 0; k < 2; k++) {
		void *r;
		pthread_join(t[k], &r);
		total += (long)r;
	}
	printf("hb-ok-errno: %ld failed calls\n", total);
	return 0;
}
