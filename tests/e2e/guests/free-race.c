/*
 * free-race.c - a guest for t_posix: a worker sets a field deep in a
 * heap block (past the bytes dlmalloc reuses for its free lists) while
 * main frees the block with nothing ordering the two. ThreadSanitizer
 * reports the free as a write of the block racing with the worker's
 * write; heisen check must too (demos/guest/malloc.c).
 */
#include <pthread.h>
#include <stdlib.h>

struct job {
	char name[64];
	int done;
};

static void *work(void *arg)
{
	struct job *j = arg;

	j->done = 1;
	return NULL;
}

int main(void)
{
	struct job *j = calloc(1, sizeof *j);
	pthread_t t;

	if (!j || pthread_create(&t, NULL, work, j))
		return 1;
	free(j);
	pthread_join(t, NULL);
	return 0;
}
