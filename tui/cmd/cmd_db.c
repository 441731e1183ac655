/*
 * cmd_db.c - the commands that read the workspace database: `campaigns`,
 * `runs`, `bugs`, `show` and `profiles`. The SQL is in db/, a bug's
 * report in tui/report/; this file picks options and prints.
 */
#include "tui/cli/cli.h"
#include "tui/report/report.h"
#include "tui/report/filter.h"
#include "tui/cmd/cmd.h"
#include "tui/report/jsonw.h"
#include "tui/report/race.h"
#include "tui/report/report_fmt.h"

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

static int open_existing(const tui_cmd *cmd, const tui_args *a, db **out,
			 const char **path, FILE *err)
{
	return tui_open_existing_db(tui_opt_value(cmd, a, "--db"), out, path,
				    err);
}

static void fmt_hex64(uint64_t v, char *buf, size_t cap)
{
	snprintf(buf, cap, "%016" PRIx64, v);
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

/* ---- campaigns ----------------------------------------------------------- */

/* A campaign's world: the directories granted (host and guest), the
 * environment and the limits (null: the default). */
static void json_world(tui_json *j, const wasi_world *w)
{
	const char *p = w->dirs;

	tui_json_arr(j, "dirs");
	for (uint32_t i = 0; i < w->ndirs; i++) {
		tui_json_obj(j, NULL);
		tui_json_str(j, "host", p);
		p += strlen(p) + 1;
		tui_json_str(j, "guest", p);
		p += strlen(p) + 1;
		tui_json_end(j, '}');
	}
	tui_json_end(j, ']');
	tui_json_arr(j, "env");
	p = w->env;
	for (uint32_t i = 0; i < w->nenv; i++) {
		tui_json_str(j, NULL, p);
		p += strlen(p) + 1;
	}
	tui_json_end(j, ']');
	if (w->max_threads)
		tui_json_u64(j, "max_threads", w->max_threads);
	else
		tui_json_null(j, "max_threads");
	if (w->max_memory_pages)
		tui_json_u64(j, "max_memory_bytes",
			     (uint64_t)w->max_memory_pages * 65536);
	else
		tui_json_null(j, "max_memory_bytes");
}

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
		if (c->input_hash) {
			tui_json_obj(j, "stdin");
			tui_json_str(j, "hash", c->input_hash);
			tui_json_u64(j, "bytes", c->ninput);
			tui_json_end(j, '}');
		} else {
			tui_json_null(j, "stdin");
		}
		json_world(j, &c->world);
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
		c->id, db_kind_name(c->kind), tui_or_unknown(c->program),
		created, tui_or_unknown(c->status), runs, c->cells, c->bugs,
		tui_or_unknown(c->densities), tui_or_unknown(c->profiles),
		tui_or_unknown(c->node));
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
		snprintf(status, sizeof status, "%s: %s",
			 tui_or_unknown(r->status), r->msg);
	else
		snprintf(status, sizeof status, "%s",
			 tui_or_unknown(r->status));
	fprintf(l->out,
		"%-7" PRId64 " %-7" PRIu64 " %-12s %7s  %-16s %10.1f %5u  "
		"%s\n",
		r->id, r->idx, tui_or_unknown(r->profile), density, seed,
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
				progopt ? tui_or_unknown(p.name) : "", path);
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

static void show_site_text(FILE *out, const tui_report *r, int i)
{
	const struct db_bug_site *s = &r->bug.site[i];
	const char *progpath = r->prog.path;
	tui_context *cx = wasm_malloc(sizeof *cx);
	char line[16] = "?";

	if (s->line)
		snprintf(line, sizeof line, "%u", s->line);
	fprintf(out, "\nsite %u (%s) in %s at %s:%s\n", s->id,
		rw_kind_name((rw_kind)s->kind), tui_or_unknown(s->func),
		tui_or_unknown(s->file), line);
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
	{
		const db_locks *const acc[2] = {&r->locks[0], &r->locks[1]};
		tui_json_locks(j, "locks", "locks_held", acc, i);
	}
	tui_json_str_or_null(j, "thread_name",
			     r->name[i][0] ? r->name[i] : NULL);
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
		tui_or_unknown(p->name));
	if (p->path && *p->path)
		fprintf(out, " (%s)", p->path);
	fprintf(out,
		"\ndetected by %" PRIu64 " run%s, first seen %s (run %" PRIu64
		")\n",
		b->runs, b->runs == 1 ? "" : "s", seen, b->first_run);
	fprintf(out, "signature %s, triage: %s", tui_or_unknown(b->sig),
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
