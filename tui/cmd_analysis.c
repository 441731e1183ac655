/*
 * cmd_analysis.c - `heisen factor` (the heisen factor of one bug or of
 * every bug, most heisen first; detector/stats.h) and `heisen grid` (a
 * bug's detections per cell, as a heat map on a terminal), and the grid
 * printer `heisen show` shares.
 */
#include "cli.h"
#include "detector/stats.h"
#include "jsonw.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* A bug and its factor. */
typedef struct scored {
	db_bug bug;
	det_factor f;
	det_class cls;
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
	*c = *b;
	/* The list's strings are the callback's: copy what is printed. */
	c->program = b->program ? strdup(b->program) : NULL;
	for (int i = 0; i < 2; i++) {
		c->site[i].func =
		    b->site[i].func ? strdup(b->site[i].func) : NULL;
		c->site[i].file =
		    b->site[i].file ? strdup(b->site[i].file) : NULL;
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

	if (a->f.map != b->f.map)
		return a->f.map < b->f.map ? 1 : -1;
	return (a->bug.id > b->bug.id) - (a->bug.id < b->bug.id);
}

static void print_row(FILE *out, const scored *s)
{
	char kinds[8], s0[320], s1[320], naive[16] = "-";

	tui_fmt_kinds(&s->bug, kinds, sizeof kinds);
	tui_fmt_site(&s->bug.site[0], s0, sizeof s0);
	tui_fmt_site(&s->bug.site[1], s1, sizeof s1);
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

int tui_cmd_factor(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err)
{
	const char *sv = tui_opt_value(cmd, a, "--samples");
	const char *seedv = tui_opt_value(cmd, a, "--seed");
	bool json = tui_opt_value(cmd, a, "--json") != NULL;
	uint32_t samples = DET_FACTOR_SAMPLES;
	uint64_t seed = 0, bug = 0;
	scored_list l = {0};
	const char *path;
	wasm_err e;
	wasm_status st = WASM_OK;
	db *d = NULL;
	int rc;

	if (sv && !tui_parse_u32(sv, 100, 10000000, &samples)) {
		fprintf(err,
			"heisen factor: --samples expects 100 to 10000000, "
			"got '%s'\n",
			sv);
		return TUI_EXIT_USAGE;
	}
	if (seedv && !tui_parse_u64(seedv, &seed)) {
		fprintf(err,
			"heisen factor: --seed expects a 64-bit number, got "
			"'%s'\n",
			seedv);
		return TUI_EXIT_USAGE;
	}
	if (a->noperands &&
	    (!tui_parse_u64(a->operands[0], &bug) || !bug || bug > INT64_MAX)) {
		fprintf(err,
			"heisen factor: BUG expects a bug id from 'heisen "
			"bugs', got '%s'\n",
			a->operands[0]);
		return TUI_EXIT_USAGE;
	}
	if ((rc = tui_open_existing_db(tui_opt_value(cmd, a, "--db"), &d, &path,
				       err)))
		return rc;
	if (bug) {
		db_bug b = {0};
		if (!(st = db_bug_get(d, (int64_t)bug, &b, &e))) {
			keep_bug(&l, &b);
			db_bug_clear(&b);
		}
	} else {
		st = db_bug_list(d, 0, keep_bug, &l, &e);
	}
	if (!st && l.nomem)
		st = wasm_err_set(&e, WASM_NOMEM, WASM_NO_OFFSET,
				  "out of memory");
	for (size_t i = 0; !st && i < l.n; i++) {
		kn_list cells = {0};
		scored *s = &l.v[i];
		st = db_bug_cells(d, s->bug.id, add_cell, &cells, &e);
		if (!st && cells.nomem)
			st = wasm_err_set(&e, WASM_NOMEM, WASM_NO_OFFSET,
					  "out of memory");
		/* Each bug its own stream: its F does not depend on which
		 * other bugs are listed. */
		if (!st)
			st = det_factor_estimate(
			    cells.v, cells.n,
			    s->bug.site[0].id == s->bug.site[1].id, samples,
			    det_seed_mix(seed ^ (uint64_t)s->bug.id), &s->f,
			    &e);
		s->cls = det_classify(cells.v, cells.n,
				      s->bug.site[0].id == s->bug.site[1].id);
		free(cells.v);
		free(cells.rows);
	}
	if (st) {
		fprintf(err, "heisen factor: %s\n", e.msg);
		rc = tui_exit_for(st);
		goto out;
	}
	qsort(l.v, l.n, sizeof *l.v, by_factor);
	if (json) {
		tui_json j;
		tui_json_init(&j, out);
		tui_json_obj(&j, NULL);
		tui_json_str(&j, "schema", "heisen.factor/1");
		tui_json_str(&j, "db", path);
		tui_json_u64(&j, "samples", samples);
		tui_json_u64(&j, "seed", seed);
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
	for (size_t i = 0; i < l.n; i++)
		db_bug_clear(&l.v[i].bug);
	free(l.v);
	db_close(d);
	return rc;
}

/* ---- grid ------------------------------------------------------------------
 */

/* The heat of a cell against the best: ANSI background, black text. */
static const char *heat(uint64_t k, uint64_t n, double best)
{
	double v = n && best > 0 ? (double)k / (double)n / best : 0;

	return !k	  ? ""
	       : v < 0.25 ? "\033[30;44m"
	       : v < 0.5  ? "\033[30;46m"
	       : v < 0.75 ? "\033[30;43m"
			  : "\033[30;41m";
}

static double best_y(const tui_report *r)
{
	double best = 0;

	for (size_t i = 0; i < r->ncells; i++)
		if (r->cells[i].n &&
		    (double)r->cells[i].k / r->cells[i].n > best)
			best = (double)r->cells[i].k / r->cells[i].n;
	return best;
}

void tui_print_grid(FILE *out, const tui_report *r, int width, bool colour)
{
	int pw = (int)strlen("profile"), nw = (int)strlen("node"), lead;
	double best = best_y(r);
	size_t per;

	for (size_t row = 0; row < r->nrows; row++) {
		const tui_cell *c = &r->cells[r->row_of[row]];
		int n = (int)strlen(c->profile), m = (int)strlen(c->node);
		pw = n > pw ? n : pw;
		nw = m > nw ? m : nw;
	}
	lead = 2 + pw + (r->multi_node ? nw + 2 : 0);
	per = width > lead + 12 ? (size_t)(width - lead) / 12 : r->ndens;
	if (!per)
		per = 1;
	for (size_t col = 0; col < r->ndens; col += per) {
		size_t end = col + per < r->ndens ? col + per : r->ndens;
		if (col)
			fputc('\n', out);
		fprintf(out, "  ");
		if (r->multi_node)
			fprintf(out, "%-*s  ", nw, "node");
		fprintf(out, "%-*s", pw, "profile");
		for (size_t k = col; k < end; k++) {
			char dl[16];
			tui_fmt_density(r->dens[k], dl, sizeof dl);
			fprintf(out, " %11s", dl);
		}
		fprintf(out, "\n");
		for (size_t row = 0; row < r->nrows; row++) {
			const tui_cell *c = &r->cells[r->row_of[row]];
			fprintf(out, "  ");
			if (r->multi_node)
				fprintf(out, "%-*s  ", nw, c->node);
			fprintf(out, "%-*s", pw, c->profile);
			for (size_t k = col; k < end; k++) {
				const tui_cell *o = tui_report_cell(r, row, k);
				const char *h =
				    colour && o ? heat(o->k, o->n, best) : "";
				char kn[48] = "-";
				if (o)
					snprintf(kn, sizeof kn,
						 "%" PRIu64 "/%" PRIu64, o->k,
						 o->n);
				fprintf(out, " %s%11s%s", h, kn,
					*h ? "\033[0m" : "");
			}
			fprintf(out, "\n");
		}
	}
}

/* Phi of a cell of the report's bug. */
static double phi_of(const tui_report *r, uint32_t density_bp)
{
	double d = density_bp / (double)DET_DENSITY_FULL;
	return r->bug.site[0].id == r->bug.site[1].id ? d : d * d;
}

static void grid_json(FILE *out, const tui_report *r)
{
	double best = best_y(r);
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
	uint64_t bug;
	const char *path;
	wasm_err e;
	wasm_status st;
	db *d = NULL;
	int rc;

	if (json && csv) {
		fprintf(err, "heisen grid: --csv or --json, not both\n");
		return TUI_EXIT_USAGE;
	}
	if (!tui_parse_u64(a->operands[0], &bug) || !bug || bug > INT64_MAX) {
		fprintf(err,
			"heisen grid: BUG expects a bug id from 'heisen "
			"bugs', got '%s'\n",
			a->operands[0]);
		return TUI_EXIT_USAGE;
	}
	if ((rc = tui_open_existing_db(tui_opt_value(cmd, a, "--db"), &d, &path,
				       err)))
		return rc;
	if (!(r = wasm_calloc(1, sizeof *r))) {
		db_close(d);
		fprintf(err, "heisen grid: out of memory\n");
		return TUI_EXIT_INTERNAL;
	}
	if ((st = tui_report_load(d, (int64_t)bug, r, &e))) {
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
		fprintf(out,
			"detections K/N per (node, profile) and density%s\n",
			colour ? "; colour: K/N against the best cell, "
				 "\033[30;44m <1/4 \033[0m \033[30;46m <1/2 "
				 "\033[0m \033[30;43m <3/4 \033[0m \033[30;41m "
				 "up to 1 \033[0m"
			       : "");
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

int tui_cmd_simulate(const tui_cmd *cmd, const tui_args *a, FILE *out,
		     FILE *err)
{
	const char *progv = tui_opt_value(cmd, a, "--program");
	const char *budv = tui_opt_value(cmd, a, "--budget");
	const char *stratv = tui_opt_value(cmd, a, "--strategies");
	const char *profv = tui_opt_value(cmd, a, "--profile");
	const char *seedv = tui_opt_value(cmd, a, "--seed");
	const char *trialsv = tui_opt_value(cmd, a, "--trials");
	bool json = tui_opt_value(cmd, a, "--json") != NULL;
	bool want[DET_SIM_COUNT] = {true, true, true, true};
	det_sim_result res[DET_SIM_COUNT] = {{0}};
	uint32_t trials = 10000;
	uint64_t seed = 0, home_runs = 0;
	double budget = 0;
	sim_load l = {0};
	det_sim_input in = {0};
	db_program prog = {0};
	const char *path;
	wasm_err e;
	wasm_status st = WASM_OK;
	db *d = NULL;
	int rc;

	if (!profv)
		profv = "default";
	if (trialsv && !tui_parse_u32(trialsv, 1, 10000000, &trials)) {
		fprintf(err,
			"heisen simulate: --trials expects 1 to 10000000, "
			"got '%s'\n",
			trialsv);
		return TUI_EXIT_USAGE;
	}
	if (seedv && !tui_parse_u64(seedv, &seed)) {
		fprintf(err,
			"heisen simulate: --seed expects a 64-bit number, "
			"got '%s'\n",
			seedv);
		return TUI_EXIT_USAGE;
	}
	if (budv && !tui_parse_duration(budv, &budget)) {
		fprintf(err,
			"heisen simulate: --budget expects a time of runs "
			"(90s, 10m, 2h), got '%s'\n",
			budv);
		return TUI_EXIT_USAGE;
	}
	if (stratv) {
		char buf[256], *save, *w;
		snprintf(buf, sizeof buf, "%s", stratv);
		memset(want, 0, sizeof want);
		for (w = strtok_r(buf, ",", &save); w;
		     w = strtok_r(NULL, ",", &save)) {
			det_strategy s;
			if (!det_strategy_parse(w, &s)) {
				fprintf(err,
					"heisen simulate: unknown strategy "
					"'%s' (homogeneous, density, "
					"profile, both)\n",
					w);
				return TUI_EXIT_USAGE;
			}
			want[s] = true;
		}
	}
	if ((rc = tui_open_existing_db(tui_opt_value(cmd, a, "--db"), &d, &path,
				       err)))
		return rc;
	if (progv) {
		st = db_program_find(d, progv, &prog, &e);
	} else {
		int64_t ids[2] = {0, 0};
		st = db_campaign_list(d, first_program, ids, &e);
		if (!st && (!ids[0] || ids[1])) {
			fprintf(err,
				"heisen simulate: %s; name one with "
				"--program\n",
				ids[0] ? "the workspace has several programs"
				       : "the workspace has no campaign");
			rc = TUI_EXIT_USAGE;
			goto out;
		}
		if (!st)
			st = db_program_get(d, ids[0], &prog, &e);
	}
	if (!st)
		st = db_program_runs(d, prog.id, load_run, &l, &e);
	if (!st && l.nomem)
		st = wasm_err_set(&e, WASM_NOMEM, WASM_NO_OFFSET,
				  "out of memory");
	if (st) {
		fprintf(err, "heisen simulate: %s\n", e.msg);
		rc = tui_exit_for(st);
		goto out;
	}
	in.home_row = UINT32_MAX;
	for (uint32_t r = 0; r < l.nrows; r++)
		if (!strcmp(l.rows[r].profile, profv) &&
		    l.rows[r].runs > home_runs) {
			in.home_row = r;
			home_runs = l.rows[r].runs;
		}
	if (in.home_row == UINT32_MAX) {
		fprintf(err,
			"heisen simulate: %s has no run on profile '%s' "
			"(--profile names the one-profile strategies')\n",
			prog.name ? prog.name : "the program", profv);
		rc = TUI_EXIT_USAGE;
		goto out;
	}
	/* Default: a tenth of the time the recorded runs took, so that the
	 * strategies have to choose. */
	if (!budv)
		budget = (double)l.total_us / 1e6 / 10;
	in.runs = l.runs;
	in.nruns = l.nruns;
	in.bugs = l.bugs;
	in.nbugs = l.nbugs;
	for (int s = 0; s < DET_SIM_COUNT && !st; s++)
		if (want[s])
			st = det_simulate(&in, (det_strategy)s, budget, trials,
					  det_seed_mix(seed ^ (uint64_t)s),
					  &res[s], &e);
	if (st) {
		fprintf(err, "heisen simulate: %s\n", e.msg);
		rc = tui_exit_for(st);
		goto out;
	}
	if (json) {
		tui_json j;
		tui_json_init(&j, out);
		tui_json_obj(&j, NULL);
		tui_json_str(&j, "schema", "heisen.simulate/1");
		tui_json_str(&j, "program", prog.name ? prog.name : "");
		tui_json_f64(&j, "budget_s", budget);
		tui_json_u64(&j, "trials", trials);
		tui_json_u64(&j, "recorded_runs", l.nruns);
		tui_json_f64(&j, "recorded_s", (double)l.total_us / 1e6);
		tui_json_u64(&j, "bugs", l.nbugs);
		tui_json_str(&j, "profile", profv);
		tui_json_arr(&j, "strategies");
		for (int s = 0; s < DET_SIM_COUNT; s++) {
			if (!want[s])
				continue;
			tui_json_obj(&j, NULL);
			tui_json_str(&j, "strategy",
				     det_strategy_name((det_strategy)s));
			tui_json_bool(&j, "empty", res[s].empty);
			tui_json_u64(&j, "cells", res[s].cells);
			tui_json_f64(&j, "runs_per_trial",
				     res[s].runs_per_trial);
			tui_json_f64(&j, "mean", res[s].mean);
			tui_json_f64(&j, "p5", res[s].p5);
			tui_json_f64(&j, "p95", res[s].p95);
			tui_json_arr(&j, "found");
			for (uint32_t b = 0; b < l.nbugs && !res[s].empty;
			     b++) {
				tui_json_obj(&j, NULL);
				tui_json_i64(&j, "bug", l.bug_ids[b]);
				tui_json_f64(&j, "probability",
					     res[s].found[b]);
				tui_json_end(&j, '}');
			}
			tui_json_end(&j, ']');
			tui_json_end(&j, '}');
		}
		tui_json_end(&j, ']');
		tui_json_end(&j, '}');
		tui_json_done(&j);
	} else {
		fprintf(out,
			"simulation of %s: a budget of %.2f s of run time "
			"(recorded: %u runs, %.2f s, %u bugs), %u trials; "
			"one-profile strategies on '%s'\n",
			prog.name ? prog.name : "?", budget, l.nruns,
			(double)l.total_us / 1e6, l.nbugs, trials, profv);
		fprintf(out, "  %-12s %5s %12s %10s %5s %5s\n", "strategy",
			"cells", "runs/trial", "bugs mean", "5%", "95%");
		for (int s = 0; s < DET_SIM_COUNT; s++) {
			if (!want[s])
				continue;
			if (res[s].empty)
				fprintf(out, "  %-12s   no recorded run\n",
					det_strategy_name((det_strategy)s));
			else
				fprintf(
				    out,
				    "  %-12s %5u %12.1f %10.2f %5.0f %5.0f\n",
				    det_strategy_name((det_strategy)s),
				    res[s].cells, res[s].runs_per_trial,
				    res[s].mean, res[s].p5, res[s].p95);
		}
		fprintf(out, "detection probability per bug:\n  %-6s", "bug");
		for (int s = 0; s < DET_SIM_COUNT; s++)
			if (want[s])
				fprintf(out, " %12s",
					det_strategy_name((det_strategy)s));
		fputc('\n', out);
		for (uint32_t b = 0; b < l.nbugs; b++) {
			fprintf(out, "  %-6" PRId64, l.bug_ids[b]);
			for (int s = 0; s < DET_SIM_COUNT; s++)
				if (want[s] && res[s].empty)
					fprintf(out, " %12s", "-");
				else if (want[s])
					fprintf(out, " %12.3f",
						res[s].found[b]);
			fputc('\n', out);
		}
	}
	rc = TUI_EXIT_OK;
out:
	for (int s = 0; s < DET_SIM_COUNT; s++)
		det_sim_free(&res[s]);
	free(l.runs);
	free(l.bugs);
	free(l.bug_ids);
	free(l.rows);
	db_program_clear(&prog);
	db_close(d);
	return rc;
}
