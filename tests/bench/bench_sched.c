/*
 * bench_sched.c - what serial execution (core/engine.h, replay/sched.h)
 * costs on one program, against the same happens-before run with its
 * threads running at once, in one process:
 *
 *   bench_sched PROGRAM.wasm [ARGS...]
 *
 * PROGRAM (instrumented by det_prog_load when it is not) runs with every
 * site probed by the happens-before detector: in parallel (the default
 * profile), serially under random:0.05 (seed 1), replaying that run's
 * schedule with fixed, and under pct:3 (seed 1). Each best of 3 by its
 * own run time. Prints one line: parallel_s serial_s replay_s pct_s
 * points switches digest_ok (1 when every replay took the recorded
 * path). Exit 3 when a run fails.
 */
#include "detector/campaign.h"
#include "replay/sched.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct bench {
	det_prog *p;
	uint8_t *mask;
	const char *const *args;
	uint32_t nargs;
	int devnull;
} bench;

/* One run under s (NULL: parallel); its time, or < 0 when it failed. */
static double run(const bench *b, rep_sched *s, det_run_result *r)
{
	det_run_opts o = {0};
	eng_sched hook;
	wasm_err e;

	o.algo = DET_HB;
	o.mask = b->mask;
	o.profile = det_profile_find("default");
	o.argv = b->args;
	o.argc = b->nargs;
	o.stdio[0] = 0;
	o.stdio[1] = b->devnull;
	o.stdio[2] = 2;
	if (s) {
		hook = rep_sched_hook(s);
		o.sched = &hook;
		o.sched_seed = 1;
	}
	if (det_run(b->p->cm, &b->p->sites, &o, r, &e) || r->status != DET_OK) {
		fprintf(stderr, "bench_sched: %s\n",
			r->msg[0] ? r->msg : e.msg);
		return -1;
	}
	return (double)r->duration_ns / 1e9;
}

int main(int argc, char **argv)
{
	bench b = {0};
	double best[4] = {1e9, 1e9, 1e9, 1e9};
	uint64_t points = 0, digest = 0;
	uint32_t switches = 0;
	rep_decision *rec = NULL;
	size_t nrec = 0;
	bool same = true;
	wasm_err e;

	b.devnull = open("/dev/null", O_WRONLY);
	if (argc < 2 || b.devnull < 0) {
		fprintf(stderr, "usage: bench_sched PROGRAM.wasm [ARGS...]\n");
		return 2;
	}
	b.args = (const char *const *)argv + 1;
	b.nargs = (uint32_t)argc - 1;
	if (det_prog_load(argv[1], &b.p, &e)) {
		fprintf(stderr, "bench_sched: %s: %s\n", argv[1], e.msg);
		return 3;
	}
	if (!(b.mask = malloc(b.p->sites.nsites + 1)))
		return 3;
	memset(b.mask, 1, b.p->sites.nsites + 1);
	for (int mode = 0; mode < 4; mode++)
		for (int i = 0; i < 3; i++) {
			rep_sched_spec spec = {.seed = 1};
			rep_sched *s = NULL;
			det_run_result r;
			double t;
			if (mode == 1)
				rep_sched_parse("random:0.05", &spec, &e);
			else if (mode == 2)
				spec.strategy = REP_SCHED_FIXED;
			else if (mode == 3)
				rep_sched_parse("pct:3", &spec, &e);
			if (mode && !(s = rep_sched_new(&spec, rec, nrec)))
				return 3;
			if ((t = run(&b, s, &r)) < 0)
				return 3;
			if (mode == 1 && !rec) {
				const rep_decision *d =
				    rep_sched_decisions(s, &nrec);
				rec = malloc((nrec + 1) * sizeof *rec);
				if (!rec)
					return 3;
				memcpy(rec, d, nrec * sizeof *rec);
				points = r.sched.events;
				switches = r.sched.switches;
				digest = r.sched.digest;
			}
			if (mode == 2 && r.sched.digest != digest)
				same = false;
			best[mode] = t < best[mode] ? t : best[mode];
			det_run_result_free(&r);
			rep_sched_free(s);
		}
	printf("%.6f %.6f %.6f %.6f %llu %u %d\n", best[0], best[1], best[2],
	       best[3], (unsigned long long)points, switches, same);
	free(rec);
	free(b.mask);
	det_prog_free(b.p);
	close(b.devnull);
	return 0;
}
