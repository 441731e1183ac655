/*
 * unjoined-scanf.c - a guest for t_unjoined: main reads a number from
 * standard input with scanf straight into a global that a thread it never
 * joins reads with no lock. With an empty stdin scanf stores nothing and
 * there is no race (and main exits 2): it needs `--stdin`.
 */
#include <pthread.h>
#include <stdio.h>

static int limit;
static volatile int seen;

static void *work(void *arg)
{
	seen = limit;
	return NULL;
}

int main(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, work, NULL))
		return 1;
	return scanf("%d", &limit) == 1 ? 0 : 2;
}
