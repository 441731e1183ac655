/*
 * fibonacci-lock.c - the fibonacci-lock benchmark of the Beanstalk paper:
 * the fibonacci state (a, b, i) of fibonacci.c, now advanced under a
 * mutex, taken with trylock in a loop. One access stays outside the
 * lock: the loop condition reads i before taking it (check-then-act: both
 * threads can pass the check at STEPS - 1, so i can overshoot), and a
 * thread that finds the lock taken goes back to that check, so it reads i
 * while the holder updates it. The update comes first in the critical
 * section, as a thread claims its step before doing it. The final
 * numbers depend on the interleaving, so they go to stderr.
 *
 * race: fibonacci-lock.c:35 fibonacci-lock.c:38
 */
#include <pthread.h>
#include <stdio.h>

#define THREADS 2
#define STEPS	1000 /* shared by both threads, as i is */

/* Reached through a pointer that pthread_create publishes, so the
 * compiler must reload it after every lock call: each access stays in
 * memory without volatile. */
struct fib {
	pthread_mutex_t lock;
	unsigned a, b, i;
};

static pthread_barrier_t start;

static void *step(void *arg)
{
	struct fib *f = arg;

	pthread_barrier_wait(&start);
	while (f->i < STEPS) { /* heisen:site read i */
		if (pthread_mutex_trylock(&f->lock))
			continue; /* taken: check i again, then retry */
		f->i = f->i + 1;  /* heisen:site read,write i */
		unsigned t = f->b;
		unsigned s = f->a;
		f->b = s + t;
		f->a = t;
		pthread_mutex_unlock(&f->lock);
	}
	return NULL;
}

int main(void)
{
	static struct fib f = {PTHREAD_MUTEX_INITIALIZER, 0, 1, 0};
	pthread_t t[THREADS];

	pthread_barrier_init(&start, NULL, THREADS);
	for (int k = 0; k < THREADS; k++)
		if (pthread_create(&t[k], NULL, step, &f)) {
			fprintf(stderr,
				"fibonacci-lock: pthread_create failed\n");
			return 1;
		}
	for (int k = 0; k < THREADS; k++)
		pthread_join(t[k], NULL);
	pthread_barrier_destroy(&start);
	printf("fibonacci-lock: %d threads, %d shared steps\n", THREADS, STEPS);
	fprintf(stderr, "fibonacci-lock: i %u, b %u\n", f.i, f.b);
	return 0;
}
