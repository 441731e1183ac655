/*
 * hb-ok-cond.c - a race-free guest for `heisen check`: a bounded queue of
 * malloc'd messages between two producers and two consumers, guarded by
 * a mutex with "not full" and "not empty" condition variables.
 *
 * A producer writes a message's fields before it enqueues the pointer; a
 * consumer reads them after it dequeues it, then frees the message, so
 * the message's memory is handed over, and later reused by the heap,
 * only through the mutex. Consumers sleep in pthread_cond_wait while the
 * queue is empty and producers while it is full (a small queue, so both
 * happen), and leave once the queue is empty and every producer is done.
 * The totals come back through pthread_join and are the same every run.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define PRODUCERS 2
#define CONSUMERS 2
#define ITEMS	  3000 /* per producer */
#define CAP	  4
#define WORDS	  4

struct msg {
	int producer, seq;
	unsigned word[WORDS]; /* seq's hash, so a consumer can check it */
};

struct tally {
	long items, sum;
	int bad;
};

static struct msg *queue[CAP];
static int head, count, producers_left = PRODUCERS;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER;

static unsigned hash(int producer, int seq, int w)
{
	unsigned h = (unsigned)(producer * 7919 + seq) * 2654435761u;
	return h ^ (h >> (w + 7));
}

static void *produce(void *arg)
{
	int id = (int)(long)arg;

	for (int i = 1; i <= ITEMS; i++) {
		struct msg *m = malloc(sizeof *m);
		if (!m)
			return (void *)1;
		m->producer = id;
		m->seq = i;
		for (int w = 0; w < WORDS; w++)
			m->word[w] = hash(id, i, w);
		pthread_mutex_lock(&lock);
		while (count == CAP)
			pthread_cond_wait(&not_full, &lock);
		queue[(head + count++) % CAP] = m;
		pthread_cond_signal(&not_empty);
		pthread_mutex_unlock(&lock);
	}
	pthread_mutex_lock(&lock);
	producers_left--;
	pthread_cond_broadcast(&not_empty);
	pthread_mutex_unlock(&lock);
	return NULL;
}

static void *consume(void *arg)
{
	struct tally *t = arg;

	for (;;) {
		struct msg *m;
		pthread_mutex_lock(&lock);
		while (count == 0 && producers_left)
			pthread_cond_wait(&not_empty, &lock);
		if (count == 0) {
			pthread_mutex_unlock(&lock);
			break;
		}
		m = queue[head];
		head = (head + 1) % CAP;
		count--;
		pthread_cond_signal(&not_full);
		pthread_mutex_unlock(&lock);
		for (int w = 0; w < WORDS; w++)
			t->bad |= m->word[w] != hash(m->producer, m->seq, w);
		t->items++;
		t->sum += m->seq;
		free(m);
	}
	return NULL;
}

int main(void)
{
	static struct tally tally[CONSUMERS];
	pthread_t p[PRODUCERS], c[CONSUMERS];
	long items = 0, sum = 0;
	int bad = 0;

	for (int i = 0; i < CONSUMERS; i++)
		if (pthread_create(&c[i], NULL, consume, &tally[i]))
			return 1;
	for (long i = 0; i < PRODUCERS; i++)
		if (pthread_create(&p[i], NULL, produce, (void *)i))
			return 1;
	for (int i = 0; i < PRODUCERS; i++) {
		void *r;
		pthread_join(p[i], &r);
		bad |= r != NULL;
	}
	for (int i = 0; i < CONSUMERS; i++) {
		pthread_join(c[i], NULL);
		items += tally[i].items;
		sum += tally[i].sum;
		bad |= tally[i].bad;
	}
	if (bad || items != PRODUCERS * ITEMS) {
		fprintf(stderr, "hb-ok-cond: %ld items, bad %d\n", items, bad);
		return 1;
	}
	printf("hb-ok-cond: %ld messages, sequence sum %ld\n", items, sum);
	return 0;
}
