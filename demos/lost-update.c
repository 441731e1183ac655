/*
 * lost-update.c - two threads add to one balance without a lock; the
 * program checks the total at the end and fails when an update was lost.
 *
 * Each deposit reads the balance, computes, and writes it back; between
 * deposits a thread does private work, so the two threads' read-write
 * windows rarely overlap and the check almost always passes. A delay
 * between a thread's read and its write (a probe at the write) widens
 * its window until the other thread's deposit lands inside it. With the
 * argument "check" the program then prints "lost update" and exits 1:
 * the failure that `heisen minimize --failure exit:1 -- check` explains.
 * Without it the balance goes to stderr and the exit status is 0, so
 * that stdout and the status are the same on every run.
 *
 * race: lost-update.c:35 lost-update.c:36
 * race: lost-update.c:36 lost-update.c:36
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define DEPOSITS 200
#define WORK	 16000

static volatile unsigned balance;

static void *deposit(void *arg)
{
	unsigned amount = *(const unsigned *)arg, h = amount;

	for (int i = 0; i < DEPOSITS; i++) {
		/* private work: no shared access */
		for (int k = 0; k < WORK; k++)
			h = h * 1103515245u + 12345u;
		unsigned b = balance; /* heisen:site read balance */
		balance = b + amount; /* heisen:site write balance */
	}
	/* the work's result, so that the compiler keeps the work */
	return (void *)(unsigned long)(h & 1);
}

int main(int argc, char **argv)
{
	static const unsigned amount[2] = {1, 2};
	pthread_t t[2];
	unsigned long odd = 0;

	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, deposit, (void *)&amount[i]);
	for (int i = 0; i < 2; i++) {
		void *r;
		pthread_join(t[i], &r);
		odd += (unsigned long)r;
	}
	fprintf(stderr, "balance %u, expected %u (%lu odd)\n", balance,
		3u * DEPOSITS, odd);
	if (argc > 1 && !strcmp(argv[1], "check") && balance != 3u * DEPOSITS) {
		printf("lost update\n");
		return 1;
	}
	printf("%d deposits each\n", DEPOSITS);
	return 0;
}
