/*
 * world-race.c - a guest for t_world: a race that needs the program's
 * world. It reads a number from the file its environment names
 * (WORLD_FILE), which lies in a directory granted with --dir; with a
 * non-zero number the thread adds to the counter main adds to, with no
 * lock. Without the file it exits 2, without the variable 3, and when
 * it cannot create its thread 4.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static volatile int shared, own;
static volatile int *target = &own;
static pthread_barrier_t go;

static void *work(void *arg)
{
	pthread_barrier_wait(&go);
	for (int i = 0; i < 20000; i++)
		(*target)++;
	return NULL;
}

int main(void)
{
	const char *path = getenv("WORLD_FILE");
	pthread_t t;
	FILE *f;
	int n = 0;

	if (!path)
		return 3;
	if (!(f = fopen(path, "r")))
		return 2;
	if (fscanf(f, "%d", &n) == 1 && n != 0)
		target = &shared;
	fclose(f);
	pthread_barrier_init(&go, NULL, 2);
	if (pthread_create(&t, NULL, work, NULL))
		return 4;
	pthread_barrier_wait(&go);
	for (int i = 0; i < 20000; i++)
		shared++;
	pthread_join(t, NULL);
	printf("world-race: %d %d\n", shared, own);
	return 0;
}
