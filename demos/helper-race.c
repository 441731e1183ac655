/*
 * helper-race.c - a race whose racing lines sit in a helper that two
 * callers share, for the call stacks of a report: each thread adds to one
 * total through its own path (pay_rent, pay_wages), both through credit(),
 * which reads and writes the total without a lock. A report that shows
 * only the racing line says "credit"; the stacks say which two callers met
 * there.
 *
 * race: helper-race.c:24 helper-race.c:24
 * race: helper-race.c:25 helper-race.c:25
 */
#include <pthread.h>
#include <stdio.h>

#define PAYMENTS 2000

static struct {
	unsigned total, count;
} ledger;

static __attribute__((noinline)) void credit(unsigned amount)
{
	/* The read and the write of one line: two threads lose updates. */
	ledger.total = ledger.total + amount; /* heisen:site read,write total */
	ledger.count++;			      /* heisen:site read,write count */
}

static __attribute__((noinline)) void pay_rent(void) { credit(3); }

static __attribute__((noinline)) void pay_wages(void) { credit(5); }

/* Both threads start paying together: a thread that finished before its
 * partner began would leave nothing to race with in that run. */
static pthread_barrier_t start;

static void *landlord(void *arg)
{
	pthread_barrier_wait(&start);
	for (int i = 0; i < PAYMENTS; i++)
		pay_rent();
	return arg;
}

static void *employer(void *arg)
{
	pthread_barrier_wait(&start);
	for (int i = 0; i < PAYMENTS; i++)
		pay_wages();
	return arg;
}

int main(void)
{
	pthread_t a, b;

	pthread_barrier_init(&start, NULL, 2);
	if (pthread_create(&a, NULL, landlord, NULL) ||
	    pthread_create(&b, NULL, employer, NULL))
		return 1;
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	/* Lost updates vary from run to run: only stderr shows the sums. */
	fprintf(stderr, "helper-race: total %u of %u, %u payments of %u\n",
		ledger.total, 8 * PAYMENTS, ledger.count, 2 * PAYMENTS);
	printf("helper-race: %d payments each\n", PAYMENTS);
	return 0;
}
