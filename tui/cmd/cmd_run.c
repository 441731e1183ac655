/*
 * cmd_run.c - `heisen run`: run a WASI command module in heisen's engine,
 * plainly or under a probe mask (--density / --mask), and `heisen rerun`,
 * which runs a recorded run again under its mask. The WASI host is
 * core/wasi.c, the masked run detector/; this file turns options into a
 * wasi_config and the run's outcome into a report and an exit code.
 */
#include "tui/cli/cli.h"
#include "tui/report/report.h"
#include "tui/report/filter.h"
#include "tui/cmd/cmd.h"

#include "tui/report/jsonw.h"
#include "tui/report/race.h"

#include "replay/sched.h"

#include "core/wasi.h"
#include "db/db.h"
#include "detector/campaign.h"
#include "detector/suppress.h"
#include "rewriter/srcmap.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Exit codes of `heisen run` beyond cli.h's: what timeout(1) and a
 * SIGABRT-killed shell job report, so scripts can tell them apart. */
enum {
	RUN_EXIT_TIMEOUT = 124,
	RUN_EXIT_TRAP = 134,
};

/* Options into cfg: the world (tui_opt_world, into *world, whose arrays
 * cfg borrows from *mem) and --timeout. An exit code, after printing
 * what is wrong. */
static int parse_run_opts(const tui_cmd *cmd, const tui_args *a,
			  wasi_config *cfg, wasi_world *world, void **mem,
			  FILE *err)
{
	const char *v;
	wasm_err e;
	int rc;

	if ((rc = tui_opt_world(cmd, a, NULL, false, world, err)))
		return rc;
	if (wasi_world_apply(world, cfg, mem, &e)) {
		fprintf(err, "heisen run: out of memory\n");
		return TUI_EXIT_INTERNAL;
	}
	if ((v = tui_opt_value(cmd, a, "--timeout"))) {
		double s;
		if (!tui_parse_duration(v, &s)) {
			fprintf(err,
				"heisen run: --timeout expects a duration such "
				"as 30 (seconds), 30s, 10m or 2h, got '%s'\n",
				v);
			return TUI_EXIT_USAGE;
		}
		cfg->limits.timeout_s = s;
	}
	return TUI_EXIT_OK;
}

/* ---- one masked run's report: run --density / --mask, rerun -------------- */

/* What a masked run was and what it found. */
typedef struct run_report {
	const char *file;      /* the program, as given or as recorded */
	const char *mask_file; /* --mask; NULL: density_bp and seed */
	uint32_t density_bp;
	uint64_t seed;
	uint32_t npool; /* sites the mask chose from */
	uint32_t armed, delay;
	const det_profile *prof;
	const det_run_result *res;
	/* res's violations as the workspace keeps hits (sites named, both
	 * stacks, the value), named once for the judging and the report;
	 * their function names in func. Owned: run_report_clear. */
	db_hit *hit;
	uint32_t nhit;
	char (*func)[2][128];
	/* Suppressions (NULL: none): suppressed[i] says violation i is left
	 * out, nsuppressed of them. */
	const det_supp *supp;
	bool *suppressed;
	uint32_t nsuppressed;
	/* A serial run (--schedule): its strategy's name, seed and what it
	 * did; the schedule it followed (fixed), whose digest it must
	 * match. NULL: not serial. */
	const rep_sched_spec *sched;
	const rep_sched_file *followed;
	uint64_t diverged;
	size_t ndecisions;
} run_report;

/* Whether r's probes were armed by --density or --mask (a density is
 * never 0), under the collision detector, serial or not. */
static bool report_masked(const run_report *r)
{
	return r->mask_file || r->density_bp;
}

/* Name r->res's violations into r->hit; false when out of memory. */
static bool run_report_name(run_report *r, const det_prog *p)
{
	uint32_t n = r->res->nbugs;
	wasm_err e;

	r->hit = wasm_calloc(n + 1, sizeof *r->hit);
	r->func = wasm_calloc(n + 1, sizeof *r->func);
	r->suppressed = wasm_calloc(n + 1, sizeof *r->suppressed);
	if (!r->hit || !r->func || !r->suppressed)
		return false;
	for (; r->nhit < n; r->nhit++)
		if (det_prog_hit(p, &r->res->bugs[r->nhit], &r->hit[r->nhit],
				 r->func[r->nhit], &e))
			return false;
	return true;
}

static void run_report_clear(run_report *r)
{
	for (uint32_t i = 0; i < r->nhit; i++)
		db_hit_clear(&r->hit[i]);
	wasm_free(r->hit);
	wasm_free(r->func);
	wasm_free(r->suppressed);
	r->hit = NULL;
	r->nhit = 0;
	r->func = NULL;
	r->suppressed = NULL;
}

/* Which of r's violations the suppressions leave out, into
 * r->suppressed, each counted as its rule's hit. */
static void judge_violations(run_report *r, det_supp *supp)
{
	r->supp = supp;
	for (uint32_t i = 0; supp && i < r->res->nbugs; i++) {
		const det_supp_rule *rule =
		    det_supp_match_hit(supp, &r->hit[i]);
		det_supp_hit(supp, rule);
		r->suppressed[i] = rule != NULL;
		r->nsuppressed += r->suppressed[i];
	}
}

static bool left_out(const run_report *r, uint32_t i)
{
	return r->suppressed && r->suppressed[i];
}

/* One violation of a masked run, v named as h, in the one text of a race
 * (tui/race.h): the access that found the other armed first. */
static void print_violation(FILE *out, const det_violation *v, const db_hit *h,
			    uint32_t i, uint32_t n)
{
	char title[96];
	int first = v->cur < 2 ? v->cur : 1;
	db_value value = h->value;
	tui_race r = {.title = title, .concurrent = true, .value = &value};

	snprintf(title, sizeof title,
		 "violation %u of %u, %" PRIu64 " time%s in the run", i + 1, n,
		 v->count, v->count == 1 ? "" : "s");
	for (int k = 0; k < 2; k++) {
		int x = k ? 1 - first : first;
		r.acc[k] = (tui_access){
		    .kind = h->site[x].kind,
		    .width = h->site[x].width,
		    .addr = h->addr[x],
		    .tid = h->tid[x],
		    .site = h->site[x].id,
		    .stack = &h->stack[x],
		    .func = h->site[x].func,
		    .file = h->site[x].file,
		    .line = h->site[x].line,
		    .spawn = &h->spawn[x],
		    .locks = &h->locks[x],
		    .name = h->name[x],
		};
	}
	r.loc = &h->loc;
	if (value.width)
		value.side = value.side == first ? 0 : 1;
	tui_race_print(out, &r);
}

/* A serial run's schedule: what chose, what it did, and for a replay
 * whether it took the recorded path. */
static void print_sched(FILE *out, const run_report *r)
{
	const eng_sched_stats *st = &r->res->sched;
	char name[64];

	rep_sched_name(r->followed ? &r->followed->spec : r->sched, name,
		       sizeof name);
	fprintf(out,
		"schedule %s%s seed 0x%016" PRIx64 ": %" PRIu64
		" points, %u switches, digest %016" PRIx64,
		r->followed ? "fixed, replaying " : "", name, r->sched->seed,
		st->events, st->switches, st->digest);
	if (r->followed && r->diverged != UINT64_MAX)
		fprintf(out,
			" (DIVERGED from the schedule at point %" PRIu64 ")",
			r->diverged);
	else if (r->followed)
		fprintf(out, " (%s the recorded digest)",
			st->digest == r->followed->digest ? "matches"
							  : "DIFFERS FROM");
	fprintf(out, "; ");
}

static void json_sched(tui_json *j, const run_report *r)
{
	const eng_sched_stats *st = &r->res->sched;
	char name[64], hex[20];

	tui_json_obj(j, "schedule");
	rep_sched_name(r->followed ? &r->followed->spec : r->sched, name,
		       sizeof name);
	tui_json_str(j, "strategy", name);
	tui_json_bool(j, "replay", r->followed != NULL);
	snprintf(hex, sizeof hex, "%016" PRIx64, r->sched->seed);
	tui_json_str(j, "seed", hex);
	tui_json_u64(j, "points", st->events);
	tui_json_u64(j, "switches", st->switches);
	tui_json_u64(j, "decisions", r->ndecisions);
	snprintf(hex, sizeof hex, "%016" PRIx64, st->digest);
	tui_json_str(j, "digest", hex);
	if (r->followed) {
		snprintf(hex, sizeof hex, "%016" PRIx64, r->followed->digest);
		tui_json_str(j, "recorded_digest", hex);
		if (r->diverged != UINT64_MAX)
			tui_json_u64(j, "diverged_at", r->diverged);
		else
			tui_json_null(j, "diverged_at");
	}
	tui_json_end(j, '}');
}

/* The mask of a run by --density or --mask: its members into j's open
 * object, or with j NULL as text on out. */
static void print_mask(FILE *out, tui_json *j, const run_report *r,
		       uint32_t nsites)
{
	char hex[20];

	if (j && r->mask_file) {
		tui_json_str(j, "mask_file", r->mask_file);
	} else if (j) {
		tui_json_u64(j, "density_bp", r->density_bp);
		snprintf(hex, sizeof hex, "%016" PRIx64, r->seed);
		tui_json_str(j, "seed", hex);
		tui_json_u64(j, "mask_version", DET_MASK_VERSION);
		tui_json_u64(j, "pool", r->npool);
	} else if (r->mask_file) {
		fprintf(out, "mask %s: %u of %u sites armed; ", r->mask_file,
			r->armed, nsites);
	} else {
		fprintf(out,
			"density %.2f%% seed 0x%016" PRIx64 ": %u of %u "
			"sites armed",
			r->density_bp / 100.0, r->seed, r->armed, nsites);
		if (r->npool != nsites)
			fprintf(out, " (pool of %u shared sites)", r->npool);
		fputs("; ", out);
	}
}

/* The report of heisen.run/1: its members into j's open object, or with
 * j NULL as text on out. */
static void print_run(FILE *out, tui_json *j, const det_prog *p,
		      const run_report *r)
{
	const det_run_result *res = r->res;
	uint32_t nsites = p->sites.nsites;
	uint32_t shown = res->nbugs - r->nsuppressed;

	if (j) {
		tui_json_str(j, "schema", "heisen.run/1");
		tui_json_str(j, "file", r->file);
		if (r->sched)
			json_sched(j, r);
		if (report_masked(r))
			print_mask(out, j, r, nsites);
		tui_json_u64(j, "sites", nsites);
		tui_json_u64(j, "armed", r->armed);
		tui_json_u64(j, "delay", r->delay);
		tui_json_str(j, "profile", r->prof->name);
		tui_json_str(j, "status", det_status_name(res->status));
		tui_json_i64(j, "exit_code", res->exit_code);
		tui_json_str(j, "message", res->msg);
		tui_json_f64(j, "duration_ms", (double)res->duration_ns / 1e6);
		tui_json_u64(j, "probes", res->probes);
		tui_json_u64(j, "dropped", res->dropped);
		tui_json_arr(j, "violations");
		for (uint32_t i = 0; i < res->nbugs; i++) {
			const det_violation *v = &res->bugs[i];
			const db_locks *const acc[2] = {&r->hit[i].locks[0],
							&r->hit[i].locks[1]};
			if (left_out(r, i))
				continue;
			tui_json_obj(j, NULL);
			tui_json_u64(j, "count", v->count);
			tui_json_arr(j, "sites");
			for (int k = 0; k < 2; k++) {
				tui_json_obj(j, NULL);
				tui_json_prog_access(j, p, v->site[k],
						     v->kind[k]);
				tui_json_u64(j, "thread", v->tid[k]);
				tui_json_u64(j, "address", v->addr[k]);
				tui_json_stack(j, "stack", &r->hit[i].stack[k]);
				tui_json_spawn(j, "created_by",
					       &r->hit[i].spawn[k]);
				tui_json_locks(j, "locks", "locks_held", acc,
					       k);
				tui_json_str_or_null(j, "thread_name",
						     r->hit[i].name[k][0]
							 ? r->hit[i].name[k]
							 : NULL);
				tui_json_end(j, '}');
			}
			tui_json_end(j, ']');
			tui_json_value(j, "value", &r->hit[i].value);
			tui_json_loc(j, "location", &r->hit[i].loc);
			tui_json_end(j, '}');
		}
		tui_json_end(j, ']');
		tui_supp_json(j, r->supp, r->nsuppressed);
		tui_benign_json(j, res->benign, res->benign != 0);
		return;
	}
	fputs("heisen: ", out);
	if (r->sched)
		print_sched(out, r);
	if (report_masked(r))
		print_mask(out, NULL, r, nsites);
	fprintf(out, "%s", det_status_name(res->status));
	if (res->status == DET_OK || res->status == DET_EXIT)
		fprintf(out, " %d", res->exit_code);
	else if (res->msg[0])
		fprintf(out, " (%s)", res->msg);
	fprintf(out, " in %.1f ms, %" PRIu64 " probe calls, %u violation%s\n",
		(double)res->duration_ns / 1e6, res->probes, shown,
		shown == 1 ? "" : "s");
	for (uint32_t i = 0, k = 0; i < res->nbugs; i++)
		if (!left_out(r, i))
			print_violation(out, &res->bugs[i], &r->hit[i], k++,
					shown);
	if (res->dropped)
		fprintf(out, "  (%u more distinct pairs not kept)\n",
			res->dropped);
	tui_supp_print(out, r->supp, r->nsuppressed, "violation", NULL);
	tui_benign_print(out, res->benign, res->benign != 0, 1);
}

/* r as `heisen run` reports it: text, or one JSON document. */
static void report_run(FILE *out, bool json, const det_prog *p,
		       const run_report *r)
{
	tui_json j;

	if (!json) {
		print_run(out, NULL, p, r);
		return;
	}
	tui_json_init(&j, out);
	tui_json_obj(&j, NULL);
	print_run(out, &j, p, r);
	tui_json_end(&j, '}');
	tui_json_done(&j);
}

/* `heisen run`'s exit status for a run that reports nbugs violations
 * (fail: --fail-on-bugs). */
static int run_exit(const det_run_result *res, uint32_t nbugs, bool fail)
{
	int rc;

	switch (res->status) {
	case DET_OK:
	case DET_EXIT: rc = res->exit_code & 0xff; break;
	case DET_TIMEOUT: rc = 124; break;
	case DET_ERROR: rc = TUI_EXIT_USAGE; break;
	default: rc = 134;
	}
	if (fail && nbugs && rc == 0)
		rc = TUI_EXIT_FINDINGS;
	return rc;
}

static uint32_t count_armed(const uint8_t *mask, uint32_t n)
{
	uint32_t armed = 0;

	for (uint32_t i = 0; i < n; i++)
		armed += mask[i] != 0;
	return armed;
}

/* ---- heisen run --density / --mask --------------------------------------- */

/* Whether the command line arms probes by --density or --mask. */
static bool mask_given(const tui_cmd *cmd, const tui_args *a)
{
	return tui_opt_value(cmd, a, "--density") ||
	       tui_opt_value(cmd, a, "--mask");
}

/* A run's probes by --density (with --seed) or --mask, and --delay. */
typedef struct mask_choice {
	const char *file; /* --mask; NULL: density_bp and seed */
	uint32_t density_bp;
	uint64_t seed;
	uint32_t delay;
} mask_choice;

/* --density, --mask, --seed and --delay into *m; an exit code with the
 * message on err. */
static int mask_opts(const tui_cmd *cmd, const tui_args *a, mask_choice *m,
		     FILE *err)
{
	const char *dv = tui_opt_value(cmd, a, "--density");
	const char *sv = tui_opt_value(cmd, a, "--seed");
	const char *delv = tui_opt_value(cmd, a, "--delay");
	uint32_t *dens = NULL, ndens = 0;
	wasm_err e;

	memset(m, 0, sizeof *m);
	m->file = tui_opt_value(cmd, a, "--mask");
	m->delay = DET_DEFAULT_DELAY;
	if (dv && m->file) {
		fprintf(err,
			"heisen run: give --density or --mask, not both\n");
		return TUI_EXIT_USAGE;
	}
	if (sv && !tui_parse_u64(sv, &m->seed)) {
		fprintf(err,
			"heisen run: --seed expects a 64-bit number "
			"(decimal or 0x hex), got '%s'\n",
			sv);
		return TUI_EXIT_USAGE;
	}
	if (delv && !tui_parse_u32(delv, 0, 100000000, &m->delay)) {
		fprintf(err,
			"heisen run: --delay expects a number of spin "
			"units from 0 to 100000000, got '%s'\n",
			delv);
		return TUI_EXIT_USAGE;
	}
	if (dv && (det_parse_densities(dv, &dens, &ndens, &e) || ndens != 1)) {
		fprintf(err,
			"heisen run: --density expects one percentage in "
			"(0, 100], e.g. 50 or 12.5, got '%s'\n",
			dv);
		wasm_free(dens);
		return TUI_EXIT_USAGE;
	}
	if (dv) {
		m->density_bp = dens[0];
		if (!sv)
			m->seed = tui_random_seed();
	}
	wasm_free(dens);
	return TUI_EXIT_OK;
}

/* m's mask of p into *mask (wasm_malloc'd, nsites bytes) and r's fields
 * that report it; an exit code with the message on err. */
static int mask_make(const mask_choice *m, const det_prog *p, uint8_t **mask,
		     run_report *r, FILE *err)
{
	wasm_err e;

	if (!(*mask = wasm_calloc(p->sites.nsites ? p->sites.nsites : 1, 1))) {
		fprintf(err, "heisen run: out of memory\n");
		return TUI_EXIT_INTERNAL;
	}
	if (m->file
		? det_mask_read(m->file, *mask, p->sites.nsites, &e)
		: det_mask_make(m->seed, m->density_bp, NULL, p->sites.nsites,
				*mask, p->sites.nsites, &e)) {
		tui_print_err(err, m->file, &e);
		return TUI_EXIT_USAGE;
	}
	r->mask_file = m->file;
	r->density_bp = m->density_bp;
	r->seed = m->seed;
	r->npool = p->sites.nsites;
	r->armed = count_armed(*mask, p->sites.nsites);
	r->delay = m->delay;
	return TUI_EXIT_OK;
}

static int run_masked(const tui_cmd *cmd, const tui_args *a,
		      const wasi_config *base, FILE *out, FILE *err)
{
	const char *path = a->operands[0];
	const char *pv = tui_opt_value(cmd, a, "--profile");
	bool json = tui_opt_value(cmd, a, "--json") != NULL;
	tui_gate gate;
	uint32_t failing;
	det_prog *p = NULL;
	uint8_t *mask = NULL;
	mask_choice m;
	const det_profile *prof = det_profile_find("default");
	det_run_opts o = {0};
	det_run_result res = {0};
	run_report r = {0};
	det_supp *supp = NULL;
	wasm_err e;
	int rc;

	if ((rc = mask_opts(cmd, a, &m, err)))
		return rc;
	if (pv && !(prof = det_profile_find(pv))) {
		fprintf(err,
			"heisen run: unknown profile '%s' (see 'heisen "
			"profiles')\n",
			pv);
		return TUI_EXIT_USAGE;
	}
	/* A bad gate or rules file is bad input: refused before anything
	 * runs. */
	if ((rc = tui_gate_parse(cmd, a, &gate, err)) ||
	    (rc = tui_supp_open(cmd, a, &supp, err)) ||
	    (rc = tui_load_prog(path, &p, err)) ||
	    (rc = mask_make(&m, p, &mask, &r, err)))
		goto done;
	o.algo = DET_RACE;
	o.mask = mask;
	o.delay = m.delay;
	o.profile = prof;
	o.wasi = base;
	/* With --json, stdout carries the report: the program's output goes
	 * to stderr. */
	fflush(out);
	fflush(err);
	if (det_run(p->cm, &p->sites, &o, &res, &e)) {
		tui_print_err(err, path, &e);
		rc = TUI_EXIT_INTERNAL;
		goto done;
	}
	r.file = path;
	r.prof = prof;
	r.res = &res;
	if (!run_report_name(&r, p)) {
		fprintf(err, "heisen run: out of memory\n");
		rc = TUI_EXIT_INTERNAL;
		goto done;
	}
	judge_violations(&r, supp);
	report_run(json ? out : err, json, p, &r);
	if (!(rc = tui_gate_hits(cmd, gate, tui_opt_value(cmd, a, "--db"),
				 p->name, r.hit, r.suppressed, r.nhit, &failing,
				 err)))
		rc = run_exit(&res, failing, gate != TUI_GATE_OFF);
done:
	det_run_result_free(&res);
	wasm_free(mask);
	run_report_clear(&r);
	det_supp_free(supp);
	det_prog_free(p);
	return rc;
}

/* ---- heisen run --schedule ------------------------------------------------
 *
 * One serial run (core/engine.h, replay/sched.h) under the
 * happens-before detector: every probe site armed, so that every shared
 * access is a scheduling point and every race of the interleaving taken
 * is seen. With --density or --mask, a serial sweep's run instead: the
 * mask's probes, whose delays let the other threads run, under the
 * collision detector. */

/* --schedule's options into *spec (and *followed for fixed); an exit
 * code with the message on err. */
static int sched_opts(const tui_cmd *cmd, const tui_args *a, bool masked,
		      rep_sched_spec *spec, rep_sched_file *followed, FILE *err)
{
	const char *sv = tui_opt_value(cmd, a, "--schedule");
	const char *seedv = tui_opt_value(cmd, a, "--schedule-seed");
	const char *file = tui_opt_value(cmd, a, "--schedule-file");
	static const char *const mask_only[] = {"--seed", "--delay", NULL};
	wasm_err e;

	if (tui_opt_value(cmd, a, "--profile")) {
		fprintf(err, "heisen run: --profile is not for a serial run: "
			     "the schedule alone decides when threads "
			     "switch\n");
		return TUI_EXIT_USAGE;
	}
	for (const char *const *o = mask_only; *o; o++)
		if (tui_opt_value(cmd, a, *o) && !masked) {
			fprintf(err,
				"heisen run: %s needs --density or --mask: "
				"without them --schedule runs under the "
				"happens-before detector, every probe site "
				"armed, and nothing delays\n",
				*o);
			return TUI_EXIT_USAGE;
		}
	spec->seed = 0;
	if (rep_sched_parse(sv, spec, &e)) {
		fprintf(err, "heisen run: --schedule: %s\n", e.msg);
		return TUI_EXIT_USAGE;
	}
	if (seedv && !tui_parse_u64(seedv, &spec->seed)) {
		fprintf(err,
			"heisen run: --schedule-seed expects a 64-bit number "
			"(decimal or 0x hex), got '%s'\n",
			seedv);
		return TUI_EXIT_USAGE;
	}
	if (!seedv)
		spec->seed = tui_random_seed();
	if (spec->strategy != REP_SCHED_FIXED) {
		if (file) {
			fprintf(err, "heisen run: --schedule-file is the "
				     "schedule --schedule fixed follows\n");
			return TUI_EXIT_USAGE;
		}
		return TUI_EXIT_OK;
	}
	if (!file) {
		fprintf(err, "heisen run: --schedule fixed follows a "
			     "recorded schedule: name it with --schedule-file "
			     "FILE (written by --save-schedule)\n");
		return TUI_EXIT_USAGE;
	}
	if (seedv) {
		fprintf(err, "heisen run: --schedule fixed takes its seed "
			     "from the schedule file, not --schedule-seed\n");
		return TUI_EXIT_USAGE;
	}
	if (rep_sched_read(file, followed, &e)) {
		fprintf(err, "heisen run: %s\n", e.msg);
		return e.status == WASM_NOMEM ? TUI_EXIT_INTERNAL
					      : TUI_EXIT_USAGE;
	}
	spec->seed = followed->spec.seed;
	return TUI_EXIT_OK;
}

static int run_serial(const tui_cmd *cmd, const tui_args *a,
		      const wasi_config *base, FILE *out, FILE *err)
{
	const char *path = a->operands[0];
	const char *save = tui_opt_value(cmd, a, "--save-schedule");
	bool json = tui_opt_value(cmd, a, "--json") != NULL;
	rep_sched_spec spec = {0};
	rep_sched_file followed = {0};
	rep_sched *s = NULL;
	eng_sched hook;
	tui_gate gate;
	uint32_t failing;
	det_prog *p = NULL;
	uint8_t *mask = NULL;
	mask_choice m;
	bool masked = mask_given(cmd, a);
	det_run_opts o = {0};
	det_run_result res = {0};
	run_report r = {0};
	det_supp *supp = NULL;
	wasi_config cfg;
	const char **argv = NULL;
	char why[160];
	wasm_err e;
	int rc;

	if ((rc = sched_opts(cmd, a, masked, &spec, &followed, err)) ||
	    (masked && (rc = mask_opts(cmd, a, &m, err))) ||
	    (rc = tui_gate_parse(cmd, a, &gate, err)) ||
	    (rc = tui_supp_open(cmd, a, &supp, err)) ||
	    (rc = tui_load_prog(path, &p, err)))
		goto done;
	if (masked) {
		if ((rc = mask_make(&m, p, &mask, &r, err)))
			goto done;
	} else if ((mask =
			wasm_malloc(p->sites.nsites ? p->sites.nsites : 1))) {
		memset(mask, 1, p->sites.nsites);
		r.npool = r.armed = p->sites.nsites;
	}
	s = rep_sched_new(&spec, followed.d, followed.n);
	if (!mask || !s) {
		fprintf(err, "heisen run: out of memory\n");
		rc = TUI_EXIT_INTERNAL;
		goto done;
	}
	/* argv[0] is the program's file name without its folder: a
	 * schedule replays from any folder, and the name is all a program
	 * should learn from it. */
	cfg = *base;
	if (!(argv = wasm_malloc((base->argc ? base->argc : 1) *
				 sizeof *argv))) {
		fprintf(err, "heisen run: out of memory\n");
		rc = TUI_EXIT_INTERNAL;
		goto done;
	}
	for (uint32_t i = 0; i < base->argc; i++)
		argv[i] = base->argv[i];
	if (base->argc && strrchr(argv[0], '/'))
		argv[0] = strrchr(argv[0], '/') + 1;
	cfg.argv = argv;
	hook = rep_sched_hook(s);
	o.algo = masked ? DET_RACE : DET_HB;
	o.mask = mask;
	o.delay = masked ? m.delay : 0;
	o.profile = det_profile_find("default");
	o.wasi = &cfg;
	o.sched = &hook;
	o.sched_seed = spec.seed;
	fflush(out);
	fflush(err);
	if (det_run(p->cm, &p->sites, &o, &res, &e)) {
		tui_print_err(err, path, &e);
		rc = TUI_EXIT_INTERNAL;
		goto done;
	}
	r.file = path;
	r.prof = o.profile;
	r.res = &res;
	r.sched = &spec;
	r.followed = spec.strategy == REP_SCHED_FIXED ? &followed : NULL;
	r.diverged = rep_sched_diverged(s);
	rep_sched_decisions(s, &r.ndecisions);
	if (!run_report_name(&r, p) || rep_sched_nomem(s)) {
		fprintf(err, "heisen run: out of memory\n");
		rc = TUI_EXIT_INTERNAL;
		goto done;
	}
	judge_violations(&r, supp);
	report_run(json ? out : err, json, p, &r);
	if (save) {
		rep_sched_file f = {.spec = r.followed ? followed.spec : spec,
				    .points = res.sched.events,
				    .digest = res.sched.digest,
				    .switches = res.sched.switches};
		f.spec.seed = spec.seed;
		f.d = (rep_decision *)rep_sched_decisions(s, &f.n);
		if (rep_sched_write(save, &f, &e)) {
			fprintf(err, "heisen run: %s\n", e.msg);
			rc = TUI_EXIT_USAGE;
			goto done;
		}
	}
	if (r.followed && !rep_sched_fits(s, &res.sched, why, sizeof why)) {
		fprintf(err, "heisen run: %s: %s\n",
			tui_opt_value(cmd, a, "--schedule-file"), why);
		rc = TUI_EXIT_USAGE;
		goto done;
	}
	if (r.followed &&
	    (r.diverged != UINT64_MAX || res.sched.digest != followed.digest)) {
		fprintf(err,
			"heisen run: the run left the recorded schedule (%s): "
			"the program, its arguments, environment or input "
			"differ from the recorded run's\n",
			r.diverged != UINT64_MAX ? "a recorded thread could "
						   "not run"
						 : "another digest");
		rc = TUI_EXIT_FINDINGS;
		goto done;
	}
	if (!(rc = tui_gate_hits(cmd, gate, tui_opt_value(cmd, a, "--db"),
				 p->name, r.hit, r.suppressed, r.nhit, &failing,
				 err)))
		rc = run_exit(&res, failing, gate != TUI_GATE_OFF);
done:
	det_run_result_free(&res);
	wasm_free(mask);
	run_report_clear(&r);
	rep_sched_free(s);
	rep_sched_file_clear(&followed);
	wasm_free(argv);
	det_supp_free(supp);
	det_prog_free(p);
	return rc;
}

/* ---- heisen rerun -------------------------------------------------------- */

/* A list of bug ids. */
typedef struct id_list {
	int64_t *v;
	size_t n, cap;
	bool nomem;
} id_list;

static bool id_add(id_list *l, int64_t id)
{
	if (l->n == l->cap) {
		size_t nc = l->cap ? l->cap * 2 : 16;
		int64_t *v = wasm_realloc(l->v, nc * sizeof *v);
		if (!v) {
			l->nomem = true;
			return false;
		}
		l->v = v;
		l->cap = nc;
	}
	l->v[l->n++] = id;
	return true;
}

static bool id_has(const id_list *l, int64_t id)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i] == id)
			return true;
	return false;
}

static bool collect_run_bug(void *ctx, const db_run_bug *rb)
{
	return id_add(ctx, rb->bug_id);
}

static int cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
	return (a > b) - (a < b);
}

/* A rerun against its recording: the recorded bugs caught again, those
 * missed, and the violations the recording did not have (bug id 0 when
 * the workspace has no bug for the pair). */
typedef struct rerun_cmp {
	const id_list *recorded;
	id_list again, missed;
	id_list new_ids; /* per new violation, index into res->bugs */
	int64_t *new_bug;
	/* A serial run: the recorded digest (has_digest false when the
	 * workspace kept none) and whether the rerun's equals it. */
	bool has_digest, same_path;
	uint64_t digest;
} rerun_cmp;

/* bug[i]: the workspace's bug of violation i of res, 0 when it has none.
 * False when out of memory. */
static bool rerun_compare(rerun_cmp *rc, const id_list *recorded,
			  const int64_t *bug, const det_run_result *res)
{
	rc->recorded = recorded;
	rc->new_bug =
	    wasm_calloc(res->nbugs ? res->nbugs : 1, sizeof *rc->new_bug);
	if (!rc->new_bug)
		return false;
	for (uint32_t i = 0; i < res->nbugs; i++) {
		int64_t id = bug[i];
		if (id && id_has(recorded, id)) {
			if (!id_has(&rc->again, id) && !id_add(&rc->again, id))
				return false;
		} else {
			rc->new_bug[rc->new_ids.n] = id;
			if (!id_add(&rc->new_ids, i))
				return false;
		}
	}
	if (rc->again.n > 1)
		qsort(rc->again.v, rc->again.n, sizeof *rc->again.v, cmp_i64);
	for (size_t i = 0; i < recorded->n; i++)
		if (!id_has(&rc->again, recorded->v[i]) &&
		    !id_add(&rc->missed, recorded->v[i]))
			return false;
	return true;
}

static void rerun_cmp_free(rerun_cmp *rc)
{
	wasm_free(rc->again.v);
	wasm_free(rc->missed.v);
	wasm_free(rc->new_ids.v);
	wasm_free(rc->new_bug);
}

static void print_ids(FILE *out, const id_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		fprintf(out, "%s%" PRId64, i ? " " : "", l->v[i]);
}

static void json_ids(tui_json *j, const char *key, const id_list *l)
{
	tui_json_arr(j, key);
	for (size_t i = 0; i < l->n; i++)
		tui_json_i64(j, NULL, l->v[i]);
	tui_json_end(j, ']');
}

/* The line after the run's report: what the recording had and how the
 * rerun compares. */
static void print_rerun_text(FILE *out, const db_run *run, const rerun_cmp *rc,
			     const det_run_result *res)
{
	fprintf(out, "rerun of run %" PRId64 " (recorded: %s", run->id,
		run->status);
	if (!strcmp(run->status, "ok") || !strcmp(run->status, "exit"))
		fprintf(out, " %d", run->exit_code);
	if (rc->recorded->n) {
		fprintf(out, ", bug%s ", rc->recorded->n == 1 ? "" : "s");
		print_ids(out, rc->recorded);
	} else {
		fprintf(out, ", no bugs");
	}
	fprintf(out, "): caught again %zu of %zu", rc->again.n,
		rc->recorded->n);
	if (rc->again.n) {
		fprintf(out, " (");
		print_ids(out, &rc->again);
		fprintf(out, ")");
	}
	if (rc->missed.n) {
		fprintf(out, ", missed ");
		print_ids(out, &rc->missed);
	}
	fprintf(out, "; new %zu", rc->new_ids.n);
	for (size_t i = 0; i < rc->new_ids.n; i++) {
		const det_violation *v = &res->bugs[rc->new_ids.v[i]];
		fprintf(out, i ? ", " : ": ");
		if (rc->new_bug[i])
			fprintf(out, "bug %" PRId64, rc->new_bug[i]);
		else
			fprintf(out, "sites %u/%u (no bug yet)", v->site[0],
				v->site[1]);
	}
	if (rc->has_digest)
		fprintf(out, "; %s (recorded digest %016" PRIx64 ")",
			rc->same_path ? "the same path"
				      : "ANOTHER PATH than recorded",
			rc->digest);
	fprintf(out, "\n");
}

static void print_rerun_json(tui_json *j, const db_run *run,
			     const rerun_cmp *rc, const det_run_result *res,
			     const uint8_t *mask, uint32_t nsites)
{
	tui_json_obj(j, "rerun");
	tui_json_i64(j, "run", run->id);
	tui_json_i64(j, "campaign", run->campaign_id);
	tui_json_u64(j, "idx", run->idx);
	tui_json_str(j, "recorded_status", run->status);
	if (!strcmp(run->status, "ok") || !strcmp(run->status, "exit"))
		tui_json_i64(j, "recorded_exit_code", run->exit_code);
	else
		tui_json_null(j, "recorded_exit_code");
	json_ids(j, "recorded_bugs", rc->recorded);
	json_ids(j, "caught_again", &rc->again);
	json_ids(j, "missed", &rc->missed);
	if (rc->has_digest) {
		char hex[20];
		snprintf(hex, sizeof hex, "%016" PRIx64, rc->digest);
		tui_json_str(j, "recorded_digest", hex);
		tui_json_bool(j, "same_path", rc->same_path);
	} else {
		tui_json_null(j, "recorded_digest");
		tui_json_null(j, "same_path");
	}
	tui_json_u64(j, "new", rc->new_ids.n);
	tui_json_arr(j, "new_bugs");
	for (size_t i = 0; i < rc->new_ids.n; i++) {
		const det_violation *v = &res->bugs[rc->new_ids.v[i]];
		tui_json_obj(j, NULL);
		if (rc->new_bug[i])
			tui_json_i64(j, "bug", rc->new_bug[i]);
		else
			tui_json_null(j, "bug");
		tui_json_arr(j, "sites");
		tui_json_u64(j, NULL, v->site[0]);
		tui_json_u64(j, NULL, v->site[1]);
		tui_json_end(j, ']');
		tui_json_end(j, '}');
	}
	tui_json_end(j, ']');
	tui_json_arr(j, "armed_sites");
	for (uint32_t i = 0; i < nsites; i++)
		if (mask[i])
			tui_json_u64(j, NULL, i);
	tui_json_end(j, ']');
	tui_json_end(j, '}');
}

int tui_cmd_rerun(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err)
{
	/* A --prune campaign whose pool came out empty arms nothing; a NULL
	 * pool would mean every site. */
	static const uint32_t empty_pool[1];
	const char *rv = a->operands[0];
	bool json = tui_opt_value(cmd, a, "--json") != NULL;
	bool fail = tui_opt_value(cmd, a, "--fail-on-bugs") != NULL;
	uint64_t id;
	db *d = NULL;
	const char *dbpath;
	db_run run = {0};
	db_campaign c = {0};
	db_program prog = {0};
	id_list recorded = {0};
	int64_t *vbug = NULL;
	rerun_cmp cmp = {0};
	det_prog *p = NULL;
	const det_profile *prof;
	const uint32_t *pool;
	uint32_t npool;
	uint8_t *mask = NULL;
	const char **argv = NULL;
	int in_fd = -1;
	det_run_opts o = {0};
	det_run_result res = {0};
	run_report r = {0};
	rep_sched_spec spec = {0};
	rep_sched *sched = NULL;
	eng_sched hook;
	wasm_err e;
	wasm_status st;
	int rc;

	if (!tui_parse_u64(rv, &id) || !id || id > INT64_MAX) {
		fprintf(err,
			"heisen rerun: '%s' is not a run id (a positive "
			"number; 'heisen runs CAMPAIGN' lists them)\n",
			rv);
		return TUI_EXIT_USAGE;
	}
	if ((rc = tui_open_existing_db(tui_opt_value(cmd, a, "--db"), &d,
				       &dbpath, err)))
		return rc;
	if ((st = db_run_get(d, (int64_t)id, &run, &e)) ||
	    (st = db_campaign_get(d, run.campaign_id, &c, &e)) ||
	    (st = db_program_get(d, c.program_id, &prog, &e)) ||
	    (st = db_run_bugs(d, run.id, collect_run_bug, &recorded, &e))) {
		fprintf(err, "heisen rerun: %s\n", e.msg);
		rc = tui_exit_for(st);
		goto done;
	}
	if (recorded.nomem)
		goto oom;
	if (!(prof = det_profile_find(run.profile))) {
		fprintf(err,
			"heisen rerun: run %" PRId64 " ran under profile "
			"'%s', which this heisen does not have (see "
			"'heisen profiles')\n",
			run.id, run.profile);
		rc = TUI_EXIT_USAGE;
		goto done;
	}
	if ((rc = tui_load_recorded(cmd, &prog, &c, &p, err)))
		goto done;
	/* The mask of detector/campaign.c's worker_job: the run's seed and
	 * density over the campaign's pool. */
	pool = c.prune ? (c.pruned ? c.pruned : empty_pool) : NULL;
	npool = c.prune ? c.npruned : p->sites.nsites;
	mask = wasm_calloc(p->sites.nsites ? p->sites.nsites : 1, 1);
	argv = wasm_malloc((c.nargs + 1) * sizeof *argv);
	if (!mask || !argv)
		goto oom;
	if ((st = det_mask_make(run.seed, run.density_bp, pool, npool, mask,
				p->sites.nsites, &e))) {
		fprintf(err, "heisen rerun: campaign %" PRId64 ": %s\n", c.id,
			e.msg);
		rc = tui_exit_for(st);
		goto done;
	}
	/* As the sweep ran it: argv[0] the recorded name, the campaign's
	 * arguments, directories, environment and limits, the campaign's
	 * stdin (empty without --stdin). */
	argv[0] = prog.name;
	for (uint32_t i = 0, at = 0; i < c.nargs; i++) {
		argv[i + 1] = c.args + at;
		at += (uint32_t)strlen(c.args + at) + 1;
	}
	if ((in_fd = c.ninput ? det_stdin_fd(c.input, c.ninput)
			      : open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0) {
		fprintf(err, "heisen rerun: the run's stdin: %s\n",
			strerror(errno));
		rc = TUI_EXIT_INTERNAL;
		goto done;
	}
	/* As detector/campaign.c's sweep_next chose it: collisions for a
	 * sweep, happens-before for check and explore; a serial campaign's
	 * run scheduled by the strategy seeded with the run's seed. */
	o.algo = c.kind == DB_KIND_SWEEP ? DET_RACE : DET_HB;
	if (c.schedule) {
		if ((rc = tui_campaign_sched(cmd, &c, &spec, err)))
			goto done;
		spec.seed = run.seed;
		if (!(sched = rep_sched_new(&spec, NULL, 0)))
			goto oom;
		hook = rep_sched_hook(sched);
		o.sched = &hook;
		o.sched_seed = run.seed;
		r.sched = &spec;
	}
	o.mask = mask;
	o.delay = c.delay;
	o.profile = prof;
	o.argv = argv;
	o.argc = c.nargs + 1;
	o.stdio[0] = in_fd;
	/* With --json, stdout carries the report, as with `heisen run`. */
	o.stdio[1] = fileno(json ? err : out);
	o.stdio[2] = fileno(err);
	o.timeout_s = c.timeout_s;
	o.world = &c.world;
	fflush(out);
	fflush(err);
	if (det_run(p->cm, &p->sites, &o, &res, &e)) {
		tui_print_err(err, prog.path, &e);
		rc = TUI_EXIT_INTERNAL;
		goto done;
	}
	/* Each violation's bug in the workspace, if it has one. */
	if (!(vbug = wasm_calloc(res.nbugs ? res.nbugs : 1, sizeof *vbug)))
		goto oom;
	for (uint32_t i = 0; i < res.nbugs; i++)
		if ((st = db_bug_find(d, prog.id, res.bugs[i].site[0],
				      res.bugs[i].site[1], &vbug[i], &e))) {
			fprintf(err, "heisen rerun: %s\n", e.msg);
			rc = tui_exit_for(st);
			goto done;
		}
	if (!rerun_compare(&cmp, &recorded, vbug, &res))
		goto oom;
	if (sched) {
		db_sched ds;
		if ((st = db_run_sched(d, run.id, &ds, &cmp.has_digest, &e))) {
			fprintf(err, "heisen rerun: %s\n", e.msg);
			rc = tui_exit_for(st);
			goto done;
		}
		cmp.digest = ds.digest;
		cmp.same_path = ds.digest == res.sched.digest;
		db_sched_clear(&ds);
	}
	r.file = prog.path;
	r.density_bp = run.density_bp;
	r.seed = run.seed;
	r.npool = npool;
	r.armed = count_armed(mask, p->sites.nsites);
	r.delay = c.delay;
	r.prof = prof;
	r.res = &res;
	if (!run_report_name(&r, p))
		goto oom;
	if (json) {
		tui_json j;
		tui_json_init(&j, out);
		tui_json_obj(&j, NULL);
		print_run(out, &j, p, &r);
		print_rerun_json(&j, &run, &cmp, &res, mask, p->sites.nsites);
		tui_json_end(&j, '}');
		tui_json_done(&j);
	} else {
		print_run(out, NULL, p, &r);
		print_rerun_text(out, &run, &cmp, &res);
	}
	rc = run_exit(&res, res.nbugs, fail);
	goto done;
oom:
	fprintf(err, "heisen rerun: out of memory\n");
	rc = TUI_EXIT_INTERNAL;
done:
	if (in_fd >= 0)
		close(in_fd);
	run_report_clear(&r);
	rerun_cmp_free(&cmp);
	det_run_result_free(&res);
	wasm_free(argv);
	wasm_free(mask);
	det_prog_free(p);
	wasm_free(recorded.v);
	wasm_free(vbug);
	db_program_clear(&prog);
	db_campaign_clear(&c);
	db_run_clear(&run);
	rep_sched_free(sched);
	if (d)
		db_close(d);
	return rc;
}

/* ---- heisen run ---------------------------------------------------------- */

/* Where a timed-out run's threads were (eng_proc_stop_stacks), copied
 * before its proc goes (wasi_config.on_done). */
typedef struct stop_stacks {
	eng_stop_stack s[ENG_STOP_THREADS];
	uint32_t n;
} stop_stacks;

static void keep_stop_stacks(void *ctx, eng_proc *p)
{
	stop_stacks *k = ctx;
	const eng_stop_stack *s;
	eng_trap st;

	eng_proc_status(p, &st);
	if (st.kind != ENG_TIMEOUT)
		return;
	k->n = eng_proc_stop_stacks(p, &s);
	memcpy(k->s, s, k->n * sizeof *s);
}

static int by_tid(const void *a, const void *b)
{
	uint32_t x = ((const eng_stop_stack *)a)->tid;
	uint32_t y = ((const eng_stop_stack *)b)->tid;
	return (x > y) - (x < y);
}

/* Each thread's stack of a run that timed out, named from m's name
 * section and DWARF: what it was doing when the time ran out (a
 * deadlock shows as threads waiting). */
static void print_stop_stacks(FILE *err, const stop_stacks *k,
			      const wasm_module *m)
{
	rw_srcmap *map = NULL;
	wasm_err e;

	if (!k->n)
		return;
	qsort((eng_stop_stack *)k->s, k->n, sizeof *k->s, by_tid);
	if (rw_srcmap_new(m, &map, &e))
		map = NULL;
	fprintf(err, "heisen: where the threads were:\n");
	for (uint32_t i = 0; i < k->n; i++) {
		const eng_stop_stack *s = &k->s[i];
		fprintf(err, "  thread %u:\n", s->tid);
		for (uint32_t f = 0; f < s->n; f++) {
			const wasm_str *nm = wasm_func_name(m, s->f[f].func);
			rw_srcpos pos = {0};
			fprintf(err, "    #%u ", f);
			if (nm)
				fprintf(err, "%.*s", (int)nm->len, nm->p);
			else
				fprintf(err, "func[%u]", s->f[f].func);
			if (map &&
			    rw_srcmap_lookup_near(map, s->f[f].offset, &pos) &&
			    pos.file && pos.line)
				fprintf(err, " %s:%u\n", pos.file, pos.line);
			else
				fprintf(err, " (offset 0x%x)\n",
					s->f[f].offset);
		}
		if (s->truncated)
			fprintf(err, "    ... (more frames)\n");
	}
	rw_srcmap_free(map);
}

/* `run --stats`: how the engine ran the module. */
static void print_exec_stats(FILE *err, const eng_module *cm)
{
	eng_exec_stats s;

	eng_module_exec_stats(cm, &s);
	if (!s.jit) {
		fprintf(err,
			"heisen: engine: interpreter, %u functions (the "
			"compiler is off: HEISEN_ENGINE=interp, or not "
			"x86-64 Linux)\n",
			s.interpreted);
		return;
	}
	fprintf(err,
		"heisen: engine: compiler, %u functions compiled, %u "
		"interpreted, %u never called and not compiled; %zu bytes of "
		"machine code in %.3f ms (the module's code section: %zu "
		"bytes)\n",
		s.compiled, s.interpreted, s.uncalled, s.code_bytes,
		s.compile_s * 1e3, s.wasm_bytes);
}

int tui_cmd_run(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err)
{
	const char *path = a->operands[0];
	const char *argv[TUI_MAX_OPERANDS];
	wasi_world world = {0};
	void *mem = NULL;
	char line[512];
	wasi_config cfg;
	eng_module *cm = NULL;
	eng_trap trap;
	stop_stacks *stops = NULL;
	wasm_err e;
	wasm_status st;
	int rc, code;

	wasi_config_init(&cfg);
	if ((rc = parse_run_opts(cmd, a, &cfg, &world, &mem, err)))
		goto done;
	for (int i = 0; i < a->noperands; i++)
		argv[i] = a->operands[i];
	cfg.argv = argv;
	cfg.argc = (uint32_t)a->noperands;
	cfg.stdio[1] = fileno(out);
	cfg.stdio[2] = fileno(err);
	if (!tui_opt_value(cmd, a, "--schedule")) {
		static const char *const sched_only[] = {
		    "--schedule-seed", "--schedule-file", "--save-schedule",
		    NULL};
		for (const char *const *o = sched_only; *o; o++)
			if (tui_opt_value(cmd, a, *o)) {
				fprintf(err,
					"heisen run: %s needs --schedule\n",
					*o);
				rc = TUI_EXIT_USAGE;
				goto done;
			}
	}
	if (tui_opt_value(cmd, a, "--schedule") || mask_given(cmd, a)) {
		if (tui_opt_value(cmd, a, "--stats")) {
			fprintf(err, "heisen run: --stats is for a plain run "
				     "(without --density, --mask or "
				     "--schedule)\n");
			rc = TUI_EXIT_USAGE;
			goto done;
		}
		if (tui_opt_value(cmd, a, "--json"))
			cfg.stdio[1] = fileno(err);
		rc = tui_opt_value(cmd, a, "--schedule")
			 ? run_serial(cmd, a, &cfg, out, err)
			 : run_masked(cmd, a, &cfg, out, err);
		goto done;
	}
	{
		static const char *const masked_only[] = {
		    "--seed", "--delay",	"--profile",
		    "--json", "--fail-on-bugs", "--suppressions"};
		for (size_t i = 0; i < sizeof masked_only / sizeof *masked_only;
		     i++)
			if (tui_opt_value(cmd, a, masked_only[i])) {
				fprintf(err,
					"heisen run: %s needs --density or "
					"--mask%s\n",
					masked_only[i],
					i < 3 ? "" : " (or --schedule)");
				rc = TUI_EXIT_USAGE;
				goto done;
			}
	}

	if ((st = wasi_load(path, &cm, &e))) {
		wasm_err_format(&e, path, line, sizeof line);
		fprintf(err, "%s\n", line);
		rc = st == WASM_NOMEM ? TUI_EXIT_INTERNAL : TUI_EXIT_USAGE;
		goto done;
	}
	if (cfg.limits.timeout_s > 0 &&
	    (stops = wasm_calloc(1, sizeof *stops))) {
		cfg.on_done = keep_stop_stacks;
		cfg.hook_ctx = stops;
	}
	/* The program writes to the same fds: our buffered output first. */
	fflush(out);
	fflush(err);
	st = wasi_run(cm, &cfg, &trap, &code, &e);
	if (st) {
		wasm_err_format(&e, path, line, sizeof line);
		fprintf(err, "heisen run: %s\n", line);
		rc = st == WASM_NOMEM ? TUI_EXIT_INTERNAL : TUI_EXIT_USAGE;
		goto done;
	}
	if (tui_opt_value(cmd, a, "--stats"))
		print_exec_stats(err, cm);
	switch (trap.kind) {
	case ENG_EXIT:
		rc = code & 0xff; /* what exit(code) gives a native program */
		break;
	case ENG_TIMEOUT:
		fprintf(err, "heisen: timeout: %s did not finish within %g s\n",
			path, cfg.limits.timeout_s);
		if (stops)
			print_stop_stacks(err, stops, eng_module_wasm(cm));
		rc = RUN_EXIT_TIMEOUT;
		break;
	case ENG_LIMIT:
		fprintf(err, "heisen: limit: %s\n",
			trap.msg[0] ? trap.msg : eng_trap_name(trap.kind));
		rc = RUN_EXIT_TRAP;
		break;
	case ENG_STOPPED:
	case ENG_OK:
		/* Nothing in `heisen run` stops a run from outside. */
		fprintf(err, "heisen run: internal error: run ended without "
			     "an exit or a trap\n");
		rc = TUI_EXIT_INTERNAL;
		break;
	default:
		fprintf(err, "heisen: trap: %s\n",
			trap.msg[0] ? trap.msg : eng_trap_name(trap.kind));
		if (trap.kind == ENG_TRAP_INDIRECT_TYPE &&
		    eng_module_c_calls(cm))
			fprintf(err,
				"heisen: the function was called through a "
				"pointer of a type it cannot be run as: the "
				"call reads a result the function does not "
				"return, or passes a parameter of another "
				"type; give the function the pointer's type; "
				"docs/porting.md\n");
		else if (trap.kind == ENG_TRAP_INDIRECT_TYPE)
			fprintf(err,
				"heisen: Wasm checks the type of a call "
				"through a function pointer where native code "
				"does not; a program built with `heisen cc` "
				"runs such calls as natively where the types "
				"allow (a C function declared without its "
				"parameters, `void *work()`); docs/porting.md"
				"\n");
		rc = RUN_EXIT_TRAP;
	}
done:
	eng_module_free(cm);
	wasm_free(stops);
	wasm_free(mem);
	wasi_world_clear(&world);
	return rc;
}
