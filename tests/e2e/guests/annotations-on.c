/* A program annotated for ThreadSanitizer (t_annotations.sh): a
 * statistics counter whose lost updates do not matter, annotated benign,
 * and a message handed over by a custom handshake on a plain flag, the
 * flag's own race annotated benign and the hand-over ordered with
 * AnnotateHappensBefore/After. It declares the annotations itself, as
 * TSan users do, so that it builds natively with -fsanitize=thread too.
 * annotations-off.c is the same program without them: every race is
 * reported there. */
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>

#ifndef NO_ANNOTATIONS
void AnnotateBenignRaceSized(const char *file, int line,
			     const volatile void *mem, size_t size,
			     const char *description);
void AnnotateHappensBefore(const char *file, int line,
			   const volatile void *obj);
void AnnotateHappensAfter(const char *file, int line, const volatile void *obj);
#define BENIGN(p, what)                                                        \
	AnnotateBenignRaceSized(__FILE__, __LINE__, (p), sizeof *(p), (what))
#define HAPPENS_BEFORE(p) AnnotateHappensBefore(__FILE__, __LINE__, (p))
#define HAPPENS_AFTER(p)  AnnotateHappensAfter(__FILE__, __LINE__, (p))
#else
#define BENIGN(p, what)	  ((void)0)
#define HAPPENS_BEFORE(p) ((void)0)
#define HAPPENS_AFTER(p)  ((void)0)
#endif

static volatile int hits; /* statistics: a lost update is fine */
static volatile int ready; /* the handshake's flag */
static int message;	   /* what the flag hands over */
/* Both threads count at once: a sweep's delays then see them collide. */
static pthread_barrier_t start;

static void *producer(void *arg)
{
	pthread_barrier_wait(&start);
	for (int i = 0; i < 5000; i++)
		hits++; /* race: hits-producer */
	message = 42;	/* race: message-write */
	HAPPENS_BEFORE(&ready);
	ready = 1; /* race: ready-write */
	return arg;
}

static void *consumer(void *arg)
{
	pthread_barrier_wait(&start);
	for (int i = 0; i < 5000; i++)
		hits++; /* race: hits-consumer */
	while (!ready) /* race: ready-read */
		;
	HAPPENS_AFTER(&ready);
	printf("message %d\n", message); /* race: message-read */
	return arg;
}

int main(void)
{
	pthread_t t[2];

	BENIGN(&hits, "statistics");
	BENIGN(&ready, "the handshake's flag");
	pthread_barrier_init(&start, NULL, 2);
	pthread_create(&t[0], NULL, producer, NULL);
	pthread_create(&t[1], NULL, consumer, NULL);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	printf("hits %d\n", hits > 0);
	return 0;
}
