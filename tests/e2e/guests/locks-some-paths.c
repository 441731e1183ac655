/* Both threads take `guard` around their update, but thread two skips it
 * on odd rounds: only those rounds race, and the report shows thread one
 * holding the mutex and thread two holding nothing (t_locks.sh). */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t guard = PTHREAD_MUTEX_INITIALIZER;
static int total;

static void *one(void *arg)
{
	for (int i = 0; i < 300; i++) {
		pthread_mutex_lock(&guard);
		total += 2; /* race: locked */
		pthread_mutex_unlock(&guard);
	}
	return arg;
}

static void *two(void *arg)
{
	for (int i = 0; i < 300; i++) {
		if (i % 2) {
			total += 3; /* race: unlocked */
			continue;
		}
		pthread_mutex_lock(&guard);
		total += 5; /* race: also locked */
		pthread_mutex_unlock(&guard);
	}
	return arg;
}

int main(void)
{
	pthread_t t[2];

	pthread_create(&t[0], NULL, one, NULL);
	pthread_create(&t[1], NULL, two, NULL);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	printf("total %d\n", total);
	return 0;
}
