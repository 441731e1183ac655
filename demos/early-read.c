/*
 * early-read.c - the parent reads its helper thread's result before it
 * joins the helper.
 *
 * The parent counts the primes below LIMIT in two halves: a helper thread
 * takes the upper half and stores its count in the job once, at the end;
 * the parent counts the lower half, joins the helper and adds the two.
 * A progress line added while debugging reads the helper's count right
 * after pthread_create, before the join that would order it after the
 * helper's store. It prints 0 (the helper has not finished) and nobody
 * notices; the final sum, read after the join, is right.
 *
 * The read comes at the start of the helper's work and the store at its
 * end, so a collision sweep (heisen sweep), which needs the two within one
 * probe's delay, rarely or never sees them meet; happens-before (heisen
 * check) sees the race in every run. The early value depends on the
 * timing, so it goes to stderr.
 *
 * hb-race: early-read.c:55 early-read.c:69
 */
#include <pthread.h>
#include <stdio.h>

#define LIMIT 60000

struct job {
	int lo, hi;
	long primes; /* the helper's count: stored once, when it is done */
};

static int is_prime(int n)
{
	if (n < 2)
		return 0;
	for (int d = 2; d * d <= n; d++)
		if (n % d == 0)
			return 0;
	return 1;
}

static long count_primes(int lo, int hi)
{
	long n = 0;

	for (int i = lo; i < hi; i++)
		n += is_prime(i);
	return n;
}

static void *helper(void *arg)
{
	struct job *j = arg;
	long n = count_primes(j->lo, j->hi);

	j->primes = n; /* heisen:site write primes */
	return NULL;
}

int main(void)
{
	static struct job job = {LIMIT / 2, LIMIT, 0};
	pthread_t t;
	long early, mine;

	if (pthread_create(&t, NULL, helper, &job)) {
		fprintf(stderr, "early-read: pthread_create failed\n");
		return 1;
	}
	early = job.primes; /* heisen:site read primes */
	fprintf(stderr, "early-read: the helper has %ld so far\n", early);
	mine = count_primes(0, LIMIT / 2);
	pthread_join(t, NULL);
	printf("early-read: %ld primes below %d\n", mine + job.primes, LIMIT);
	return 0;
}
