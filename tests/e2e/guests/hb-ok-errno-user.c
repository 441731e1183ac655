/*
 * hb-ok-errno-user.c - two threads that clear errno, make a call that
 * fails and read errno, each in its own code.
 *
 * Natively each thread has its own errno, so this is no race. Debian's
 * wasi-libc keeps one for all threads; the guest library names it to
 * heisen (heisen.hint.thread_local) and heisen check must not report the
 * program's own reads and writes of it either (docs/check.md). The
 * count printed may differ from a native run's: between a thread's
 * failing call and its read, the other thread may write errno.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#define CALLS 500

static void *fail_often(void *arg)
{
	long ebadf = 0;

	for (int i = 0; i < CALLS; i++) {
		errno = 0;
		if (close(1000 + (int)(long)arg) < 0 && errno == EBADF)
			ebadf++;
	}
	return (void *)ebadf;
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
	printf("hb-ok-errno-user: %ld of %d failures read EBADF\n", total,
	       2 * CALLS);
	return 0;
}
