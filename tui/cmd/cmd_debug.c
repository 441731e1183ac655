/*
 * cmd_debug.c - the debugger's commands over a serial execution
 * (replay/trace.h): `heisen timeline` prints its events, `heisen debug`
 * opens them in the Timeline screen, `heisen bisect` finds the switch
 * that decides between a failing and a passing schedule.
 */
#include "tui/cli/cli.h"
#include "tui/cmd/cmd.h"
#include "tui/report/jsonw.h"
#include "tui/report/race.h"
#include "tui/report/report.h"

#include "db/db.h"
#include "detector/campaign.h"
#include "replay/bisect.h"
#include "replay/sched.h"
#include "replay/shrink.h"
#include "replay/trace.h"
#include "rewriter/instrument.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void print_stack(FILE *out, const db_stack *st)
{
	if (!st || !st->n)
		fprintf(out,
			"    (no stack: the thread was not in guest code)\n");
	else
		tui_print_stack(out, st);
}

/* The header: what ran and how it ended, and its races' rows. */
static void print_head(FILE *out, const det_prog *p, const rep_spec *s,
		       const rep_trace *t)
{
	char name[64], a[320], b[320];

	rep_sched_name(&s->sched, name, sizeof name);
	fprintf(out,
		"%s: schedule %s seed 0x%016" PRIx64 ", %" PRIu64
		" points (%" PRIu64 " shown as rows%s), %u switches, %s",
		p->name, name, s->sched.seed, t->points, t->n,
		t->truncated ? ", the rest past --max-events" : "",
		t->res.sched.switches, det_status_name(t->res.status));
	if (t->res.status == DET_OK || t->res.status == DET_EXIT)
		fprintf(out, " %d", t->res.exit_code);
	else if (t->res.msg[0])
		fprintf(out, " (%s)", t->res.msg);
	fprintf(out, "\n");
	if (!t->fits)
		fprintf(out, "warning: the schedule does not fit: %s\n",
			t->why);
	else if (t->diverged != UINT64_MAX ||
		 (s->has_dec && t->res.sched.digest != s->digest))
		fprintf(out,
			"warning: the run left the recorded schedule (at point "
			"%" PRIu64 "): the program or its inputs differ\n",
			t->diverged);
	for (uint32_t i = 0; i < t->nrace; i++) {
		const rep_trace_race *r = &t->race[i];
		tui_event_where(p, t, r->ev[0], a, sizeof a);
		tui_event_where(p, t, r->ev[1], b, sizeof b);
		fprintf(out,
			"race %u: event %" PRIu64
			" (T%u, %s) and event %" PRIu64 " (T%u, %s)\n",
			i + 1, r->ev[0], t->ev[r->ev[0]].thread, a, r->ev[1],
			t->ev[r->ev[1]].thread, b);
	}
}

static void json_timeline(FILE *out, const det_prog *p, const rep_spec *s,
			  const rep_trace *t, uint64_t from, uint64_t count,
			  const rep_trace_filter *f, bool watch,
			  int64_t stack_at)
{
	tui_json j;
	char name[64];
	uint64_t shown = 0;

	tui_json_init(&j, out);
	tui_json_obj(&j, NULL);
	tui_json_str(&j, "schema", "heisen.timeline/1");
	tui_json_str(&j, "program", p->name);
	tui_json_obj(&j, "schedule");
	rep_sched_name(&s->sched, name, sizeof name);
	tui_json_str(&j, "strategy", name);
	tui_json_hex64(&j, "seed", s->sched.seed);
	tui_json_u64(&j, "points", t->points);
	tui_json_u64(&j, "switches", t->res.sched.switches);
	tui_json_hex64(&j, "digest", t->res.sched.digest);
	tui_json_bool(&j, "fits", t->fits);
	if (t->diverged != UINT64_MAX)
		tui_json_u64(&j, "diverged_at", t->diverged);
	else
		tui_json_null(&j, "diverged_at");
	tui_json_end(&j, '}');
	tui_json_str(&j, "status", det_status_name(t->res.status));
	tui_json_i64(&j, "exit_code", t->res.exit_code);
	tui_json_str(&j, "message", t->res.msg);
	tui_json_u64(&j, "rows", t->n);
	tui_json_bool(&j, "truncated", t->truncated);
	tui_json_arr(&j, "races");
	for (uint32_t i = 0; i < t->nrace; i++) {
		tui_json_obj(&j, NULL);
		tui_json_arr(&j, "events");
		tui_json_u64(&j, NULL, t->race[i].ev[0]);
		tui_json_u64(&j, NULL, t->race[i].ev[1]);
		tui_json_end(&j, ']');
		tui_json_end(&j, '}');
	}
	tui_json_end(&j, ']');
	tui_json_u64(&j, "from", from);
	tui_json_arr(&j, "events");
	for (uint64_t i = from; i < t->n && (!count || shown < count); i++) {
		if (!rep_trace_matches(t, i, f))
			continue;
		tui_json_event(&j, p, t, i, watch);
		shown++;
	}
	tui_json_end(&j, ']');
	if (stack_at >= 0 && rep_trace_stack_at(t, (uint64_t)stack_at)) {
		tui_json_obj(&j, "stack");
		tui_json_u64(&j, "event", (uint64_t)stack_at);
		tui_json_stack(&j, "frames",
			       rep_trace_stack_at(t, (uint64_t)stack_at));
		tui_json_end(&j, '}');
	} else {
		tui_json_null(&j, "stack");
	}
	tui_json_end(&j, '}');
	tui_json_done(&j);
}

int tui_cmd_timeline(const tui_cmd *cmd, const tui_args *a, FILE *out,
		     FILE *err)
{
	const char *fromv = tui_opt_value(cmd, a, "--from");
	const char *countv = tui_opt_value(cmd, a, "--count");
	const char *threadv = tui_opt_value(cmd, a, "--thread");
	const char *atv = tui_opt_value(cmd, a, "--at");
	const char *watchv = tui_opt_value(cmd, a, "--watch");
	const char *stackv = tui_opt_value(cmd, a, "--stack");
	const char *maxv = tui_opt_value(cmd, a, "--max-events");
	bool json = tui_opt_value(cmd, a, "--json") != NULL;
	rep_spec s = {0};
	rep_trace t = {0};
	rep_trace_opts o = {.out_fd = -1};
	rep_trace_filter f = {.thread = UINT32_MAX};
	det_prog *p = NULL;
	uint8_t *sites = NULL;
	const char *path;
	uint64_t from = 0, count = 100, stack_ev = 0, shown = 0;
	uint32_t n;
	wasm_err e;
	wasm_status st;
	int rc;

	if ((fromv && !tui_parse_u64(fromv, &from)) ||
	    (countv && !tui_parse_u64(countv, &count)) ||
	    (threadv &&
	     !tui_parse_u32(threadv, 0, UINT32_MAX - 1, &f.thread)) ||
	    (stackv && !tui_parse_u64(stackv, &stack_ev)) ||
	    (maxv && (!tui_parse_u64(maxv, &o.max_events) || !o.max_events))) {
		fprintf(err,
			"heisen timeline: --from, --count, --thread, --stack "
			"and --max-events take a number (--max-events at "
			"least 1)\n");
		return TUI_EXIT_USAGE;
	}
	if (watchv && !tui_parse_watch(watchv, &o.watch_addr, &o.watch_width)) {
		fprintf(err,
			"heisen timeline: --watch takes ADDR or ADDR:WIDTH "
			"(width 1 to 8 bytes), got '%s'\n",
			watchv);
		return TUI_EXIT_USAGE;
	}
	if ((rc = tui_open_schedule(cmd, a, &s, &p, &path, err)))
		goto out;
	if (atv) {
		if (!(sites =
			  wasm_malloc(p->sites.nsites ? p->sites.nsites : 1))) {
			fprintf(err, "heisen timeline: out of memory\n");
			rc = TUI_EXIT_INTERNAL;
			goto out;
		}
		if ((st = rep_trace_place(p, atv, sites, &n, &e))) {
			fprintf(err, "heisen timeline: --at %s\n", e.msg);
			rc = tui_exit_for(st);
			goto out;
		}
		f.sites = sites;
	}
	if (stackv) {
		o.stacks = &stack_ev;
		o.nstacks = 1;
	}
	fflush(out);
	if ((st = rep_trace_run(&s, p, &o, &t, &e))) {
		fprintf(err, "heisen timeline: %s\n", e.msg);
		rc = tui_exit_for(st);
		goto out;
	}
	if (stackv && stack_ev >= t.n) {
		fprintf(err,
			"heisen timeline: --stack %" PRIu64 ": the run has "
			"events 0 to %" PRIu64 "\n",
			stack_ev, t.n ? t.n - 1 : 0);
		rc = TUI_EXIT_USAGE;
		goto out;
	}
	if (json) {
		json_timeline(out, p, &s, &t, from, count, &f,
			      o.watch_width != 0,
			      stackv ? (int64_t)stack_ev : -1);
	} else {
		print_head(out, p, &s, &t);
		for (uint64_t i = from; i < t.n && (!count || shown < count);
		     i++) {
			char what[96], where[320];
			if (!rep_trace_matches(&t, i, &f))
				continue;
			tui_event_what(&t, i, what, sizeof what);
			tui_event_where(p, &t, i, where, sizeof where);
			fprintf(out, "%c%8" PRIu64 "  T%-3u %-36s %s",
				t.ev[i].mark & REP_MARK_RACE ? '!' : ' ', i,
				t.ev[i].thread, what, where);
			if (o.watch_width)
				fprintf(out, "  [0x%x]=%" PRIu64, o.watch_addr,
					t.ev[i].watch);
			fprintf(out, "\n");
			shown++;
		}
		if (stackv) {
			fprintf(out, "stack of event %" PRIu64 ":\n", stack_ev);
			print_stack(out, rep_trace_stack_at(&t, stack_ev));
		}
	}
	rc = TUI_EXIT_OK;
out:
	rep_trace_clear(&t);
	wasm_free(sites);
	det_prog_free(p);
	rep_spec_clear(&s);
	return rc;
}

/* ---- heisen bisect ------------------------------------------------------ */

/* A schedule named by --fail/--pass: a run id of the workspace, or a
 * schedule repro file. */
static int schedule_arg(const tui_cmd *cmd, const char *opt, const char *v,
			const char *dbopt, db **d, rep_spec *s, FILE *err)
{
	const char *dbpath;
	int64_t run;
	wasm_err e;
	wasm_status st;
	int rc;

	if (strspn(v, "0123456789") != strlen(v)) {
		if ((st = rep_read(v, s, &e))) {
			fprintf(err, "heisen bisect: %s: %s\n", opt, e.msg);
			return tui_exit_for(st);
		}
	} else {
		if ((rc = tui_parse_id(cmd, "run", v, "runs CAMPAIGN", &run,
				       err)))
			return rc;
		if (!*d && (rc = tui_open_existing_db(dbopt, d, &dbpath, err)))
			return rc;
		if ((st = rep_spec_from_run(*d, run, s, &e))) {
			fprintf(err, "heisen bisect: %s %s: %s\n", opt, v,
				e.msg);
			return tui_exit_for(st);
		}
	}
	if (!s->has_sched) {
		fprintf(err,
			"heisen bisect: %s %s is not a serial run's schedule "
			"(find one with 'heisen explore')\n",
			opt, v);
		return TUI_EXIT_USAGE;
	}
	s->mode = REP_SCHEDULE;
	return TUI_EXIT_OK;
}

/* The decisions of spec s: its own, or those its strategy and seed make
 * (one run). */
static int decisions_of(rep_spec *s, det_prog *p, FILE *err)
{
	rep_trial t = {0};
	wasm_err e;
	wasm_status st;

	if (s->has_dec)
		return TUI_EXIT_OK;
	if (!(st = rep_sched_try(s, p, NULL, 0, &t, &e)))
		st = rep_sched_decode(t.dec, t.ndec, &s->dec, &s->ndec, &e);
	wasm_free(t.dec);
	if (st) {
		fprintf(err, "heisen bisect: %s\n", e.msg);
		return tui_exit_for(st);
	}
	s->has_dec = true;
	return TUI_EXIT_OK;
}

/* --seeds N: the decisions (*dec, *n: wasm_free) of the first of N
 * schedules of fail's strategy (new seeds) whose run does not fail;
 * exit 1 when all fail. */
static int find_passing(const rep_spec *fail, det_prog *p, uint32_t seeds,
			rep_decision **dec, size_t *n, uint32_t *tried,
			FILE *err)
{
	rep_spec s = *fail; /* shares fail's strings: never cleared */
	wasm_err e;
	wasm_status st = WASM_OK;

	s.has_dec = false;
	s.dec = NULL;
	s.ndec = 0;
	if (s.sched.strategy == REP_SCHED_FIXED)
		rep_sched_parse("pct:3", &s.sched, &e);
	for (uint32_t i = 1; i <= seeds && !st; i++) {
		rep_trial t = {0};
		s.sched.seed = fail->sched.seed + i;
		st = rep_sched_try(&s, p, NULL, 0, &t, &e);
		*tried = i;
		if (!st && !t.reproduced) {
			st = rep_sched_decode(t.dec, t.ndec, dec, n, &e);
			wasm_free(t.dec);
			if (!st)
				return TUI_EXIT_OK;
		}
		wasm_free(t.dec);
	}
	if (st) {
		fprintf(err, "heisen bisect: %s\n", e.msg);
		return tui_exit_for(st);
	}
	fprintf(err,
		"heisen bisect: every one of %u schedules fails: no passing "
		"run to bisect against (raise --seeds, or give --pass)\n",
		seeds);
	return TUI_EXIT_FINDINGS;
}

static void json_access(tui_json *j, const char *key, const det_prog *p,
			const rep_trace *t, uint64_t i)
{
	const db_stack *st = rep_trace_stack_at(t, i);

	if (i >= t->n) {
		tui_json_null(j, key);
		return;
	}
	tui_json_obj(j, key);
	tui_json_u64(j, "event", i);
	tui_json_u64(j, "thread", t->ev[i].thread);
	tui_json_prog_access(j, p, t->ev[i].site, t->ev[i].rw);
	tui_json_u64(j, "width", t->ev[i].width);
	tui_json_u64(j, "address", t->ev[i].addr);
	if (st)
		tui_json_stack(j, "stack", st);
	else
		tui_json_null(j, "stack");
	tui_json_end(j, '}');
}

static void print_access(FILE *out, const det_prog *p, const rep_trace *t,
			 uint64_t i, const char *role)
{
	char what[96], where[320];

	tui_event_what(t, i, what, sizeof what);
	tui_event_where(p, t, i, where, sizeof where);
	fprintf(out, "%s: thread %u, event %" PRIu64 ": %s in %s\n", role,
		t->ev[i].thread, i, what, where);
	print_stack(out, rep_trace_stack_at(t, i));
}

/* Whether the sites of events x and y are a race the run's detector
 * reported (it reports a pair of sites once, at its first two
 * unordered accesses, which need not be x and y). */
static bool race_pair(const rep_trace *t, uint64_t x, uint64_t y)
{
	uint32_t a = t->ev[x].site, b = t->ev[y].site;

	for (uint32_t i = 0; i < t->res.nbugs; i++) {
		const det_violation *v = &t->res.bugs[i];
		if ((v->site[0] == a && v->site[1] == b) ||
		    (v->site[0] == b && v->site[1] == a))
			return true;
	}
	return false;
}

int tui_cmd_bisect(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err)
{
	const char *failv = tui_opt_value(cmd, a, "--fail");
	const char *passv = tui_opt_value(cmd, a, "--pass");
	const char *seedsv = tui_opt_value(cmd, a, "--seeds");
	const char *failure = tui_opt_value(cmd, a, "--failure");
	const char *dbopt = tui_opt_value(cmd, a, "--db");
	bool json = tui_opt_value(cmd, a, "--json") != NULL;
	bool force = tui_opt_value(cmd, a, "--force") != NULL;
	rep_spec f = {0}, ps = {0}, h;
	rep_bisect_result r = {0};
	rep_trace t = {0}, tp = {0};
	rep_trace_opts o = {.out_fd = -1};
	det_prog *p = NULL;
	db *d = NULL;
	const char *path;
	uint64_t x, y, stacks[2];
	uint32_t seeds = 0, tried = 0;
	bool paired, races, nomem;
	det_failure fcheck;
	wasm_err e;
	wasm_status st;
	int rc;

	if (!failv || (!passv == !seedsv)) {
		fprintf(err, "heisen bisect: give the failing schedule (--fail "
			     "RUN|FILE.repro) and a passing one (--pass "
			     "RUN|FILE.repro, or --seeds N to look for one)\n");
		return TUI_EXIT_USAGE;
	}
	if (seedsv && !tui_parse_u32(seedsv, 1, 100000, &seeds)) {
		fprintf(err, "heisen bisect: --seeds takes 1 to 100000\n");
		return TUI_EXIT_USAGE;
	}
	if (failure && det_failure_parse(failure, &fcheck, &e)) {
		fprintf(err, "heisen bisect: --failure: %s\n", e.msg);
		return TUI_EXIT_USAGE;
	}
	if ((rc = schedule_arg(cmd, "--fail", failv, dbopt, &d, &f, err)) ||
	    (passv &&
	     (rc = schedule_arg(cmd, "--pass", passv, dbopt, &d, &ps, err))))
		goto out;
	if (passv && ps.program_hash != f.program_hash) {
		fprintf(err, "heisen bisect: --fail and --pass are schedules "
			     "of two different programs\n");
		rc = TUI_EXIT_USAGE;
		goto out;
	}
	path = a->noperands ? a->operands[0] : f.program_path;
	if (!path) {
		fprintf(err, "heisen bisect: name the program: heisen bisect "
			     "--fail FILE.repro ... PROGRAM.wasm\n");
		rc = TUI_EXIT_USAGE;
		goto out;
	}
	if ((st = rep_load_program(&f, path, force, &p, &e))) {
		fprintf(err, "heisen bisect: %s: %s\n", path, e.msg);
		rc = tui_exit_for(st);
		goto out;
	}
	if (failure) {
		wasm_free(f.failure);
		if (!(f.failure = wasm_strdup(failure))) {
			rc = TUI_EXIT_INTERNAL;
			goto out;
		}
		f.whole_run = true;
	}
	if ((rc = decisions_of(&f, p, err)) ||
	    (passv && (rc = decisions_of(&ps, p, err))) ||
	    (seedsv &&
	     (rc = find_passing(&f, p, seeds, &ps.dec, &ps.ndec, &tried, err))))
		goto out;
	if ((st = rep_bisect(&f, ps.dec, ps.ndec, p, &r, &e))) {
		fprintf(err, "heisen bisect: %s\n", e.msg);
		rc = tui_exit_for(st);
		goto out;
	}
	/* Both hybrids' events: the accesses the switch reordered. h is f
	 * with a hybrid's decisions, sharing f's strings: never cleared. */
	h = f;
	h.dec = r.passing;
	h.ndec = r.npassing;
	if ((st = rep_trace_run(&h, p, &o, &tp, &e)))
		goto trace_fail;
	h.dec = r.failing;
	h.ndec = r.nfailing;
	if ((st = rep_trace_run(&h, p, &o, &t, &e)))
		goto trace_fail;
	paired = rep_bisect_flip(&t, &tp, &x, &y, &nomem);
	if (nomem) {
		st = wasm_err_set(&e, WASM_NOMEM, WASM_NO_OFFSET,
				  "out of memory comparing the two runs");
		goto trace_fail;
	}
	if (paired) {
		o.stacks = stacks;
		stacks[0] = x < y ? x : y;
		stacks[1] = x < y ? y : x;
		o.nstacks = 2;
		rep_trace_clear(&t);
		if ((st = rep_trace_run(&h, p, &o, &t, &e)))
			goto trace_fail;
	}
	races = paired && race_pair(&t, x, y);
	if (json) {
		tui_json j;
		tui_json_init(&j, out);
		tui_json_obj(&j, NULL);
		tui_json_str(&j, "schema", "heisen.bisect/1");
		tui_json_str(&j, "program", p->name);
		tui_json_u64(&j, "runs", r.runs);
		tui_json_u64(&j, "differ", r.differ);
		tui_json_u64(&j, "seeds_tried", tried);
		tui_json_u64(&j, "point", r.point);
		tui_json_u64(&j, "thread",
			     r.point < t.n ? t.ev[r.point].thread : 0);
		if (r.fail_has)
			tui_json_u64(&j, "failing_next", r.fail_dec.thread);
		else
			tui_json_null(&j, "failing_next");
		if (r.pass_has)
			tui_json_u64(&j, "passing_next", r.pass_dec.thread);
		else
			tui_json_null(&j, "passing_next");
		json_access(&j, "first", p, &t, x);
		json_access(&j, "second", p, &t, y);
		tui_json_bool(&j, "race", races);
		tui_json_end(&j, '}');
		tui_json_done(&j);
	} else {
		uint32_t th = r.point < t.n ? t.ev[r.point].thread : 0;
		fprintf(out,
			"heisen bisect: %s: %zu points where the schedules "
			"decide apart; %u runs",
			p->name, r.differ, r.runs);
		if (seedsv)
			fprintf(out, " (and %u to find a passing schedule)",
				tried);
		fprintf(out,
			"\nthe deciding switch: at point %" PRIu64
			", reached by thread %u, ",
			r.point, th);
		if (r.fail_has)
			fprintf(out, "thread %u runs next and the run fails",
				r.fail_dec.thread);
		else
			fprintf(out, "thread %u goes on and the run fails", th);
		if (r.pass_has)
			fprintf(out, "; with thread %u next it passes\n",
				r.pass_dec.thread);
		else
			fprintf(out, "; when thread %u goes on it passes\n",
				th);
		if (paired) {
			print_access(out, p, &t, x,
				     "in the failing run, first");
			print_access(out, p, &t, y,
				     "then (the passing run has it first)");
			fprintf(out, "%s\n",
				races
				    ? "their two lines race: heisen check "
				      "reports them (no happens-before order)"
				    : "their two lines do not race (ordered by "
				      "synchronisation): the switch changed "
				      "which came first");
		} else {
			fprintf(out,
				"no two accesses to the same bytes come in the "
				"other order in the passing run: the switch "
				"decides otherwise (timing, input or a "
				"thread's progress)\n");
		}
	}
	rc = TUI_EXIT_OK;
	goto out;
trace_fail:
	fprintf(err, "heisen bisect: %s\n", e.msg);
	rc = tui_exit_for(st);
out:
	rep_trace_clear(&t);
	rep_trace_clear(&tp);
	rep_bisect_clear(&r);
	det_prog_free(p);
	rep_spec_clear(&ps);
	rep_spec_clear(&f);
	db_close(d);
	return rc;
}
