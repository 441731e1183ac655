/*
 * cmd_debug.c - the debugger's commands over a serial execution
 * (replay/trace.h): `heisen timeline` prints its events, `heisen debug`
 * opens them in the Timeline screen, `heisen bisect` finds the switch
 * that decides between a failing and a passing schedule.
 */
#include "tui/cli/cli.h"
#include "tui/cmd/cmd.h"
#include "tui/report/jsonw.h"
#include "tui/report/report.h"

#include "db/db.h"
#include "detector/campaign.h"
#include "replay/sched.h"
#include "replay/trace.h"
#include "rewriter/instrument.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* "ADDR" or "ADDR:WIDTH" (decimal or 0x hex; width 1 to 8, default 4). */
static bool parse_watch(const char *v, uint32_t *addr, uint8_t *width)
{
	char buf[64], *colon;
	uint64_t a;
	uint32_t w = 4;

	snprintf(buf, sizeof buf, "%s", v);
	if ((colon = strchr(buf, ':'))) {
		*colon = '\0';
		if (!tui_parse_u32(colon + 1, 1, 8, &w))
			return false;
	}
	if (!tui_parse_u64(buf, &a) || a > UINT32_MAX)
		return false;
	*addr = (uint32_t)a;
	*width = (uint8_t)w;
	return true;
}

static void print_stack(FILE *out, const db_stack *st)
{
	if (!st || !st->n) {
		fprintf(out,
			"    (no stack: the thread was not in guest code)\n");
		return;
	}
	for (uint32_t i = 0; i < st->n; i++) {
		const db_frame *f = &st->frame[i];
		fprintf(out, "    #%u %s %s:%u%s\n", i, f->func,
			f->file ? f->file : "?", f->line,
			f->inlined ? " (inlined)" : "");
	}
	if (st->truncated)
		fprintf(out, "    ...\n");
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

static bool row_matches(const rep_trace *t, uint64_t i,
			const rep_trace_filter *f)
{
	const rep_event *e = &t->ev[i];

	if (f->thread != UINT32_MAX && e->thread != f->thread)
		return false;
	return !f->sites || (e->kind == REP_EV_ACCESS && f->sites[e->site]);
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
		if (!row_matches(t, i, f))
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
	if (watchv && !parse_watch(watchv, &o.watch_addr, &o.watch_width)) {
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
			if (!row_matches(&t, i, &f))
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
