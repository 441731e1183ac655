/*
 * cmd_db.c - the commands that read the workspace database: `campaigns`,
 * `runs`, `bugs`, `show` and `profiles`, plus tui_open_db. The SQL is in
 * db/; this file picks options, formats rows and reads source lines.
 */
#include "tui/cli.h"
#include "tui/jsonw.h"
#include "tui/race.h"
#include "tui/report_fmt.h"

#include "db/db.h"
#include "detector/race.h"
#include "detector/suppress.h"
#include "rewriter/instrument.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* A database error is the file's or the lookup's fault (2) or ours (3). */
static int db_exit(wasm_status st)
{
	return st == WASM_IO || st == WASM_MALFORMED || st == WASM_INVALID
		   ? TUI_EXIT_USAGE
		   : TUI_EXIT_INTERNAL;
}

int tui_open_db(const char *dbopt, struct db **out, FILE *err)
{
	const char *path = db_path_choose(dbopt);
	wasm_err e;
	wasm_status st;

	*out = NULL;
	wasm_err_clear(&e);
	if ((st = db_open(path, out, &e))) {
		/* db.c's messages name the file. */
		fprintf(err, "heisen: %s\n", e.msg);
		return db_exit(st);
	}
	return TUI_EXIT_OK;
}

/* The query commands read a workspace and never create one: a mistyped
 * --db or $HEISEN_DB must not look like an empty workspace (an empty one
 * passes a CI's --fail-on-bugs). */
int tui_open_existing_db(const char *opt, db **out, const char **path,
			 FILE *err)
{
	struct stat sb;

	*out = NULL;
	*path = db_path_choose(opt);
	if (stat(*path, &sb)) {
		fprintf(err,
			"heisen: %s: %s (a workspace is created by 'heisen "
			"sweep'; name another with --db FILE or $HEISEN_DB)\n",
			*path, strerror(errno));
		return TUI_EXIT_USAGE;
	}
	return tui_open_db(opt, out, err);
}

static int open_existing(const tui_cmd *cmd, const tui_args *a, db **out,
			 const char **path, FILE *err)
{
	return tui_open_existing_db(tui_opt_value(cmd, a, "--db"), out, path,
				    err);
}

int tui_query_fail(const tui_cmd *cmd, wasm_status st, const wasm_err *e,
		   FILE *err)
{
	fprintf(err, "heisen %s: %s\n", cmd->name, e->msg);
	return db_exit(st);
}

int tui_parse_id(const tui_cmd *cmd, const char *what, const char *s,
		 const char *list, int64_t *out, FILE *err)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = isdigit((unsigned char)s[0]) ? strtoull(s, &end, 10) : 0;
	if (!v || *end || errno || v > INT64_MAX) {
		fprintf(err,
			"heisen %s: '%s' is not a %s id (a positive number; "
			"'heisen %s' lists them)\n",
			cmd->name, s, what, list);
		return TUI_EXIT_USAGE;
	}
	*out = (int64_t)v;
	return TUI_EXIT_OK;
}

/* Local time to the minute, "-" when unknown. */
void tui_fmt_time(double t, char *buf, size_t cap)
{
	time_t s = (time_t)t;
	struct tm tm;

	if (t <= 0 || !localtime_r(&s, &tm) ||
	    !strftime(buf, cap, "%Y-%m-%d %H:%M", &tm))
		snprintf(buf, cap, "-");
}

/* Basis points as a percentage with up to two decimals: "5%", "12.5%". */
void tui_fmt_density(uint32_t bp, char *buf, size_t cap)
{
	uint32_t frac = bp % 100;

	if (!frac)
		snprintf(buf, cap, "%u%%", bp / 100);
	else if (frac % 10 == 0)
		snprintf(buf, cap, "%u.%u%%", bp / 100, frac / 10);
	else
		snprintf(buf, cap, "%u.%02u%%", bp / 100, frac);
}

static void fmt_hex64(uint64_t v, char *buf, size_t cap)
{
	snprintf(buf, cap, "%016" PRIx64, v);
}

char tui_kind_letter(uint8_t k)
{
	switch (k) {
	case RW_READ:
	case RW_RANGE_READ: return 'R';
	case RW_WRITE:
	case RW_RANGE_WRITE: return 'W';
	case RW_ATOMIC_READ:
	case RW_ATOMIC_WRITE:
	case RW_ATOMIC_RMW: return 'A';
	}
	return '?';
}

void tui_fmt_kinds(const db_bug *b, char *buf, size_t cap)
{
	snprintf(buf, cap, "%c/%c", tui_kind_letter(b->site[0].kind),
		 tui_kind_letter(b->site[1].kind));
}

static const char *or_unknown(const char *s) { return s && *s ? s : "?"; }

/* "func file:line", "?" for each part not known. */
void tui_fmt_site(const struct db_bug_site *s, char *buf, size_t cap)
{
	char line[16] = "?";

	if (s->line)
		snprintf(line, sizeof line, "%u", s->line);
	snprintf(buf, cap, "%s %s:%s", or_unknown(s->func), or_unknown(s->file),
		 line);
}

static void json_hex64(tui_json *j, const char *key, uint64_t v)
{
	char hex[24];

	fmt_hex64(v, hex, sizeof hex);
	tui_json_str(j, key, hex);
}

/* Seconds as whole milliseconds, or null when not set (0 or less). */
static void json_ms(tui_json *j, const char *key, double seconds)
{
	if (seconds > 0)
		tui_json_u64(j, key, (uint64_t)(seconds * 1000 + 0.5));
	else
		tui_json_null(j, key);
}

void tui_json_site(tui_json *j, const struct db_bug_site *s)
{
	tui_json_u64(j, "site", s->id);
	tui_json_str(j, "kind", rw_kind_name((rw_kind)s->kind));
	tui_json_str_or_null(j, "function", s->func);
	tui_json_str_or_null(j, "file", s->file);
	if (s->line)
		tui_json_u64(j, "line", s->line);
	else
		tui_json_null(j, "line");
}

/* ---- campaigns ----------------------------------------------------------- */

static bool campaign_row(void *ctx, const db_campaign *c)
{
	tui_list *l = ctx;
	char created[32], runs[48];

	l->n++;
	if (l->j) {
		tui_json *j = l->j;
		const char *p = c->profiles ? c->profiles : "";
		tui_json_obj(j, NULL);
		tui_json_u64(j, "id", (uint64_t)c->id);
		tui_json_u64(j, "program_id", (uint64_t)c->program_id);
		tui_json_str_or_null(j, "program", c->program);
		tui_json_u64(j, "node_id", (uint64_t)c->node_id);
		tui_json_u64(j, "created",
			     c->created > 0 ? (uint64_t)c->created : 0);
		tui_json_str(j, "status", c->status ? c->status : "");
		tui_json_str(j, "kind", db_kind_name(c->kind));
		if (c->node)
			tui_json_str(j, "node", c->node);
		else
			tui_json_null(j, "node");
		tui_json_u64(j, "runs_done", c->done);
		if (c->planned)
			tui_json_u64(j, "runs_planned", c->planned);
		else
			tui_json_null(j, "runs_planned");
		if (c->runs)
			tui_json_u64(j, "runs_per_cell", c->runs);
		else
			tui_json_null(j, "runs_per_cell");
		json_ms(j, "budget_ms", c->budget_s);
		tui_json_u64(j, "cells", c->cells);
		tui_json_u64(j, "bugs", c->bugs);
		tui_json_arr(j, "profiles");
		while (*p) {
			size_t n = strcspn(p, ",");
			if (n)
				tui_json_strn(j, NULL, p, n);
			p += n + (p[n] == ',');
		}
		tui_json_end(j, ']');
		tui_json_str(j, "densities", c->densities ? c->densities : "");
		tui_json_arr(j, "density_bp");
		for (uint32_t i = 0; i < c->ndensity; i++)
			tui_json_u64(j, NULL, c->density_bp[i]);
		tui_json_end(j, ']');
		json_hex64(j, "seed", c->seed);
		tui_json_u64(j, "jobs", c->jobs);
		tui_json_u64(j, "delay", c->delay);
		json_ms(j, "timeout_ms", c->timeout_s);
		tui_json_bool(j, "prune", c->prune);
		tui_json_u64(j, "mask_version", c->mask_version);
		tui_json_end(j, '}');
		return true;
	}
	if (l->n == 1)
		fprintf(l->out,
			"%-5s %-5s %-20s %-16s %-11s %-15s %5s %5s  %-16s "
			"%-16s %s\n",
			"id", "kind", "program", "created", "status", "runs",
			"cells", "bugs", "densities", "profiles", "node");
	tui_fmt_time(c->created, created, sizeof created);
	if (c->planned)
		snprintf(runs, sizeof runs, "%" PRIu64 "/%" PRIu64, c->done,
			 c->planned);
	else
		snprintf(runs, sizeof runs, "%" PRIu64 "/-", c->done);
	fprintf(l->out,
		"%-5" PRId64 " %-5s %-20s %-16s %-11s %-15s %5" PRIu64
		" %5" PRIu64 "  %-16s %-16s %s\n",
		c->id, db_kind_name(c->kind), or_unknown(c->program), created,
		or_unknown(c->status), runs, c->cells, c->bugs,
		or_unknown(c->densities), or_unknown(c->profiles),
		or_unknown(c->node));
	return true;
}

int tui_cmd_campaigns(const tui_cmd *cmd, const tui_args *a, FILE *out,
		      FILE *err)
{
	bool json = tui_opt_value(cmd, a, "--json") != NULL;
	tui_list l = {.out = out};
	const char *path;
	tui_json j;
	wasm_err e;
	wasm_status st;
	db *d;
	int rc;

	if ((rc = open_existing(cmd, a, &d, &path, err)))
		return rc;
	wasm_err_clear(&e);
	if (json) {
		l.j = &j;
		tui_json_init(&j, out);
		tui_json_obj(&j, NULL);
		tui_json_str(&j, "schema", "heisen.campaigns/1");
		tui_json_str(&j, "db", path);
		tui_json_arr(&j, "campaigns");
	}
	st = db_campaign_list(d, campaign_row, &l, &e);
	if (json) {
		tui_json_end(&j, ']');
		tui_json_end(&j, '}');
		tui_json_done(&j);
	} else if (!st && !l.n) {
		fprintf(out, "no campaigns in %s ('heisen sweep' starts one)\n",
			path);
	}
	rc = st ? tui_query_fail(cmd, st, &e, err) : TUI_EXIT_OK;
	db_close(d);
	return rc;
}

/* ---- runs ---------------------------------------------------------------- */

static bool run_row(void *ctx, const db_run *r)
{
	tui_list *l = ctx;
	bool has_code =
	    r->exit_code >= 0 && r->status &&
	    (!strcmp(r->status, "ok") || !strcmp(r->status, "exit"));
	char density[16], seed[24], status[320];

	l->n++;
	if (l->j) {
		tui_json *j = l->j;
		tui_json_obj(j, NULL);
		tui_json_u64(j, "id", (uint64_t)r->id);
		tui_json_u64(j, "idx", r->idx);
		tui_json_u64(j, "node_id", (uint64_t)r->node_id);
		tui_json_str(j, "profile", r->profile ? r->profile : "");
		tui_json_u64(j, "density_bp", r->density_bp);
		json_hex64(j, "seed", r->seed);
		tui_json_u64(j, "started",
			     r->started > 0 ? (uint64_t)r->started : 0);
		tui_json_u64(j, "duration_us", r->duration_us);
		tui_json_str(j, "status", r->status ? r->status : "");
		if (has_code)
			tui_json_u64(j, "exit_code", (uint64_t)r->exit_code);
		else
			tui_json_null(j, "exit_code");
		tui_json_str_or_null(j, "message", r->msg);
		tui_json_u64(j, "bugs", r->nbugs);
		tui_json_end(j, '}');
		return true;
	}
	if (l->n == 1)
		fprintf(l->out, "%-7s %-7s %-12s %7s  %-16s %10s %5s  %s\n",
			"id", "idx", "profile", "density", "seed", "ms", "bugs",
			"status");
	tui_fmt_density(r->density_bp, density, sizeof density);
	fmt_hex64(r->seed, seed, sizeof seed);
	if (has_code && strcmp(r->status, "ok"))
		snprintf(status, sizeof status, "%s %d", r->status,
			 r->exit_code);
	else if (r->msg && *r->msg)
		snprintf(status, sizeof status, "%s: %s", or_unknown(r->status),
			 r->msg);
	else
		snprintf(status, sizeof status, "%s", or_unknown(r->status));
	fprintf(l->out,
		"%-7" PRId64 " %-7" PRIu64 " %-12s %7s  %-16s %10.1f %5u  "
		"%s\n",
		r->id, r->idx, or_unknown(r->profile), density, seed,
		(double)r->duration_us / 1000.0, r->nbugs, status);
	return true;
}

int tui_cmd_runs(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err)
{
	const char *bugopt = tui_opt_value(cmd, a, "--bug");
	bool json = tui_opt_value(cmd, a, "--json") != NULL;
	tui_list l = {.out = out};
	db_campaign c = {0};
	db_bug b = {0};
	int64_t cid, bid = 0;
	const char *path;
	tui_json j;
	wasm_err e;
	wasm_status st;
	db *d;
	int rc;

	if ((rc = tui_parse_id(cmd, "campaign", a->operands[0], "campaigns",
			       &cid, err)) ||
	    (bugopt &&
	     (rc = tui_parse_id(cmd, "bug", bugopt, "bugs", &bid, err))))
		return rc;
	if ((rc = open_existing(cmd, a, &d, &path, err)))
		return rc;
	wasm_err_clear(&e);
	if ((st = db_campaign_get(d, cid, &c, &e)) ||
	    (bid && (st = db_bug_get(d, bid, &b, &e)))) {
		rc = tui_query_fail(cmd, st, &e, err);
		goto done;
	}
	if (json) {
		l.j = &j;
		tui_json_init(&j, out);
		tui_json_obj(&j, NULL);
		tui_json_str(&j, "schema", "heisen.runs/1");
		tui_json_str(&j, "db", path);
		tui_json_u64(&j, "campaign", (uint64_t)cid);
		tui_json_str_or_null(&j, "program", c.program);
		if (bid)
			tui_json_u64(&j, "bug", (uint64_t)bid);
		else
			tui_json_null(&j, "bug");
		tui_json_arr(&j, "runs");
	}
	st = db_run_list(d, cid, bid, run_row, &l, &e);
	if (json) {
		tui_json_end(&j, ']');
		tui_json_end(&j, '}');
		tui_json_done(&j);
	} else if (!st && !l.n) {
		if (bid)
			fprintf(out,
				"no run of campaign %" PRId64
				" detected bug %" PRId64 "\n",
				cid, bid);
		else
			fprintf(out, "campaign %" PRId64 " has no runs yet\n",
				cid);
	}
	rc = st ? tui_query_fail(cmd, st, &e, err) : TUI_EXIT_OK;
done:
	db_bug_clear(&b);
	db_campaign_clear(&c);
	db_close(d);
	return rc;
}

/* ---- bugs ---------------------------------------------------------------- */

bool tui_bug_row(void *ctx, const db_bug *b)
{
	tui_list *l = ctx;
	char kinds[8], seen[32], s0[320], s1[320];

	l->n++;
	if (l->em)
		return tui_emit_bug(l->em, b);
	tui_fmt_kinds(b, kinds, sizeof kinds);
	if (l->j) {
		tui_json *j = l->j;
		tui_json_obj(j, NULL);
		tui_json_u64(j, "id", (uint64_t)b->id);
		tui_json_u64(j, "program_id", (uint64_t)b->program_id);
		tui_json_str_or_null(j, "program", b->program);
		tui_json_str(j, "kinds", kinds);
		tui_json_arr(j, "sites");
		for (int i = 0; i < 2; i++) {
			tui_json_obj(j, NULL);
			tui_json_site(j, &b->site[i]);
			tui_json_end(j, '}');
		}
		tui_json_end(j, ']');
		tui_json_u64(j, "runs", b->runs);
		tui_json_str(j, "found_by", db_found_name(b->found_by));
		tui_json_u64(j, "first_run", b->first_run);
		tui_json_u64(j, "first_seen",
			     b->first_seen > 0 ? (uint64_t)b->first_seen : 0);
		tui_json_str_or_null(j, "signature", b->sig);
		tui_json_str(j, "state", db_state_name(b->state));
		if (b->triaged > 0)
			tui_json_u64(j, "triaged", (uint64_t)b->triaged);
		else
			tui_json_null(j, "triaged");
		tui_json_u64(j, "builds", b->builds);
		tui_supp_json_row(j, l->rule);
		tui_json_end(j, '}');
		return true;
	}
	if (l->n == 1) {
		tui_supp_column(l, true);
		fprintf(l->out, "%-5s %-16s %-5s %6s%s  %-9s  %-9s  %-16s %s\n",
			"bug", "program", "kinds", "runs",
			l->builds ? " builds" : "", "state", "found by",
			"first seen", "sites");
	}
	tui_fmt_time(b->first_seen, seen, sizeof seen);
	tui_fmt_site(&b->site[0], s0, sizeof s0);
	tui_fmt_site(&b->site[1], s1, sizeof s1);
	tui_supp_column(l, false);
	fprintf(l->out, "%-5" PRId64 " %-16s %-5s %6" PRIu64, b->id,
		or_unknown(b->program), kinds, b->runs);
	if (l->builds)
		fprintf(l->out, " %6" PRIu64, b->builds);
	fprintf(l->out, "  %-9s  %-9s  %-16s %s <-> %s\n",
		db_state_name(b->state), db_found_name(b->found_by), seen, s0,
		s1);
	return true;
}

int tui_cmd_bugs(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err)
{
	const char *progopt = tui_opt_value(cmd, a, "--program");
	bool json = tui_opt_value(cmd, a, "--json") != NULL;
	bool show = tui_opt_value(cmd, a, "--show-suppressed") != NULL;
	tui_list l = {.out = out, .marks = show && !json};
	tui_supp_list sl = {.list = &l, .show = show};
	db_program p = {0};
	uint32_t builds = 0;
	const char *path;
	tui_json j;
	tui_emit em;
	wasm_err e;
	wasm_status st;
	db *d;
	int rc;

	/* A bad gate, format or rules file is bad input: refused before
	 * anything is read. */
	tui_emit_init(&em, TUI_FORMAT_TEXT, cmd->name, out, NULL, TUI_GATE_OFF,
		      NULL);
	if ((rc = tui_gate_parse(cmd, a, &sl.gate, err)) ||
	    (rc = tui_format_parse(cmd, a, &em.fmt, &em.root, err)))
		return rc;
	if (show && em.fmt) {
		fprintf(err, "heisen bugs: --show-suppressed is for the text "
			     "list; --format leaves suppressed bugs out and "
			     "counts them\n");
		tui_emit_fini(&em);
		return TUI_EXIT_USAGE;
	}
	if ((rc = tui_supp_open(cmd, a, &sl.supp, err))) {
		tui_emit_fini(&em);
		return rc;
	}
	if ((rc = open_existing(cmd, a, &d, &path, err))) {
		det_supp_free(sl.supp);
		tui_emit_fini(&em);
		return rc;
	}
	em.d = d;
	em.gate = sl.gate;
	if (em.fmt)
		l.em = &em;
	sl.d = d;
	sl.err = &e;
	wasm_err_clear(&e);
	/* A name stands for every build of that name; an id or a hash
	 * for one build. */
	if (progopt &&
	    ((st = db_program_named(d, progopt, &p, &builds, &e)) ||
	     (!builds && (st = db_program_find(d, progopt, &p, &e))))) {
		rc = tui_query_fail(cmd, st, &e, err);
		goto done;
	}
	l.builds = builds > 0;
	if (json) {
		l.j = &j;
		tui_json_init(&j, out);
		tui_json_obj(&j, NULL);
		tui_json_str(&j, "schema", "heisen.bugs/1");
		tui_json_str(&j, "db", path);
		if (progopt) {
			tui_json_obj(&j, "program");
			tui_json_u64(&j, "id", (uint64_t)p.id);
			tui_json_str_or_null(&j, "name", p.name);
			if (builds > 1)
				tui_json_null(&j, "hash");
			else
				json_hex64(&j, "hash", p.hash);
			tui_json_u64(&j, "builds", builds ? builds : 1);
			tui_json_end(&j, '}');
		} else {
			tui_json_null(&j, "program");
		}
		tui_json_arr(&j, "bugs");
	}
	st = builds ? db_bug_list_builds(d, p.name, tui_supp_bug_row, &sl, &e)
		    : db_bug_list(d, p.id, tui_supp_bug_row, &sl, &e);
	if (!st)
		st = sl.st;
	if (em.fmt && !st) {
		tui_emit_end end = {.suppressed = sl.suppressed};
		if (progopt)
			tui_emit_program(&em, p.name);
		else
			st = tui_emit_programs(&em, &e);
		if (!st)
			st = tui_emit_close(&em, &end, &e);
	} else if (json) {
		tui_json_end(&j, ']');
		tui_supp_json(&j, sl.supp, sl.suppressed);
		tui_json_end(&j, '}');
		tui_json_done(&j);
	} else if (!st) {
		if (!l.n && !sl.suppressed)
			fprintf(out, "no bugs recorded%s%s in %s\n",
				progopt ? " for " : "",
				progopt ? or_unknown(p.name) : "", path);
		tui_supp_print(out, sl.supp, sl.suppressed, "bug",
			       show ? NULL : "--show-suppressed lists them");
	}
	if (st)
		rc = tui_query_fail(cmd, st, &e, err);
	else
		rc = sl.failing ? TUI_EXIT_FINDINGS : TUI_EXIT_OK;
done:
	tui_emit_fini(&em);
	db_program_clear(&p);
	db_close(d);
	det_supp_free(sl.supp);
	return rc;
}

/* ---- show ---------------------------------------------------------------- */

static bool example_row(void *vctx, const db_run *r)
{
	tui_report *s = vctx;
	tui_example *x = &s->ex[s->nex++];

	x->run = r->id;
	x->campaign = r->campaign_id;
	snprintf(x->profile, sizeof x->profile, "%s", or_unknown(r->profile));
	x->density_bp = r->density_bp;
	x->seed = r->seed;
	return s->nex < TUI_REPORT_EXAMPLES;
}

/* The first runs may have kept only the finder's stack (the armed
 * access's thread answers when its delay window closes, if it was asked
 * in time): a run that kept both, when there is one, is an example too,
 * in the last place. */
static wasm_status pair_example(struct db *d, tui_report *s, wasm_err *e)
{
	int64_t run;
	db_run r;
	wasm_status st;

	if ((st = db_bug_pair_run(d, s->bug.id, &run, e)) || !run)
		return st;
	for (int i = 0; i < s->nex; i++)
		if (s->ex[i].run == run)
			return WASM_OK;
	if ((st = db_run_get(d, run, &r, e)))
		return st;
	if (s->nex == TUI_REPORT_EXAMPLES)
		s->nex--;
	example_row(s, &r);
	db_run_clear(&r);
	return WASM_OK;
}

static bool example_bug(void *vctx, const db_run_bug *rb)
{
	tui_report *s = vctx;
	tui_example *x = &s->ex[s->cur];

	if (rb->bug_id != s->bug.id)
		return true;
	x->found = true;
	memcpy(x->tid, rb->tid, sizeof rb->tid);
	memcpy(x->addr, rb->addr, sizeof rb->addr);
	x->count = rb->count;
	x->value = rb->value;
	return false;
}

static char *dup_str(const char *s)
{
	size_t n = strlen(s ? s : "") + 1;
	char *p = wasm_malloc(n);

	if (p)
		memcpy(p, s ? s : "", n);
	return p;
}

static bool cell_row(void *vctx, const db_cell *c)
{
	tui_report *s = vctx;
	tui_cell *x;

	if (s->ncells == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 32;
		void *p = wasm_realloc(s->cells, cap * sizeof *s->cells);
		if (!p) {
			s->nomem = true;
			return false;
		}
		s->cells = p;
		s->cap = cap;
	}
	x = &s->cells[s->ncells];
	x->node = dup_str(c->node);
	x->profile = dup_str(c->profile);
	if (!x->node || !x->profile) {
		wasm_free(x->node);
		wasm_free(x->profile);
		s->nomem = true;
		return false;
	}
	x->node_id = c->node_id;
	x->density_bp = c->density_bp;
	x->k = c->k;
	x->n = c->n;
	s->ncells++;
	return true;
}

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	return a < b ? -1 : a > b;
}

/* The grid over the cells: a row per (node, profile) in the order the
 * database gives them, a column per density ascending. */
static bool build_grid(tui_report *s)
{
	size_t nd = 0;

	s->dens = wasm_malloc((s->ncells + 1) * sizeof *s->dens);
	s->row_of = wasm_malloc((s->ncells + 1) * sizeof *s->row_of);
	if (!s->dens || !s->row_of)
		return false;
	for (size_t i = 0; i < s->ncells; i++) {
		const tui_cell *c = &s->cells[i];
		size_t r = 0;
		s->dens[i] = c->density_bp;
		s->multi_node |= c->node_id != s->cells[0].node_id;
		while (r < s->nrows &&
		       (s->cells[s->row_of[r]].node_id != c->node_id ||
			strcmp(s->cells[s->row_of[r]].profile, c->profile)))
			r++;
		if (r == s->nrows)
			s->row_of[s->nrows++] = i;
	}
	qsort(s->dens, s->ncells, sizeof *s->dens, cmp_u32);
	for (size_t i = 0; i < s->ncells; i++)
		if (!nd || s->dens[nd - 1] != s->dens[i])
			s->dens[nd++] = s->dens[i];
	s->ndens = nd;
	return true;
}

const tui_cell *tui_report_cell(const tui_report *r, size_t row, size_t col)
{
	const tui_cell *first;

	if (row >= r->nrows || col >= r->ndens)
		return NULL;
	first = &r->cells[r->row_of[row]];
	for (size_t i = r->row_of[row]; i < r->ncells; i++) {
		const tui_cell *c = &r->cells[i];
		if (c->node_id == first->node_id &&
		    c->density_bp == r->dens[col] &&
		    !strcmp(c->profile, first->profile))
			return c;
	}
	return NULL;
}

/* The stacks of s's examples: a run that kept both (one collision's pair,
 * with its value), the first whose value changed, else the first; with
 * none, per site the first run that kept one. */
static wasm_status pick_stacks(struct db *d, tui_report *s, wasm_err *e)
{
	wasm_status st;
	bool paired = false;

	s->evidence = -1;
	for (int i = 0; i < s->nex; i++)
		if (s->ex[i].found) {
			s->evidence = i;
			break;
		}
	for (int i = 0; i < s->nex; i++) {
		db_stack got[2];
		bool both, better;
		if ((st =
			 db_run_bug_stacks(d, s->ex[i].run, s->bug.id, got, e)))
			return st;
		both = got[0].n && got[1].n;
		better =
		    both &&
		    (!paired || (!db_value_changed(&s->ex[s->evidence].value) &&
				 db_value_changed(&s->ex[i].value)));
		for (int k = 0; k < 2; k++) {
			if (better || (!paired && !both && got[k].n &&
				       !s->stack_run[k])) {
				db_stack_clear(&s->stack[k]);
				s->stack[k] = got[k];
				s->stack_run[k] = s->ex[i].run;
			} else {
				db_stack_clear(&got[k]);
			}
		}
		if (better) {
			s->evidence = i;
			paired = true;
		}
	}
	return WASM_OK;
}

void tui_report_race(FILE *out, const tui_report *s)
{
	const db_bug *b = &s->bug;
	const tui_example *x = s->evidence >= 0 ? &s->ex[s->evidence] : NULL;
	char title[96];
	tui_race r = {.title = title};

	if (x)
		snprintf(title, sizeof title, "bug %" PRId64 ", run %" PRId64,
			 b->id, x->run);
	else
		snprintf(title, sizeof title, "bug %" PRId64, b->id);
	for (int i = 0; i < 2; i++)
		r.acc[i] = (tui_access){
		    .kind = b->site[i].kind,
		    .width = b->site[i].width,
		    .addr = x ? x->addr[i] : 0,
		    .tid = x ? x->tid[i] : 0,
		    .site = b->site[i].id,
		    .stack = &s->stack[i],
		    .func = b->site[i].func,
		    .file = b->site[i].file,
		    .line = b->site[i].line,
		    .spawn = &s->spawn[i],
		};
	r.loc = &s->loc;
	/* A pair of stacks or a value is a collision's; so is a bug that only
	 * sweeps saw. */
	r.concurrent =
	    (s->stack_run[0] && s->stack_run[0] == s->stack_run[1]) ||
	    (x && x->value.width) || !(b->found_by & DB_FOUND_HB);
	r.value = x ? &x->value : NULL;
	tui_race_print(out, &r);
}

/* Keep the newest decision's note (decisions come oldest first). */
static bool last_note(void *vctx, const db_triage *t)
{
	tui_report *s = vctx;

	wasm_free(s->note);
	s->note = t->note ? dup_str(t->note) : NULL;
	s->nomem |= t->note && !s->note;
	return true;
}

wasm_status tui_report_load(struct db *d, int64_t bug, tui_report *s,
			    wasm_err *e)
{
	wasm_status st;

	memset(s, 0, sizeof *s);
	if ((st = db_bug_get(d, bug, &s->bug, e)) ||
	    (st = db_program_get(d, s->bug.program_id, &s->prog, e)) ||
	    (st = db_triage_list(d, bug, last_note, s, e)) ||
	    (st = db_run_list(d, 0, bug, example_row, s, e)) ||
	    (st = pair_example(d, s, e)))
		return st;
	/* One run's bugs at a time, after the run list is done with. */
	for (s->cur = 0; s->cur < s->nex; s->cur++)
		if ((st = db_run_bugs(d, s->ex[s->cur].run, example_bug, s, e)))
			return st;
	if ((st = pick_stacks(d, s, e)))
		return st;
	if (s->evidence >= 0 &&
	    (st = db_run_bug_where(d, s->ex[s->evidence].run, bug, &s->loc,
				   s->spawn, e)))
		return st;
	if ((st = db_bug_cells(d, bug, cell_row, s, e)))
		return st;
	if (s->nomem || !build_grid(s))
		return wasm_err_set(e, WASM_NOMEM, WASM_NO_OFFSET,
				    "out of memory");
	return WASM_OK;
}

void tui_report_free(tui_report *s)
{
	for (size_t i = 0; i < s->ncells; i++) {
		wasm_free(s->cells[i].node);
		wasm_free(s->cells[i].profile);
	}
	wasm_free(s->cells);
	wasm_free(s->dens);
	wasm_free(s->row_of);
	db_program_clear(&s->prog);
	db_bug_clear(&s->bug);
	db_stack_clear(&s->stack[0]);
	db_stack_clear(&s->stack[1]);
	wasm_free(s->note);
	db_loc_clear(&s->loc);
	db_stack_clear(&s->spawn[0].stack);
	db_stack_clear(&s->spawn[1].stack);
	memset(s, 0, sizeof *s);
}

FILE *tui_find_source(const char *file, const char *progpath, char *path,
		      size_t cap)
{
	const char *base = strrchr(file, '/');
	const char *slash = progpath ? strrchr(progpath, '/') : NULL;
	int dirlen = slash ? (int)(slash - progpath) : 1;
	const char *dir = slash ? progpath : ".";
	FILE *f;

	base = base ? base + 1 : file;
	snprintf(path, cap, "%s", file);
	if ((f = fopen(path, "r")))
		return f;
	snprintf(path, cap, "%s", base);
	if (base != file && (f = fopen(path, "r")))
		return f;
	if (file[0] != '/') {
		snprintf(path, cap, "%.*s/%s", dirlen, dir, file);
		if ((f = fopen(path, "r")))
			return f;
	}
	snprintf(path, cap, "%.*s/%s", dirlen, dir, base);
	return fopen(path, "r");
}

bool tui_read_context(const struct db_bug_site *site, const char *progpath,
		      tui_context *cx)
{
	char buf[TUI_CONTEXT_COLS + 2];
	uint32_t lo, hi, no = 1;
	bool at_start = true;
	FILE *f;

	cx->n = 0;
	if (!site->file || !*site->file || !site->line)
		return false;
	if (!(f = tui_find_source(site->file, progpath, cx->path,
				  sizeof cx->path)))
		return false;
	lo =
	    site->line > TUI_CONTEXT_LINES ? site->line - TUI_CONTEXT_LINES : 1;
	hi = site->line + TUI_CONTEXT_LINES;
	cx->first = lo;
	/* fgets in pieces: a long line is cut at TUI_CONTEXT_COLS and the rest
	 * skipped. */
	while (no <= hi && fgets(buf, sizeof buf, f)) {
		size_t len = strlen(buf);
		bool eol = len && buf[len - 1] == '\n';
		if (at_start && no >= lo) {
			char *t = cx->text[cx->n++];
			size_t k = 0;
			for (size_t i = 0; i < len && k < TUI_CONTEXT_COLS;
			     i++) {
				unsigned char ch = (unsigned char)buf[i];
				if (ch == '\n' || ch == '\r')
					continue;
				/* The terminal gets no control bytes. */
				t[k++] =
				    ch == '\t' || ch >= 0x20 ? (char)ch : '?';
			}
			t[k] = '\0';
		}
		at_start = eol;
		no += eol;
	}
	fclose(f);
	return site->line - lo < cx->n;
}

static void show_site_text(FILE *out, const tui_report *r, int i)
{
	const struct db_bug_site *s = &r->bug.site[i];
	const char *progpath = r->prog.path;
	tui_context *cx = wasm_malloc(sizeof *cx);
	char line[16] = "?";

	if (s->line)
		snprintf(line, sizeof line, "%u", s->line);
	fprintf(out, "\nsite %u (%s) in %s at %s:%s\n", s->id,
		rw_kind_name((rw_kind)s->kind), or_unknown(s->func),
		or_unknown(s->file), line);
	if (cx && tui_read_context(s, progpath, cx)) {
		for (uint32_t k = 0; k < cx->n; k++)
			fprintf(out, "  %c %6u | %s\n",
				cx->first + k == s->line ? '>' : ' ',
				cx->first + k, cx->text[k]);
	} else if (s->file && *s->file && s->line) {
		fprintf(out,
			"  (source not shown: %s not found, or shorter "
			"than %u lines)\n",
			s->file, s->line);
	}
	wasm_free(cx);
}

static void show_site_json(tui_json *j, const tui_report *r, int i)
{
	const struct db_bug_site *s = &r->bug.site[i];
	const char *progpath = r->prog.path;
	tui_context *cx = wasm_malloc(sizeof *cx);

	tui_json_obj(j, NULL);
	tui_json_site(j, s);
	if (cx && tui_read_context(s, progpath, cx)) {
		tui_json_obj(j, "source");
		tui_json_str(j, "path", cx->path);
		tui_json_u64(j, "first_line", cx->first);
		tui_json_arr(j, "lines");
		for (uint32_t k = 0; k < cx->n; k++)
			tui_json_str(j, NULL, cx->text[k]);
		tui_json_end(j, ']');
		tui_json_end(j, '}');
	} else {
		tui_json_null(j, "source");
	}
	tui_json_u64(j, "width", s->width);
	tui_json_stack(j, "stack", &r->stack[i]);
	tui_json_u64(j, "stack_run", (uint64_t)r->stack_run[i]);
	tui_json_spawn(j, "created_by", &r->spawn[i]);
	tui_json_end(j, '}');
	wasm_free(cx);
}

static void show_text(FILE *out, const tui_report *s)
{
	const db_bug *b = &s->bug;
	const db_program *p = &s->prog;
	char kinds[8], seen[32];

	tui_fmt_kinds(b, kinds, sizeof kinds);
	tui_fmt_time(b->first_seen, seen, sizeof seen);
	fprintf(out, "bug %" PRId64 ": %s race in %s", b->id, kinds,
		or_unknown(p->name));
	if (p->path && *p->path)
		fprintf(out, " (%s)", p->path);
	fprintf(out,
		"\ndetected by %" PRIu64 " run%s, first seen %s (run %" PRIu64
		")\n",
		b->runs, b->runs == 1 ? "" : "s", seen, b->first_run);
	fprintf(out, "signature %s, triage: %s", or_unknown(b->sig),
		db_state_name(b->state));
	if (b->triaged > 0) {
		tui_fmt_time(b->triaged, seen, sizeof seen);
		fprintf(out, " since %s", seen);
	}
	if (s->note)
		fprintf(out, " (%s)", s->note);
	fputc('\n', out);
	fputc('\n', out);
	tui_report_race(out, s);
	for (int i = 0; i < 2; i++)
		show_site_text(out, s, i);
	if (s->nex) {
		fprintf(out,
			"\nexample runs:\n  %-7s %-8s %-12s %7s  %-16s  "
			"%-11s %s\n",
			"run", "campaign", "profile", "density", "seed",
			"threads", "addresses");
		for (int i = 0; i < s->nex; i++) {
			const tui_example *x = &s->ex[i];
			char density[16], seed[24], tids[32] = "?",
						    addrs[32] = "?";
			tui_fmt_density(x->density_bp, density, sizeof density);
			fmt_hex64(x->seed, seed, sizeof seed);
			if (x->found) {
				snprintf(tids, sizeof tids, "%u %u", x->tid[0],
					 x->tid[1]);
				snprintf(addrs, sizeof addrs, "0x%x 0x%x",
					 x->addr[0], x->addr[1]);
			}
			fprintf(out,
				"  %-7" PRId64 " %-8" PRId64
				" %-12s %7s  %-16s  %-11s %s\n",
				x->run, x->campaign, x->profile, density, seed,
				tids, addrs);
		}
	}
}

static void show_json(FILE *out, const char *path, const tui_report *s)
{
	const db_bug *b = &s->bug;
	const db_program *p = &s->prog;
	char kinds[8];
	tui_json j;

	tui_fmt_kinds(b, kinds, sizeof kinds);
	tui_json_init(&j, out);
	tui_json_obj(&j, NULL);
	tui_json_str(&j, "schema", "heisen.bug/1");
	tui_json_str(&j, "db", path);
	tui_json_u64(&j, "id", (uint64_t)b->id);
	tui_json_obj(&j, "program");
	tui_json_u64(&j, "id", (uint64_t)p->id);
	tui_json_str_or_null(&j, "name", p->name);
	tui_json_str_or_null(&j, "path", p->path);
	json_hex64(&j, "hash", p->hash);
	tui_json_end(&j, '}');
	tui_json_str(&j, "kinds", kinds);
	tui_json_u64(&j, "runs", b->runs);
	tui_json_u64(&j, "first_run", b->first_run);
	tui_json_u64(&j, "first_seen",
		     b->first_seen > 0 ? (uint64_t)b->first_seen : 0);
	tui_json_str_or_null(&j, "signature", b->sig);
	tui_json_str(&j, "state", db_state_name(b->state));
	if (b->triaged > 0)
		tui_json_u64(&j, "triaged", (uint64_t)b->triaged);
	else
		tui_json_null(&j, "triaged");
	tui_json_str_or_null(&j, "note", s->note);
	tui_json_arr(&j, "sites");
	for (int i = 0; i < 2; i++)
		show_site_json(&j, s, i);
	tui_json_end(&j, ']');
	tui_json_loc(&j, "location", &s->loc);
	tui_json_arr(&j, "examples");
	for (int i = 0; i < s->nex; i++) {
		const tui_example *x = &s->ex[i];
		tui_json_obj(&j, NULL);
		tui_json_u64(&j, "run", (uint64_t)x->run);
		tui_json_u64(&j, "campaign", (uint64_t)x->campaign);
		tui_json_str(&j, "profile", x->profile);
		tui_json_u64(&j, "density_bp", x->density_bp);
		json_hex64(&j, "seed", x->seed);
		if (x->found) {
			tui_json_arr(&j, "tid");
			tui_json_u64(&j, NULL, x->tid[0]);
			tui_json_u64(&j, NULL, x->tid[1]);
			tui_json_end(&j, ']');
			tui_json_arr(&j, "addr");
			tui_json_u64(&j, NULL, x->addr[0]);
			tui_json_u64(&j, NULL, x->addr[1]);
			tui_json_end(&j, ']');
			tui_json_u64(&j, "count", x->count);
			tui_json_value(&j, "value", &x->value);
		} else {
			tui_json_null(&j, "tid");
			tui_json_null(&j, "addr");
			tui_json_null(&j, "count");
			tui_json_null(&j, "value");
		}
		tui_json_end(&j, '}');
	}
	tui_json_end(&j, ']');
	tui_json_arr(&j, "cells");
	for (size_t i = 0; i < s->ncells; i++) {
		const tui_cell *c = &s->cells[i];
		tui_json_obj(&j, NULL);
		tui_json_u64(&j, "node_id", (uint64_t)c->node_id);
		tui_json_str(&j, "node", c->node);
		tui_json_str(&j, "profile", c->profile);
		tui_json_u64(&j, "density_bp", c->density_bp);
		tui_json_u64(&j, "k", c->k);
		tui_json_u64(&j, "n", c->n);
		tui_json_end(&j, '}');
	}
	tui_json_end(&j, ']');
	tui_json_end(&j, '}');
	tui_json_done(&j);
}

int tui_cmd_show(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err)
{
	bool json = tui_opt_value(cmd, a, "--json") != NULL;
	tui_report *s = NULL;
	const char *path;
	int64_t bid;
	wasm_err e;
	wasm_status st;
	db *d;
	int rc;

	if ((rc = tui_parse_id(cmd, "bug", a->operands[0], "bugs", &bid, err)))
		return rc;
	if ((rc = open_existing(cmd, a, &d, &path, err)))
		return rc;
	wasm_err_clear(&e);
	if (!(s = wasm_malloc(sizeof *s))) {
		db_close(d);
		fprintf(err, "heisen %s: out of memory\n", cmd->name);
		return TUI_EXIT_INTERNAL;
	}
	if ((st = tui_report_load(d, bid, s, &e))) {
		rc = tui_query_fail(cmd, st, &e, err);
	} else if (json) {
		show_json(out, path, s);
	} else {
		show_text(out, s);
		if (s->ncells) {
			fprintf(out, "\ndetections (runs that detected it / "
				     "runs, per profile and density):\n");
			tui_print_grid(out, s, 0, false);
		}
	}
	tui_report_free(s);
	wasm_free(s);
	db_close(d);
	return rc;
}

/* ---- profiles ------------------------------------------------------------ */

int tui_cmd_profiles(const tui_cmd *cmd, const tui_args *a, FILE *out,
		     FILE *err)
{
	if (tui_opt_value(cmd, a, "--json")) {
		tui_json j;
		tui_json_init(&j, out);
		tui_json_obj(&j, NULL);
		tui_json_str(&j, "schema", "heisen.profiles/1");
		tui_json_arr(&j, "profiles");
		for (const det_profile *p = det_profiles; p->name; p++) {
			tui_json_obj(&j, NULL);
			tui_json_str(&j, "name", p->name);
			tui_json_str(&j, "help", p->help ? p->help : "");
			tui_json_bool(&j, "one_core", p->one_core);
			tui_json_u64(&j, "throttle", p->throttle);
			tui_json_bool(&j, "noisy", p->noisy);
			tui_json_end(&j, '}');
		}
		tui_json_end(&j, ']');
		tui_json_end(&j, '}');
		tui_json_done(&j);
		return TUI_EXIT_OK;
	}
	for (const det_profile *p = det_profiles; p->name; p++)
		fprintf(out, "%-12s %s\n", p->name, p->help ? p->help : "");
	return TUI_EXIT_OK;
}
