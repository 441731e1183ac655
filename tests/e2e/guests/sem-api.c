/*
 * sem-api.c - the guest library's semaphores call by call, for
 * tests/e2e/t_sem.sh, which compares the output with what semaphore.h
 * promises: each line is a call, what it returned and errno's name when
 * it failed, or a check that prints yes or no.
 *
 *   sem-api          every documented result and error, sem_timedwait's
 *                    deadlines (one in the past, one 200 ms ahead that
 *                    passes, one that a post from another thread beats)
 *   sem-api many     4 posters x 5000 posts taken by 4 waiters that
 *                    sleep on an empty semaphore: every unit is taken
 *                    once, and a lost wakeup hangs the program
 *   sem-api errno    2 threads x 2000 failing sem_trywait at once: their
 *                    writes of the one shared errno are the runtime's
 *                    race, which heisen check must not report
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static const char *name(int e)
{
	switch (e) {
	case EAGAIN: return "EAGAIN";
	case EINVAL: return "EINVAL";
	case ETIMEDOUT: return "ETIMEDOUT";
	case EOVERFLOW: return "EOVERFLOW";
	case ENOSYS: return "ENOSYS";
	default: return strerror(e);
	}
}

static void show(const char *call, int rc)
{
	if (rc == 0)
		printf("%s: 0\n", call);
	else
		printf("%s: %d %s\n", call, rc, name(errno));
}

static void value(sem_t *s)
{
	int v = -1;
	sem_getvalue(s, &v);
	printf("  value %d\n", v);
}

static long long ms_of(const struct timespec *t)
{
	return (long long)t->tv_sec * 1000 + t->tv_nsec / 1000000;
}

/* The CLOCK_REALTIME deadline ms milliseconds from now. */
static struct timespec in_ms(long ms)
{
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	t.tv_sec += ms / 1000;
	t.tv_nsec += (ms % 1000) * 1000000;
	if (t.tv_nsec >= 1000000000) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000;
	}
	return t;
}

static void *post_later(void *arg)
{
	struct timespec d = {0, 100 * 1000000};
	nanosleep(&d, NULL);
	sem_post(arg);
	return NULL;
}

static int api(void)
{
	sem_t s;
	struct timespec t, now;
	pthread_t th;

	errno = 0;
	show("sem_init SEM_VALUE_MAX+1", sem_init(&s, 0, SEM_VALUE_MAX + 1u));
	show("sem_init pshared=1", sem_init(&s, 1, 2));
	value(&s);
	show("sem_wait", sem_wait(&s));
	show("sem_trywait", sem_trywait(&s));
	show("sem_trywait", sem_trywait(&s));
	value(&s);
	show("sem_post", sem_post(&s));
	value(&s);
	t.tv_sec = 0;
	t.tv_nsec = 1000000000;
	show("sem_timedwait tv_nsec=1e9, a unit there", sem_timedwait(&s, &t));
	show("sem_timedwait tv_nsec=1e9", sem_timedwait(&s, &t));
	t.tv_nsec = -1;
	show("sem_timedwait tv_nsec=-1", sem_timedwait(&s, &t));
	t.tv_nsec = 0;
	show("sem_timedwait deadline 1970", sem_timedwait(&s, &t));

	t = in_ms(200);
	show("sem_timedwait +200 ms", sem_timedwait(&s, &t));
	clock_gettime(CLOCK_REALTIME, &now);
	printf("  returned after the deadline: %s\n",
	       ms_of(&now) >= ms_of(&t) ? "yes" : "no");
	printf("  within 1 s of it: %s\n",
	       ms_of(&now) - ms_of(&t) < 1000 ? "yes" : "no");
	value(&s);

	if (pthread_create(&th, NULL, post_later, &s))
		return 1;
	t = in_ms(10000);
	show("sem_timedwait +10 s, posted after 100 ms", sem_timedwait(&s, &t));
	clock_gettime(CLOCK_REALTIME, &now);
	printf("  returned before the deadline: %s\n",
	       ms_of(&now) < ms_of(&t) - 5000 ? "yes" : "no");
	pthread_join(th, NULL);
	value(&s);
	show("sem_destroy", sem_destroy(&s));

	show("sem_init SEM_VALUE_MAX", sem_init(&s, 0, SEM_VALUE_MAX));
	show("sem_post", sem_post(&s));
	value(&s);
	show("sem_trywait", sem_trywait(&s));
	show("sem_post", sem_post(&s));
	show("sem_post", sem_post(&s));
	value(&s);
	show("sem_destroy", sem_destroy(&s));

	errno = 0;
	printf("sem_open: %s %s\n",
	       sem_open("/heisen", O_CREAT, 0600, 1) == SEM_FAILED
		   ? "SEM_FAILED"
		   : "a semaphore",
	       name(errno));
	show("sem_close", sem_close(&s));
	show("sem_unlink", sem_unlink("/heisen"));
	return 0;
}

#define SIDES 4
#define POSTS 5000

static sem_t units;
static int taken; /* total, an atomic counter */

static void *poster(void *arg)
{
	for (int i = 0; i < POSTS; i++)
		if (sem_post(&units))
			return (void *)1;
	return NULL;
}

/* Takes POSTS units; the first waits for all threads to exist, so the
 * waiters find the semaphore empty and sleep. */
static void *waiter(void *arg)
{
	for (int i = 0; i < POSTS; i++) {
		sem_wait(&units);
		__atomic_fetch_add(&taken, 1, __ATOMIC_SEQ_CST);
	}
	return NULL;
}

static int many(void)
{
	pthread_t w[SIDES], p[SIDES];
	int v = -1, bad = 0;

	sem_init(&units, 0, 0);
	for (int i = 0; i < SIDES; i++)
		if (pthread_create(&w[i], NULL, waiter, NULL))
			return 1;
	for (int i = 0; i < SIDES; i++)
		if (pthread_create(&p[i], NULL, poster, NULL))
			return 1;
	for (int i = 0; i < SIDES; i++) {
		void *r;
		pthread_join(p[i], &r);
		bad |= r != NULL;
		pthread_join(w[i], NULL);
	}
	sem_getvalue(&units, &v);
	printf("many: %d taken, value %d, %s\n", taken, v,
	       bad ? "a post failed" : "every post ok");
	return 0;
}

static sem_t none;

static void *fail_often(void *arg)
{
	long failed = 0;

	for (int i = 0; i < 2000; i++)
		failed += sem_trywait(&none) < 0;
	return (void *)failed;
}

static int errnos(void)
{
	pthread_t t[2];
	long total = 0;

	sem_init(&none, 0, 0);
	for (int k = 0; k < 2; k++)
		if (pthread_create(&t[k], NULL, fail_often, NULL))
			return 1;
	for (int k = 0; k < 2; k++) {
		void *r;
		pthread_join(t[k], &r);
		total += (long)r;
	}
	printf("errno: %ld failed sem_trywait\n", total);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "many"))
		return many();
	if (argc > 1 && !strcmp(argv[1], "errno"))
		return errnos();
	return api();
}
