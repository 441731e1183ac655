/*
 * cmd_analysis.c - `heisen factor`: the heisen factor of one bug or of
 * every bug of the workspace (detector/stats.h), most heisen first.
 */
#include "cli.h"
#include "detector/stats.h"
#include "jsonw.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* A bug and its factor. */
typedef struct scored {
	db_bug bug;
	det_factor f;
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

typedef struct kn_list {
	det_kn *v;
	uint32_t n, cap;
	bool nomem;
} kn_list;

static bool add_cell(void *ctx, const db_cell *c)
{
	kn_list *l = ctx;

	if (l->n == l->cap) {
		uint32_t nc = l->cap ? 2 * l->cap : 64;
		det_kn *nv = realloc(l->v, nc * sizeof *nv);
		if (!nv) {
			l->nomem = true;
			return false;
		}
		l->v = nv;
		l->cap = nc;
	}
	l->v[l->n++] = (det_kn){c->density_bp, c->k, c->n};
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
		" %5u  %6.2f  %5.2f-%-5.2f  %6s  %s <-> %s%s\n",
		s->bug.id, s->bug.program ? s->bug.program : "?", kinds, s->f.k,
		s->f.n, s->f.ncells, s->f.map, s->f.lo, s->f.hi, naive, s0, s1,
		s->f.few ? "  (few detections)" : "");
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
		free(cells.v);
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
		fprintf(out, "%-5s %-16s %-5s %12s %5s  %6s  %-11s  %6s  %s\n",
			"bug", "program", "kinds", "detections", "cells", "F",
			"90 %", "naive", "sites");
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
