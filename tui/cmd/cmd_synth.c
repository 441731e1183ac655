/*
 * cmd_synth.c - heisen synthesize: the door to execution synthesis
 * (replay/synth.h). It reads the report (a race report file, a bug id
 * of the workspace, or --failure), maps it to the program, runs the
 * search, shrinks the schedule found (replay/shrink.h), writes it as a
 * repro file and records it in the workspace as a one-run campaign of
 * kind explore following that schedule.
 */
#include "tui/cmd/cmd.h"

#include "db/db.h"
#include "detector/campaign.h"
#include "replay/shrink.h"
#include "replay/synth.h"
#include "tui/report/jsonw.h"

#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEFAULT_BUDGET_S  120.0
#define DEFAULT_TIMEOUT_S 10.0
/* Shrinking: its budget, and the least timeout of a candidate run. */
#define SHRINK_BUDGET_S	     10.0
#define SHRINK_MIN_TIMEOUT_S 0.5

/* The options, read once. */
typedef struct synth_req {
	const char *report; /* NULL with --failure */
	const char *program;
	int first_arg; /* operands from here on are the program's */
	uint32_t index;
	const char *failure, *at, *out_path, *dbopt;
	double budget_s, timeout_s;
	uint64_t seed;
	bool json;
} synth_req;

/* What the report was. */
typedef struct synth_src {
	const char *kind; /* "tsan", "heisen", "bug", "failure" */
	rep_tsan_race race;
	int64_t bug;
} synth_src;

typedef struct synth_ui {
	FILE *err;
	bool tty;
} synth_ui;

static void on_progress(void *ctx, const rep_synth_progress *pr)
{
	synth_ui *u = ctx;

	if (!u->tty)
		return;
	fprintf(u->err,
		"\rsynthesize: %u runs, %.1f of %.0f s, best so far: %s "
		"(last: %s)\033[K",
		pr->runs, pr->elapsed_s, pr->budget_s,
		pr->best == 2	? "the race"
		: pr->best == 1 ? "a race on one of the lines"
				: "nothing",
		pr->strategy);
	fflush(u->err);
}

static int usage(const tui_cmd *cmd, FILE *err, const char *fmt, const char *v)
{
	fprintf(err, "heisen %s: ", cmd->name);
	fprintf(err, fmt, v);
	fputc('\n', err);
	return TUI_EXIT_USAGE;
}

static int read_opts(const tui_cmd *cmd, const tui_args *a, synth_req *q,
		     FILE *err)
{
	const char *v;

	memset(q, 0, sizeof *q);
	q->failure = tui_opt_value(cmd, a, "--failure");
	q->at = tui_opt_value(cmd, a, "--at");
	q->out_path = tui_opt_value(cmd, a, "-o");
	q->dbopt = tui_opt_value(cmd, a, "--db");
	q->json = tui_opt_value(cmd, a, "--json") != NULL;
	q->budget_s = DEFAULT_BUDGET_S;
	q->timeout_s = DEFAULT_TIMEOUT_S;
	q->index = 1;
	if (q->failure) {
		q->program = a->operands[0];
		q->first_arg = 1;
	} else if (a->noperands < 2) {
		fprintf(err, "heisen %s: missing %s; usage: heisen %s %s\n",
			cmd->name, a->noperands ? "PROGRAM.wasm" : "REPORT",
			cmd->name, cmd->usage);
		return TUI_EXIT_USAGE;
	} else {
		q->report = a->operands[0];
		q->program = a->operands[1];
		q->first_arg = 2;
	}
	if (q->at && !q->failure)
		return usage(cmd, err,
			     "--at names where a --failure must happen; a "
			     "race report names its own lines%s",
			     "");
	if (q->failure) {
		det_failure f;
		wasm_err e;
		if (det_failure_parse(q->failure, &f, &e))
			return usage(cmd, err, "--failure: %s", e.msg);
	}
	if ((v = tui_opt_value(cmd, a, "--index")) &&
	    !tui_parse_u32(v, 1, 1000000, &q->index))
		return usage(cmd, err,
			     "--index expects which race of the report, 1 "
			     "or more, got '%s'",
			     v);
	if ((v = tui_opt_value(cmd, a, "--budget")) &&
	    !tui_parse_duration(v, &q->budget_s))
		return usage(cmd, err,
			     "--budget expects a positive duration such as "
			     "30s or 5m, got '%s'",
			     v);
	if ((v = tui_opt_value(cmd, a, "--timeout")) &&
	    !tui_parse_duration(v, &q->timeout_s))
		return usage(cmd, err,
			     "--timeout expects a positive duration such as "
			     "10s, got '%s'",
			     v);
	if ((v = tui_opt_value(cmd, a, "--seed"))) {
		if (!tui_parse_u64(v, &q->seed))
			return usage(cmd, err,
				     "--seed expects a whole number, got '%s'",
				     v);
	} else {
		q->seed = tui_random_seed();
	}
	return TUI_EXIT_OK;
}

/* The report into src and the target into t (program p). */
static int read_report(const tui_cmd *cmd, const synth_req *q, det_prog *p,
		       synth_src *src, rep_synth_target *t, FILE *err)
{
	struct stat sb;
	wasm_status st;
	wasm_err e;

	if (q->failure) {
		src->kind = "failure";
		if (!q->at)
			return TUI_EXIT_OK;
		if ((st = rep_synth_target_at(t, p, q->at, &e))) {
			fprintf(err, "heisen %s: %s: %s\n", cmd->name, p->name,
				e.msg);
			return tui_exit_for(st);
		}
		return TUI_EXIT_OK;
	}
	if (!stat(q->report, &sb) || !tui_is_decimal(q->report)) {
		if ((st = rep_tsan_read(q->report, q->index, &src->race, &e))) {
			fprintf(err, "heisen %s: %s\n", cmd->name, e.msg);
			return tui_exit_for(st);
		}
		src->kind = src->race.heisen ? "heisen" : "tsan";
		if ((st = rep_synth_target_race(t, p, &src->race, &e))) {
			fprintf(err, "heisen %s: %s: %s\n", cmd->name, p->name,
				e.msg);
			return tui_exit_for(st);
		}
		return TUI_EXIT_OK;
	}
	{
		db *d = NULL;
		rep_spec bs = {0};
		const char *path;
		int rc;
		src->kind = "bug";
		src->bug = strtoll(q->report, NULL, 10);
		if ((rc = tui_open_existing_db(q->dbopt, &d, &path, err)))
			return rc;
		st = rep_spec_from_db(d, src->bug, 0, &bs, &e);
		db_close(d);
		if (st) {
			fprintf(err, "heisen %s: %s\n", cmd->name, e.msg);
			return tui_exit_for(st);
		}
		if (bs.program_hash != p->sites.hash || bs.whole_run) {
			fprintf(err,
				"heisen %s: bug %" PRId64 " is %s (%s), not "
				"one of %s\n",
				cmd->name, src->bug,
				bs.whole_run ? "not a race"
					     : "of another program",
				bs.program ? bs.program : "?", p->name);
			rep_spec_clear(&bs);
			return TUI_EXIT_USAGE;
		}
		st = rep_synth_target_sites(t, p, bs.site[0].id, bs.site[1].id,
					    &e);
		rep_spec_clear(&bs);
		if (st) {
			fprintf(err, "heisen %s: %s\n", cmd->name, e.msg);
			return tui_exit_for(st);
		}
	}
	return TUI_EXIT_OK;
}

/* The program's arguments, operands[first..), NUL-separated. */
static char *join_args(const tui_args *a, int first, uint32_t *n)
{
	size_t len = 1;
	char *s;

	for (int i = first; i < a->noperands; i++)
		len += strlen(a->operands[i]) + 1;
	if (!(s = calloc(1, len)))
		return NULL;
	*n = 0;
	for (int i = first, at = 0; i < a->noperands; i++) {
		size_t l = strlen(a->operands[i]) + 1;
		memcpy(s + at, a->operands[i], l);
		at += (int)l;
		(*n)++;
	}
	return s;
}

/* Bytes of nargs NUL-separated strings at args (1 for none). */
static size_t args_size(const char *args, uint32_t nargs)
{
	size_t len = 0;

	for (uint32_t i = 0; i < nargs; i++)
		len += strlen(args + len) + 1;
	return len ? len : 1;
}

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

/* The found spec's program fields and site names, owned by s. */
static bool complete_spec(rep_spec *s, const det_prog *p, const char *path,
			  const char *args, uint32_t nargs, size_t alen,
			  const uint8_t *in, uint32_t nin, double timeout_s)
{
	struct stat sb;

	s->program = dup_or_null(p->name);
	s->program_hash = p->sites.hash;
	s->program_size = !stat(path, &sb) ? (uint64_t)sb.st_size : 0;
	s->nsites = p->sites.nsites;
	s->density_bp = DET_DENSITY_FULL;
	s->mask_version = DET_MASK_VERSION;
	s->profile = dup_or_null("default");
	s->timeout_s = timeout_s;
	s->nargs = nargs;
	if ((s->args = wasm_malloc(alen)))
		memcpy(s->args, args, alen);
	if (nin && (s->input = wasm_malloc(nin))) {
		memcpy(s->input, in, nin);
		s->ninput = nin;
	}
	for (int k = 0; k < 2 && !s->whole_run; k++) {
		char f[128];
		rw_srcpos pos;
		det_prog_site(p, s->site[k].id, f, sizeof f, &pos);
		s->site[k].func = dup_or_null(f);
		s->site[k].file = dup_or_null(pos.file);
		s->site[k].line = pos.line;
		if (!s->site[k].func)
			return false;
	}
	return s->program && s->profile && s->args && (!nin || s->input);
}

typedef struct rec_ctx {
	int64_t run;
} rec_ctx;

static void on_rec_run(void *ctx, const db_run *r, const db_hit *hits,
		       uint32_t nhits)
{
	((rec_ctx *)ctx)->run = r->id;
}

/* Record s in the workspace: a campaign of kind explore whose one run
 * follows s's decisions (its seed made to be s's random_get seed). The
 * run's and the bug's ids into *run and *bug (0: none). */
static int record(const tui_cmd *cmd, const synth_req *q, det_prog *p,
		  const rep_spec *s, uint64_t cseed, int64_t *run, int64_t *bug,
		  FILE *err)
{
	db *d = NULL;
	db_campaign c = {0};
	rep_sched_factory fac;
	rec_ctx rc_ = {0};
	det_sweep_hooks hooks = {.run = on_rec_run, .ctx = &rc_};
	rep_sched_spec fixed = {.strategy = REP_SCHED_FIXED};
	wasm_status st;
	wasm_err e;
	int rc;

	*run = *bug = 0;
	c.kind = DB_KIND_EXPLORE;
	c.runs = c.planned = 1;
	c.jobs = 1;
	c.seed = cseed;
	c.timeout_s = s->timeout_s;
	c.mask_version = DET_MASK_VERSION;
	c.schedule = strdup("fixed");
	c.profiles = strdup("default");
	c.densities = strdup("100");
	c.failure = dup_or_null(s->failure);
	c.nargs = s->nargs;
	if ((c.args = malloc(args_size(s->args, s->nargs))))
		memcpy(c.args, s->args, args_size(s->args, s->nargs));
	if (s->ninput) {
		char hex[17];
		tui_stdin_hash(s->input, s->ninput, hex);
		c.input = wasm_malloc(s->ninput);
		c.input_hash = wasm_malloc(17);
		if (c.input && c.input_hash) {
			memcpy(c.input, s->input, s->ninput);
			memcpy(c.input_hash, hex, 17);
			c.ninput = s->ninput;
		}
	}
	if (!c.schedule || !c.profiles || !c.densities || !c.args ||
	    (s->failure && !c.failure) || (s->ninput && !c.ninput) ||
	    det_parse_densities(c.densities, &c.density_bp, &c.ndensity, &e)) {
		fprintf(err, "heisen %s: out of memory\n", cmd->name);
		rc = TUI_EXIT_INTERNAL;
		goto out;
	}
	rep_sched_factory_init(&fac, &fixed, s->dec, s->ndec);
	hooks.sched = &fac.maker;
	if ((rc = tui_open_db(q->dbopt, &d, err)))
		goto out;
	if ((st = tui_campaign_add(d, p, &c, &e)) ||
	    (st = det_sweep(d, p, &c, &hooks, &e)) ||
	    (!s->whole_run && (st = db_bug_find(d, c.program_id, s->site[0].id,
						s->site[1].id, bug, &e)))) {
		fprintf(err, "heisen %s: recording: %s\n", cmd->name, e.msg);
		rc = tui_exit_for(st);
		goto out;
	}
	*run = rc_.run;
out:
	db_campaign_clear(&c);
	db_close(d);
	return rc;
}

static void site_text(const det_prog *p, uint32_t site, char *buf, size_t cap)
{
	char f[128];
	rw_srcpos pos;

	det_prog_site(p, site, f, sizeof f, &pos);
	if (pos.file)
		snprintf(buf, cap, "%s %s:%u", f, rep_tsan_base(pos.file),
			 pos.line);
	else
		snprintf(buf, cap, "%s", f);
}

static void side_text(const rep_synth_side *s, char *buf, size_t cap)
{
	if (s->line)
		snprintf(buf, cap, "%s:%u", s->file, s->line);
	else
		snprintf(buf, cap, "%s()", s->func);
}

static void json_side(tui_json *j, const rep_synth_side *s)
{
	tui_json_obj(j, NULL);
	tui_json_str_or_null(j, "file", s->file);
	if (s->line)
		tui_json_u64(j, "line", s->line);
	else
		tui_json_null(j, "line");
	tui_json_str_or_null(j, "function", s->func);
	tui_json_str(j, "by", s->line ? "line" : "function");
	tui_json_u64(j, "sites", s->count);
	tui_json_end(j, '}');
}

static void json_site(tui_json *j, const det_prog *p, uint32_t site)
{
	char f[128];
	rw_srcpos pos;

	det_prog_site(p, site, f, sizeof f, &pos);
	tui_json_obj(j, NULL);
	tui_json_u64(j, "site", site);
	tui_json_str(j, "function", f);
	tui_json_str_or_null(j, "file", pos.file);
	tui_json_u64(j, "line", pos.line);
	tui_json_end(j, '}');
}

int tui_cmd_synthesize(const tui_cmd *cmd, const tui_args *a, FILE *out,
		       FILE *err)
{
	synth_req q;
	synth_src src = {0};
	synth_ui ui = {err, false};
	rep_synth_target t = {0};
	rep_synth_opts o = {0};
	rep_synth_result r = {0};
	rep_shrink_result sh = {0};
	det_prog *p = NULL;
	char *args = NULL;
	uint32_t nargs = 0;
	uint8_t *input = NULL;
	char *input_hash = NULL;
	int64_t bug = 0, run = 0;
	bool shrunk = false;
	struct sigaction old;
	wasm_status st;
	wasm_err e;
	int rc;

	if ((rc = read_opts(cmd, a, &q, err)))
		return rc;
	if ((rc = tui_opt_stdin(cmd, a, &input, &o.ninput, &input_hash, err)))
		return rc;
	if ((rc = tui_load_prog(q.program, &p, err)))
		goto done;
	if ((rc = read_report(cmd, &q, p, &src, &t, err)))
		goto done;
	if (!(args = join_args(a, q.first_arg, &nargs))) {
		rc = TUI_EXIT_INTERNAL;
		fprintf(err, "heisen %s: out of memory\n", cmd->name);
		goto done;
	}
	o.budget_s = q.budget_s;
	o.seed = q.seed;
	/* Run 0 of the campaign that records the result gets this seed
	 * (detector/campaign.h): its random_get stream is the search's. */
	o.run_seed = det_seed_mix(q.seed ^ det_seed_mix(0));
	o.failure = q.failure;
	o.at_func = q.failure && q.at ? t.side[0].func : NULL;
	o.args = args;
	o.nargs = nargs;
	o.input = input;
	o.timeout_s = q.timeout_s;
	ui.tty = !q.json && isatty(fileno(err));
	o.progress = on_progress;
	o.ctx = &ui;
	tui_sigint_stops(&old);
	st = rep_synthesize(p, t.nsites ? &t : NULL, &o, &r, &e);
	if (ui.tty)
		fprintf(err, "\r\033[K");
	if (!st && r.found) {
		if (!complete_spec(&r.spec, p, q.program, args, nargs,
				   args_size(args, nargs), input, o.ninput,
				   q.timeout_s))
			st = wasm_err_set(&e, WASM_NOMEM, WASM_NO_OFFSET,
					  "out of memory");
		else {
			/* A candidate that drops a switch a spin-wait needs
			 * spins until its timeout: give candidates ten times
			 * the found run's time, not the run's whole timeout. */
			rep_shrink_opts so = {.budget_s = SHRINK_BUDGET_S};
			double keep = r.spec.timeout_s;
			double tmo = (double)r.run_ns * 10 / 1e9;
			r.spec.timeout_s = tmo < SHRINK_MIN_TIMEOUT_S
					       ? SHRINK_MIN_TIMEOUT_S
					   : tmo > keep ? keep
							: tmo;
			if (!(st = rep_shrink(&r.spec, p, &so, &sh, &e)))
				shrunk = true;
			r.spec.timeout_s = keep;
		}
	}
	sigaction(SIGINT, &old, NULL);
	if (st) {
		fprintf(err, "heisen %s: %s\n", cmd->name, e.msg);
		rc = tui_exit_for(st);
		goto done;
	}
	if (det_sweep_stopped()) {
		fprintf(err, "heisen %s: stopped after %u runs\n", cmd->name,
			r.runs);
		rc = 130;
		goto done;
	}
	if (r.found && q.out_path &&
	    (st = rep_write(q.out_path, &r.spec, &e))) {
		fprintf(err, "heisen %s: %s\n", cmd->name, e.msg);
		rc = tui_exit_for(st);
		goto done;
	}
	if (r.found &&
	    (rc = record(cmd, &q, p, &r.spec, q.seed, &run, &bug, err)))
		goto done;
	rc = r.found ? TUI_EXIT_OK : TUI_EXIT_FINDINGS;
	if (q.json) {
		tui_json j;
		tui_json_init(&j, out);
		tui_json_obj(&j, NULL);
		tui_json_str(&j, "schema", "heisen.synthesize/1");
		tui_json_str(&j, "program", q.program);
		tui_json_obj(&j, "report");
		tui_json_str(&j, "kind", src.kind);
		tui_json_str_or_null(
		    &j, "file",
		    q.report && strcmp(src.kind, "bug") ? q.report : NULL);
		if (src.bug)
			tui_json_i64(&j, "bug", src.bug);
		else
			tui_json_null(&j, "bug");
		if (src.race.index)
			tui_json_u64(&j, "index", src.race.index);
		else
			tui_json_null(&j, "index");
		tui_json_str_or_null(&j, "failure", q.failure);
		tui_json_str_or_null(&j, "at", q.at);
		tui_json_arr(&j, "accesses");
		for (int k = 0; t.nsites && k < 2; k++)
			json_side(&j, &t.side[k]);
		tui_json_end(&j, ']');
		tui_json_end(&j, '}');
		tui_json_bool(&j, "found", r.found);
		tui_json_u64(&j, "runs", r.runs);
		tui_json_f64(&j, "elapsed_s", r.elapsed_s);
		tui_json_str(&j, "strategy", r.strategy);
		tui_json_u64(&j, "seed", q.seed);
		if (r.found && !r.spec.whole_run) {
			tui_json_arr(&j, "race");
			json_site(&j, p, r.spec.site[0].id);
			json_site(&j, p, r.spec.site[1].id);
			tui_json_end(&j, ']');
		} else {
			tui_json_null(&j, "race");
		}
		if (!r.found && r.has_closest) {
			tui_json_arr(&j, "closest");
			json_site(&j, p, r.closest[0]);
			json_site(&j, p, r.closest[1]);
			tui_json_end(&j, ']');
		} else {
			tui_json_null(&j, "closest");
		}
		if (shrunk) {
			tui_json_obj(&j, "schedule");
			tui_json_u64(&j, "decisions_before", sh.before);
			tui_json_u64(&j, "decisions", sh.after);
			tui_json_u64(&j, "shrink_runs", sh.tests);
			tui_json_u64(&j, "points", r.spec.points);
			tui_json_u64(&j, "switches", r.spec.switches);
			{
				char hex[17];
				snprintf(hex, sizeof hex, "%016" PRIx64,
					 r.spec.digest);
				tui_json_str(&j, "digest", hex);
			}
			tui_json_end(&j, '}');
		} else {
			tui_json_null(&j, "schedule");
		}
		tui_json_str_or_null(&j, "repro", r.found ? q.out_path : NULL);
		if (bug)
			tui_json_i64(&j, "bug", bug);
		else
			tui_json_null(&j, "bug");
		if (run)
			tui_json_i64(&j, "run", run);
		else
			tui_json_null(&j, "run");
		tui_json_end(&j, '}');
		tui_json_done(&j);
		goto done;
	}
	{
		char what[1024] = "", x[160] = "", y[160] = "";
		if (t.nsites && t.side[0].count) {
			side_text(&t.side[0], x, sizeof x);
			side_text(&t.side[1], y, sizeof y);
		}
		if (src.bug)
			snprintf(what, sizeof what, "bug %" PRId64 " (%s, %s)",
				 src.bug, x, y);
		else if (q.failure)
			snprintf(what, sizeof what, "the failure %s%s%s",
				 q.failure, q.at ? " at " : "",
				 q.at ? q.at : "");
		else
			snprintf(what, sizeof what,
				 "the race of %.400s (%s, %s)", q.report, x, y);
		if (!r.found) {
			fprintf(out,
				"heisen %s: %s: not found in %u runs (%.1f "
				"s)\n",
				cmd->name, p->name, r.runs, r.elapsed_s);
			fprintf(out, "  looked for %s\n", what);
			if (r.has_closest) {
				site_text(p, r.closest[0], x, sizeof x);
				site_text(p, r.closest[1], y, sizeof y);
				fprintf(out,
					"  closest: a race between %s and %s "
					"(one of the report's lines)\n",
					x, y);
			} else if (q.failure) {
				fprintf(
				    out, "  closest: %u runs failed, none %s\n",
				    r.failures, q.at ? "there" : "that way");
			} else {
				fprintf(out, "  closest: no race on the "
					     "report's lines\n");
			}
			goto done;
		}
		fprintf(
		    out, "heisen %s: %s: found %s in %u runs, %.2f s (%s)\n",
		    cmd->name, p->name, what, r.runs, r.elapsed_s, r.strategy);
		if (!r.spec.whole_run) {
			site_text(p, r.spec.site[0].id, x, sizeof x);
			site_text(p, r.spec.site[1].id, y, sizeof y);
			fprintf(out, "  race: sites %u/%u, %s and %s\n",
				r.spec.site[0].id, r.spec.site[1].id, x, y);
		}
		fprintf(out,
			"  schedule: %zu decisions, shrunk to %zu in %u runs; "
			"%" PRIu64 " points, digest %016" PRIx64 "\n",
			sh.before, sh.after, sh.tests, r.spec.points,
			r.spec.digest);
		if (bug)
			fprintf(out,
				"  recorded: bug %" PRId64 ", run %" PRId64
				"\n",
				bug, run);
		else
			fprintf(out, "  recorded: run %" PRId64 "\n", run);
		if (q.out_path)
			fprintf(out, "  wrote %s: heisen replay --file %s %s\n",
				q.out_path, q.out_path, q.program);
	}
done:
	rep_synth_result_fini(&r);
	rep_synth_target_fini(&t);
	det_prog_free(p);
	free(args);
	wasm_free(input);
	wasm_free(input_hash);
	return rc;
}
