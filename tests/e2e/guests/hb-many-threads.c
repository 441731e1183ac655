/*
 * hb-many-threads.c - a hostile guest for `heisen check`: 10 000 threads
 * over the program's life, never more than a few alive at once.
 *
 * A happens-before detector keeps a vector clock per thread with an
 * entry per thread ever seen, so 10 000 short-lived threads test how its
 * clocks, and the memory they take, grow with threads that are long gone.
 * The first half are joinable, in a sliding window of WINDOW: main joins
 * the oldest before it starts the next. The second half are detached:
 * each counts itself out with an atomic decrement, main waits until
 * fewer than WINDOW are running before it starts another (retrying when
 * the host is still busy ending the ones that counted out), and the
 * guest library frees their blocks as they end. Each thread writes its
 * own slot; main reads the slots after the joins and after the count
 * reaches zero. Race-free; the sum is the same every run.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>

#define TOTAL  10000
#define WINDOW 4

static unsigned slot[TOTAL];
static atomic_int running; /* detached threads not yet done */

static void *work(void *arg)
{
	unsigned id = (unsigned)(long)arg;

	slot[id] = id * 2654435761u >> 7;
	return NULL;
}

static void *work_detached(void *arg)
{
	work(arg);
	atomic_fetch_sub(&running, 1);
	return NULL;
}

int main(void)
{
	pthread_attr_t detached;
	pthread_t t[WINDOW];
	unsigned check = 0;
	long i;

	for (i = 0; i < TOTAL / 2; i++) {
		if (i >= WINDOW)
			pthread_join(t[i % WINDOW], NULL);
		if (pthread_create(&t[i % WINDOW], NULL, work, (void *)i)) {
			fprintf(stderr,
				"hb-many-threads: pthread_create %ld "
				"failed\n",
				i);
			return 1;
		}
	}
	for (int k = 0; k < WINDOW; k++)
		pthread_join(t[k], NULL);

	pthread_attr_init(&detached);
	pthread_attr_setdetachstate(&detached, PTHREAD_CREATE_DETACHED);
	for (; i < TOTAL; i++) {
		pthread_t d;
		int rc;
		while (atomic_load(&running) >= WINDOW)
			sched_yield();
		atomic_fetch_add(&running, 1);
		while ((rc = pthread_create(&d, &detached, work_detached,
					    (void *)i)) == EAGAIN)
			sched_yield();
		if (rc) {
			fprintf(stderr,
				"hb-many-threads: pthread_create %ld "
				"failed\n",
				i);
			return 1;
		}
	}
	pthread_attr_destroy(&detached);
	while (atomic_load(&running))
		sched_yield();
	for (i = 0; i < TOTAL; i++)
		check = check * 17 + slot[i];
	printf("hb-many-threads: %d threads, at most %d at once, check %u\n",
	       TOTAL, WINDOW, check);
	return 0;
}
