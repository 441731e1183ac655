/*
 * bench_db.c - how fast a campaign can record runs: `bench_db [N]`
 * inserts N runs (default 200000) into a fresh database in batches of
 * 1000, one run in ten with a hit on one of a few bugs, as a campaign's
 * writer does, and prints the rate.
 */
#include "db/db.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BATCH 1000
#define NBUGS 7

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int fail(const char *path, const wasm_err *e)
{
	fprintf(stderr, "bench_db: %s: %s\n", path, e->msg);
	return 1;
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/heisen-bench-db-XXXXXX", path[64], cmd[96];
	uint32_t dens[] = {100, 500, 1000};
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 200000;
	db_campaign c = {.densities = "1,5,10",
			 .ndensity = 3,
			 .density_bp = dens,
			 .profiles = "uniform,bursty",
			 .jobs = 2,
			 .seed = 1};
	wasm_err e;
	double t0, t;
	int rc = 1;
	db *d;

	if (n == 0 || !mkdtemp(dir)) {
		fprintf(stderr, "usage: bench_db [N > 0] (needs /tmp)\n");
		return 2;
	}
	snprintf(path, sizeof path, "%s/heisen.db", dir);
	if (db_open(path, &d, &e))
		return fail(path, &e);
	if (db_program_put(d, 0x0123456789abcdefull, "bench.wasm", path, 64,
			   &c.program_id, &e) ||
	    db_node_self(d, &c.node_id, &e) ||
	    (c.planned = n, db_campaign_new(d, &c, &e)))
		goto out;
	t0 = now();
	for (unsigned long i = 0; i < n; i += BATCH) {
		if (db_begin(d, &e))
			goto out;
		for (unsigned long j = i; j < i + BATCH && j < n; j++) {
			uint32_t s = (uint32_t)(j % NBUGS);
			db_hit h = {
			    .site = {{s, 1, "f", "a.c", 10},
				     {s + 1, 2, "g", "a.c", 20}},
			    .tid = {1, 2},
			    .addr = {0x100, 0x100},
			    .count = 1,
			};
			db_run r = {
			    .campaign_id = c.id,
			    .idx = j,
			    .profile = j & 1 ? "bursty" : "uniform",
			    .density_bp = dens[j % 3],
			    .seed = j * 0x9e3779b97f4a7c15ull,
			    .started = 1.7e9 + (double)j / 1000,
			    .duration_us = 800 + j % 100,
			    .status = j % 10 == 0 ? "race" : "ok",
			    .nbugs = j % 10 == 0,
			};
			if (db_run_add(d, &r, &h, r.nbugs, &e)) {
				db_rollback(d);
				goto out;
			}
		}
		if (db_commit(d, &e))
			goto out;
	}
	t = now() - t0;
	printf("db insert: %lu runs in %.2f s = %.0f runs/s\n", n, t,
	       (double)n / t);
	rc = 0;
out:
	if (rc)
		fail(path, &e);
	db_close(d);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "bench_db: could not remove %s\n", dir);
	return rc;
}
