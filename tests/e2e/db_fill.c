/*
 * db_fill - write a workspace database with known content through db.h,
 * without running the detector, for t_db.sh to query.
 *
 *   db_fill DB --empty          create DB with its schema and no rows
 *   db_fill DB PROGPATH         the content below; PROGPATH is where the
 *                               program "racy.wasm" was run from
 *   db_fill DB --runs N         a campaign of N generated runs, for the
 *                               benchmarks (tests/bench/fetch.sh)
 *
 * Content: campaign 1 over densities 12.5 % and 100 % x profiles default
 * and one-core, 2 runs per cell (8 runs, plan index i: profile i % 2,
 * density (i / 2) % 2); bug A (site 3 write counter_add racy.c:5 x site 7
 * read main racy.c:12) in runs 0, 1, 4; bug B (site 10 atomic-rmw, no
 * position x site 11 write worker racy.c:8) in run 4; run 3 exits 3, run
 * 5 traps. Campaign 2 has a 60 s budget and one run without bugs.
 * Prints "NAME ID" lines: campaign1, campaign2, bugA, bugB, run0 .. run7.
 *
 * With --runs, the runs are shaped like a sweep's (as bench_db's): one
 * campaign over 3 densities x 2 profiles, one run in ten detecting one of
 * 7 bugs, written in batches of 1000 as the sweep's writer does, so a
 * hundred thousand take seconds, not the hours of running them.
 */
#include "db/db.h"
#include "rewriter/instrument.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct ids {
	int64_t bug_a, bug_b;
} ids;

static bool note_bug(void *ctx, const db_run_bug *rb)
{
	ids *x = ctx;

	if (!x->bug_a)
		x->bug_a = rb->bug_id;
	else if (rb->bug_id != x->bug_a)
		x->bug_b = rb->bug_id;
	return true;
}

static const db_hit hit_a = {
    .site = {{3, RW_WRITE, "counter_add", "racy.c", 5},
	     {7, RW_READ, "main", "racy.c", 12}},
    .tid = {1, 2},
    .addr = {0x100, 0x104},
    .count = 4,
};

static const db_hit hit_b = {
    .site = {{10, RW_ATOMIC_RMW, NULL, NULL, 0},
	     {11, RW_WRITE, "worker", "racy.c", 8}},
    .tid = {3, 1},
    .addr = {0x200, 0x200},
    .count = 1,
};

static wasm_status fill(db *d, const char *progpath, wasm_err *e)
{
	static const uint32_t dens[2] = {1250, 10000};
	static const uint32_t one[1] = {10000};
	db_campaign c1 = {0}, c2 = {0};
	int64_t prog, node, runs[8];
	ids x = {0, 0};
	wasm_status st;

	if ((st = db_node_self(d, &node, e)) ||
	    (st = db_program_put(d, 0x1122334455667788ull, "racy.wasm",
				 progpath, 40, &prog, e)))
		return st;
	c1.program_id = prog;
	c1.node_id = node;
	c1.densities = "12.5,100";
	c1.ndensity = 2;
	c1.density_bp = (uint32_t *)dens;
	c1.profiles = "default,one-core";
	c1.runs = 2;
	c1.jobs = 2;
	c1.seed = 0xdeadbeefcafef00dull;
	c1.delay = 2000;
	c1.timeout_s = 10;
	c1.status = "done";
	c1.planned = 8;
	if ((st = db_campaign_new(d, &c1, e)))
		return st;
	if ((st = db_begin(d, e)))
		return st;
	for (int i = 0; i < 8; i++) {
		db_run r = {0};
		db_hit hits[2];
		uint32_t n = 0;
		r.campaign_id = c1.id;
		r.node_id = node;
		r.idx = (uint64_t)i;
		r.profile = i % 2 ? "one-core" : "default";
		r.density_bp = dens[(i / 2) % 2];
		r.seed = 0x0123456789abcdefull + (uint64_t)i;
		r.started = 1700000000.0 + i;
		r.duration_us = 1000u * (uint64_t)(i + 1) + 500;
		r.status = i == 3 ? "exit" : i == 5 ? "trap" : "ok";
		r.exit_code = i == 3 ? 3 : i == 5 ? -1 : 0;
		r.msg = i == 5 ? "integer divide by zero" : "";
		if (i == 0 || i == 1 || i == 4)
			hits[n++] = hit_a;
		if (i == 4)
			hits[n++] = hit_b;
		r.nbugs = n;
		if ((st = db_run_add(d, &r, hits, n, e)))
			return st;
		runs[i] = r.id;
	}
	if ((st = db_commit(d, e)))
		return st;
	if ((st = db_run_bugs(d, runs[0], note_bug, &x, e)) ||
	    (st = db_run_bugs(d, runs[4], note_bug, &x, e)))
		return st;

	c2.program_id = prog;
	c2.node_id = node;
	c2.densities = "100";
	c2.ndensity = 1;
	c2.density_bp = (uint32_t *)one;
	c2.profiles = "default";
	c2.budget_s = 60;
	c2.jobs = 1;
	c2.seed = 7;
	c2.delay = 2000;
	c2.timeout_s = 10;
	c2.status = "stopped";
	if ((st = db_campaign_new(d, &c2, e)))
		return st;
	{
		db_run r = {0};
		r.campaign_id = c2.id;
		r.node_id = node;
		r.profile = "default";
		r.density_bp = 10000;
		r.seed = 42;
		r.started = 1700000100.0;
		r.duration_us = 250;
		r.status = "ok";
		r.msg = "";
		if ((st = db_run_add(d, &r, NULL, 0, e)))
			return st;
	}
	printf("campaign1 %" PRId64 "\ncampaign2 %" PRId64 "\nbugA %" PRId64
	       "\nbugB %" PRId64 "\n",
	       c1.id, c2.id, x.bug_a, x.bug_b);
	for (int i = 0; i < 8; i++)
		printf("run%d %" PRId64 "\n", i, runs[i]);
	return WASM_OK;
}

static wasm_status fill_runs(db *d, unsigned long n, wasm_err *e)
{
	static const uint32_t dens[3] = {100, 5000, 10000};
	db_campaign c = {.densities = "1,50,100",
			 .ndensity = 3,
			 .density_bp = (uint32_t *)dens,
			 .profiles = "default,throttled",
			 .jobs = 2,
			 .seed = 1,
			 .delay = 50,
			 .timeout_s = 10,
			 .status = "done"};
	wasm_status st;

	if ((st = db_program_put(d, 0x0123456789abcdefull, "bench.wasm",
				 "/bench/bench.wasm", 64, &c.program_id, e)) ||
	    (st = db_node_self(d, &c.node_id, e)) ||
	    (c.planned = n, c.runs = (uint32_t)((n + 5) / 6),
	     st = db_campaign_new(d, &c, e)))
		return st;
	for (unsigned long i = 0; i < n; i += 1000) {
		if ((st = db_begin(d, e)))
			return st;
		for (unsigned long j = i; j < i + 1000 && j < n; j++) {
			uint32_t s = (uint32_t)(j % 7);
			db_hit h = {
			    .site = {{s, RW_READ, "step", "bench.c", 10 + s},
				     {s + 1, RW_WRITE, "step", "bench.c", 20}},
			    .tid = {1, 2},
			    .addr = {0x100, 0x100},
			    .count = 1,
			};
			db_run r = {
			    .campaign_id = c.id,
			    .node_id = c.node_id,
			    .idx = j,
			    .profile = j & 1 ? "throttled" : "default",
			    .density_bp = dens[(j / 2) % 3],
			    .seed = j * 0x9e3779b97f4a7c15ull,
			    .started = 1.7e9 + (double)j / 1000,
			    .duration_us = 800 + j % 100,
			    .status = "ok",
			    .msg = "",
			    .nbugs = j % 10 == 0,
			};
			if ((st = db_run_add(d, &r, &h, r.nbugs, e))) {
				db_rollback(d);
				return st;
			}
		}
		if ((st = db_commit(d, e)))
			return st;
	}
	return WASM_OK;
}

int main(int argc, char **argv)
{
	db *d = NULL;
	wasm_err e;
	wasm_status st;

	bool runs = argc == 4 && !strcmp(argv[2], "--runs");
	unsigned long n = runs ? strtoul(argv[3], NULL, 10) : 0;

	if (runs ? n == 0 : argc != 3) {
		fprintf(stderr, "usage: db_fill DB --empty | DB PROGPATH | "
				"DB --runs N\n");
		return 2;
	}
	wasm_err_clear(&e);
	st = db_open(argv[1], &d, &e);
	if (!st && runs)
		st = fill_runs(d, n, &e);
	else if (!st && strcmp(argv[2], "--empty"))
		st = fill(d, argv[2], &e);
	if (d)
		db_close(d);
	if (st) {
		fprintf(stderr, "db_fill: %s: %s\n", argv[1], e.msg);
		return 1;
	}
	return 0;
}
