/*
 * fibonacci.c - the fibonacci benchmark of the Beanstalk paper (its
 * Fig. 2): two threads advance one shared fibonacci state (a, b, i) in a
 * while loop with no lock. Each line of the loop body reads or writes
 * state that the other thread writes, so every write races with its twin
 * in the other thread and with the line that reads the same variable.
 * The final numbers depend on the interleaving, so they go to stderr;
 * stdout stays the same on every run.
 *
 * race: fibonacci.c:38 fibonacci.c:43
 * race: fibonacci.c:43 fibonacci.c:43
 * race: fibonacci.c:39 fibonacci.c:41
 * race: fibonacci.c:41 fibonacci.c:41
 * race: fibonacci.c:40 fibonacci.c:42
 * race: fibonacci.c:42 fibonacci.c:42
 */
#include <pthread.h>
#include <stdio.h>

#define THREADS 2
#define STEPS	1000 /* shared by both threads, as i is */

/* volatile keeps every access in memory, one per source line, as in the
 * paper's build; without it -O1 keeps a, b and i in registers for the
 * whole loop. It adds no synchronisation: the accesses still race. */
struct fib {
	volatile unsigned a, b, i;
};

static pthread_barrier_t start;

static void *step(void *arg)
{
	struct fib *f = arg;

	/* Start together, so that the two loops overlap in time. */
	pthread_barrier_wait(&start);
	while (f->i < STEPS) {	   /* heisen:site read i */
		unsigned t = f->b; /* heisen:site read b */
		unsigned s = f->a; /* heisen:site read a */
		f->b = s + t;	   /* heisen:site write b */
		f->a = t;	   /* heisen:site write a */
		f->i = f->i + 1;   /* heisen:site read,write i */
	}
	return NULL;
}

int main(void)
{
	static struct fib f = {0, 1, 0};
	pthread_t t[THREADS];

	pthread_barrier_init(&start, NULL, THREADS);
	for (int k = 0; k < THREADS; k++)
		if (pthread_create(&t[k], NULL, step, &f)) {
			fprintf(stderr, "fibonacci: pthread_create failed\n");
			return 1;
		}
	for (int k = 0; k < THREADS; k++)
		pthread_join(t[k], NULL);
	pthread_barrier_destroy(&start);
	printf("fibonacci: %d threads, %d shared steps\n", THREADS, STEPS);
	fprintf(stderr, "fibonacci: i %u, b %u (mod 2^32)\n", f.i, f.b);
	return 0;
}
