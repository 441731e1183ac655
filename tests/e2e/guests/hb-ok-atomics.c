/*
 * hb-ok-atomics.c - a race-free guest for `heisen check`: a plain struct
 * published round after round through C11 atomics, release and acquire.
 *
 * Each round the publisher rewrites a plain message (header and payload)
 * and then stores the round number into an atomic with memory_order_
 * release; two readers wait for that number with memory_order_acquire,
 * read the message, and acknowledge with a release fetch_add on a second
 * atomic, which the publisher reads with acquire before it rewrites the
 * message for the next round. The atomics are the only synchronisation:
 * release-acquire orders the writes before the reads, and the reads
 * before the next round's writes. Every reader sees every round whole,
 * so the checksums are the same every run.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>

#define READERS 2
#define ROUNDS	300
#define WORDS	16

struct message {
	int round;
	unsigned len;
	unsigned word[WORDS];
};

static struct message msg;
static atomic_int published;  /* the round whose message is ready */
static atomic_int acks;	      /* reads done, over all rounds */
static unsigned sum[READERS]; /* each reader's checksum of what it read */
static int bad[READERS];

static void *publish(void *arg)
{
	for (int r = 1; r <= ROUNDS; r++) {
		while (atomic_load_explicit(&acks, memory_order_acquire) <
		       (r - 1) * READERS)
			sched_yield(); /* the readers may need this CPU */
		msg.round = r;
		msg.len = (unsigned)(r % WORDS) + 1;
		for (int i = 0; i < WORDS; i++)
			msg.word[i] = (unsigned)(r * 31 + i) * 2654435761u;
		atomic_store_explicit(&published, r, memory_order_release);
	}
	return NULL;
}

static void *read_messages(void *arg)
{
	int id = (int)(long)arg;

	for (int r = 1; r <= ROUNDS; r++) {
		while (atomic_load_explicit(&published, memory_order_acquire) <
		       r)
			sched_yield();
		bad[id] |= msg.round != r;
		for (unsigned i = 0; i < msg.len; i++)
			sum[id] = sum[id] * 31 + msg.word[i];
		atomic_fetch_add_explicit(&acks, 1, memory_order_release);
	}
	return NULL;
}

int main(void)
{
	pthread_t p, r[READERS];

	for (long k = 0; k < READERS; k++)
		if (pthread_create(&r[k], NULL, read_messages, (void *)k))
			return 1;
	if (pthread_create(&p, NULL, publish, NULL))
		return 1;
	pthread_join(p, NULL);
	for (int k = 0; k < READERS; k++)
		pthread_join(r[k], NULL);
	if (bad[0] || bad[1] || sum[0] != sum[1]) {
		fprintf(stderr, "hb-ok-atomics: readers disagree: %08x %08x\n",
			sum[0], sum[1]);
		return 1;
	}
	printf("hb-ok-atomics: %d rounds to %d readers, checksum %08x\n",
	       ROUNDS, READERS, sum[0]);
	return 0;
}
