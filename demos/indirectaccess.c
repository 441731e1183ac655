/*
 * indirectaccess.c - DataRaceBench's indirectaccess1-orig-yes (the paper's
 * indirectaccess) without OpenMP: two views of one array, xa1 = base and
 * xa2 = base + 12, are updated through an index set,
 *
 *     for (i = 0; i < N; i++) { xa1[idx[i]] += 1.0; xa2[idx[i]] += 3.0; }
 *
 * and the loop is split in two halves, one per thread (`omp parallel for`
 * with the default static schedule). Every fourth entry of the second
 * half is 12 more than the matching entry of the first half, so
 * thread 1's xa1[idx[i]] is thread 0's xa2[idx[i - N / 2]]: the same
 * element, updated by both threads at about the same time. The loop runs
 * PASSES times with a barrier after each pass. The totals depend on the
 * interleaving, so they go to stderr.
 *
 * race: indirectaccess.c:39 indirectaccess.c:40
 */
#include <pthread.h>
#include <stdio.h>

#define THREADS 2
#define N	180 /* DataRaceBench's index set size */
#define HALF	(N / THREADS)
#define STRIDE	32 /* room for the +4 and +12 neighbours of each entry */
#define PASSES	5

static double base[HALF * STRIDE + 2 * STRIDE];
static int idx[N];
static pthread_barrier_t pass_end;

static void *work(void *arg)
{
	int id = (int)(long)arg;
	double *xa1 = base, *xa2 = base + 12;

	for (int p = 0; p < PASSES; p++) {
		for (int i = id * HALF; i < (id + 1) * HALF; i++) {
			int j = idx[i];
			xa1[j] += 1.0; /* heisen:site read,write xa1 */
			xa2[j] += 3.0; /* heisen:site read,write xa2 */
		}
		pthread_barrier_wait(&pass_end);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[THREADS];
	double sum = 0;

	/* First half: k * STRIDE, whose xa2 element is k * STRIDE + 12.
	 * Second half: k * STRIDE + 12 (that same element, through xa1) for
	 * every fourth k, else k * STRIDE + 4, which aliases nothing. */
	for (int k = 0; k < HALF; k++) {
		idx[k] = k * STRIDE;
		idx[HALF + k] = k * STRIDE + (k % 4 == 0 ? 12 : 4);
	}
	pthread_barrier_init(&pass_end, NULL, THREADS);
	for (long k = 0; k < THREADS; k++)
		if (pthread_create(&t[k], NULL, work, (void *)k)) {
			fprintf(stderr,
				"indirectaccess: pthread_create failed\n");
			return 1;
		}
	for (int k = 0; k < THREADS; k++)
		pthread_join(t[k], NULL);
	pthread_barrier_destroy(&pass_end);
	for (unsigned i = 0; i < sizeof base / sizeof *base; i++)
		sum += base[i];
	printf("indirectaccess: %d threads, %d passes over %d indices\n",
	       THREADS, PASSES, N);
	fprintf(stderr, "indirectaccess: total %.0f (%.0f without races)\n",
		sum, 4.0 * N * PASSES);
	return 0;
}
