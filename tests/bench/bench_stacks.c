/*
 * bench_stacks.c - what taking call stacks and values at a collision costs
 * a run at density 100 % (detector/race.h "Stacks and values at a
 * collision"), against the same runs with capture off:
 *
 *   bench_stacks PROGRAM.wasm ROUNDS [ARGS...]
 *
 * Each round runs the program once with capture and once without, in
 * alternating order, every site armed, default profile and delay; the
 * median of each side's run times is printed as one line:
 * with_s without_s ratio bugs (the most bugs a run found). Exit 3 when a
 * run fails.
 */
#include "detector/campaign.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int devnull = open("/dev/null", O_WRONLY);
	uint32_t rounds;
	double *t[2];
	uint64_t bugs = 0;
	uint8_t *mask;
	det_prog *p;
	wasm_err e;

	if (argc < 3 || devnull < 0 || (rounds = (uint32_t)atoi(argv[2])) < 1 ||
	    rounds > 1000) {
		fprintf(stderr,
			"usage: bench_stacks PROGRAM.wasm ROUNDS [ARGS...]\n");
		return 2;
	}
	if (det_prog_load(argv[1], &p, &e)) {
		fprintf(stderr, "bench_stacks: %s: %s\n", argv[1], e.msg);
		return 3;
	}
	t[0] = calloc(rounds, sizeof *t[0]);
	t[1] = calloc(rounds, sizeof *t[1]);
	mask = malloc(p->sites.nsites + 1);
	if (!t[0] || !t[1] || !mask)
		return 3;
	memset(mask, 1, p->sites.nsites + 1);
	/* The program's argv: its own name, then ARGS. */
	argv[2] = argv[1];
	for (uint32_t i = 0; i < rounds; i++)
		for (int k = 0; k < 2; k++) {
			/* Alternate which goes first: a machine that slows
			 * down or warms up weighs on both alike. */
			int off = (int)((i + (uint32_t)k) & 1);
			det_run_opts o = {0};
			det_run_result r;
			o.algo = DET_RACE;
			o.mask = mask;
			o.delay = DET_DEFAULT_DELAY;
			o.no_stacks = off;
			o.argv = (const char *const *)argv + 2;
			o.argc = (uint32_t)argc - 2;
			o.stdio[1] = devnull;
			o.stdio[2] = devnull;
			if (det_run(p->cm, &p->sites, &o, &r, &e) ||
			    r.status != DET_OK) {
				fprintf(stderr, "bench_stacks: %s: %s\n",
					argv[1], r.msg);
				return 3;
			}
			t[off][i] = (double)r.duration_ns / 1e9;
			bugs = r.nbugs > bugs ? r.nbugs : bugs;
			det_run_result_free(&r);
		}
	qsort(t[0], rounds, sizeof *t[0], cmp_double);
	qsort(t[1], rounds, sizeof *t[1], cmp_double);
	printf("%.6f %.6f %.4f %llu\n", t[0][rounds / 2], t[1][rounds / 2],
	       t[0][rounds / 2] / t[1][rounds / 2], (unsigned long long)bugs);
	free(t[0]);
	free(t[1]);
	free(mask);
	det_prog_free(p);
	close(devnull);
	return 0;
}
