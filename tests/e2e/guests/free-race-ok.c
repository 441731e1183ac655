/*
 * free-race-ok.c - free-race.c's race-free twin: main joins the worker
 * before it frees the block. And a block's next life races with none of
 * its last: one thread allocates, writes and frees a block while another
 * allocates one of the same size 50 ms later (likely getting it back) and
 * writes it while the first still runs, nothing ordering the two threads. The
 * allocator orders nothing for heisen check, and forgets a block it hands out
 * again.
 */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

struct job {
	char name[64];
	volatile int done; /* else a store just before free() is dropped */
};

static void *work(void *arg)
{
	struct job *j = arg;

	j->done = 1;
	return NULL;
}

static void *first(void *arg)
{
	struct job *j = malloc(sizeof *j);

	if (j) {
		j->done = 1;
		free(j);
	}
	usleep(100000); /* alive while second writes */
	return arg;
}

static void *second(void *arg)
{
	struct job *j;

	usleep(50000);
	if ((j = malloc(sizeof *j))) {
		j->done = 2;
		free(j);
	}
	return arg;
}

int main(void)
{
	struct job *j = calloc(1, sizeof *j);
	pthread_t t, u;

	if (!j || pthread_create(&t, NULL, work, j))
		return 1;
	pthread_join(t, NULL);
	free(j);
	if (pthread_create(&t, NULL, first, NULL) ||
	    pthread_create(&u, NULL, second, NULL))
		return 1;
	pthread_join(t, NULL);
	pthread_join(u, NULL);
	return 0;
}
