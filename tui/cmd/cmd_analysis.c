/*
 * cmd_analysis.c - `heisen factor` (the heisen factor and class of one
 * bug or of every bug, most heisen first; detector/stats.h), `heisen
 * grid` (a bug's detections per cell, as a heat map on a terminal),
 * `heisen simulate` (budget strategies over the recorded runs) and
 * `heisen plot` (the three as standalone SVG).
 */
#include "tui/cli/cli.h"
#include "tui/report/report.h"
#include "tui/cmd/cmd.h"
#include "detector/stats.h"
#include "tui/report/jsonw.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* A bug and its factor. */
typedef struct scored {
	db_bug bug;
	det_factor f; /* valid when swept */
	det_class cls;
	bool swept; /* sweeps ran its program: it has a grid */
} scored;

typedef struct scored_list {
	scored *v;
	size_t n, cap;
	bool nomem;
} scored_list;

static bool keep_bug(void *ctx, const db_bug *b)
{
	scored_list *l = ctx;
	db_bug *c;

	if (l->n == l->cap) {
		size_t nc = l->cap ? 2 * l->cap : 16;
		scored *nv = realloc(l->v, nc * sizeof *nv);
		if (!nv) {
			l->nomem = true;
			return false;
		}
		l->v = nv;
		l->cap = nc;
	}
	c = &l->v[l->n].bug;
	memset(&l->v[l->n], 0, sizeof l->v[l->n]);
	/* The list's strings are the callback's. */
	if (!db_bug_copy(b, c)) {
		l->nomem = true;
		return false;
	}
	l->n++;
	return true;
}

/* A bug's cells, and the (node, profile) pairs that number their rows. */
typedef struct kn_list {
	det_kn *v;
	uint32_t n, cap;
	struct row_key {
		int64_t node;
		char profile[64];
	} * rows;
	uint32_t nrows;
	bool nomem;
} kn_list;

static uint32_t row_of(kn_list *l, const db_cell *c)
{
	uint32_t r;

	for (r = 0; r < l->nrows; r++)
		if (l->rows[r].node == c->node_id &&
		    !strncmp(l->rows[r].profile, c->profile,
			     sizeof l->rows[r].profile - 1))
			return r;
	/* At most one new row per cell: rows has the cells' room. */
	l->rows[r].node = c->node_id;
	snprintf(l->rows[r].profile, sizeof l->rows[r].profile, "%s",
		 c->profile);
	l->nrows++;
	return r;
}

static bool add_cell(void *ctx, const db_cell *c)
{
	kn_list *l = ctx;

	if (l->n == l->cap) {
		uint32_t nc = l->cap ? 2 * l->cap : 64;
		det_kn *nv = realloc(l->v, nc * sizeof *nv);
		struct row_key *nr;
		if (!nv) {
			l->nomem = true;
			return false;
		}
		l->v = nv;
		if (!(nr = realloc(l->rows, nc * sizeof *nr))) {
			l->nomem = true;
			return false;
		}
		l->rows = nr;
		l->cap = nc;
	}
	l->v[l->n] = (det_kn){c->density_bp, c->k, c->n, row_of(l, c)};
	l->n++;
	return true;
}

static int by_factor(const void *x, const void *y)
{
	const scored *a = x, *b = y;

	if (a->swept != b->swept)
		return a->swept ? -1 : 1;
	if (a->swept && a->f.map != b->f.map)
		return a->f.map < b->f.map ? 1 : -1;
	return (a->bug.id > b->bug.id) - (a->bug.id < b->bug.id);
}

static void print_row(FILE *out, const scored *s)
{
	char kinds[8], s0[320], s1[320], naive[16] = "-";

	tui_fmt_kinds(&s->bug, kinds, sizeof kinds);
	tui_fmt_site(&s->bug.site[0], s0, sizeof s0);
	tui_fmt_site(&s->bug.site[1], s1, sizeof s1);
	if (!s->swept) {
		fprintf(out,
			"%-5" PRId64 " %-16s %-5s %12s %5s  %6s  %-11s  %6s  "
			"%-16s  %s <-> %s\n",
			s->bug.id, s->bug.program ? s->bug.program : "?", kinds,
			"-", "0", "-", "no sweep", "-", "-", s0, s1);
		return;
	}
	if (s->f.naive_ok)
		snprintf(naive, sizeof naive, "%.2f", s->f.naive);
	fprintf(out,
		"%-5" PRId64 " %-16s %-5s %5" PRIu64 "/%-6" PRIu64
		" %5u  %6.2f  %5.2f-%-5.2f  %6s  %-16s  %s <-> %s\n",
		s->bug.id, s->bug.program ? s->bug.program : "?", kinds, s->f.k,
		s->f.n, s->f.ncells, s->f.map, s->f.lo, s->f.hi, naive,
		det_class_name(s->cls), s0, s1);
}

static void json_row(tui_json *j, const scored *s)
{
	char kinds[8];

	tui_fmt_kinds(&s->bug, kinds, sizeof kinds);
	tui_json_obj(j, NULL);
	tui_json_i64(j, "bug", s->bug.id);
	if (s->bug.program)
		tui_json_str(j, "program", s->bug.program);
	else
		tui_json_null(j, "program");
	tui_json_str(j, "kinds", kinds);
	tui_json_arr(j, "sites");
	for (int i = 0; i < 2; i++) {
		tui_json_obj(j, NULL);
		tui_json_site(j, &s->bug.site[i]);
		tui_json_end(j, '}');
	}
	tui_json_end(j, ']');
	tui_json_bool(j, "swept", s->swept);
	if (!s->swept) {
		tui_json_end(j, '}');
		return;
	}
	tui_json_u64(j, "detections", s->f.k);
	tui_json_u64(j, "runs", s->f.n);
	tui_json_u64(j, "cells", s->f.ncells);
	tui_json_f64(j, "factor", s->f.map);
	tui_json_arr(j, "interval");
	tui_json_f64(j, NULL, s->f.lo);
	tui_json_f64(j, NULL, s->f.hi);
	tui_json_end(j, ']');
	if (s->f.naive_ok)
		tui_json_f64(j, "naive", s->f.naive);
	else
		tui_json_null(j, "naive");
	tui_json_f64(j, "bandwidth", s->f.bandwidth);
	tui_json_bool(j, "few", s->f.few);
	tui_json_str(j, "class", det_class_name(s->cls));
	tui_json_end(j, '}');
}

/* The bugs (all, or only `bug`) with their factors and classes, most
 * heisen first; l owns them (scored_free). */
static wasm_status score_bugs(db *d, int64_t bug, const det_factor_opts *o,
			      scored_list *l, wasm_err *e)
{
	wasm_status st;

	if (bug) {
		db_bug b = {0};
		if (!(st = db_bug_get(d, bug, &b, e))) {
			keep_bug(l, &b);
			db_bug_clear(&b);
		}
	} else {
		st = db_bug_list(d, 0, keep_bug, l, e);
	}
	if (!st && l->nomem)
		st = wasm_err_set(e, WASM_NOMEM, WASM_NO_OFFSET,
				  "out of memory");
	for (size_t i = 0; !st && i < l->n; i++) {
		kn_list cells = {0};
		scored *s = &l->v[i];
		bool same = s->bug.site[0].id == s->bug.site[1].id;
		st = db_bug_cells(d, s->bug.id, add_cell, &cells, e);
		if (!st && cells.nomem)
			st = wasm_err_set(e, WASM_NOMEM, WASM_NO_OFFSET,
					  "out of memory");
		/* Each bug its own stream: its F does not depend on which
		 * other bugs are listed. */
		det_factor_opts bo = *o;
		bo.seed = det_seed_mix(o->seed ^ (uint64_t)s->bug.id);
		/* A bug only `heisen check` found has no sweep runs. */
		s->swept = cells.n > 0;
		if (!st && s->swept)
			st = det_factor_estimate(cells.v, cells.n, same, &bo,
						 &s->f, e);
		s->cls = det_classify(cells.v, cells.n, same);
		free(cells.v);
		free(cells.rows);
	}
	if (!st)
		qsort(l->v, l->n, sizeof *l->v, by_factor);
	return st;
}

static void scored_free(scored_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		db_bug_clear(&l->v[i].bug);
	free(l->v);
	memset(l, 0, sizeof *l);
}

/* --samples, --seed and --prior of factor and plot factor; exit code. */
static int factor_opts(const tui_cmd *cmd, const tui_args *a,
		       det_factor_opts *o, FILE *err)
{
	const char *sv = tui_opt_value(cmd, a, "--samples");
	const char *seedv = tui_opt_value(cmd, a, "--seed");
	const char *pv = tui_opt_value(cmd, a, "--prior");

	*o = (det_factor_opts){DET_FACTOR_SAMPLES, 0, DET_PRIOR_POOLED};
	if (pv && !det_prior_parse(pv, &o->prior)) {
		fprintf(err,
			"heisen %s: --prior expects pooled or paper, got "
			"'%s'\n",
			cmd->name, pv);
		return TUI_EXIT_USAGE;
	}
	if (sv && !tui_parse_u32(sv, 100, 10000000, &o->samples)) {
		fprintf(err,
			"heisen %s: --samples expects 100 to 10000000, got "
			"'%s'\n",
			cmd->name, sv);
		return TUI_EXIT_USAGE;
	}
	if (seedv && !tui_parse_u64(seedv, &o->seed)) {
		fprintf(err,
			"heisen %s: --seed expects a 64-bit number, got "
			"'%s'\n",
			cmd->name, seedv);
		return TUI_EXIT_USAGE;
	}
	return TUI_EXIT_OK;
}

int tui_cmd_factor(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err)
{
	bool json = tui_opt_value(cmd, a, "--json") != NULL;
	det_factor_opts o;
	int64_t bug = 0;
	scored_list l = {0};
	const char *path;
	wasm_err e;
	wasm_status st;
	db *d = NULL;
	int rc;

	if ((rc = factor_opts(cmd, a, &o, err)))
		return rc;
	if (a->noperands &&
	    (rc = tui_parse_id(cmd, "bug", a->operands[0], "bugs", &bug, err)))
		return rc;
	if ((rc = tui_open_existing_db(tui_opt_value(cmd, a, "--db"), &d, &path,
				       err)))
		return rc;
	if ((st = score_bugs(d, bug, &o, &l, &e))) {
		fprintf(err, "heisen factor: %s\n", e.msg);
		rc = tui_exit_for(st);
		goto out;
	}
	if (json) {
		tui_json j;
		tui_json_init(&j, out);
		tui_json_obj(&j, NULL);
		tui_json_str(&j, "schema", "heisen.factor/1");
		tui_json_str(&j, "db", path);
		tui_json_u64(&j, "samples", o.samples);
		tui_json_u64(&j, "seed", o.seed);
		tui_json_str(&j, "prior", det_prior_name(o.prior));
		tui_json_arr(&j, "bugs");
		for (size_t i = 0; i < l.n; i++)
			json_row(&j, &l.v[i]);
		tui_json_end(&j, ']');
		tui_json_end(&j, '}');
		tui_json_done(&j);
	} else if (!l.n) {
		fprintf(out, "no bugs recorded in %s\n", path);
	} else {
		fprintf(
		    out,
		    "%-5s %-16s %-5s %12s %5s  %6s  %-11s  %6s  %-16s  %s\n",
		    "bug", "program", "kinds", "detections", "cells", "F",
		    "90 %", "naive", "class", "sites");
		for (size_t i = 0; i < l.n; i++)
			print_row(out, &l.v[i]);
	}
	rc = TUI_EXIT_OK;
out:
	scored_free(&l);
	db_close(d);
	return rc;
}

/* ---- grid ------------------------------------------------------------------
 */

/* Phi of a cell of the report's bug. */
static double phi_of(const tui_report *r, uint32_t density_bp)
{
	return det_phi(density_bp, r->bug.site[0].id == r->bug.site[1].id);
}

static void grid_json(FILE *out, const tui_report *r)
{
	double best = tui_report_best(r);
	tui_json j;

	tui_json_init(&j, out);
	tui_json_obj(&j, NULL);
	tui_json_str(&j, "schema", "heisen.grid/1");
	tui_json_i64(&j, "bug", r->bug.id);
	if (r->prog.name)
		tui_json_str(&j, "program", r->prog.name);
	else
		tui_json_null(&j, "program");
	tui_json_bool(&j, "same_site", r->bug.site[0].id == r->bug.site[1].id);
	tui_json_f64(&j, "best_detectability", best);
	tui_json_arr(&j, "cells");
	for (size_t row = 0; row < r->nrows; row++)
		for (size_t k = 0; k < r->ndens; k++) {
			const tui_cell *c = tui_report_cell(r, row, k);
			double y, phi;
			if (!c || !c->n)
				continue;
			y = (double)c->k / (double)c->n;
			phi = phi_of(r, c->density_bp);
			tui_json_obj(&j, NULL);
			tui_json_str(&j, "node", c->node);
			tui_json_str(&j, "profile", c->profile);
			tui_json_u64(&j, "density_bp", c->density_bp);
			tui_json_u64(&j, "detected", c->k);
			tui_json_u64(&j, "runs", c->n);
			tui_json_f64(&j, "detectability", y);
			tui_json_f64(&j, "phi", phi);
			tui_json_f64(&j, "observability", y / phi);
			tui_json_end(&j, '}');
		}
	tui_json_end(&j, ']');
	tui_json_end(&j, '}');
	tui_json_done(&j);
}

static void grid_csv(FILE *out, const tui_report *r)
{
	fprintf(out, "node,profile,density_pct,detected,runs,detectability,"
		     "phi,observability\n");
	for (size_t row = 0; row < r->nrows; row++)
		for (size_t k = 0; k < r->ndens; k++) {
			const tui_cell *c = tui_report_cell(r, row, k);
			double y, phi;
			if (!c || !c->n)
				continue;
			y = (double)c->k / (double)c->n;
			phi = phi_of(r, c->density_bp);
			/* Names are the workspace's own: a comma or quote in
			 * one is quoted as CSV wants. */
			for (int f = 0; f < 2; f++) {
				const char *v = f ? c->profile : c->node;
				if (strpbrk(v, ",\"\n")) {
					fputc('"', out);
					for (const char *q = v; *q; q++) {
						if (*q == '"')
							fputc('"', out);
						fputc(*q, out);
					}
					fputs("\",", out);
				} else {
					fprintf(out, "%s,", v);
				}
			}
			fprintf(out,
				"%.2f,%" PRIu64 ",%" PRIu64 ",%.6g,%.6g,%.6g\n",
				c->density_bp / 100.0, c->k, c->n, y, phi,
				y / phi);
		}
}

int tui_cmd_grid(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err)
{
	bool json = tui_opt_value(cmd, a, "--json") != NULL;
	bool csv = tui_opt_value(cmd, a, "--csv") != NULL;
	tui_report *r = NULL;
	int64_t bug;
	const char *path;
	wasm_err e;
	wasm_status st;
	db *d = NULL;
	int rc;

	if (json && csv) {
		fprintf(err, "heisen grid: --csv or --json, not both\n");
		return TUI_EXIT_USAGE;
	}
	if ((rc = tui_parse_id(cmd, "bug", a->operands[0], "bugs", &bug, err)))
		return rc;
	if ((rc = tui_open_existing_db(tui_opt_value(cmd, a, "--db"), &d, &path,
				       err)))
		return rc;
	if (!(r = wasm_calloc(1, sizeof *r))) {
		db_close(d);
		fprintf(err, "heisen grid: out of memory\n");
		return TUI_EXIT_INTERNAL;
	}
	if ((st = tui_report_load(d, bug, r, &e))) {
		fprintf(err, "heisen grid: %s\n", e.msg);
		rc = tui_exit_for(st);
	} else if (json) {
		grid_json(out, r);
	} else if (csv) {
		grid_csv(out, r);
	} else {
		char kinds[8], s0[320], s1[320];
		bool tty = isatty(fileno(out));
		bool colour = tty && !getenv("NO_COLOR");
		int width = 0;
		struct winsize ws;
		if (tty && !ioctl(fileno(out), TIOCGWINSZ, &ws) && ws.ws_col)
			width = ws.ws_col;
		tui_fmt_kinds(&r->bug, kinds, sizeof kinds);
		tui_fmt_site(&r->bug.site[0], s0, sizeof s0);
		tui_fmt_site(&r->bug.site[1], s1, sizeof s1);
		fprintf(out, "bug %" PRId64 ": %s race in %s: %s <-> %s\n",
			r->bug.id, kinds, r->prog.name ? r->prog.name : "?", s0,
			s1);
		if (!r->ncells)
			fprintf(out,
				"no sweep has run %s (heisen check found "
				"this bug): 'heisen sweep %s' measures "
				"where and how often it shows\n",
				r->prog.name ? r->prog.name : "its program",
				r->prog.path ? r->prog.path : "FILE.wasm");
		else
			fprintf(
			    out,
			    "detections K/N per (node, profile) and "
			    "density%s\n",
			    colour
				? "; colour: K/N against the best cell, "
				  "\033[30;44m <1/4 \033[0m \033[30;46m <1/2 "
				  "\033[0m \033[30;43m <3/4 \033[0m "
				  "\033[30;41m "
				  "up to 1 \033[0m"
				: "");
		if (r->ncells)
			tui_print_grid(out, r, width, colour);
	}
	tui_report_free(r);
	wasm_free(r);
	db_close(d);
	return rc;
}

/* ---- simulate --------------------------------------------------------------
 */

/* The runs of one program, as det_simulate takes them. */
typedef struct sim_load {
	det_sim_run *runs;
	uint32_t nruns, cap;
	uint32_t *bugs;
	uint32_t nb, bcap;
	int64_t *bug_ids; /* index -> bug id */
	uint32_t nbugs, idcap;
	struct sim_row {
		int64_t node;
		char profile[64];
		uint64_t runs;
	} * rows;
	uint32_t nrows, rcap;
	uint64_t total_us;
	bool nomem;
} sim_load;

/* Grow *v (of *cap elements of size sz) to hold n + 1. */
static bool grow(void **v, uint32_t *cap, uint32_t n, size_t sz)
{
	void *nv;
	uint32_t nc;

	if (n < *cap)
		return true;
	nc = *cap ? 2 * *cap : 64;
	if (!(nv = realloc(*v, nc * sz)))
		return false;
	*v = nv;
	*cap = nc;
	return true;
}

static bool load_run(void *ctx, const db_sim_run *r)
{
	sim_load *l = ctx;
	det_sim_run *x;
	uint32_t row;

	for (row = 0; row < l->nrows; row++)
		if (l->rows[row].node == r->node_id &&
		    !strncmp(l->rows[row].profile, r->profile,
			     sizeof l->rows[row].profile - 1))
			break;
	if (row == l->nrows) {
		if (!grow((void **)&l->rows, &l->rcap, l->nrows,
			  sizeof *l->rows))
			goto nomem;
		l->rows[row].node = r->node_id;
		snprintf(l->rows[row].profile, sizeof l->rows[row].profile,
			 "%s", r->profile);
		l->rows[row].runs = 0;
		l->nrows++;
	}
	l->rows[row].runs++;
	if (!grow((void **)&l->runs, &l->cap, l->nruns, sizeof *l->runs))
		goto nomem;
	x = &l->runs[l->nruns++];
	*x = (det_sim_run){row, r->density_bp, r->duration_us, l->nb, 0};
	l->total_us += r->duration_us;
	for (size_t i = 0; i < r->nbugs; i++) {
		uint32_t b;
		for (b = 0; b < l->nbugs && l->bug_ids[b] != r->bugs[i]; b++)
			;
		if (b == l->nbugs) {
			if (!grow((void **)&l->bug_ids, &l->idcap, l->nbugs,
				  sizeof *l->bug_ids))
				goto nomem;
			l->bug_ids[l->nbugs++] = r->bugs[i];
		}
		if (!grow((void **)&l->bugs, &l->bcap, l->nb, sizeof *l->bugs))
			goto nomem;
		l->bugs[l->nb++] = b;
		x->n++;
	}
	return true;
nomem:
	l->nomem = true;
	return false;
}

static bool first_program(void *ctx, const db_campaign *c)
{
	int64_t *ids = ctx;

	if (!ids[0])
		ids[0] = c->program_id;
	else if (c->program_id != ids[0])
		ids[1] = c->program_id;
	return !ids[1];
}

/* A simulation's inputs and results, for the table and the plot. */
typedef struct sim_report {
	db_program prog;
	sim_load l;
	bool want[DET_SIM_COUNT];
	det_sim_result res[DET_SIM_COUNT];
	uint32_t trials;
	double budget;
	const char *profile;
} sim_report;

static void sim_report_free(sim_report *r)
{
	for (int s = 0; s < DET_SIM_COUNT; s++)
		det_sim_free(&r->res[s]);
	free(r->l.runs);
	free(r->l.bugs);
	free(r->l.bug_ids);
	free(r->l.rows);
	db_program_clear(&r->prog);
}

/* Read simulate's options (the plot's too), load the program's runs from
 * d and simulate; an exit code, the message printed. */
static int simulate_report(const tui_cmd *cmd, const tui_args *a, db *d,
			   sim_report *r, FILE *err)
{
	const char *progv = tui_opt_value(cmd, a, "--program");
	const char *budv = tui_opt_value(cmd, a, "--budget");
	const char *stratv = tui_opt_value(cmd, a, "--strategies");
	const char *seedv = tui_opt_value(cmd, a, "--seed");
	const char *trialsv = tui_opt_value(cmd, a, "--trials");
	uint64_t seed = 0, home_runs = 0;
	det_sim_input in = {0};
	sim_load *l = &r->l;
	wasm_err e;
	wasm_status st = WASM_OK;

	r->profile = tui_opt_value(cmd, a, "--profile");
	if (!r->profile)
		r->profile = "default";
	r->trials = 10000;
	for (int i = 0; i < DET_SIM_COUNT; i++)
		r->want[i] = true;
	if (trialsv && !tui_parse_u32(trialsv, 1, 10000000, &r->trials)) {
		fprintf(err,
			"heisen %s: --trials expects 1 to 10000000, got "
			"'%s'\n",
			cmd->name, trialsv);
		return TUI_EXIT_USAGE;
	}
	if (seedv && !tui_parse_u64(seedv, &seed)) {
		fprintf(err,
			"heisen %s: --seed expects a 64-bit number, got "
			"'%s'\n",
			cmd->name, seedv);
		return TUI_EXIT_USAGE;
	}
	if (budv && !tui_parse_duration(budv, &r->budget)) {
		fprintf(err,
			"heisen %s: --budget expects a time of runs (90s, 10m, "
			"2h), got '%s'\n",
			cmd->name, budv);
		return TUI_EXIT_USAGE;
	}
	if (stratv) {
		char buf[256], *save, *w;
		snprintf(buf, sizeof buf, "%s", stratv);
		memset(r->want, 0, sizeof r->want);
		for (w = strtok_r(buf, ",", &save); w;
		     w = strtok_r(NULL, ",", &save)) {
			det_strategy s;
			if (!det_strategy_parse(w, &s)) {
				fprintf(err,
					"heisen %s: unknown strategy '%s' "
					"(homogeneous, density, profile, "
					"both)\n",
					cmd->name, w);
				return TUI_EXIT_USAGE;
			}
			r->want[s] = true;
		}
	}
	if (progv) {
		st = db_program_find(d, progv, &r->prog, &e);
	} else {
		int64_t ids[2] = {0, 0};
		st = db_campaign_list(d, first_program, ids, &e);
		if (!st && (!ids[0] || ids[1])) {
			fprintf(err, "heisen %s: %s; name one with --program\n",
				cmd->name,
				ids[0] ? "the workspace has several programs"
				       : "the workspace has no campaign");
			return TUI_EXIT_USAGE;
		}
		if (!st)
			st = db_program_get(d, ids[0], &r->prog, &e);
	}
	if (!st)
		st = db_program_runs(d, r->prog.id, load_run, l, &e);
	if (!st && l->nomem)
		st = wasm_err_set(&e, WASM_NOMEM, WASM_NO_OFFSET,
				  "out of memory");
	if (st) {
		fprintf(err, "heisen %s: %s\n", cmd->name, e.msg);
		return tui_exit_for(st);
	}
	in.home_row = UINT32_MAX;
	for (uint32_t row = 0; row < l->nrows; row++)
		if (!strcmp(l->rows[row].profile, r->profile) &&
		    l->rows[row].runs > home_runs) {
			in.home_row = row;
			home_runs = l->rows[row].runs;
		}
	if (in.home_row == UINT32_MAX) {
		fprintf(err,
			"heisen %s: %s has no run on profile '%s' (--profile "
			"names the one-profile strategies')\n",
			cmd->name, r->prog.name ? r->prog.name : "the program",
			r->profile);
		return TUI_EXIT_USAGE;
	}
	/* Default: a tenth of the time the recorded runs took, so that the
	 * strategies have to choose. */
	if (!budv)
		r->budget = (double)l->total_us / 1e6 / 10;
	in.runs = l->runs;
	in.nruns = l->nruns;
	in.bugs = l->bugs;
	in.nbugs = l->nbugs;
	for (int s = 0; s < DET_SIM_COUNT && !st; s++)
		if (r->want[s])
			st = det_simulate(
			    &in, (det_strategy)s, r->budget, r->trials,
			    det_seed_mix(seed ^ (uint64_t)s), &r->res[s], &e);
	if (st) {
		fprintf(err, "heisen %s: %s\n", cmd->name, e.msg);
		return tui_exit_for(st);
	}
	return TUI_EXIT_OK;
}

static void simulate_json(FILE *out, const sim_report *r)
{
	tui_json j;
	tui_json_init(&j, out);
	tui_json_obj(&j, NULL);
	tui_json_str(&j, "schema", "heisen.simulate/1");
	tui_json_str(&j, "program", r->prog.name ? r->prog.name : "");
	tui_json_f64(&j, "budget_s", r->budget);
	tui_json_u64(&j, "trials", r->trials);
	tui_json_u64(&j, "recorded_runs", r->l.nruns);
	tui_json_f64(&j, "recorded_s", (double)r->l.total_us / 1e6);
	tui_json_u64(&j, "bugs", r->l.nbugs);
	tui_json_str(&j, "profile", r->profile);
	tui_json_arr(&j, "strategies");
	for (int s = 0; s < DET_SIM_COUNT; s++) {
		if (!r->want[s])
			continue;
		tui_json_obj(&j, NULL);
		tui_json_str(&j, "strategy",
			     det_strategy_name((det_strategy)s));
		tui_json_bool(&j, "empty", r->res[s].empty);
		tui_json_u64(&j, "cells", r->res[s].cells);
		tui_json_f64(&j, "runs_per_trial", r->res[s].runs_per_trial);
		tui_json_f64(&j, "mean", r->res[s].mean);
		tui_json_f64(&j, "p5", r->res[s].p5);
		tui_json_f64(&j, "p95", r->res[s].p95);
		tui_json_arr(&j, "found");
		for (uint32_t b = 0; b < r->l.nbugs && !r->res[s].empty; b++) {
			tui_json_obj(&j, NULL);
			tui_json_i64(&j, "bug", r->l.bug_ids[b]);
			tui_json_f64(&j, "probability", r->res[s].found[b]);
			tui_json_end(&j, '}');
		}
		tui_json_end(&j, ']');
		tui_json_end(&j, '}');
	}
	tui_json_end(&j, ']');
	tui_json_end(&j, '}');
	tui_json_done(&j);
}

static void simulate_text(FILE *out, const sim_report *r)
{
	fprintf(out,
		"simulation of %s: a budget of %.2f s of run time "
		"(recorded: %u runs, %.2f s, %u bugs), %u trials; "
		"one-profile strategies on '%s'\n",
		r->prog.name ? r->prog.name : "?", r->budget, r->l.nruns,
		(double)r->l.total_us / 1e6, r->l.nbugs, r->trials, r->profile);
	fprintf(out, "  %-12s %5s %12s %10s %5s %5s\n", "strategy", "cells",
		"runs/trial", "bugs mean", "5%", "95%");
	for (int s = 0; s < DET_SIM_COUNT; s++) {
		if (!r->want[s])
			continue;
		if (r->res[s].empty)
			fprintf(out, "  %-12s   no recorded run\n",
				det_strategy_name((det_strategy)s));
		else
			fprintf(out,
				"  %-12s %5u %12.1f %10.2f %5.0f "
				"%5.0f\n",
				det_strategy_name((det_strategy)s),
				r->res[s].cells, r->res[s].runs_per_trial,
				r->res[s].mean, r->res[s].p5, r->res[s].p95);
	}
	fprintf(out, "detection probability per bug:\n  %-6s", "bug");
	for (int s = 0; s < DET_SIM_COUNT; s++)
		if (r->want[s])
			fprintf(out, " %12s",
				det_strategy_name((det_strategy)s));
	fputc('\n', out);
	for (uint32_t b = 0; b < r->l.nbugs; b++) {
		fprintf(out, "  %-6" PRId64, r->l.bug_ids[b]);
		for (int s = 0; s < DET_SIM_COUNT; s++)
			if (r->want[s] && r->res[s].empty)
				fprintf(out, " %12s", "-");
			else if (r->want[s])
				fprintf(out, " %12.3f", r->res[s].found[b]);
		fputc('\n', out);
	}
}

int tui_cmd_simulate(const tui_cmd *cmd, const tui_args *a, FILE *out,
		     FILE *err)
{
	bool json = tui_opt_value(cmd, a, "--json") != NULL;
	sim_report rep = {0};
	const char *path;
	db *d = NULL;
	int rc;

	if ((rc = tui_open_existing_db(tui_opt_value(cmd, a, "--db"), &d, &path,
				       err)))
		return rc;
	if ((rc = simulate_report(cmd, a, d, &rep, err)))
		goto out;
	if (json)
		simulate_json(out, &rep);
	else
		simulate_text(out, &rep);
	rc = TUI_EXIT_OK;
out:
	sim_report_free(&rep);
	db_close(d);
	return rc;
}

/* ---- plot: standalone SVG ---------------------------------------------------
 */

static void svg_put(wasm_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void svg_put(wasm_buf *b, const char *fmt, ...)
{
	char tmp[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	if (n > 0)
		wasm_buf_put(b, tmp,
			     (size_t)n < sizeof tmp ? (size_t)n
						    : sizeof tmp - 1);
}

/* s as XML character data. */
static void svg_esc(wasm_buf *b, const char *s)
{
	for (; s && *s; s++) {
		const char *e = *s == '&'   ? "&amp;"
				: *s == '<' ? "&lt;"
				: *s == '>' ? "&gt;"
				: *s == '"' ? "&quot;"
					    : NULL;
		if (e)
			wasm_buf_put(b, e, strlen(e));
		else if ((unsigned char)*s >= 0x20 || *s == '\t')
			wasm_buf_byte(b, (uint8_t)*s);
	}
}

static void svg_begin(wasm_buf *b, int w, int h, const char *title)
{
	/* Room for the title line: about 8 px a character at 15 px. */
	int tw = 20 + 8 * (int)strlen(title);

	w = tw > w ? tw : w;
	svg_put(
	    b,
	    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
	    "height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" "
	    "font-size=\"12\">\n<title>",
	    w, h, w, h);
	svg_esc(b, title);
	svg_put(b,
		"</title>\n<rect width=\"%d\" height=\"%d\" "
		"fill=\"white\"/>\n<text x=\"10\" y=\"22\" "
		"font-size=\"15\">",
		w, h);
	svg_esc(b, title);
	svg_put(b, "</text>\n");
}

static void svg_text(wasm_buf *b, double x, double y, const char *anchor,
		     const char *s)
{
	svg_put(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">", x, y,
		anchor);
	svg_esc(b, s);
	svg_put(b, "</text>\n");
}

/* The heat of v in [0, 1]: white through yellow to dark red. */
static void heat_rgb(double v, char out[8])
{
	double r = 255, g, bl;

	if (v <= 0) {
		snprintf(out, 8, "#ffffff");
		return;
	}
	g = 240 - 200 * v;
	bl = 160 - 160 * v;
	r = 255 - 80 * v;
	snprintf(out, 8, "#%02x%02x%02x", (int)r, (int)g, (int)bl);
}

static void plot_grid(wasm_buf *b, const tui_report *r)
{
	const int cw = 64, ch = 28, left = 170, top = 70;
	double best = tui_report_best(r);
	char title[512], kinds[8];
	int w = left + cw * (int)r->ndens + 20;
	int h = top + ch * (int)r->nrows + 50;

	tui_fmt_kinds(&r->bug, kinds, sizeof kinds);
	snprintf(title, sizeof title,
		 "bug %" PRId64 ": %s race in %s: detections K/N per profile "
		 "and density",
		 r->bug.id, kinds, r->prog.name ? r->prog.name : "?");
	svg_begin(b, w < 640 ? 640 : w, h, title);
	for (size_t k = 0; k < r->ndens; k++) {
		char dl[16];
		tui_fmt_density(r->dens[k], dl, sizeof dl);
		svg_text(b, left + cw * (double)k + cw / 2.0, top - 8, "middle",
			 dl);
	}
	for (size_t row = 0; row < r->nrows; row++) {
		const tui_cell *c0 = &r->cells[r->row_of[row]];
		char name[160];
		snprintf(name, sizeof name, "%s%s%s",
			 r->multi_node ? c0->node : "",
			 r->multi_node ? "/" : "", c0->profile);
		svg_text(b, left - 8, top + ch * (double)row + ch / 2.0 + 4,
			 "end", name);
		for (size_t k = 0; k < r->ndens; k++) {
			const tui_cell *c = tui_report_cell(r, row, k);
			double x = left + cw * (double)k;
			double y = top + ch * (double)row;
			char fill[8], kn[48];
			if (!c) {
				svg_put(
				    b,
				    "<rect x=\"%.0f\" y=\"%.0f\" "
				    "width=\"%d\" height=\"%d\" "
				    "fill=\"#eeeeee\" stroke=\"#cccccc\"/>\n",
				    x, y, cw, ch);
				continue;
			}
			heat_rgb(best > 0 && c->n ? (double)c->k / c->n / best
						  : 0,
				 fill);
			svg_put(b,
				"<rect x=\"%.0f\" y=\"%.0f\" width=\"%d\" "
				"height=\"%d\" fill=\"%s\" stroke=\"#cccccc\" "
				"data-profile=\"",
				x, y, cw, ch, fill);
			svg_esc(b, c->profile);
			svg_put(b,
				"\" data-density-bp=\"%u\" data-k=\"%" PRIu64
				"\" data-n=\"%" PRIu64 "\"/>\n",
				c->density_bp, c->k, c->n);
			snprintf(kn, sizeof kn, "%" PRIu64 "/%" PRIu64, c->k,
				 c->n);
			svg_text(b, x + cw / 2.0, y + ch / 2.0 + 4, "middle",
				 kn);
		}
	}
	svg_text(b, left, top + ch * (double)r->nrows + 30, "start",
		 "colour: K/N against the best cell (white: none)");
	svg_put(b, "</svg>\n");
}

static void plot_factor(wasm_buf *b, const scored_list *l)
{
	const int left = 190, top = 60, rowh = 22, width = 520;
	double max = 1;
	int h = top + rowh * (int)l->n + 60;

	for (size_t i = 0; i < l->n; i++) {
		max = l->v[i].f.hi > max ? l->v[i].f.hi : max;
		if (l->v[i].f.naive_ok && l->v[i].f.naive > max)
			max = l->v[i].f.naive;
	}
	max *= 1.1;
	svg_begin(b, left + width + 60, h,
		  "heisen factor per bug: estimate (dot), 90 % interval "
		  "(line), naive (cross)");
	for (int t = 0; t <= 4; t++) {
		double v = max * t / 4, x = left + width * t / 4.0;
		char lab[16];
		snprintf(lab, sizeof lab, "%.2f", v);
		svg_put(b,
			"<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
			"stroke=\"#dddddd\"/>\n",
			x, top - 10, x, top + rowh * (int)l->n);
		svg_text(b, x, top + rowh * (double)l->n + 18, "middle", lab);
	}
	for (size_t i = 0; i < l->n; i++) {
		const scored *s = &l->v[i];
		double y = top + rowh * (double)i + rowh / 2.0;
		char lab[64];
		snprintf(lab, sizeof lab, "bug %" PRId64 " (%s)", s->bug.id,
			 det_class_name(s->cls));
		svg_text(b, left - 8, y + 4, "end", lab);
		svg_put(b,
			"<g data-bug=\"%" PRId64 "\" data-factor=\"%.6g\" "
			"data-lo=\"%.6g\" data-hi=\"%.6g\">\n"
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			"y2=\"%.1f\" stroke=\"#3366aa\" stroke-width=\"2\"/>\n"
			"<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" "
			"fill=\"#3366aa\"/>\n",
			s->bug.id, s->f.map, s->f.lo, s->f.hi,
			left + width * s->f.lo / max, y,
			left + width * s->f.hi / max, y,
			left + width * s->f.map / max, y);
		if (s->f.naive_ok) {
			double x = left + width * s->f.naive / max;
			svg_put(b,
				"<path d=\"M%.1f %.1fl6 6m0 -6l-6 6\" "
				"stroke=\"#aa3333\"/>\n",
				x - 3, y - 3);
		}
		svg_put(b, "</g>\n");
	}
	svg_put(b, "</svg>\n");
}

static void plot_simulate(wasm_buf *b, const sim_report *r)
{
	const int left = 70, top = 60, bw = 90, gap = 40, height = 260;
	uint32_t nbugs = r->l.nbugs ? r->l.nbugs : 1;
	int n = 0, w;
	char title[256];

	for (int s = 0; s < DET_SIM_COUNT; s++)
		n += r->want[s];
	w = left + n * (bw + gap) + 40;
	snprintf(title, sizeof title,
		 "%s: bugs found with %.2f s of run time, per strategy "
		 "(mean, 5-95 %%)",
		 r->prog.name ? r->prog.name : "?", r->budget);
	svg_begin(b, w < 560 ? 560 : w, top + height + 60, title);
	for (uint32_t t = 0; t <= nbugs; t += nbugs > 10 ? nbugs / 5 : 1) {
		double y = top + height - height * (double)t / nbugs;
		char lab[16];
		snprintf(lab, sizeof lab, "%u", t);
		svg_put(b,
			"<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
			"stroke=\"#dddddd\"/>\n",
			left, y, w - 20, y);
		svg_text(b, left - 6, y + 4, "end", lab);
	}
	for (int s = 0, i = 0; s < DET_SIM_COUNT; s++) {
		const det_sim_result *res = &r->res[s];
		double x = left + gap / 2.0 + i * (bw + gap);
		const char *name = det_strategy_name((det_strategy)s);
		if (!r->want[s])
			continue;
		i++;
		svg_text(b, x + bw / 2.0, top + height + 18, "middle", name);
		if (res->empty)
			continue;
		svg_put(b,
			"<g data-strategy=\"%s\" data-mean=\"%.6g\" "
			"data-p5=\"%.6g\" data-p95=\"%.6g\">\n"
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"%d\" "
			"height=\"%.1f\" fill=\"#88aadd\"/>\n"
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			"y2=\"%.1f\" stroke=\"black\"/>\n</g>\n",
			name, res->mean, res->p5, res->p95, x,
			top + height - height * res->mean / nbugs, bw,
			height * res->mean / nbugs, x + bw / 2.0,
			top + height - height * res->p5 / nbugs, x + bw / 2.0,
			top + height - height * res->p95 / nbugs);
	}
	svg_put(b, "</svg>\n");
}

int tui_cmd_plot(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err)
{
	const char *kind = a->operands[0], *o = tui_opt_value(cmd, a, "-o");
	wasm_buf b = {0};
	const char *path;
	wasm_err e;
	wasm_status st = WASM_OK;
	db *d = NULL;
	int rc;

	if (!o) {
		fprintf(err, "heisen plot: -o FILE.svg is required\n");
		return TUI_EXIT_USAGE;
	}
	if (strcmp(kind, "grid") && strcmp(kind, "factor") &&
	    strcmp(kind, "simulate")) {
		fprintf(err,
			"heisen plot: plot grid BUG, factor or simulate, "
			"not '%s'\n",
			kind);
		return TUI_EXIT_USAGE;
	}
	if ((a->noperands == 2) != !strcmp(kind, "grid")) {
		fprintf(err, "heisen plot: %s\n",
			strcmp(kind, "grid") ? "only 'plot grid' takes a BUG"
					     : "plot grid needs a BUG");
		return TUI_EXIT_USAGE;
	}
	if ((rc = tui_open_existing_db(tui_opt_value(cmd, a, "--db"), &d, &path,
				       err)))
		return rc;
	if (!strcmp(kind, "grid")) {
		int64_t bug;
		tui_report *r = NULL;
		rc =
		    tui_parse_id(cmd, "bug", a->operands[1], "bugs", &bug, err);
		if (!rc && !(r = wasm_calloc(1, sizeof *r)))
			st = wasm_err_set(&e, WASM_NOMEM, WASM_NO_OFFSET,
					  "out of memory");
		else if (!rc && !(st = tui_report_load(d, bug, r, &e)))
			plot_grid(&b, r);
		if (r)
			tui_report_free(r);
		wasm_free(r);
	} else if (!strcmp(kind, "factor")) {
		scored_list l = {0};
		det_factor_opts fo;
		if (!(rc = factor_opts(cmd, a, &fo, err)) &&
		    !(st = score_bugs(d, 0, &fo, &l, &e))) {
			/* Swept bugs come first; the others have no F. */
			scored_list sw = l;
			sw.n = 0;
			while (sw.n < l.n && l.v[sw.n].swept)
				sw.n++;
			plot_factor(&b, &sw);
		}
		scored_free(&l);
	} else {
		sim_report rep = {0};
		if (!(rc = simulate_report(cmd, a, d, &rep, err)))
			plot_simulate(&b, &rep);
		sim_report_free(&rep);
	}
	if (!rc && !st) {
		uint8_t *data;
		size_t len;
		if (b.oom) {
			st = wasm_err_set(&e, WASM_NOMEM, WASM_NO_OFFSET,
					  "out of memory");
		} else {
			data = wasm_buf_take(&b, &len);
			st = wasm_write_file(o, data, len, &e);
			wasm_free(data);
			if (!st)
				fprintf(out, "%s: %s plot, %zu bytes\n", o,
					kind, len);
		}
	}
	if (st) {
		fprintf(err, "heisen plot: %s\n", e.msg);
		rc = tui_exit_for(st);
	}
	wasm_buf_fini(&b);
	db_close(d);
	return rc;
}
