/*
 * simd-race.c - a vectorised kernel whose threads overlap by one vector.
 *
 * Two threads compute out[i] = a[i] * k + b[i] over an array, frame after
 * frame, in chunks of CHUNK floats dealt out in turn (chunk c to thread
 * c % 2). Built with `heisen cc -O2 -msimd128`, clang turns the loop into
 * 128-bit loads and stores, 8 floats an iteration. CHUNK is not a multiple
 * of 8, and to spare the loop its scalar tail the kernel rounds each
 * chunk's length up to one: the last vector store of a chunk writes the
 * first 4 floats of the next chunk, which the other thread writes too.
 * Both compute the same value there, so the output comes out right and
 * nobody notices; it is still a data race between two vector stores to
 * the same 16 bytes (W/W, at the store of the kernel's loop with itself).
 * A barrier ends each frame; thread 0 then sums the frame, and a second
 * barrier keeps the next frame's stores after the sum: those are ordered.
 *
 * The twin, simd-race-free.c, runs each chunk to its real end.
 *
 * race: simd-race.c:40 simd-race.c:40
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 2
#define CHUNK	100 /* floats: 25 vectors of 4, not whole iterations of 8 */
#define CHUNKS	64
#define N	(CHUNK * CHUNKS)
#define PAD	8 /* the last chunk's rounding writes past N */

static float a[N + PAD], b[N + PAD], out[N + PAD];
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
			/* Whole iterations of 8: the bug. */
			int hi = lo + (CHUNK + 7) / 8 * 8;
			kernel(out, a, b, k, lo, hi);
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
	for (int i = 0; i < N + PAD; i++) {
		a[i] = (float)(i % 97) * 0.5f;
		b[i] = (float)(i % 13) - 6.0f;
	}
	pthread_barrier_init(&done, NULL, THREADS);
	pthread_barrier_init(&next, NULL, THREADS);
	for (long i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, work, (void *)i)) {
			fprintf(stderr, "simd-race: pthread_create failed\n");
			return 1;
		}
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	printf("simd-race: %d frames of %d floats, checksum %08x\n", frames, N,
	       total);
	return 0;
}
