/* Every annotation header `heisen cc` provides, used as their authors
 * document them (t_annotations.sh): threads named with
 * ANNOTATE_THREAD_NAME and HEISEN_THREAD_NAME race on `counter` (the one
 * race left, reported with their names); writes to `stats` in ignore
 * regions; a buffer handed over with __tsan_release/__tsan_acquire on a
 * flag whose race Helgrind's VALGRIND_HG_DISABLE_CHECKING marks; a block
 * reused as new memory (VALGRIND_HG_CLEAN_MEMORY, HEISEN_NEW_MEMORY). */
#include <dynamic_annotations.h>
#include <heisen/annotations.h>
#include <pthread.h>
#include <sanitizer/tsan_interface.h>
#include <stdio.h>
#include <stdlib.h>
#include <valgrind/helgrind.h>

static int counter;
static int stats;
static int buffer[4];
static volatile int handed;
static int *block;

static void *left(void *arg)
{
	ANNOTATE_THREAD_NAME("left-hand");
	counter++; /* race: left */
	ANNOTATE_IGNORE_WRITES_BEGIN();
	stats = 1;
	ANNOTATE_IGNORE_WRITES_END();
	buffer[0] = 7;
	block[0] = 1;
	__tsan_release((void *)&handed);
	handed = 1;
	return arg;
}

static void *right(void *arg)
{
	HEISEN_THREAD_NAME("right-hand");
	counter++; /* race: right */
	HEISEN_IGNORE_WRITES_BEGIN();
	stats = 2;
	HEISEN_IGNORE_WRITES_END();
	ANNOTATE_IGNORE_READS_AND_WRITES_BEGIN();
	printf("stats %d\n", stats > 0);
	ANNOTATE_IGNORE_READS_AND_WRITES_END();
	while (!handed)
		;
	__tsan_acquire((void *)&handed);
	printf("buffer %d\n", buffer[0]);
	return arg;
}

int main(void)
{
	pthread_t t[2];

	block = malloc(4 * sizeof *block);
	VALGRIND_HG_DISABLE_CHECKING(&handed, sizeof handed);
	pthread_create(&t[0], NULL, left, NULL);
	pthread_create(&t[1], NULL, right, NULL);
	pthread_join(t[0], NULL);
	/* Thread right never touches block: a fresh start for it, all the
	 * same. */
	VALGRIND_HG_CLEAN_MEMORY(block, 4 * sizeof *block);
	HEISEN_NEW_MEMORY(block, 4 * sizeof *block);
	block[0] = 2;
	pthread_join(t[1], NULL);
	printf("counter %d\n", counter > 0);
	free(block);
	return 0;
}
