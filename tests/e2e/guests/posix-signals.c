/*
 * posix-signals.c - what t_posix checks of the guest library's signals,
 * its output compared with a native glibc build's:
 *   - a pool of 4 workers paused by pthread_kill(SIGUSR1), whose handler
 *     holds each worker until main resumes them, as thread-pool libraries
 *     do: no job runs while they are held, all run after;
 *   - raise() runs the handler before it returns, SA_SIGINFO's si_signo,
 *     a blocked signal pending until unblocked, SIG_IGN, kill(pid, 0);
 *   - nanosleep and sem_wait ended by a handler with EINTR; sleep and
 *     sem_wait cancellation points.
 * Argument "term": raise(SIGTERM) with no handler, which ends the program
 * with status 143 (128 + SIGTERM).
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define WORKERS 4
#define JOBS	8

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work_cv = PTHREAD_COND_INITIALIZER;
static pthread_cond_t done_cv = PTHREAD_COND_INITIALIZER;
static int queue[JOBS], queued, taken, done, sum, stop, waiting;
static atomic_int on_hold, held;

static void hold(int sig)
{
	atomic_fetch_add(&held, 1);
	while (atomic_load(&on_hold))
		usleep(1000);
	atomic_fetch_sub(&held, 1);
}

static void *worker(void *arg)
{
	pthread_mutex_lock(&m);
	for (;;) {
		while (taken == queued && !stop) {
			waiting++;
			pthread_cond_wait(&work_cv, &m);
			waiting--;
		}
		if (taken == queued)
			break;
		int job = queue[taken++];
		pthread_mutex_unlock(&m);
		pthread_mutex_lock(&m);
		sum += job;
		done++;
		pthread_cond_signal(&done_cv);
	}
	pthread_mutex_unlock(&m);
	return NULL;
}

static void pool(void)
{
	pthread_t t[WORKERS];
	struct sigaction sa;
	int during;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = hold;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	for (int i = 0; i < WORKERS; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	/* Held only once all wait for work, with m released: a worker held
	 * between its lock and its wait would keep m from main for good (a
	 * loaded machine found that window). */
	pthread_mutex_lock(&m);
	while (waiting < WORKERS) {
		pthread_mutex_unlock(&m);
		usleep(1000);
		pthread_mutex_lock(&m);
	}
	pthread_mutex_unlock(&m);

	atomic_store(&on_hold, 1);
	for (int i = 0; i < WORKERS; i++)
		pthread_kill(t[i], SIGUSR1);
	while (atomic_load(&held) < WORKERS)
		usleep(1000);
	printf("pool: %d workers held\n", atomic_load(&held));

	pthread_mutex_lock(&m);
	for (int i = 0; i < JOBS; i++)
		queue[queued++] = i + 1;
	pthread_cond_broadcast(&work_cv);
	pthread_mutex_unlock(&m);
	usleep(100000);
	pthread_mutex_lock(&m);
	during = done;
	pthread_mutex_unlock(&m);
	printf("pool: %d of %d jobs done while held\n", during, JOBS);

	atomic_store(&on_hold, 0);
	pthread_mutex_lock(&m);
	while (done < JOBS)
		pthread_cond_wait(&done_cv, &m);
	printf("pool: resumed, %d of %d jobs done, sum %d\n", done, JOBS, sum);
	stop = 1;
	pthread_cond_broadcast(&work_cv);
	pthread_mutex_unlock(&m);
	for (int i = 0; i < WORKERS; i++)
		pthread_join(t[i], NULL);
	printf("pool: %d workers joined, %d held\n", WORKERS,
	       atomic_load(&held));
}

static atomic_int count, info_signo;

static void counter(int sig) { atomic_fetch_add(&count, 1); }

static void with_info(int sig, siginfo_t *si, void *ctx)
{
	atomic_store(&info_signo, si->si_signo);
}

static void self_signals(void)
{
	struct sigaction sa;
	sigset_t set, pending;

	signal(SIGUSR2, counter);
	raise(SIGUSR2);
	printf("raise: handler ran before it returned: %d\n",
	       atomic_load(&count));

	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = with_info;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGUSR2, &sa, NULL);
	kill(getpid(), SIGUSR2);
	printf("sigaction SA_SIGINFO: si_signo is SIGUSR2: %d\n",
	       atomic_load(&info_signo) == SIGUSR2);

	signal(SIGUSR2, counter);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	raise(SIGUSR2);
	sigpending(&pending);
	printf("blocked: handler ran %d times, pending %d\n",
	       atomic_load(&count), sigismember(&pending, SIGUSR2));
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	printf("unblocked: handler ran %d times\n", atomic_load(&count));

	signal(SIGTERM, SIG_IGN);
	raise(SIGTERM);
	printf("SIGTERM ignored: still here, kill(getpid(), 0) = %d\n",
	       kill(getpid(), 0));
	signal(SIGTERM, SIG_DFL);
}

static atomic_int finished, result, eintr;
static sem_t sem;

static void *naps(void *arg)
{
	struct timespec ts = {60, 0}, rem = {0, 0};
	int r = nanosleep(&ts, &rem);
	atomic_store(&eintr, errno == EINTR && rem.tv_sec > 0);
	atomic_store(&result, r);
	atomic_store(&finished, 1);
	return NULL;
}

static void *sem_waits(void *arg)
{
	int r = sem_wait(&sem);
	atomic_store(&eintr, errno == EINTR);
	atomic_store(&result, r);
	atomic_store(&finished, 1);
	return NULL;
}

/* Signal t until it has finished: a signal sent before it sleeps runs
 * its handler and does not end the sleep. */
static void interrupt(const char *what, void *(*fn)(void *))
{
	pthread_t t;

	atomic_store(&finished, 0);
	pthread_create(&t, NULL, fn, NULL);
	while (!atomic_load(&finished)) {
		pthread_kill(t, SIGUSR2);
		usleep(20000);
	}
	pthread_join(t, NULL);
	printf("%s: returned %d, EINTR %d\n", what, atomic_load(&result),
	       atomic_load(&eintr));
}

static atomic_int sleeping;

static void *sleeper(void *arg)
{
	atomic_store(&sleeping, 1);
	sleep(100);
	return "not cancelled";
}

static void *sem_sleeper(void *arg)
{
	atomic_store(&sleeping, 1);
	sem_wait(&sem);
	return "not cancelled";
}

/* Cancel fn's thread once it is about to sleep: cancelled either way. */
static void cancel(const char *what, void *(*fn)(void *))
{
	pthread_t t;
	void *r;

	atomic_store(&sleeping, 0);
	pthread_create(&t, NULL, fn, NULL);
	while (!atomic_load(&sleeping))
		usleep(1000);
	pthread_cancel(t);
	pthread_join(t, &r);
	printf("%s: cancelled %d\n", what, r == PTHREAD_CANCELED);
}

int main(int argc, char **argv)
{
	struct sigaction sa;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "term")) {
		raise(SIGTERM);
		printf("not reached\n");
		return 0;
	}
	pool();
	self_signals();
	/* Without SA_RESTART: glibc's sem_wait is restarted with it. */
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = counter;
	sigaction(SIGUSR2, &sa, NULL);
	sem_init(&sem, 0, 0);
	interrupt("nanosleep", naps);
	interrupt("sem_wait", sem_waits);
	cancel("sleep", sleeper);
	cancel("sem_wait", sem_sleeper);
	return 0;
}
