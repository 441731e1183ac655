/*
 * prod-cons.c - a bounded queue between two producers and two consumers,
 * guarded by a mutex with "not full" and "not empty" condition
 * variables; a pthread_once initialiser and a thread-specific key give
 * each consumer its own tally. Race-free, so the count and the sum of the
 * consumed items are the same on every run.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define PRODUCERS 2
#define CONSUMERS 2
#define ITEMS	  20000 /* per producer */
#define CAP	  16

static int queue[CAP];
static int head, count, producers_left = PRODUCERS;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_key_t tally_key;
static long long consumed_sum;
static long consumed_items;

static void make_key(void) { pthread_key_create(&tally_key, free); }

static void *produce(void *arg)
{
	int base = (int)(long)arg * ITEMS;

	for (int i = 1; i <= ITEMS; i++) {
		pthread_mutex_lock(&lock);
		while (count == CAP)
			pthread_cond_wait(&not_full, &lock);
		queue[(head + count++) % CAP] = base + i; /* heisen:site read,write queue */
		pthread_cond_signal(&not_empty);
		pthread_mutex_unlock(&lock);
	}
	pthread_mutex_lock(&lock);
	producers_left--; /* heisen:site read,write producers_left */
	pthread_cond_broadcast(&not_empty);
	pthread_mutex_unlock(&lock);
	return NULL;
}

static void *consume(void *arg)
{
	long long *tally;

	(void)arg;
	pthread_once(&once, make_key);
	tally = calloc(2, sizeof *tally);
	pthread_setspecific(tally_key, tally);
	for (;;) {
		int v;
		pthread_mutex_lock(&lock);
		while (count == 0 && producers_left)
			pthread_cond_wait(&not_empty, &lock);
		if (count == 0) {
			pthread_mutex_unlock(&lock);
			break;
		}
		v = queue[head]; /* heisen:site read queue */
		head = (head + 1) % CAP; /* heisen:site write head */
		count--;
		pthread_cond_signal(&not_full);
		pthread_mutex_unlock(&lock);
		tally = pthread_getspecific(tally_key);
		tally[0]++;
		tally[1] += v;
	}
	pthread_mutex_lock(&lock);
	consumed_items += (long)tally[0]; /* heisen:site read,write consumed_items */
	consumed_sum += tally[1]; /* heisen:site read,write consumed_sum */
	pthread_mutex_unlock(&lock);
	return NULL; /* the key's destructor frees the tally */
}

int main(void)
{
	pthread_t p[PRODUCERS], c[CONSUMERS];
	long long want = 0;

	for (long i = 0; i < CONSUMERS; i++)
		if (pthread_create(&c[i], NULL, consume, NULL))
			return 1;
	for (long i = 0; i < PRODUCERS; i++)
		if (pthread_create(&p[i], NULL, produce, (void *)i))
			return 1;
	for (int i = 0; i < PRODUCERS; i++)
		pthread_join(p[i], NULL);
	for (int i = 0; i < CONSUMERS; i++)
		pthread_join(c[i], NULL);
	for (long i = 0; i < PRODUCERS * ITEMS; i++)
		want += i + 1;
	printf("prod-cons: consumed %ld items, sum %lld (%s)\n", consumed_items,
	       consumed_sum,
	       consumed_sum == want ? "all accounted for" : "MISMATCH");
	return consumed_sum == want ? 0 : 1;
}
