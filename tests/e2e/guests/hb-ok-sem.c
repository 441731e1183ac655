/*
 * hb-ok-sem.c - a race-free guest for `heisen check`: a bounded buffer
 * between a producer (main) and a consumer thread ordered by two semaphores
 * alone, as in the textbook: `slots` counts free cells, `items` full ones.
 *
 * The buffer's cells are plain ints and nothing else orders the two
 * threads, so only sem_post releasing and sem_wait acquiring keep check
 * from reporting the cells' writes and reads. The buffer is small, so the
 * producer sleeps on a full buffer and the consumer on an empty one.
 *
 * tests/e2e/guests/sem-missing-wait.c is this program with the
 * consumer's sem_wait(&items) left out. The consumer starts 10 ms late,
 * so that the producer has filled the buffer when it reads its first
 * cells: that makes the twin's race run in every run, natively too (a
 * consumer that ran ahead would read cells not yet written, and not race
 * with the writes, which its sem_post(&slots) orders after the reads).
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

	/* Let the producer fill the buffer first (see the header). */
	nanosleep(&late, NULL);
	for (int i = 1; i <= ITEMS; i++) {
		sem_wait(&items);
		sum += buf[i % CAP];
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
		buf[i % CAP] = i;
		sem_post(&items);
	}
	pthread_join(c, &sum);
	if ((long)sum != (long)ITEMS * (ITEMS + 1) / 2) {
		fprintf(stderr, "hb-ok-sem: sum %ld\n", (long)sum);
		return 1;
	}
	printf("hb-ok-sem: %d items, sum %ld\n", ITEMS, (long)sum);
	return 0;
}
