/*
 * shrink.c - delta debugging over a schedule's decisions (shrink.h).
 */
#include "replay/shrink.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DEFAULT_TESTS	 500u
#define DEFAULT_BUDGET_S 60.0

static bool on_trial(void *ctx, const rep_run *r)
{
	rep_trial *t = ctx;

	/* A run the timeout ended stopped at a point that depends on the
	 * machine's speed: its schedule would not replay exactly. */
	t->reproduced = r->reproduced && r->info->status != DET_TIMEOUT;
	t->st = r->info->sched;
	t->status = r->info->status;
	t->exit_code = r->info->exit_code;
	wasm_free(t->dec);
	t->dec = NULL;
	t->ndec = r->info->ndec;
	if (t->ndec && !(t->dec = wasm_malloc(t->ndec)))
		t->nomem = true;
	else if (t->ndec)
		memcpy(t->dec, r->info->dec, t->ndec);
	return true;
}

wasm_status rep_sched_try(const rep_spec *s, det_prog *p, const rep_decision *d,
			  size_t n, rep_trial *t, wasm_err *err)
{
	rep_spec c = *s;
	rep_opts o = {.runs = 1, .jobs = 1, .any_path = true};
	rep_result res;
	wasm_status st;

	if (d) {
		c.dec = (rep_decision *)d;
		c.ndec = n;
		c.has_dec = true;
	}
	o.on_run = on_trial;
	o.ctx = t;
	t->reproduced = false;
	st = rep_replay(&c, p, &o, &res, err);
	if (!st && t->nomem)
		st = wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				  "out of memory");
	return st;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

wasm_status rep_shrink(rep_spec *s, det_prog *p, const rep_shrink_opts *o,
		       rep_shrink_result *r, wasm_err *err)
{
	uint32_t max_tests = o && o->max_tests ? o->max_tests : DEFAULT_TESTS;
	double deadline =
	    now_s() + (o && o->budget_s > 0 ? o->budget_s : DEFAULT_BUDGET_S);
	rep_decision *cur = NULL, *cand = NULL, *dec = NULL;
	size_t n = s->ndec, chunk, ndec = 0;
	rep_trial t = {0}, best = {0};
	wasm_status st;

	memset(r, 0, sizeof *r);
	if (s->mode != REP_SCHEDULE || !s->has_sched || !s->has_dec)
		return wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
				    "only a serial run's recorded decisions "
				    "can be shrunk");
	cur = wasm_malloc((n ? n : 1) * sizeof *cur);
	cand = wasm_malloc((n ? n : 1) * sizeof *cand);
	if (!cur || !cand) {
		st = wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				  "out of memory");
		goto out;
	}
	memcpy(cur, s->dec, n * sizeof *cur);
	r->before = n;
	r->switches_before = s->switches;
	if ((st = rep_sched_try(s, p, cur, n, &best, err)))
		goto out;
	r->tests = 1;
	if (!best.reproduced) {
		st = wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
				  "the recorded schedule does not reproduce "
				  "the %s: nothing to shrink",
				  s->whole_run ? "run's ending" : "race");
		goto out;
	}
	r->complete = true;
	for (chunk = n / 2 ? n / 2 : 1; n && r->complete;) {
		bool dropped = false;
		for (size_t i = 0; i < n;) {
			size_t k = chunk < n - i ? chunk : n - i;
			if (r->tests >= max_tests || now_s() > deadline) {
				r->complete = false;
				break;
			}
			memcpy(cand, cur, i * sizeof *cand);
			memcpy(cand + i, cur + i + k,
			       (n - i - k) * sizeof *cand);
			if ((st = rep_sched_try(s, p, cand, n - k, &t, err)))
				goto out;
			r->tests++;
			if (!t.reproduced) {
				i += k;
				continue;
			}
			memcpy(cur, cand, (n - k) * sizeof *cur);
			n -= k;
			dropped = true;
			wasm_free(best.dec);
			best = t;
			t.dec = NULL;
		}
		if (!n || (chunk == 1 && !dropped))
			break;
		if (!dropped || chunk > n)
			chunk = chunk / 2 ? chunk / 2 : 1;
	}
	/* The best run's own decisions: what replays it exactly. */
	if ((st = rep_sched_decode(best.dec, best.ndec, &dec, &ndec, err)))
		goto out;
	wasm_free(s->dec);
	s->dec = dec;
	s->ndec = ndec;
	s->points = best.st.events;
	s->switches = best.st.switches;
	s->digest = best.st.digest;
	r->after = ndec;
	r->switches_after = best.st.switches;
out:
	wasm_free(t.dec);
	wasm_free(best.dec);
	wasm_free(cur);
	wasm_free(cand);
	return st;
}
