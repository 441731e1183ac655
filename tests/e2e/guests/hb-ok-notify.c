/*
 * hb-ok-notify.c - a race-free guest for `heisen check` ordered by
 * memory.atomic.notify and the wait it wakes, and nothing else.
 *
 * The waiter parks on `word` (which nobody ever changes); the notifier
 * writes `data` with a plain store, then notifies `word` until the notify
 * reports that it woke somebody. The woken waiter reads `data` with a
 * plain load: only the notify → wake edge orders the two, and it does.
 * The `ready` flag (an atomic the waiter sets and the notifier reads) goes
 * the other way and orders nothing here.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

static int word;
static int data;
static atomic_int ready;

static void *waiter(void *arg)
{
	atomic_store(&ready, 1);
	/* 0: woken; 1: word was not 0 (never); 2: timed out (never). */
	while (__builtin_wasm_memory_atomic_wait32(&word, 0, -1) != 0)
		;
	return (void *)(long)data;
}

static void *notifier(void *arg)
{
	struct timespec t = {0, 1000 * 1000};

	while (!atomic_load(&ready))
		nanosleep(&t, NULL);
	data = 42;
	while (__builtin_wasm_memory_atomic_notify(&word, 1) == 0)
		nanosleep(&t, NULL);
	return arg;
}

int main(void)
{
	pthread_t w, n;
	void *got;

	if (pthread_create(&w, NULL, waiter, NULL) ||
	    pthread_create(&n, NULL, notifier, NULL))
		return 1;
	pthread_join(n, NULL);
	pthread_join(w, &got);
	printf("%ld\n", (long)got);
	return got == (void *)42 ? 0 : 1;
}
