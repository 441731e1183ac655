/*
 * ui_bugs.c - the Bugs screen: the bug list with each bug's heisen factor
 * and class, filled in the background, and triage from the list.
 */
#include "tui/report/report.h"
#include "tui/report/race.h"
#include "tui/screen/ui.h"

#include "db/nodes.h"
#include "detector/race.h"
#include "rewriter/instrument.h"

#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- bugs ---------------------------------------------------------------- */

static const tui_col bug_cols[] = {
    {"BUG", 4, true, false},	      {"PROGRAM", 14, false, false},
    {"KINDS", 5, false, false},	      {"RUNS", 5, true, false},
    {"BY", 5, false, false},	      {"F", 5, true, false},
    {"CLASS", 16, false, false},      {"STATE", 9, false, false},
    {"SITE A", 18, false, true},      {"SITE B", 18, false, true},
    {"FIRST SEEN", 16, false, false},
};

/* The bug list, with each bug's heisen factor and class once the
 * background computation (tui_factors) has them; until then the two
 * cells are empty. */
typedef struct bugs_view {
	tui_listview l; /* first: the screen's state is a tui_listview */
	tui_factors *fac;
	unsigned gen;
	/* The bugs listed, for tui_factors_want. */
	int64_t *ids, *same;
	uint64_t *runs;
	size_t n, cap;
} bugs_view;

static const tui_keydoc bug_keys[] = {
    {"Enter", "the bug: sites, source, detections per profile and density"},
    {"t", "triage: new, confirmed, fixed, not-a-bug (in turn)"},
    {"/", "filter by any text (site, file, kind...)"},
    {"< > I", "sort by another column, invert"},
    {NULL, NULL},
};

static bool bug_row_cb(void *ctx, const db_bug *b)
{
	tui_listview *l = ctx;
	bugs_view *v = ctx;
	char id[24], kinds[8], runs[24], seen[32], sa[300], sb[300];
	char f[16] = "", cls[24] = "";
	/* The detectors by what the user ran: the campaign kinds. */
	static const char *const by[] = {"-", "sweep", "check", "both"};
	const char *cell[11] = {id,
				b->program,
				kinds,
				runs,
				by[b->found_by & 3],
				f,
				cls,
				db_state_name(b->state),
				sa,
				sb,
				seen};
	det_factor fa;
	det_class c;

	if (tui_factors_get(v->fac, b->id, b->runs, &fa, &c)) {
		snprintf(f, sizeof f, "%.2f", fa.map);
		snprintf(cls, sizeof cls, "%s", det_class_name(c));
	}
	if (v->n == v->cap) {
		size_t nc = v->cap ? 2 * v->cap : 64;
		int64_t *ni = realloc(v->ids, nc * sizeof *ni);
		int64_t *ns = ni ? realloc(v->same, nc * sizeof *ns) : NULL;
		uint64_t *nr = ns ? realloc(v->runs, nc * sizeof *nr) : NULL;
		if (ni)
			v->ids = ni;
		if (ns)
			v->same = ns;
		if (nr)
			v->runs = nr;
		if (nr)
			v->cap = nc;
	}
	if (v->n < v->cap) {
		v->ids[v->n] = b->id;
		v->runs[v->n] = b->runs;
		v->same[v->n++] = b->site[0].id == b->site[1].id;
	}
	snprintf(id, sizeof id, "%" PRId64, b->id);
	tui_fmt_kinds(b, kinds, sizeof kinds);
	snprintf(runs, sizeof runs, "%" PRIu64, b->runs);
	tui_fmt_time(b->first_seen, seen, sizeof seen);
	tui_short_site(&b->site[0], sa, sizeof sa);
	tui_short_site(&b->site[1], sb, sizeof sb);
	return tui_listview_add(l, b->id, TUI_NORMAL, cell);
}

static wasm_status bugs_fill(tui_listview *l, db *d, wasm_err *e)
{
	bugs_view *v = (bugs_view *)l;
	wasm_status st;

	v->n = 0;
	st = db_bug_list(d, l->arg, bug_row_cb, l, e);
	if (!st)
		tui_factors_want(v->fac, d, v->ids, v->runs, v->same, v->n);
	return st;
}

/* Reload when the background computation has new factors. */
static void bugs_tick(tui_screen *scr, tui_app *app)
{
	bugs_view *v = scr->st;
	unsigned gen = tui_factors_poll(v->fac);

	if (gen != v->gen) {
		v->gen = gen;
		tui_listview_load(scr, app);
		tui_dirty(app);
	}
}

static void bugs_free(tui_listview *l)
{
	bugs_view *v = (bugs_view *)l;
	free(v->ids);
	free(v->same);
	free(v->runs);
}

void tui_triage_next(tui_app *app, int64_t id)
{
	db *d = tui_app_db(app);
	db_bug b;
	db_state next;
	wasm_err e;

	wasm_err_clear(&e);
	if (db_bug_get(d, id, &b, &e)) {
		tui_fail_msg(app, &e);
		return;
	}
	next = (db_state)((b.state + 1) % DB_NSTATES);
	if (db_triage_set(d, id, next, NULL, &e))
		tui_fail_msg(app, &e);
	else
		tui_msg(app, false,
			"bug %" PRId64 ": %s (was %s; every build of %s with "
			"its signature)",
			id, db_state_name(next), db_state_name(b.state),
			b.program ? b.program : "?");
	db_bug_clear(&b);
}

static bool bugs_key(tui_screen *scr, tui_app *app, int ch)
{
	tui_listview *l = scr->st;
	int64_t id = tui_table_selected(&l->t);

	if (tui_listview_key(scr, app, ch))
		return true;
	if (ch == 't') {
		if (id > 0) {
			tui_triage_next(app, id);
			tui_listview_load(scr, app);
		}
		return true;
	}
	return false;
}

static const tui_screen_ops bugs_ops = {
    "Bugs",   bug_keys,	 tui_listview_load, tui_listview_draw,
    bugs_key, bugs_tick, tui_listview_free,
};

bool tui_open_bugs(tui_app *app, int64_t program_id)
{
	bugs_view *v = calloc(1, sizeof *v);
	tui_listview *s = &v->l;
	char title[160] = "Bugs";

	if (!v)
		return false;
	v->fac = tui_app_factors(app);
	v->gen = tui_factors_poll(v->fac);
	s->extra_free = bugs_free;
	s->arg = program_id;
	s->fill = bugs_fill;
	s->open = tui_open_bug;
	/* Most detected first, as `heisen bugs` lists them. */
	tui_table_init(&s->t, bug_cols,
		       (int)(sizeof bug_cols / sizeof *bug_cols),
		       "no bugs recorded yet: a sweep finds them");
	if (program_id > 0) {
		db_program p = {0};
		wasm_err e;
		if (!db_program_get(tui_app_db(app), program_id, &p, &e))
			snprintf(title, sizeof title, "Bugs of %s", p.name);
		db_program_clear(&p);
	}
	return tui_push(app, &bugs_ops, s, title, true);
}
