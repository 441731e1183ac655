/*
 * sem-missing-wait.c - hb-ok-sem.c with one bug: the consumer does not
 * sem_wait(&items) before it reads a cell, so nothing orders the
 * producer's write of a cell before the consumer's read of it.
 * tests/e2e/t_sem.sh checks that `heisen check` reports the pair of the
 * two lines marked "race".
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <time.h>

#define ITEMS 2000
#define CAP   4

static int buf[CAP];
static sem_t slots, items;

static void *consume(void *arg)
{
	struct timespec late = {0, 10 * 1000000};
	long sum = 0;

	/* Let the producer fill the buffer first (see hb-ok-sem.c). */
	nanosleep(&late, NULL);
	for (int i = 1; i <= ITEMS; i++) {
		/* missing: sem_wait(&items); */
		sum += buf[i % CAP]; /* race: read */
		sem_post(&slots);
	}
	return (void *)sum;
}

int main(void)
{
	pthread_t c;
	void *sum;

	if (sem_init(&slots, 0, CAP) || sem_init(&items, 0, 0) ||
	    pthread_create(&c, NULL, consume, NULL))
		return 1;
	for (int i = 1; i <= ITEMS; i++) {
		sem_wait(&slots);
		buf[i % CAP] = i; /* race: write */
		sem_post(&items);
	}
	pthread_join(c, &sum);
	printf("sem-missing-wait: %d items\n", ITEMS);
	return 0;
}
