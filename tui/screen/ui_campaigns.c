/*
 * ui_campaigns.c - the Campaigns screen (the root, with the live sweep), a
 * campaign's Runs and one Run.
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

/* ---- campaigns ----------------------------------------------------------- */

typedef struct camp_row {
	int64_t id, program_id;
	char status[16];
	char profile[64]; /* its first: the one-profile strategies' */
} camp_row;

typedef struct campaigns {
	tui_listview l; /* first: the screen's state is a tui_listview */
	camp_row *rows;
	size_t n, cap;
} campaigns;

static const tui_col camp_cols[] = {
    {"ID", 4, true, false},	     {"PROGRAM", 14, false, true},
    {"STATUS", 8, false, false},     {"RUNS", 11, true, false},
    {"BUGS", 5, true, false},	     {"CELLS", 7, true, false},
    {"DENSITIES", 10, false, false}, {"PROFILES", 9, false, true},
    {"KIND", 5, false, false},	     {"NODE", 8, false, false},
    {"CREATED", 16, false, false},
};

static const tui_keydoc camp_keys[] = {
    {"Enter", "the campaign's runs"},
    {"b", "bugs of the campaign's program"},
    {"n", "start a new sweep (a form)"},
    {"R", "resume the selected stopped or interrupted campaign"},
    {"s", "simulate budgets over its program's recorded runs"},
    {"c", "check its program for races by happens-before (one run)"},
    {"e", "explore its program's schedules (100 serial runs, pct:3)"},
    {"S", "stop the running sweep"},
    {NULL, NULL},
};

static bool camp_row_cb(void *ctx, const db_campaign *c)
{
	campaigns *s = ctx;
	char id[24], runs[48], bugs[24], cells[32], created[32];
	const char *cell[11];
	uint64_t ncell = (uint64_t)c->ndensity;
	uint32_t nprof = 1;

	for (const char *p = c->profiles; p && *p; p++)
		nprof += *p == ',';
	ncell *= nprof;
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 32;
		camp_row *p = realloc(s->rows, cap * sizeof *p);
		if (!p) {
			s->l.nomem = true;
			return false;
		}
		s->rows = p;
		s->cap = cap;
	}
	s->rows[s->n].id = c->id;
	s->rows[s->n].program_id = c->program_id;
	snprintf(s->rows[s->n].status, sizeof s->rows[s->n].status, "%s",
		 c->status ? c->status : "?");
	snprintf(s->rows[s->n].profile, sizeof s->rows[s->n].profile, "%.*s",
		 (int)strcspn(c->profiles ? c->profiles : "", ","),
		 c->profiles ? c->profiles : "");
	s->n++;
	snprintf(id, sizeof id, "%" PRId64, c->id);
	if (c->planned)
		snprintf(runs, sizeof runs, "%" PRIu64 "/%" PRIu64, c->done,
			 c->planned);
	else
		snprintf(runs, sizeof runs, "%" PRIu64, c->done);
	snprintf(bugs, sizeof bugs, "%" PRIu64, c->bugs);
	snprintf(cells, sizeof cells, "%" PRIu64 "/%" PRIu64, c->cells, ncell);
	tui_fmt_time(c->created, created, sizeof created);
	cell[0] = id;
	cell[1] = c->program;
	cell[2] = c->status;
	cell[3] = runs;
	cell[4] = bugs;
	cell[5] = cells;
	cell[6] = c->densities;
	cell[7] = c->profiles;
	cell[8] = db_kind_name(c->kind);
	cell[9] = c->node ? c->node : "-";
	cell[10] = created;
	tui_role role = TUI_NORMAL;
	if (c->status && !strcmp(c->status, "running"))
		role = TUI_KEY;
	else if (c->status && !strcmp(c->status, "interrupted"))
		role = TUI_ERROR;
	return tui_listview_add(&s->l, c->id, role, cell);
}

static wasm_status camp_fill(tui_listview *l, db *d, wasm_err *e)
{
	campaigns *s = (campaigns *)l;
	s->n = 0;
	return db_campaign_list(d, camp_row_cb, s, e);
}

static const camp_row *camp_sel(campaigns *s)
{
	int64_t id = tui_table_selected(&s->l.t);
	for (size_t i = 0; i < s->n; i++)
		if (s->rows[i].id == id)
			return &s->rows[i];
	return NULL;
}

/* `heisen simulate` of the campaign's program in an output screen: the
 * trials run in the child, never on the drawing path. The campaign's
 * first profile is the one-profile strategies' home. */
static void open_simulate(tui_app *app, const camp_row *r)
{
	char id[24], title[64];
	char *argv[] = {
	    "heisen",	 "simulate",
	    "--program", id,
	    "--profile", (char *)(r->profile[0] ? r->profile : "default"),
	    "--db",	 (char *)tui_app_dbpath(app),
	    NULL};

	snprintf(id, sizeof id, "%" PRId64, r->program_id);
	snprintf(title, sizeof title, "Simulation for campaign %" PRId64,
		 r->id);
	tui_open_output(app, title, argv);
}

/* `heisen check` (or `explore`) of a campaign's program with its
 * arguments, with the command's default runs, into an output screen; it
 * is a campaign of its own. */
static void open_check(tui_app *app, const camp_row *r, const char *command)
{
	db_campaign c = {0};
	db_program p = {0};
	char title[96], **argv = NULL;
	wasm_err e;
	uint32_t n = 0;

	if (db_campaign_get(tui_app_db(app), r->id, &c, &e) ||
	    db_program_get(tui_app_db(app), r->program_id, &p, &e)) {
		tui_msg(app, true, "%s", e.msg);
		goto out;
	}
	if (!p.path) {
		tui_msg(app, true, "the workspace does not know where %s is",
			p.name);
		goto out;
	}
	if (!(argv = calloc(c.nargs + 8, sizeof *argv))) {
		tui_msg(app, true, "out of memory");
		goto out;
	}
	argv[n++] = "heisen";
	argv[n++] = (char *)command;
	argv[n++] = p.path;
	argv[n++] = "--db";
	argv[n++] = (char *)tui_app_dbpath(app);
	argv[n++] = "--";
	for (uint32_t i = 0, at = 0; i < c.nargs; i++) {
		argv[n++] = c.args + at;
		at += (uint32_t)strlen(c.args + at) + 1;
	}
	snprintf(title, sizeof title, "%s of %s",
		 strcmp(command, "check") ? "Explore" : "Check", p.name);
	tui_open_output(app, title, argv);
out:
	free(argv);
	db_campaign_clear(&c);
	db_program_clear(&p);
}

static bool camp_key(tui_screen *scr, tui_app *app, int ch)
{
	campaigns *s = scr->st;
	const camp_row *r = camp_sel(s);

	if (tui_listview_key(scr, app, ch))
		return true;
	switch (ch) {
	case 'b':
		if (r)
			tui_open_bugs(app, r->program_id);
		return true;
	case 's':
		if (r)
			open_simulate(app, r);
		return true;
	case 'c':
	case 'e':
		if (r)
			open_check(app, r, ch == 'c' ? "check" : "explore");
		return true;
	case 'n': {
		db_program p = {0};
		wasm_err e;
		wasm_err_clear(&e);
		if (r &&
		    !db_program_get(tui_app_db(app), r->program_id, &p, &e))
			tui_open_sweep_form(app, p.path);
		else
			tui_open_sweep_form(app, NULL);
		db_program_clear(&p);
		return true;
	}
	case 'R': {
		char id[24], *words[] = {"--resume", id};
		if (!r)
			return true;
		if (!strcmp(r->status, "done")) {
			tui_msg(app, true,
				"campaign %" PRId64
				" is done: nothing to resume",
				r->id);
			return true;
		}
		snprintf(id, sizeof id, "%" PRId64, r->id);
		tui_sweep_start(app, words, 2);
		return true;
	}
	}
	return false;
}

static void camp_free(tui_listview *l) { free(((campaigns *)l)->rows); }

static const tui_screen_ops camp_ops = {
    "Campaigns", camp_keys, tui_listview_load, tui_listview_draw,
    camp_key,	 NULL,	    tui_listview_free,
};

bool tui_open_campaigns(tui_app *app)
{
	campaigns *s = calloc(1, sizeof *s);

	if (!s)
		return false;
	tui_table_init(&s->l.t, camp_cols,
		       (int)(sizeof camp_cols / sizeof *camp_cols),
		       "no campaigns yet: press n to start a sweep, or : and "
		       "type 'sweep FILE.wasm'");
	s->l.fill = camp_fill;
	s->l.open = tui_open_runs;
	s->l.extra_free = camp_free;
	return tui_push(app, &camp_ops, s, "Campaigns", true);
}

/* ---- runs ---------------------------------------------------------------- */

static const tui_col run_cols[] = {
    {"RUN", 6, true, false},	 {"IDX", 6, true, false},
    {"STATUS", 8, false, false}, {"EXIT", 4, true, false},
    {"DENSITY", 7, true, false}, {"PROFILE", 9, false, false},
    {"SEED", 16, false, false},	 {"MS", 8, true, false},
    {"BUGS", 4, true, true},
};

static const tui_keydoc run_keys[] = {
    {"Enter", "the run: its status and the violations it caught"},
    {"x", "rerun the selected run exactly (same mask seed)"},
    {"/", "filter (e.g. a status, a profile, 100%)"},
    {"< > I", "sort by another column, invert"},
    {NULL, NULL},
};

static bool run_row_cb(void *ctx, const db_run *r)
{
	tui_listview *l = ctx;
	char id[24], idx[24], ex[16], dens[16], seed[24], ms[32], nb[16];
	const char *cell[9] = {id,	   idx,	 r->status, ex, dens,
			       r->profile, seed, ms,	    nb};
	tui_role role = TUI_NORMAL;

	snprintf(id, sizeof id, "%" PRId64, r->id);
	snprintf(idx, sizeof idx, "%" PRIu64, r->idx);
	snprintf(ex, sizeof ex, "%d", r->exit_code);
	tui_fmt_density(r->density_bp, dens, sizeof dens);
	snprintf(seed, sizeof seed, "%016" PRIx64, r->seed);
	snprintf(ms, sizeof ms, "%.1f", (double)r->duration_us / 1000.0);
	snprintf(nb, sizeof nb, "%u", r->nbugs);
	if (r->status && strcmp(r->status, "ok") && strcmp(r->status, "exit"))
		role = TUI_ERROR;
	else if (r->nbugs)
		role = TUI_KEY;
	return tui_listview_add(l, r->id, role, cell);
}

/* arg > 0: a campaign's runs; arg < 0: the runs that detected bug -arg. */
static wasm_status runs_fill(tui_listview *l, db *d, wasm_err *e)
{
	return db_run_list(d, l->arg > 0 ? l->arg : 0, l->arg < 0 ? -l->arg : 0,
			   run_row_cb, l, e);
}

static bool runs_key(tui_screen *scr, tui_app *app, int ch)
{
	tui_listview *l = scr->st;
	int64_t id = tui_table_selected(&l->t);

	if (tui_listview_key(scr, app, ch))
		return true;
	if (ch == 'x') {
		if (id > 0)
			tui_open_rerun(app, id);
		return true;
	}
	return false;
}

static const tui_screen_ops runs_ops = {
    "Runs",   run_keys, tui_listview_load, tui_listview_draw,
    runs_key, NULL,	tui_listview_free,
};

/* campaign_id < 0 lists the runs that detected bug -campaign_id. */
bool tui_open_runs(tui_app *app, int64_t campaign_id)
{
	tui_listview *s = calloc(1, sizeof *s);
	char title[64];

	if (!s)
		return false;
	s->arg = campaign_id;
	s->fill = runs_fill;
	s->open = tui_open_run;
	tui_table_init(&s->t, run_cols, 9,
		       "no runs recorded yet in this campaign");
	if (campaign_id > 0)
		snprintf(title, sizeof title, "Runs of campaign %" PRId64,
			 campaign_id);
	else
		snprintf(title, sizeof title, "Runs detecting bug %" PRId64,
			 -campaign_id);
	return tui_push(app, &runs_ops, s, title, true);
}

/* ---- one run ------------------------------------------------------------- */

typedef struct run_view {
	int64_t id;
	bool serial; /* recorded with a schedule: e replays it */
	tui_doc head;
	tui_table t; /* its bugs */
	db_run_bug *rb;
	size_t nrb, cap;
	bool nomem;
} run_view;

static const tui_col rv_cols[] = {
    {"BUG", 4, true, false},	  {"KINDS", 5, false, false},
    {"THREADS", 7, false, false}, {"ADDRESSES", 13, false, false},
    {"COUNT", 5, true, false},	  {"SITE A", 16, false, true},
    {"SITE B", 16, false, true},
};

static const tui_keydoc rv_keys[] = {
    {"Enter", "open the selected bug"},
    {"x", "rerun this run exactly (same mask seed)"},
    {"e", "a serial run: replay its schedule exactly, digest checked"},
    {"d", "a serial run: step through it in the Timeline screen"},
    {NULL, NULL},
};

/* A serial run's schedule, a line under its status. */
static void rv_schedule(run_view *s, db *d, const db_run *r, wasm_err *e)
{
	db_campaign c = {0};
	db_sched sc;
	bool has;

	s->serial = false;
	if (db_run_sched(d, r->id, &sc, &has, e) || !has)
		return;
	if (!db_campaign_get(d, r->campaign_id, &c, e)) {
		s->serial = true;
		tui_doc_add(&s->head,
			    "  schedule %s, seed %016" PRIx64 ": %" PRIu64
			    " points, %u switches, digest %016" PRIx64
			    "%s " TUI_M_DIM "(e replays it exactly)",
			    c.schedule ? c.schedule : "?", r->seed, sc.points,
			    sc.switches, sc.digest,
			    sc.failed ? TUI_M_ERROR " failed" TUI_M_NORMAL
				      : "");
	}
	db_campaign_clear(&c);
	db_sched_clear(&sc);
}

static bool rv_bug_cb(void *ctx, const db_run_bug *rb)
{
	run_view *s = ctx;
	if (s->nrb == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		db_run_bug *p = realloc(s->rb, cap * sizeof *p);
		if (!p) {
			s->nomem = true;
			return false;
		}
		s->rb = p;
		s->cap = cap;
	}
	s->rb[s->nrb++] = *rb;
	return true;
}

static bool rv_load(tui_screen *scr, tui_app *app)
{
	run_view *s = scr->st;
	db *d = tui_app_db(app);
	db_run r = {0};
	char dens[16];
	wasm_err e;

	wasm_err_clear(&e);
	tui_table_clear(&s->t);
	tui_doc_clear(&s->head);
	s->nrb = 0;
	s->nomem = false;
	if (db_run_get(d, s->id, &r, &e) ||
	    db_run_bugs(d, s->id, rv_bug_cb, s, &e)) {
		db_run_clear(&r);
		tui_fail_msg(app, &e);
		return false;
	}
	tui_fmt_density(r.density_bp, dens, sizeof dens);
	tui_doc_add(&s->head,
		    TUI_M_TITLE " Run %" PRId64 " " TUI_M_NORMAL
				"  campaign %" PRId64 ", plan index %" PRIu64,
		    r.id, r.campaign_id, r.idx);
	/* The seed on a line of its own: at 80 columns it was cut off. */
	tui_doc_add(&s->head, "  profile %s, density %s, mask seed %016" PRIx64,
		    r.profile, dens, r.seed);
	tui_doc_add(&s->head, "  %s%s" TUI_M_NORMAL " (exit %d)%s%s in %.1f ms",
		    strcmp(r.status, "ok") && strcmp(r.status, "exit")
			? TUI_M_ERROR
			: TUI_M_GOOD,
		    r.status, r.exit_code, r.msg && *r.msg ? ": " : "",
		    r.msg ? r.msg : "", (double)r.duration_us / 1000.0);
	/* What the program said last, under why it ended (its stderr's
	 * last lines; control characters were made '?'). */
	if (r.stderr_tail && *r.stderr_tail) {
		tui_doc_add(&s->head, "  " TUI_M_DIM "its stderr ended with:");
		for (const char *l = r.stderr_tail; *l;) {
			int k = (int)strcspn(l, "\n");
			tui_doc_add(&s->head, "    %.*s", k, l);
			l += k + (l[k] == '\n');
		}
	}
	rv_schedule(s, d, &r, &e);
	tui_doc_add(&s->head, "  %zu violation%s (x reruns it)", s->nrb,
		    s->nrb == 1 ? "" : "s");
	db_run_clear(&r);
	/* The bugs after the run's list is done with: one statement at a
	 * time. */
	for (size_t i = 0; i < s->nrb; i++) {
		const db_run_bug *rb = &s->rb[i];
		db_bug b = {0};
		char id[24], kinds[8], th[32], ad[48], cnt[24], sa[300],
		    sb[300];
		const char *cell[7] = {id, kinds, th, ad, cnt, sa, sb};
		snprintf(id, sizeof id, "%" PRId64, rb->bug_id);
		snprintf(th, sizeof th, "%u %u", rb->tid[0], rb->tid[1]);
		snprintf(ad, sizeof ad, "0x%x 0x%x", rb->addr[0], rb->addr[1]);
		snprintf(cnt, sizeof cnt, "%" PRIu64, rb->count);
		if (db_bug_get(d, rb->bug_id, &b, &e)) {
			tui_fail_msg(app, &e);
			return false;
		}
		tui_fmt_kinds(&b, kinds, sizeof kinds);
		tui_short_site(&b.site[0], sa, sizeof sa);
		tui_short_site(&b.site[1], sb, sizeof sb);
		db_bug_clear(&b);
		if (!tui_table_add(&s->t, rb->bug_id, TUI_NORMAL, cell))
			s->nomem = true;
	}
	if (s->nomem)
		tui_msg(app, true, "out of memory: the list is incomplete");
	tui_table_done(&s->t, -1);
	return true;
}

static void rv_draw(tui_screen *scr, tui_app *app, int y, int rows, int cols)
{
	run_view *s = scr->st;
	int h = (int)s->head.n + 1;

	tui_doc_draw(&s->head, y, h < rows ? h : rows, cols);
	if (rows > h + 2)
		tui_table_draw(&s->t, y + h, rows - h, cols);
}

static bool rv_key(tui_screen *scr, tui_app *app, int ch)
{
	run_view *s = scr->st;
	int64_t id = tui_table_selected(&s->t);

	if (tui_table_key(&s->t, app, ch))
		return true;
	if (tui_open_key(ch) && id > 0) {
		tui_open_bug(app, id);
		return true;
	}
	if (ch == 'x') {
		tui_open_rerun(app, s->id);
		return true;
	}
	if (ch == 'e') {
		char rid[24], *opts[] = {"--run", rid, "--mode", "schedule"};
		if (!s->serial) {
			tui_msg(app, true,
				"run %" PRId64 " was not serial: it has no "
				"schedule (x reruns it)",
				s->id);
			return true;
		}
		snprintf(rid, sizeof rid, "%" PRId64, s->id);
		tui_open_replay(app, 0, NULL, opts, 4);
		return true;
	}
	if (ch == 'd') {
		if (!s->serial)
			tui_msg(app, true,
				"run %" PRId64 " was not serial: it has no "
				"schedule to step through",
				s->id);
		else
			tui_open_timeline_of(app, 0, s->id);
		return true;
	}
	return false;
}

static void rv_free(tui_screen *scr)
{
	run_view *s = scr->st;
	tui_table_free(&s->t);
	tui_doc_clear(&s->head);
	free(s->rb);
	free(s);
}

static const tui_screen_ops rv_ops = {
    "Run", rv_keys, rv_load, rv_draw, rv_key, NULL, rv_free,
};

bool tui_open_run(tui_app *app, int64_t run_id)
{
	run_view *s = calloc(1, sizeof *s);
	char title[64];

	if (!s)
		return false;
	s->id = run_id;
	tui_table_init(&s->t, rv_cols, 7, "no violation in this run");
	snprintf(title, sizeof title, "Run %" PRId64, run_id);
	return tui_push(app, &rv_ops, s, title, false);
}
