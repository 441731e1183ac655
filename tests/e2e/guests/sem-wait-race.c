/*
 * sem-wait-race.c - a race that a semaphore does not order: the waiter
 * writes `note` before its sem_wait, the poster after its sem_post.
 * sem_wait acquires and sem_post releases, so nothing orders the waiter's
 * write before the poster's (ThreadSanitizer reports it natively), and
 * `heisen check` must report the two lines marked "race" in every run: a
 * semaphore whose waiters wrote a word that posts read would order them.
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>

static sem_t s;
static int note;

static void *waiter(void *arg)
{
	note = 1; /* race: waiter */
	sem_wait(&s);
	return NULL;
}

static void *poster(void *arg)
{
	struct timespec d = {0, 20 * 1000000};

	/* Mostly after the waiter has gone to sleep. */
	nanosleep(&d, NULL);
	sem_post(&s);
	note = 2; /* race: poster */
	return NULL;
}

int main(void)
{
	pthread_t w, p;

	if (sem_init(&s, 0, 0) || pthread_create(&w, NULL, waiter, NULL) ||
	    pthread_create(&p, NULL, poster, NULL))
		return 1;
	pthread_join(w, NULL);
	pthread_join(p, NULL);
	printf("sem-wait-race: note %d\n", note);
	return 0;
}
