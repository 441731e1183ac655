/*
 * hb-ok-lfqueue.c - a race-free guest for `heisen check`: a single-
 * producer single-consumer lock-free ring buffer, the correct version of
 * demos/lock-free-queue.c.
 *
 * The indices are C11 atomics. The producer fills a slot with plain
 * stores and then publishes it by storing tail with memory_order_release;
 * the consumer loads tail with acquire, reads the slot, and frees it by
 * storing head with release, which the producer loads with acquire
 * before it fills that slot again. Slots are reused many times, so each
 * plain access is ordered both ways by a release-acquire pair. The sums
 * are the same every run.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>

#define CAP   8
#define ITEMS 20000

struct item {
	unsigned value, square;
};

static struct {
	atomic_uint head; /* next slot to read; stored by the consumer */
	atomic_uint tail; /* next slot to fill; stored by the producer */
	struct item slot[CAP];
} q;

static void *produce(void *arg)
{
	for (unsigned v = 1; v <= ITEMS; v++) {
		unsigned t =
		    atomic_load_explicit(&q.tail, memory_order_relaxed);
		while (
		    t - atomic_load_explicit(&q.head, memory_order_acquire) ==
		    CAP)
			sched_yield(); /* the consumer may need this CPU */
		q.slot[t % CAP].value = v;
		q.slot[t % CAP].square = v * v;
		atomic_store_explicit(&q.tail, t + 1, memory_order_release);
	}
	return NULL;
}

static void *consume(void *arg)
{
	unsigned long sum = 0;
	long bad = 0;

	for (unsigned n = 0; n < ITEMS; n++) {
		unsigned h =
		    atomic_load_explicit(&q.head, memory_order_relaxed);
		struct item it;
		while (atomic_load_explicit(&q.tail, memory_order_acquire) == h)
			sched_yield();
		it = q.slot[h % CAP];
		bad += it.value != n + 1 || it.square != it.value * it.value;
		sum += it.value;
		atomic_store_explicit(&q.head, h + 1, memory_order_release);
	}
	return (void *)(bad ? 0 : sum);
}

int main(void)
{
	pthread_t p, c;
	void *sum;

	if (pthread_create(&c, NULL, consume, NULL) ||
	    pthread_create(&p, NULL, produce, NULL)) {
		fprintf(stderr, "hb-ok-lfqueue: pthread_create failed\n");
		return 1;
	}
	pthread_join(p, NULL);
	pthread_join(c, &sum);
	if ((unsigned long)sum != (unsigned long)ITEMS * (ITEMS + 1) / 2) {
		fprintf(stderr, "hb-ok-lfqueue: bad sum %lu\n",
			(unsigned long)sum);
		return 1;
	}
	printf("hb-ok-lfqueue: %d items in order through %d slots, sum %lu\n",
	       ITEMS, CAP, (unsigned long)sum);
	return 0;
}
