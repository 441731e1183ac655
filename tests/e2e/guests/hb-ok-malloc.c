/*
 * hb-ok-malloc.c - a race-free guest for `heisen check`: heap memory that
 * passes from thread to thread and is freed and reused all the time.
 *
 * Three threads stand in a ring. Each round a thread mallocs a buffer of
 * a size that changes from round to round (calloc every third round),
 * writes it, and hands it to its right neighbour through an atomic
 * mailbox (release store, acquire load); then it takes the buffer its
 * left neighbour sent, checks and sums it, sometimes grows it with
 * realloc and writes the new part, and frees it. With three threads
 * allocating and freeing at once, a chunk freed by one thread is soon
 * malloc'd and written by another, with nothing ordering those writes
 * after the earlier owner's accesses and its free: `heisen check` must
 * take the chunk handed out again for new memory (demos/guest/malloc.c),
 * the usable bytes past the size asked for included. The sums are the
 * same every run.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 3
#define ROUNDS	400

struct buf {
	size_t len;
	int sender, round;
	unsigned char data[];
};

static _Atomic(struct buf *) box[THREADS]; /* box[k]: the next one for k */
static unsigned long sum[THREADS];
static int bad[THREADS];

static unsigned char byte_at(int sender, int round, size_t i)
{
	return (unsigned char)(sender * 7 + round * 13 + (int)(i % 251));
}

static struct buf *make(int id, int r)
{
	size_t len = 16 + (size_t)(r * 37 + id * 101) % 3000;
	struct buf *b =
	    r % 3 ? malloc(sizeof *b + len) : calloc(1, sizeof *b + len);

	if (!b)
		return NULL;
	b->len = len;
	b->sender = id;
	b->round = r;
	for (size_t i = 0; i < len; i++)
		b->data[i] = byte_at(id, r, i);
	return b;
}

/* Check and sum b, perhaps grow it, and free it. */
static void consume(int id, struct buf *b, int r)
{
	int from = (id + THREADS - 1) % THREADS;

	bad[id] |= b->sender != from || b->round != r;
	if (r % 5 == 0) {
		/* Grown, the buffer may move: realloc copies it. */
		size_t len = b->len;
		struct buf *g = realloc(b, sizeof *b + 2 * len);
		if (!g) {
			bad[id] = 1;
			free(b);
			return;
		}
		b = g;
		memset(b->data + len, id + 1, len);
		for (size_t i = len; i < 2 * len; i++)
			sum[id] += b->data[i];
	}
	for (size_t i = 0; i < b->len; i++) {
		bad[id] |= b->data[i] != byte_at(from, r, i);
		sum[id] += b->data[i];
	}
	free(b);
}

static void *work(void *arg)
{
	int id = (int)(long)arg, right = (id + 1) % THREADS;

	for (int r = 0; r < ROUNDS; r++) {
		struct buf *b = make(id, r);
		if (!b) {
			bad[id] = 1;
			return NULL;
		}
		while (atomic_load_explicit(&box[right], memory_order_acquire))
			sched_yield(); /* the neighbour may need this CPU */
		atomic_store_explicit(&box[right], b, memory_order_release);
		while (
		    !(b = atomic_load_explicit(&box[id], memory_order_acquire)))
			sched_yield();
		atomic_store_explicit(&box[id], NULL, memory_order_release);
		consume(id, b, r);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[THREADS];
	unsigned long total = 0;

	for (long k = 0; k < THREADS; k++)
		if (pthread_create(&t[k], NULL, work, (void *)k)) {
			fprintf(stderr,
				"hb-ok-malloc: pthread_create failed\n");
			return 1;
		}
	for (int k = 0; k < THREADS; k++)
		pthread_join(t[k], NULL);
	for (int k = 0; k < THREADS; k++) {
		if (bad[k]) {
			fprintf(stderr,
				"hb-ok-malloc: thread %d got a bad buffer\n",
				k);
			return 1;
		}
		total += sum[k];
	}
	printf("hb-ok-malloc: %d threads x %d buffers, byte sum %lu\n", THREADS,
	       ROUNDS, total);
	return 0;
}
