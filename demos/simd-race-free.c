/*
 * simd-race-free.c - the twin of simd-race.c without its race: each chunk
 * of the vectorised kernel ends where it should, so the two threads'
 * vector stores never touch the same bytes (the loop finishes a chunk's
 * last 4 floats with scalar stores instead). Everything else is the same:
 * two threads, CHUNK-float chunks dealt out in turn, two barriers a frame
 * around thread 0's checksum. Built with `heisen cc -O2 -msimd128`. Its
 * argument is the number of frames (default 20); with -DCHUNKS=N for a
 * bigger array it is the SIMD benchmark of `make bench`
 * (tests/bench/simd.sh), built with and without -msimd128.
 *
 * race: none
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 2
#define CHUNK	100 /* floats: 25 vectors of 4 */
/* tests/bench/simd.sh makes the array bigger. */
#ifndef CHUNKS
#define CHUNKS 64
#endif
#define N (CHUNK * CHUNKS)

static float a[N], b[N], out[N];
static unsigned total;
static pthread_barrier_t done, next;

static void kernel(float *restrict o, const float *restrict x,
		   const float *restrict y, float k, int lo, int hi)
{
	for (int i = lo; i < hi; i++)
		o[i] = x[i] * k + y[i]; /* heisen:site write o */
}

/* The frame's checksum: the bits of every float, weighted by position
 * (a sum, so that it vectorises too). */
static unsigned checksum(void)
{
	unsigned s = 0;

	for (int i = 0; i < N; i++) {
		unsigned u;
		memcpy(&u, &out[i], sizeof u);
		s += u * (unsigned)(i + 1);
	}
	return s;
}

static int frames = 20;

static void *work(void *arg)
{
	int id = (int)(long)arg;

	for (int f = 0; f < frames; f++) {
		float k = 1.0f + 0.25f * (float)(f % 16);
		for (int c = id; c < CHUNKS; c += THREADS) {
			int lo = c * CHUNK;
			kernel(out, a, b, k, lo, lo + CHUNK);
		}
		pthread_barrier_wait(&done);
		if (id == 0)
			total = total * 33 + checksum();
		pthread_barrier_wait(&next);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[THREADS];

	if (argc > 1)
		frames = atoi(argv[1]);
	for (int i = 0; i < N; i++) {
		a[i] = (float)(i % 97) * 0.5f;
		b[i] = (float)(i % 13) - 6.0f;
	}
	pthread_barrier_init(&done, NULL, THREADS);
	pthread_barrier_init(&next, NULL, THREADS);
	for (long i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, work, (void *)i)) {
			fprintf(stderr,
				"simd-race-free: pthread_create failed\n");
			return 1;
		}
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	printf("simd-race-free: %d frames of %d floats, checksum %08x\n",
	       frames, N, total);
	return 0;
}
