/*
 * bench_stats.c - the statistics' speed against the goals of the
 * analysis issue: `bench_stats [BUGS CELLS SAMPLES RUNS TRIALS]` times
 * the heisen factor of BUGS bugs over CELLS cells with SAMPLES draws
 * each (default 100 x 400 x 10 000), and a budget simulation of TRIALS
 * trials per strategy over RUNS recorded runs (default 10 000 over
 * 100 000), on synthetic data from a fixed seed. Goal: each at most 2 s
 * on 2 cores. A report only.
 */
#include "detector/stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	unsigned long bugs = argc > 5 ? strtoul(argv[1], NULL, 10) : 100;
	unsigned long cells = argc > 5 ? strtoul(argv[2], NULL, 10) : 400;
	unsigned long samples = argc > 5 ? strtoul(argv[3], NULL, 10) : 10000;
	unsigned long nruns = argc > 5 ? strtoul(argv[4], NULL, 10) : 100000;
	unsigned long trials = argc > 5 ? strtoul(argv[5], NULL, 10) : 10000;
	det_kn *c = malloc(cells * sizeof *c);
	det_sim_run *runs = malloc(nruns * sizeof *runs);
	uint32_t *hits = malloc(nruns * 2 * sizeof *hits), nh = 0;
	det_rng rng;
	double t0, tf, ts, sum = 0;
	wasm_err e;

	if (!c || !runs || !hits)
		return 3;
	det_rng_seed(&rng, 2026);
	t0 = now();
	for (unsigned long b = 0; b < bugs; b++) {
		/* Observability of this bug per row: some bugs even, some
		 * profile-specific; 4 rows (profiles) x cells / 4 densities. */
		double x[4];
		det_factor f;
		for (int r = 0; r < 4; r++)
			x[r] = 0.05 +
			       0.9 * det_rng_double(&rng) * (b % 2 ? 1 : 0.2);
		for (unsigned long i = 0; i < cells; i++) {
			uint32_t r = (uint32_t)(i % 4);
			double d = (double)(i / 4 + 1) / (double)(cells / 4);
			double p = x[r] * d * d;
			c[i].density_bp = (uint32_t)(d * 10000 + 0.5);
			c[i].n = 20;
			c[i].k = 0;
			c[i].row = r;
			for (int t = 0; t < 20; t++)
				c[i].k += det_rng_double(&rng) < p;
		}
		det_factor_opts o = {(uint32_t)samples, b, DET_PRIOR_POOLED};
		if (det_factor_estimate(c, (uint32_t)cells, false, &o, &f,
					&e)) {
			fprintf(stderr, "bench_stats: %s\n", e.msg);
			return 3;
		}
		sum += f.map;
	}
	tf = now() - t0;
	/* Runs: 4 rows x 20 densities, 1 to 10 ms, bugs seen by a few. */
	for (unsigned long i = 0; i < nruns; i++) {
		runs[i].row = (uint32_t)(i % 4);
		runs[i].density_bp = 500u * (uint32_t)(1 + (i / 4) % 20);
		runs[i].duration_us = 1000 + det_rng_below(&rng, 9000);
		runs[i].first = nh;
		runs[i].n = 0;
		for (uint32_t k = 0; k < 2; k++)
			if (det_rng_double(&rng) < 0.05) {
				hits[nh++] = (uint32_t)det_rng_below(&rng, 50);
				runs[i].n++;
			}
	}
	{
		det_sim_input in = {runs, (uint32_t)nruns, hits, 50, 0};
		t0 = now();
		for (int s = 0; s < DET_SIM_COUNT; s++) {
			det_sim_result r;
			if (det_simulate(&in, (det_strategy)s, 1.0,
					 (uint32_t)trials, (uint64_t)s, &r,
					 &e)) {
				fprintf(stderr, "bench_stats: %s\n", e.msg);
				return 3;
			}
			det_sim_free(&r);
		}
		ts = now() - t0;
	}
	printf("| statistics | work | time | goal |\n|---|---|---|---|\n");
	printf("| heisen factor | %lu bugs x %lu cells x %lu draws | %.2f s "
	       "(%.0f ns a cell-draw) | 2 s |\n",
	       bugs, cells, samples, tf,
	       tf * 1e9 / ((double)bugs * cells * samples));
	printf("| budget simulation | %lu trials x 4 strategies over %lu "
	       "runs, 1 s budget | %.2f s | 2 s |\n",
	       trials, nruns, ts);
	fprintf(stderr, "(mean F %.3f)\n", sum / (double)bugs);
	free(c);
	free(runs);
	free(hits);
	return 0;
}
