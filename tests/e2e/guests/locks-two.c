/* Two threads bump one counter, each under a lock of its own: thread one
 * holds a rwlock for reading and the mutex `left`, thread two a spin lock
 * in a heap block and the mutex `right`. Nothing orders them: every race
 * report lists both threads' locks (t_locks.sh). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t left = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t right = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t table = PTHREAD_RWLOCK_INITIALIZER;
static pthread_spinlock_t *spin;
static int counter;
/* Both threads count at once: a sweep's delays then see them collide. */
static pthread_barrier_t start;

static void *one(void *arg)
{
	pthread_barrier_wait(&start);
	for (int i = 0; i < 2000; i++) {
		pthread_rwlock_rdlock(&table);
		pthread_mutex_lock(&left);
		counter++; /* race: one */
		pthread_mutex_unlock(&left);
		pthread_rwlock_unlock(&table);
	}
	return arg;
}

static void *two(void *arg)
{
	pthread_barrier_wait(&start);
	for (int i = 0; i < 2000; i++) {
		pthread_spin_lock(spin);
		pthread_mutex_lock(&right);
		counter++; /* race: two */
		pthread_mutex_unlock(&right);
		pthread_spin_unlock(spin);
	}
	return arg;
}

int main(void)
{
	pthread_t t[2];

	spin = malloc(sizeof *spin);
	pthread_spin_init(spin, 0);
	pthread_barrier_init(&start, NULL, 2);
	pthread_create(&t[0], NULL, one, NULL);
	pthread_create(&t[1], NULL, two, NULL);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	printf("counter %d\n", counter);
	free(spin);
	return 0;
}
