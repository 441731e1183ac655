/*
 * hb-ok-mutex.c - a race-free guest for `heisen check`: four threads share
 * statistics and a linked list, every shared access under a mutex.
 *
 * The statistics sit behind a recursive mutex that a thread takes twice
 * (adding a pair takes it, then adds each value, which takes it again),
 * so the owner and count words of the guest library's recursive path are
 * exercised as well as the plain lock word. The list sits behind a normal
 * mutex that a thread first tries with trylock, so both the fast path and
 * the futex slow path of the lock run. Nodes are malloc'd and written by
 * their thread before the push and read by main after the joins. Any
 * race `heisen check` reports here is a false one.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS 4
#define PAIRS	500 /* per thread */
#define BINS	16

struct node {
	struct node *next;
	int thread;
	unsigned value;
};

static struct {
	long total;
	unsigned hist[BINS];
	unsigned max;
	long pairs;
} st;
static pthread_mutex_t st_lock; /* recursive, set up by main */

static struct node *list;
static long list_len;
static pthread_mutex_t list_lock = PTHREAD_MUTEX_INITIALIZER;

static void add(unsigned v)
{
	pthread_mutex_lock(&st_lock);
	st.total += v;
	st.hist[v % BINS]++;
	if (v > st.max)
		st.max = v;
	pthread_mutex_unlock(&st_lock);
}

/* Both values or neither: the pair is added under one hold of the lock. */
static void add_pair(unsigned a, unsigned b)
{
	pthread_mutex_lock(&st_lock);
	add(a);
	add(b);
	st.pairs++;
	pthread_mutex_unlock(&st_lock);
}

static void *work(void *arg)
{
	int id = (int)(long)arg;
	unsigned h = 2166136261u ^ (unsigned)id;

	for (int i = 0; i < PAIRS; i++) {
		struct node *n = malloc(sizeof *n);
		unsigned a, b;

		h = h * 16777619u + (unsigned)i;
		a = h % 1000;
		b = (h >> 10) % 1000;
		add_pair(a, b);
		if (!n)
			return (void *)1;
		n->thread = id;
		n->value = a + b;
		if (pthread_mutex_trylock(&list_lock))
			pthread_mutex_lock(&list_lock);
		n->next = list;
		list = n;
		list_len++;
		pthread_mutex_unlock(&list_lock);
	}
	return NULL;
}

int main(void)
{
	pthread_mutexattr_t ma;
	pthread_t t[THREADS];
	long per_thread[THREADS] = {0}, list_sum = 0;
	long hist_n = 0;
	int failed = 0;

	pthread_mutexattr_init(&ma);
	pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&st_lock, &ma);
	pthread_mutexattr_destroy(&ma);
	for (long k = 0; k < THREADS; k++)
		if (pthread_create(&t[k], NULL, work, (void *)k)) {
			fprintf(stderr, "hb-ok-mutex: pthread_create failed\n");
			return 1;
		}
	for (int k = 0; k < THREADS; k++) {
		void *r;
		pthread_join(t[k], &r);
		failed |= r != NULL;
	}
	while (list) {
		struct node *n = list;
		list = n->next;
		per_thread[n->thread]++;
		list_sum += n->value;
		free(n);
	}
	for (int b = 0; b < BINS; b++)
		hist_n += st.hist[b];
	if (failed || list_sum != st.total || list_len != st.pairs ||
	    hist_n != 2 * st.pairs) {
		fprintf(stderr,
			"hb-ok-mutex: inconsistent: list %ld of %ld, "
			"sum %ld, total %ld\n",
			list_len, st.pairs, list_sum, st.total);
		return 1;
	}
	printf("hb-ok-mutex: %ld pairs (%ld %ld %ld %ld), total %ld, max %u\n",
	       st.pairs, per_thread[0], per_thread[1], per_thread[2],
	       per_thread[3], st.total, st.max);
	pthread_mutex_destroy(&st_lock);
	return 0;
}
