/*
 * lock-free-queue.c - after the lock-free-queue benchmark of the
 * Beanstalk paper: a single-producer, single-consumer ring buffer in the
 * pre-C11 style, with plain (volatile) head and tail indices instead of
 * atomics. volatile stops the compiler from caching the indices in the
 * spin loops but orders nothing and makes nothing atomic, so every index
 * access the other thread writes is a data race. The producer also has
 * an ordering bug: it publishes a slot (bumps tail) before filling it,
 * so the consumer can read the slot while it is being written. The spin
 * loops yield: on a loaded machine a spinning thread would otherwise hold
 * the CPU its partner needs. The sum
 * the consumer sees depends on the interleaving, so it goes to stderr.
 *
 * race: lock-free-queue.c:40 lock-free-queue.c:60
 * race: lock-free-queue.c:42 lock-free-queue.c:57
 * race: lock-free-queue.c:43 lock-free-queue.c:59
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>

#define CAP   4 /* small, so the queue is often full or empty */
#define ITEMS 1000

struct queue {
	volatile unsigned head; /* next slot to read; written by the consumer */
	volatile unsigned tail; /* next slot to fill; written by the producer */
	volatile int slot[CAP];
};

static pthread_barrier_t start;

static void *produce(void *arg)
{
	struct queue *q = arg;
	unsigned t = 0;

	pthread_barrier_wait(&start);
	for (int v = 1; v <= ITEMS; v++) {
		while (t - q->head == CAP) /* heisen:site read head */
			sched_yield(); /* the other thread may need this CPU */
		q->tail = t + 1;      /* heisen:site write tail */
		q->slot[t % CAP] = v; /* heisen:site write slot */
		t++;
	}
	return NULL;
}

static void *consume(void *arg)
{
	struct queue *q = arg;
	unsigned h = 0;
	long sum = 0;

	pthread_barrier_wait(&start);
	for (int n = 0; n < ITEMS; n++) {
		while (q->tail == h) /* heisen:site read tail */
			sched_yield();
		sum += q->slot[h % CAP]; /* heisen:site read slot */
		q->head = ++h;		 /* heisen:site write head */
	}
	return (void *)sum;
}

int main(void)
{
	static struct queue q;
	pthread_t p, c;
	void *sum;

	pthread_barrier_init(&start, NULL, 2);
	if (pthread_create(&c, NULL, consume, &q) ||
	    pthread_create(&p, NULL, produce, &q)) {
		fprintf(stderr, "lock-free-queue: pthread_create failed\n");
		return 1;
	}
	pthread_join(p, NULL);
	pthread_join(c, &sum);
	pthread_barrier_destroy(&start);
	printf("lock-free-queue: %d items through a %d-slot ring\n", ITEMS,
	       CAP);
	fprintf(stderr, "lock-free-queue: consumed sum %ld (%ld if in order)\n",
		(long)sum, (long)ITEMS * (ITEMS + 1) / 2);
	return 0;
}
