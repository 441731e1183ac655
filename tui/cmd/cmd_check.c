/*
 * cmd_check.c - `heisen check`: happens-before detection (detector/hb.h)
 * over N runs of a program, recorded as a campaign of kind check, and each
 * race printed the way ThreadSanitizer prints one.
 */
#include "tui/cli/cli.h"
#include "tui/report/report.h"
#include "tui/report/filter.h"
#include "tui/cmd/cmd.h"

#include "db/db.h"
#include "detector/campaign.h"
#include "detector/suppress.h"
#include "tui/report/jsonw.h"
#include "tui/report/race.h"
#include "tui/report/report_fmt.h"

#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { CHECK_EXIT_INTERRUPTED = 130 };

/* A race as the campaign first met it (in run `first`, which kept the
 * stacks), how many runs saw it, and the rule that suppressed it (NULL:
 * reported). */
typedef struct race {
	db_hit hit;
	int64_t bug, first;
	uint64_t runs;
	const det_supp_rule *rule;
} race;

typedef struct check_ui {
	race *v;
	size_t n, cap;
	bool nomem;
	det_progress last;
	tui_emit em; /* --format's report; its run lines stream */
} check_ui;

static void on_progress(void *ctx, const det_progress *pr)
{
	((check_ui *)ctx)->last = *pr;
}

static void on_run(void *ctx, const db_run *r, const db_hit *hits,
		   uint32_t nhits)
{
	tui_emit_run(&((check_ui *)ctx)->em, r, hits, nhits);
}

static void on_race(void *ctx, const db_hit *h)
{
	check_ui *u = ctx;

	if (u->n == u->cap) {
		size_t cap = u->cap ? u->cap * 2 : 8;
		race *v = realloc(u->v, cap * sizeof *v);
		if (!v) {
			u->nomem = true;
			return;
		}
		u->v = v;
		u->cap = cap;
	}
	u->v[u->n] = (race){*h, 0, 0, 0, NULL};
	/* Borrowed for the call only: read back from the run instead. */
	memset(u->v[u->n].hit.stack, 0, sizeof h->stack);
	memset(&u->v[u->n].hit.loc, 0, sizeof h->loc);
	memset(u->v[u->n].hit.spawn, 0, sizeof h->spawn);
	memset(u->v[u->n].hit.locks, 0, sizeof h->locks);
	u->n++;
}

static void on_sigint(int sig) { det_sweep_stop(); }

static bool count_run(void *ctx, const db_run *r)
{
	race *x = ctx;

	if (!x->runs++)
		x->first = r->id;
	return true;
}

/* A campaign of kind check from the options; an exit code. */
static int plan_check(const tui_cmd *cmd, const tui_args *a, db_campaign *c,
		      FILE *err)
{
	const char *v;
	const det_profile **profs = NULL;
	uint32_t nprofs = 0;
	wasm_err e;
	int rc;

	c->kind = DB_KIND_CHECK;
	c->runs = 1;
	if ((v = tui_opt_value(cmd, a, "--runs")) &&
	    !tui_parse_u32(v, 1, 1000000, &c->runs)) {
		fprintf(err,
			"heisen check: --runs expects 1 to 1000000, got "
			"'%s'\n",
			v);
		return TUI_EXIT_USAGE;
	}
	/* Threads that never take turns leave nothing to check: under the
	 * default profile a thread often finished its loop before the other
	 * woke from the barrier that started them (fibonacci: 2 runs of 20
	 * saw its races); throttled threads yield every 64 polls (20 of
	 * 20). */
	v = tui_opt_value(cmd, a, "--profile");
	c->profiles = strdup(v ? v : "throttled");
	c->densities = strdup("100");
	if (!c->profiles || !c->densities)
		goto oom;
	if (det_parse_profiles(c->profiles, &profs, &nprofs, &e) ||
	    nprofs != 1) {
		fprintf(err,
			"heisen check: --profile expects one profile "
			"(see 'heisen profiles'), got '%s'\n",
			c->profiles);
		wasm_free(profs);
		return TUI_EXIT_USAGE;
	}
	wasm_free(profs);
	if (det_parse_densities(c->densities, &c->density_bp, &c->ndensity, &e))
		goto oom;
	if ((rc = tui_opt_workers(cmd, a, &c->jobs, &c->timeout_s, err)))
		return rc;
	if (c->jobs > c->runs)
		c->jobs = c->runs;
	c->planned = c->runs;
	c->mask_version = DET_MASK_VERSION;
	if ((rc = tui_opt_stdin(cmd, a, &c->input, &c->ninput, &c->input_hash,
				err)))
		return rc;
	if (!tui_campaign_args(a, c))
		goto oom;
	return TUI_EXIT_OK;
oom:
	fprintf(err, "heisen check: out of memory\n");
	return TUI_EXIT_INTERNAL;
}

/* Each race judged by the suppressions over the stacks of this
 * campaign's runs (det_supp_match_bug): the rule into r->rule, counted
 * as its hit. How many were suppressed into *n. */
static wasm_status judge_races(db *d, int64_t campaign, det_supp *supp,
			       check_ui *u, size_t *n, wasm_err *e)
{
	wasm_status st = WASM_OK;

	*n = 0;
	for (size_t i = 0; supp && !st && i < u->n; i++) {
		race *r = &u->v[i];
		db_bug b;
		if ((st = db_bug_get(d, r->bug, &b, e)))
			break;
		st = det_supp_match_bug(supp, d, &b, campaign, &r->rule, e);
		db_bug_clear(&b);
		det_supp_hit(supp, r->rule);
		*n += r->rule != NULL;
	}
	return st;
}

/* One race in the one text of a race (tui/race.h): the access that found
 * the race first, as ThreadSanitizer prints the current access; the other
 * is only known to be unordered with it. */
static void print_race(FILE *out, const det_prog *p, const race *r,
		       uint64_t runs)
{
	char fn[2][128], title[96];
	rw_srcpos pos[2];
	tui_race tr = {.title = title, .concurrent = false};
	int first = r->hit.stack[0].n && !r->hit.stack[1].n ? 0 : 1;

	snprintf(title, sizeof title,
		 "bug %" PRId64 ", in %" PRIu64 " of %" PRIu64 " runs", r->bug,
		 r->runs, runs);
	for (int i = 0; i < 2; i++) {
		int k = i ? 1 - first : first;
		uint32_t site = r->hit.site[k].id;
		det_prog_site(p, site, fn[i], sizeof fn[i], &pos[i]);
		tr.acc[i] = (tui_access){
		    .kind = r->hit.site[k].kind,
		    .width = p->sites.sites[site].width,
		    .addr = r->hit.addr[k],
		    .tid = r->hit.tid[k],
		    .site = site,
		    .stack = &r->hit.stack[k],
		    .func = fn[i],
		    .file = pos[i].file,
		    .line = pos[i].line,
		    .spawn = &r->hit.spawn[k],
		    .locks = &r->hit.locks[k],
		    .name = r->hit.name[k],
		};
	}
	tr.loc = &r->hit.loc;
	tui_race_print(out, &tr);
}

static void json_races(tui_json *j, const det_prog *p, const check_ui *u)
{
	tui_json_arr(j, "races");
	for (size_t i = 0; i < u->n; i++) {
		const race *r = &u->v[i];
		if (r->rule)
			continue;
		char kinds[4] = {tui_kind_letter(r->hit.site[0].kind), '/',
				 tui_kind_letter(r->hit.site[1].kind), 0};
		const db_locks *const acc[2] = {&r->hit.locks[0],
						&r->hit.locks[1]};
		tui_json_obj(j, NULL);
		tui_json_i64(j, "bug", r->bug);
		tui_json_str(j, "kinds", kinds);
		tui_json_u64(j, "runs", r->runs);
		tui_json_arr(j, "sites");
		for (int k = 0; k < 2; k++) {
			uint32_t site = r->hit.site[k].id;
			tui_json_obj(j, NULL);
			tui_json_prog_access(j, p, site, r->hit.site[k].kind);
			tui_json_u64(j, "width",
				     p->sites.sites[site].width
					 ? p->sites.sites[site].width
					 : 1);
			tui_json_stack(j, "stack", &r->hit.stack[k]);
			tui_json_spawn(j, "created_by", &r->hit.spawn[k]);
			tui_json_locks(j, "locks", "locks_held", acc, k);
			tui_json_str_or_null(j, "thread_name",
					     r->hit.name[k][0] ? r->hit.name[k]
							       : NULL);
			tui_json_end(j, '}');
		}
		tui_json_end(j, ']');
		tui_json_loc(j, "location", &r->hit.loc);
		tui_json_obj(j, "first");
		tui_json_arr(j, "tid");
		tui_json_u64(j, NULL, r->hit.tid[0]);
		tui_json_u64(j, NULL, r->hit.tid[1]);
		tui_json_end(j, ']');
		tui_json_arr(j, "addr");
		tui_json_u64(j, NULL, r->hit.addr[0]);
		tui_json_u64(j, NULL, r->hit.addr[1]);
		tui_json_end(j, ']');
		tui_json_end(j, '}');
		tui_json_end(j, '}');
	}
	tui_json_end(j, ']');
}

int tui_cmd_check(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err)
{
	bool json = tui_opt_value(cmd, a, "--json") != NULL;
	tui_gate gate;
	det_prog *p = NULL;
	db *d = NULL;
	db_campaign c = {0};
	check_ui ui = {0};
	det_sweep_hooks hooks = {
	    .progress = on_progress, .bug = on_race, .run = on_run, .ctx = &ui};
	det_supp *supp = NULL;
	size_t nsupp = 0;
	struct sigaction sa = {0}, old;
	wasm_status st;
	wasm_err e;
	int rc;

	if (a->noperands < 1) {
		fprintf(err,
			"heisen check: missing FILE.wasm; usage: heisen "
			"check %s\n",
			cmd->usage);
		return TUI_EXIT_USAGE;
	}
	/* Bad options and a bad rules file are bad input: refused before
	 * anything runs. */
	if ((rc = tui_gate_parse(cmd, a, &gate, err)))
		return rc;
	tui_emit_init(&ui.em, TUI_FORMAT_TEXT, cmd->name, out, NULL, gate,
		      NULL);
	if ((rc = tui_format_parse(cmd, a, &ui.em.fmt, &ui.em.root, err)))
		return rc;
	if ((rc = tui_supp_open(cmd, a, &supp, err))) {
		tui_emit_fini(&ui.em);
		return rc;
	}
	if ((st = det_prog_load(a->operands[0], &p, &e))) {
		det_supp_free(supp);
		tui_emit_fini(&ui.em);
		tui_print_err(err, a->operands[0], &e);
		return tui_exit_for(st);
	}
	if ((rc = plan_check(cmd, a, &c, err)))
		goto done;
	/* Only now: bad input must not leave an empty workspace. */
	if ((rc = tui_open_db(tui_opt_value(cmd, a, "--db"), &d, err)))
		goto done;
	if ((st = tui_campaign_add(d, p, &c, &e))) {
		fprintf(err, "heisen check: %s\n", e.msg);
		rc = tui_exit_for(st);
		goto done;
	}
	ui.em.d = d;
	ui.em.program_id = c.program_id;
	sa.sa_handler = on_sigint;
	sa.sa_flags = SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old);
	st = det_sweep(d, p, &c, &hooks, &e);
	sigaction(SIGINT, &old, NULL);
	if (!st && ui.nomem)
		st = wasm_err_set(&e, WASM_NOMEM, WASM_NO_OFFSET,
				  "out of memory");
	for (size_t i = 0; !st && i < ui.n; i++) {
		race *r = &ui.v[i];
		st = db_bug_find(d, c.program_id, r->hit.site[0].id,
				 r->hit.site[1].id, &r->bug, &e);
		if (!st)
			st = db_run_list(d, c.id, r->bug, count_run, r, &e);
		if (!st)
			st = db_run_bug_stacks(d, r->first, r->bug,
					       r->hit.stack, &e);
		if (!st)
			st = db_run_bug_where(d, r->first, r->bug, &r->hit.loc,
					      r->hit.spawn, &e);
		if (!st)
			st = db_run_bug_locks(d, r->first, r->bug, r->hit.locks,
					      &e);
		if (!st)
			st = db_run_bug_names(d, r->first, r->bug, r->hit.name,
					      &e);
	}
	if (!st)
		st = judge_races(d, c.id, supp, &ui, &nsupp, &e);
	if (st) {
		fprintf(err, "heisen check: campaign %" PRId64 ": %s\n", c.id,
			e.msg);
		rc = tui_exit_for(st);
		goto done;
	}
	if (ui.em.fmt) {
		tui_emit_end end = {.campaign = c.id,
				    .status = det_sweep_stopped() ? "stopped"
								  : "done",
				    .suppressed = nsupp,
				    .ran = true};
		tui_emit_program(&ui.em, p->name);
		for (size_t i = 0; i < ui.n && !st; i++) {
			db_bug b;
			if (ui.v[i].rule ||
			    (st = db_bug_get(d, ui.v[i].bug, &b, &e)))
				continue;
			tui_emit_bug(&ui.em, &b);
			db_bug_clear(&b);
		}
		if (!st)
			st = tui_emit_close(&ui.em, &end, &e);
		if (st) {
			fprintf(err, "heisen check: %s\n", e.msg);
			rc = tui_exit_for(st);
			goto done;
		}
	} else if (json) {
		tui_json j;
		tui_json_init(&j, out);
		tui_json_obj(&j, NULL);
		tui_json_str(&j, "schema", "heisen.check/1");
		tui_json_str(&j, "program", p->name);
		tui_json_i64(&j, "campaign", c.id);
		tui_json_u64(&j, "runs", ui.last.done);
		tui_json_obj(&j, "statuses");
		for (int s = DET_OK; s <= DET_ERROR; s++)
			if (ui.last.by_status[s])
				tui_json_u64(&j, det_status_name((det_status)s),
					     ui.last.by_status[s]);
		tui_json_end(&j, '}');
		json_races(&j, p, &ui);
		tui_supp_json(&j, supp, nsupp);
		tui_benign_json(&j, ui.last.benign, ui.last.benign_runs);
		tui_json_end(&j, '}');
		tui_json_done(&j);
	} else {
		for (size_t i = 0; i < ui.n; i++)
			if (!ui.v[i].rule)
				print_race(out, p, &ui.v[i], ui.last.done);
		fprintf(out,
			"heisen check: %s: %" PRIu64 " run%s, %zu race%s; "
			"campaign %" PRId64 "\n",
			p->name, ui.last.done, ui.last.done == 1 ? "" : "s",
			ui.n - nsupp, ui.n - nsupp == 1 ? "" : "s", c.id);
		for (int s = DET_EXIT; s <= DET_ERROR; s++)
			if (ui.last.by_status[s])
				fprintf(out,
					"  %" PRIu64 " run%s ended with "
					"status %s\n",
					ui.last.by_status[s],
					ui.last.by_status[s] == 1 ? "" : "s",
					det_status_name((det_status)s));
		tui_supp_print(out, supp, nsupp, "race", NULL);
		tui_benign_print(out, ui.last.benign, ui.last.benign_runs,
				 ui.last.done);
	}
	if (det_sweep_stopped()) {
		rc = CHECK_EXIT_INTERRUPTED;
	} else {
		uint64_t failing = 0;
		for (size_t i = 0; gate && i < ui.n && !st; i++) {
			db_bug b;
			if (ui.v[i].rule ||
			    (st = db_bug_get(d, ui.v[i].bug, &b, &e)))
				continue;
			failing += tui_gate_fails(gate, b.state);
			db_bug_clear(&b);
		}
		if (st)
			fprintf(err, "heisen check: %s\n", e.msg);
		rc = st	       ? tui_exit_for(st)
		     : failing ? TUI_EXIT_FINDINGS
			       : TUI_EXIT_OK;
	}
done:
	tui_emit_fini(&ui.em);
	for (size_t i = 0; i < ui.n; i++)
		db_hit_clear(&ui.v[i].hit);
	free(ui.v);
	db_campaign_clear(&c);
	if (d)
		db_close(d);
	det_prog_free(p);
	det_supp_free(supp);
	return rc;
}
