/*
 * cmd_check.c - `heisen check`: happens-before detection (detector/hb.h)
 * over N runs of a program, recorded as a campaign of kind check, and each
 * race printed the way ThreadSanitizer prints one; and `heisen explore`,
 * the same over serial runs (replay/sched.h), each under its own
 * schedule, recorded as a campaign of kind explore with every run's
 * schedule and judged by a failure.
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
#include "replay/sched.h"

#include <math.h>

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
	/* A serial campaign's failing runs (ids, ascending). */
	int64_t *failed;
	size_t nfailed, capfailed;
	tui_reasons why; /* why runs did not end ok */
} check_ui;

static void on_progress(void *ctx, const det_progress *pr)
{
	((check_ui *)ctx)->last = *pr;
}

static void on_run(void *ctx, const db_run *r, const db_hit *hits,
		   uint32_t nhits)
{
	check_ui *u = ctx;

	tui_emit_run(&u->em, r, hits, nhits);
	tui_reasons_note(&u->why, r);
	if (!r->sched || !r->sched->failed)
		return;
	if (u->nfailed == u->capfailed) {
		size_t cap = u->capfailed ? u->capfailed * 2 : 16;
		int64_t *v = realloc(u->failed, cap * sizeof *v);
		if (!v) {
			u->nomem = true;
			return;
		}
		u->failed = v;
		u->capfailed = cap;
	}
	u->failed[u->nfailed++] = r->id;
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

static bool count_run(void *ctx, const db_run *r)
{
	race *x = ctx;

	if (!x->runs++)
		x->first = r->id;
	return true;
}

/* The explore runs without --runs or --budget. */
#define EXPLORE_RUNS 100
/* The strategy explore searches with by default: PCT for bugs of depth
 * 3 (two preemptions); most concurrency bugs of real programs need no
 * more (Lu et al., ASPLOS 2008: 96% involve at most two threads). */
#define EXPLORE_STRATEGY "pct:3"

/* The schedule options of check (--schedule, --schedule-seed) or
 * explore (--strategy, --seed, --failure) into c and *spec; *need_k
 * when pct's K is to be measured. */
static int plan_schedule(const tui_cmd *cmd, const tui_args *a, bool explore,
			 db_campaign *c, rep_sched_spec *spec, bool *need_k,
			 FILE *err)
{
	const char *sv =
	    tui_opt_value(cmd, a, explore ? "--strategy" : "--schedule");
	const char *seedv =
	    tui_opt_value(cmd, a, explore ? "--seed" : "--schedule-seed");
	const char *fv = explore ? tui_opt_value(cmd, a, "--failure") : NULL;
	char name[64];
	det_failure f;
	wasm_err e;

	if (!sv && !explore) {
		if (seedv) {
			fprintf(err, "heisen check: --schedule-seed is the "
				     "seed of --schedule's runs\n");
			return TUI_EXIT_USAGE;
		}
		return TUI_EXIT_OK;
	}
	if (tui_opt_value(cmd, a, "--profile")) {
		fprintf(err,
			"heisen %s: --profile is not for serial runs: one "
			"thread runs at a time and the schedule alone "
			"decides when threads switch\n",
			cmd->name);
		return TUI_EXIT_USAGE;
	}
	if (rep_sched_parse(sv ? sv : EXPLORE_STRATEGY, spec, &e)) {
		fprintf(err, "heisen %s: %s: %s\n", cmd->name,
			explore ? "--strategy" : "--schedule", e.msg);
		return TUI_EXIT_USAGE;
	}
	/* pct:D without K: K is the points of a run (measure_k). */
	*need_k = spec->strategy == REP_SCHED_PCT &&
		  !strchr(strchr(sv ? sv : EXPLORE_STRATEGY, ':') + 1, ':');
	if (spec->strategy == REP_SCHED_FIXED) {
		fprintf(err,
			"heisen %s: fixed follows one recorded schedule: "
			"replay it with 'heisen run --schedule fixed "
			"--schedule-file FILE' or 'heisen replay --mode "
			"schedule'\n",
			cmd->name);
		return TUI_EXIT_USAGE;
	}
	c->seed = tui_random_seed();
	if (seedv && !tui_parse_u64(seedv, &c->seed)) {
		fprintf(err,
			"heisen %s: %s expects a 64-bit number (decimal or "
			"0x hex), got '%s'\n",
			cmd->name, explore ? "--seed" : "--schedule-seed",
			seedv);
		return TUI_EXIT_USAGE;
	}
	if (fv && det_failure_parse(fv, &f, &e)) {
		fprintf(err, "heisen explore: --failure: %s\n", e.msg);
		return TUI_EXIT_USAGE;
	}
	rep_sched_name(spec, name, sizeof name);
	if (!(c->schedule = strdup(name)) ||
	    (fv && !(c->failure = strdup(fv)))) {
		fprintf(err, "heisen %s: out of memory\n", cmd->name);
		return TUI_EXIT_INTERNAL;
	}
	return TUI_EXIT_OK;
}

/* A campaign of kind check (explore: explore) from the options; an exit
 * code. */
static int plan_check(const tui_cmd *cmd, const tui_args *a, bool explore,
		      db_campaign *c, rep_sched_spec *spec, bool *need_k,
		      FILE *err)
{
	const char *v;
	const det_profile **profs = NULL;
	uint32_t nprofs = 0;
	wasm_err e;
	int rc;

	c->kind = explore ? DB_KIND_EXPLORE : DB_KIND_CHECK;
	c->runs = explore ? EXPLORE_RUNS : 1;
	if ((v = tui_opt_value(cmd, a, "--runs")) &&
	    !tui_parse_u32(v, 1, 1000000, &c->runs)) {
		fprintf(err,
			"heisen %s: --runs expects 1 to 1000000, got "
			"'%s'\n",
			cmd->name, v);
		return TUI_EXIT_USAGE;
	}
	if (explore && (v = tui_opt_value(cmd, a, "--budget"))) {
		if (tui_opt_value(cmd, a, "--runs")) {
			fprintf(err, "heisen explore: give --runs or "
				     "--budget, not both\n");
			return TUI_EXIT_USAGE;
		}
		if (!tui_parse_duration(v, &c->budget_s)) {
			fprintf(err,
				"heisen explore: --budget expects a duration "
				"such as 90s, 10m or 2h, got '%s'\n",
				v);
			return TUI_EXIT_USAGE;
		}
		c->runs = 0;
	}
	if ((rc = plan_schedule(cmd, a, explore, c, spec, need_k, err)))
		return rc;
	/* Threads that never take turns leave nothing to check: under the
	 * default profile a thread often finished its loop before the other
	 * woke from the barrier that started them (fibonacci: 2 runs of 20
	 * saw its races); throttled threads yield every 64 polls (20 of
	 * 20). A serial run's schedule decides the turns: no profile. */
	v = tui_opt_value(cmd, a, "--profile");
	c->profiles = strdup(v ? v : c->schedule ? "default" : "throttled");
	c->densities = strdup("100");
	if (!c->profiles || !c->densities)
		goto oom;
	if (det_parse_profiles(c->profiles, &profs, &nprofs, &e) ||
	    nprofs != 1) {
		fprintf(err,
			"heisen %s: --profile expects one profile "
			"(see 'heisen profiles'), got '%s'\n",
			cmd->name, c->profiles);
		wasm_free(profs);
		return TUI_EXIT_USAGE;
	}
	wasm_free(profs);
	if (det_parse_densities(c->densities, &c->density_bp, &c->ndensity, &e))
		goto oom;
	if ((rc = tui_opt_workers(cmd, a, &c->jobs, &c->timeout_s, err)))
		return rc;
	if (c->runs && c->jobs > c->runs)
		c->jobs = c->runs;
	c->planned = c->runs;
	c->mask_version = DET_MASK_VERSION;
	if ((rc = tui_opt_stdin(cmd, a, &c->input, &c->ninput, &c->input_hash,
				err)))
		return rc;
	if ((rc = tui_opt_world(cmd, a, NULL, true, &c->world, err)))
		return rc;
	if (!tui_campaign_args(a, c))
		goto oom;
	return TUI_EXIT_OK;
oom:
	fprintf(err, "heisen %s: out of memory\n", cmd->name);
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

/* PCT's guarantee (Burckhardt et al., ASPLOS 2010): a run finds a bug
 * of depth d among n threads whose change points are drawn from k points
 * with probability at least 1/(n k^(d-1)); after `runs` runs without it,
 * the chance it was missed is at most (1 - p)^runs. */
static void pct_bound(const rep_sched_spec *spec, const det_progress *pr,
		      double *p, double *miss)
{
	double n = pr->max_threads ? pr->max_threads : 1;

	*p = 1.0 / (n * pow((double)spec->k, (double)spec->depth - 1));
	*miss = exp((double)pr->done * log1p(-*p));
}

/* PCT draws its change points from the points of the run: without a K
 * given, one serial run of the program measures it (the most the first
 * run took, at least 1). */
typedef struct k_probe {
	uint64_t points;
	det_status status;
} k_probe;

static bool on_k_run(void *ctx, const det_batch_run_info *r)
{
	k_probe *k = ctx;
	k->points = r->sched.events;
	k->status = r->status;
	return false;
}

static wasm_status measure_k(det_prog *p, const db_campaign *c,
			     rep_sched_spec *spec, wasm_err *e)
{
	rep_sched_factory fac;
	k_probe k = {0};
	const char **argv = det_prog_argv(p, c->args, c->nargs);
	uint8_t *mask = wasm_malloc(p->sites.nsites ? p->sites.nsites : 1);
	det_batch b = {0};
	wasm_status st;

	if (!argv || !mask) {
		wasm_free(argv);
		wasm_free(mask);
		return wasm_err_set(e, WASM_NOMEM, WASM_NO_OFFSET,
				    "out of memory");
	}
	/* Every site armed, as in the campaign's runs: each is a point. */
	memset(mask, 1, p->sites.nsites);
	rep_sched_factory_init(&fac, spec, NULL, 0);
	b.prog = p;
	b.mask = mask;
	b.nmasks = 1;
	b.argv = argv;
	b.argc = c->nargs + 1;
	b.in = c->input;
	b.nin = c->ninput;
	b.world = &c->world;
	b.runs = b.jobs = 1;
	b.timeout_s = c->timeout_s;
	b.sched = &fac.maker;
	b.sched_seed = c->seed;
	b.on_run = on_k_run;
	b.ctx = &k;
	st = det_batch_run(&b, e);
	wasm_free(argv);
	wasm_free(mask);
	if (!st)
		spec->k = k.points ? k.points : 1;
	return st;
}

/* What the schedules of a serial campaign did, for people. */
static void print_schedule(FILE *out, const db_campaign *c,
			   const rep_sched_spec *spec, const check_ui *u)
{
	const det_progress *pr = &u->last;

	fprintf(out,
		"  schedule %s, campaign seed 0x%016" PRIx64 ": at most %u "
		"threads and %" PRIu64 " points a run\n",
		c->schedule, c->seed, pr->max_threads, pr->max_points);
	if (spec->strategy == REP_SCHED_PCT) {
		double p, miss;
		pct_bound(spec, pr, &p, &miss);
		fprintf(out,
			"  PCT bound: a run finds a given bug of depth %u with "
			"probability >= 1/(n k^%u) = %.3g (n %u threads, k "
			"%" PRIu64 " points); after %" PRIu64 " runs the "
			"chance one was missed is <= %.6g%s\n",
			spec->depth, spec->depth - 1, p,
			pr->max_threads ? pr->max_threads : 1, spec->k,
			pr->done, miss,
			pr->max_points > spec->k
			    ? " (for bugs within the first k points)"
			    : "");
	}
	if (c->failure)
		fprintf(out, "  %" PRIu64 " run%s failed (%s)%s", pr->failures,
			pr->failures == 1 ? "" : "s", c->failure,
			u->nfailed ? ": runs" : "\n");
	for (size_t i = 0; i < u->nfailed && i < 10; i++)
		fprintf(out, " %" PRId64 "%s", u->failed[i],
			i + 1 == u->nfailed ? "\n"
			: i == 9	    ? " ...\n"
					    : "");
	if (u->nfailed)
		fprintf(out,
			"  replay one exactly: heisen replay --run %" PRId64
			" --mode schedule\n",
			u->failed[0]);
}

static void json_schedule(tui_json *j, const db_campaign *c,
			  const rep_sched_spec *spec, const check_ui *u)
{
	const det_progress *pr = &u->last;
	char hex[19];

	tui_json_obj(j, "schedule");
	tui_json_str(j, "strategy", c->schedule);
	snprintf(hex, sizeof hex, "0x%016" PRIx64, c->seed);
	tui_json_str(j, "seed", hex);
	tui_json_u64(j, "max_threads", pr->max_threads);
	tui_json_u64(j, "max_points", pr->max_points);
	if (spec->strategy == REP_SCHED_PCT) {
		double p, miss;
		pct_bound(spec, pr, &p, &miss);
		tui_json_obj(j, "pct_bound");
		tui_json_u64(j, "depth", spec->depth);
		tui_json_u64(j, "k", spec->k);
		tui_json_f64(j, "per_run", p);
		tui_json_f64(j, "missed_at_most", miss);
		tui_json_end(j, '}');
	}
	if (c->failure) {
		tui_json_str(j, "failure", c->failure);
		tui_json_u64(j, "failures", pr->failures);
		tui_json_arr(j, "failed_runs");
		for (size_t i = 0; i < u->nfailed; i++)
			tui_json_i64(j, NULL, u->failed[i]);
		tui_json_end(j, ']');
	}
	tui_json_end(j, '}');
}

static int check_main(const tui_cmd *cmd, const tui_args *a, bool explore,
		      FILE *out, FILE *err)
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
	rep_sched_spec spec = {0};
	rep_sched_factory fac;
	bool need_k = false;
	struct sigaction old;
	wasm_status st;
	wasm_err e;
	int rc;

	if (a->noperands < 1) {
		fprintf(err,
			"heisen %s: missing FILE.wasm; usage: heisen %s %s\n",
			cmd->name, cmd->name, cmd->usage);
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
	if ((rc = plan_check(cmd, a, explore, &c, &spec, &need_k, err)))
		goto done;
	if (need_k) {
		char name[64];
		if ((st = measure_k(p, &c, &spec, &e))) {
			fprintf(err,
				"heisen %s: measuring the run's points: %s\n",
				cmd->name, e.msg);
			rc = tui_exit_for(st);
			goto done;
		}
		rep_sched_name(&spec, name, sizeof name);
		free(c.schedule);
		if (!(c.schedule = strdup(name))) {
			fprintf(err, "heisen %s: out of memory\n", cmd->name);
			rc = TUI_EXIT_INTERNAL;
			goto done;
		}
	}
	if (c.schedule) {
		rep_sched_factory_init(&fac, &spec, NULL, 0);
		hooks.sched = &fac.maker;
	}
	/* Only now: bad input must not leave an empty workspace. */
	if ((rc = tui_open_db(tui_opt_value(cmd, a, "--db"), &d, err)))
		goto done;
	if ((st = tui_campaign_add(d, p, &c, &e))) {
		fprintf(err, "heisen %s: %s\n", cmd->name, e.msg);
		rc = tui_exit_for(st);
		goto done;
	}
	ui.em.d = d;
	ui.em.program_id = c.program_id;
	tui_sigint_stops(&old);
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
		fprintf(err, "heisen %s: campaign %" PRId64 ": %s\n", cmd->name,
			c.id, e.msg);
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
			fprintf(err, "heisen %s: %s\n", cmd->name, e.msg);
			rc = tui_exit_for(st);
			goto done;
		}
	} else if (json) {
		tui_json j;
		tui_json_init(&j, out);
		tui_json_obj(&j, NULL);
		tui_json_str(&j, "schema",
			     explore ? "heisen.explore/1" : "heisen.check/1");
		tui_json_str(&j, "program", p->name);
		tui_json_i64(&j, "campaign", c.id);
		tui_json_u64(&j, "runs", ui.last.done);
		tui_json_obj(&j, "statuses");
		for (int s = DET_OK; s <= DET_ERROR; s++)
			if (ui.last.by_status[s])
				tui_json_u64(&j, det_status_name((det_status)s),
					     ui.last.by_status[s]);
		tui_json_end(&j, '}');
		tui_reasons_json(&j, &ui.why);
		json_races(&j, p, &ui);
		if (c.schedule)
			json_schedule(&j, &c, &spec, &ui);
		tui_supp_json(&j, supp, nsupp);
		tui_benign_json(&j, ui.last.benign, ui.last.benign_runs);
		tui_json_end(&j, '}');
		tui_json_done(&j);
	} else {
		for (size_t i = 0; i < ui.n; i++)
			if (!ui.v[i].rule)
				print_race(out, p, &ui.v[i], ui.last.done);
		fprintf(out,
			"heisen %s: %s: %" PRIu64 " run%s, %zu race%s; "
			"campaign %" PRId64 "\n",
			cmd->name, p->name, ui.last.done,
			ui.last.done == 1 ? "" : "s", ui.n - nsupp,
			ui.n - nsupp == 1 ? "" : "s", c.id);
		for (int s = DET_EXIT; s <= DET_ERROR; s++)
			if (ui.last.by_status[s])
				fprintf(out,
					"  %" PRIu64 " run%s ended with "
					"status %s\n",
					ui.last.by_status[s],
					ui.last.by_status[s] == 1 ? "" : "s",
					det_status_name((det_status)s));
		tui_reasons_print(out, &ui.why);
		if (c.schedule)
			print_schedule(out, &c, &spec, &ui);
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
			fprintf(err, "heisen %s: %s\n", cmd->name, e.msg);
		/* A failure explore found is a finding as a race is. */
		if (gate)
			failing += ui.last.failures;
		rc = st	       ? tui_exit_for(st)
		     : failing ? TUI_EXIT_FINDINGS
			       : TUI_EXIT_OK;
	}
done:
	tui_emit_fini(&ui.em);
	for (size_t i = 0; i < ui.n; i++)
		db_hit_clear(&ui.v[i].hit);
	free(ui.v);
	free(ui.failed);
	db_campaign_clear(&c);
	if (d)
		db_close(d);
	det_prog_free(p);
	det_supp_free(supp);
	return rc;
}

int tui_cmd_check(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err)
{
	return check_main(cmd, a, false, out, err);
}

int tui_cmd_explore(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err)
{
	return check_main(cmd, a, true, out, err);
}
