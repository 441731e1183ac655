/*
 * ui_timeline.c - the Timeline screen: a serial run's events
 * (replay/trace.h) one row each, the threads in lanes side by side, the
 * current event's source (or call stack) below, the race's two accesses
 * marked. The run is recorded once when the screen opens, so stepping
 * forward and back is moving over rows already there, the same rows
 * both ways; what a row does not hold (a call stack, the bytes at
 * another address) is asked of a new run of the same schedule, which
 * is deterministic: the same execution again, with the question asked.
 */
#include "tui/screen/ui.h"
#include "tui/report/report.h"
#include "tui/cmd/cmd.h"

#include "detector/campaign.h"
#include "replay/sched.h"
#include "replay/trace.h"
#include "rewriter/instrument.h"

#include <curses.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define SRC_ROWS 9 /* the pane below the lanes */
#define LANE_MIN 18

typedef struct timeline {
	rep_spec s;
	det_prog *p;
	char progpath[1024];
	rep_trace t;
	rep_trace_opts o;
	uint64_t cur, top;
	uint32_t nthreads;
	uint32_t next_race; /* r cycles over the races' rows */
	uint8_t *bp;	    /* breakpoint sites (NULL: none) */
	char bp_text[128];
	/* The stack of event stack_ev, when shown (s). */
	bool show_stack;
	uint64_t stack_ev;
	db_stack stack;
	uint64_t stack_buf[1];
} timeline;

static const tui_keydoc tl_keys[] = {
    {"Down/j Up/k", "step forward / back one event"},
    {"PgDn PgUp g G", "a page forward / back, the first / last event"},
    {"n p", "next / previous event of the current event's thread"},
    {"r", "jump to the race's accesses (each race's two, in turn)"},
    {"b", "set a breakpoint: FILE:LINE, FUNCTION or site N (empty: none)"},
    {"c C", "run forward / back to the next event at the breakpoint"},
    {"s", "show or hide the current event's call stack"},
    {"w", "watch the bytes at an address (ADDR or ADDR:WIDTH)"},
    {NULL, NULL},
};

static void tl_free(tui_screen *scr)
{
	timeline *v = scr->st;

	if (!v)
		return;
	rep_trace_clear(&v->t);
	db_stack_clear(&v->stack);
	det_prog_free(v->p);
	rep_spec_clear(&v->s);
	free(v->bp);
	free(v);
}

/* Record the run (again) with v->o's questions. */
static bool record(timeline *v, tui_app *app)
{
	rep_trace t;
	wasm_err e;

	if (rep_trace_run(&v->s, v->p, &v->o, &t, &e)) {
		tui_fail_msg(app, &e);
		return false;
	}
	rep_trace_clear(&v->t);
	v->t = t;
	v->nthreads = 0;
	for (uint64_t i = 0; i < t.n; i++)
		if (t.ev[i].thread + 1 > v->nthreads)
			v->nthreads = t.ev[i].thread + 1;
	if (v->cur >= t.n)
		v->cur = t.n ? t.n - 1 : 0;
	return true;
}

static bool tl_load(tui_screen *scr, tui_app *app)
{
	timeline *v = scr->st;

	if (v->t.ev)
		return true;
	v->o.out_fd = -1;
	if (!record(v, app))
		return false;
	/* Watch the first race's bytes: the value a step changes. */
	if (v->t.nrace && !v->o.watch_width) {
		const rep_event *e = &v->t.ev[v->t.race[0].ev[1]];
		v->o.watch_addr = (uint32_t)e->addr;
		v->o.watch_width = e->width && e->width <= 8 ? e->width : 4;
		if (!record(v, app))
			return false;
	}
	if (v->t.nrace)
		v->cur = v->t.race[0].ev[0];
	return true;
}

/* Row i in lane form: "what where" into buf. */
static void row_text(const timeline *v, uint64_t i, char *buf, size_t cap)
{
	char what[96], where[320];

	tui_event_what(&v->t, i, what, sizeof what);
	tui_event_where(v->p, &v->t, i, where, sizeof where);
	snprintf(buf, cap, "%s %s", what, where);
}

static void draw_lanes(timeline *v, int y, int rows, int cols)
{
	int lane = v->nthreads ? (cols - 10) / (int)v->nthreads : cols;
	bool lanes = v->nthreads > 1 && lane >= LANE_MIN;
	char buf[640], num[24];

	/* Lane titles. */
	move(y, 0);
	clrtoeol();
	tui_put(y, 0, "   event", 9, tui_attr(TUI_HEADER));
	for (uint32_t th = 0; lanes && th < v->nthreads; th++) {
		snprintf(buf, sizeof buf, "T%u", th);
		tui_put(y, 10 + (int)th * lane, buf, lane - 1,
			tui_attr(TUI_HEADER));
	}
	if (!lanes)
		tui_put(y, 10, "thread  what and where", cols - 10,
			tui_attr(TUI_HEADER));
	y++;
	rows--;
	if (rows <= 0)
		return;
	if (v->cur < v->top)
		v->top = v->cur;
	if (v->cur >= v->top + (uint64_t)rows)
		v->top = v->cur - (uint64_t)rows + 1;
	for (int r = 0; r < rows; r++) {
		uint64_t i = v->top + (uint64_t)r;
		const rep_event *e;
		int attr;

		move(y + r, 0);
		clrtoeol();
		if (i >= v->t.n)
			continue;
		e = &v->t.ev[i];
		attr = i == v->cur		 ? tui_attr(TUI_SELECTED)
		       : e->mark & REP_MARK_RACE ? tui_attr(TUI_ERROR)
		       : v->bp && e->kind == REP_EV_ACCESS && v->bp[e->site]
			   ? tui_attr(TUI_KEY)
			   : tui_attr(TUI_NORMAL);
		snprintf(num, sizeof num, "%c%7" PRIu64,
			 e->mark & REP_MARK_RACE ? '!' : ' ', i);
		tui_put(y + r, 0, num, 9, attr);
		if (lanes) {
			tui_event_short(v->p, &v->t, i, buf, sizeof buf);
			tui_put(y + r, 10 + (int)e->thread * lane, buf,
				lane - 1, attr);
		} else {
			char text[512];
			row_text(v, i, text, sizeof text);
			snprintf(buf, sizeof buf, "T%-3u    %.500s", e->thread,
				 text);
			tui_put(y + r, 10, buf, cols - 10, attr);
		}
	}
}

/* The pane below: the current event in words, the watched bytes, then
 * its source lines or its call stack. */
static void draw_pane(timeline *v, int y, int rows, int cols)
{
	const rep_event *e = v->t.n ? &v->t.ev[v->cur] : NULL;
	char buf[640], what[96], where[320], path[1024];
	char fn[128];
	rw_srcpos pos = {0};
	FILE *f;
	int r = 0;

	for (int i = 0; i < rows; i++) {
		move(y + i, 0);
		clrtoeol();
	}
	if (!e || rows <= 0)
		return;
	tui_event_what(&v->t, v->cur, what, sizeof what);
	tui_event_where(v->p, &v->t, v->cur, where, sizeof where);
	snprintf(buf, sizeof buf, "event %" PRIu64 " of %" PRIu64 ": T%u %s %s",
		 v->cur, v->t.n, e->thread, what, where);
	tui_put(y + r++, 0, buf, cols, tui_attr(TUI_TITLE));
	if (r < rows && v->o.watch_width) {
		snprintf(buf, sizeof buf,
			 "watch: %u bytes at 0x%x = %" PRIu64 " (0x%" PRIx64
			 ") at this event%s",
			 v->o.watch_width, v->o.watch_addr, e->watch, e->watch,
			 v->t.nrace ? ", the race's address" : "");
		tui_put(y + r++, 0, buf, cols, tui_attr(TUI_GOOD));
	}
	if (v->show_stack && v->stack_ev == v->cur) {
		for (uint32_t i = 0; i < v->stack.n && r < rows; i++) {
			const db_frame *fr = &v->stack.frame[i];
			const char *file = fr->file ? fr->file : "?";
			/* The base name: a deep checkout's path would push
			 * the line off an 80-column screen. */
			if (strrchr(file, '/'))
				file = strrchr(file, '/') + 1;
			snprintf(buf, sizeof buf, "  #%u %s %s:%u%s", i,
				 fr->func, file, fr->line,
				 fr->inlined ? " (inlined)" : "");
			tui_put(y + r++, 0, buf, cols, tui_attr(TUI_NORMAL));
		}
		if (!v->stack.n && r < rows)
			tui_put(y + r++, 0, "  (no stack at this event)", cols,
				tui_attr(TUI_DIM));
		return;
	}
	if (e->kind != REP_EV_ACCESS)
		return;
	det_prog_site(v->p, e->site, fn, sizeof fn, &pos);
	if (!pos.file || !pos.line ||
	    !(f = tui_find_source(pos.file, v->progpath, path, sizeof path))) {
		if (r < rows)
			tui_put(y + r++, 0, "  (source not found)", cols,
				tui_attr(TUI_DIM));
		return;
	}
	{
		char line[512];
		uint32_t no = 0, first;
		int left = rows - r;
		first = pos.line > (uint32_t)left / 2
			    ? pos.line - (uint32_t)left / 2
			    : 1;
		while (r < rows && fgets(line, sizeof line, f)) {
			line[strcspn(line, "\n")] = '\0';
			if (++no < first)
				continue;
			snprintf(buf, sizeof buf, "%c%5u  %s",
				 no == pos.line ? '>' : ' ', no, line);
			tui_put(y + r++, 0, buf, cols,
				tui_attr(no == pos.line ? TUI_SELECTED
							: TUI_NORMAL));
		}
		fclose(f);
	}
}

static void tl_draw(tui_screen *scr, tui_app *app, int y, int rows, int cols)
{
	timeline *v = scr->st;
	int pane = rows > SRC_ROWS + 6 ? SRC_ROWS : rows / 3;
	char head[512], name[64];

	rep_sched_name(&v->s.sched, name, sizeof name);
	snprintf(head, sizeof head,
		 "%s %s, %" PRIu64 " events, %u race%s, %s%s%s%s", v->p->name,
		 name, v->t.n, v->t.nrace, v->t.nrace == 1 ? "" : "s",
		 det_status_name(v->t.res.status), v->bp ? "  [b " : "",
		 v->bp ? v->bp_text : "", v->bp ? "]" : "");
	move(y, 0);
	clrtoeol();
	tui_put(y, 0, head, cols, tui_attr(TUI_HEADER));
	draw_lanes(v, y + 1, rows - 1 - pane, cols);
	draw_pane(v, y + rows - pane, pane, cols);
}

static void go(timeline *v, tui_app *app, int64_t to)
{
	if (to < 0 || !v->t.n)
		return;
	v->cur = (uint64_t)to < v->t.n ? (uint64_t)to : v->t.n - 1;
	tui_dirty(app);
}

static void set_break(void *ctx, tui_app *app, const char *text)
{
	timeline *v = ctx;
	uint8_t *set;
	uint32_t n;
	wasm_err e;

	if (!text)
		return;
	if (!*text) {
		free(v->bp);
		v->bp = NULL;
		tui_dirty(app);
		return;
	}
	if (!(set = malloc(v->p->sites.nsites ? v->p->sites.nsites : 1))) {
		tui_msg(app, true, "out of memory");
		return;
	}
	if (rep_trace_place(v->p, text, set, &n, &e)) {
		free(set);
		tui_fail_msg(app, &e);
		return;
	}
	free(v->bp);
	v->bp = set;
	snprintf(v->bp_text, sizeof v->bp_text, "%s", text);
	tui_msg(app, false, "breakpoint at %s: %u site%s; c runs to it", text,
		n, n == 1 ? "" : "s");
	tui_dirty(app);
}

static void set_watch(void *ctx, tui_app *app, const char *text)
{
	timeline *v = ctx;
	uint32_t addr;
	uint8_t width;

	if (!text || !*text)
		return;
	if (!tui_parse_watch(text, &addr, &width)) {
		tui_msg(app, true,
			"watch takes ADDR or ADDR:WIDTH (decimal or 0x hex, "
			"width 1 to 8)");
		return;
	}
	v->o.watch_addr = addr;
	v->o.watch_width = width;
	if (record(v, app))
		tui_msg(app, false, "watching %u bytes at 0x%x", width, addr);
	tui_dirty(app);
}

/* The current event's stack, from a run of the same schedule that
 * takes it there. */
static void show_stack(timeline *v, tui_app *app)
{
	rep_trace t;
	rep_trace_opts o = v->o;
	wasm_err e;
	const db_stack *st;

	v->stack_buf[0] = v->cur;
	o.stacks = v->stack_buf;
	o.nstacks = 1;
	o.watch_width = 0;
	if (rep_trace_run(&v->s, v->p, &o, &t, &e)) {
		tui_fail_msg(app, &e);
		return;
	}
	db_stack_clear(&v->stack);
	if ((st = rep_trace_stack_at(&t, v->cur))) {
		v->stack = *st;
		/* The frames move to v: t must not free them. */
		for (size_t i = 0; i < t.nstack; i++)
			if (&t.stack[i].st == st)
				memset(&t.stack[i].st, 0, sizeof t.stack[i].st);
	}
	rep_trace_clear(&t);
	v->stack_ev = v->cur;
	v->show_stack = true;
}

static bool tl_key(tui_screen *scr, tui_app *app, int ch)
{
	timeline *v = scr->st;
	rep_trace_filter f = {.thread = UINT32_MAX};
	int page = tui_app_rows(app) - SRC_ROWS - 3;

	if (page < 1)
		page = 1;
	switch (ch) {
	case KEY_DOWN:
	case 'j':
		if (v->cur + 1 < v->t.n)
			go(v, app, (int64_t)v->cur + 1);
		return true;
	case KEY_UP:
	case 'k':
		if (v->cur)
			go(v, app, (int64_t)v->cur - 1);
		return true;
	case KEY_NPAGE:
	case ' ': go(v, app, (int64_t)(v->cur + (uint64_t)page)); return true;
	case KEY_PPAGE:
		go(v, app,
		   v->cur > (uint64_t)page ? (int64_t)(v->cur - (uint64_t)page)
					   : 0);
		return true;
	case KEY_HOME:
	case 'g': go(v, app, 0); return true;
	case KEY_END:
	case 'G': go(v, app, (int64_t)v->t.n - 1); return true;
	case 'n':
	case 'p':
		if (!v->t.n)
			return true;
		f.thread = v->t.ev[v->cur].thread;
		go(v, app,
		   rep_trace_seek(&v->t, v->cur, ch == 'n' ? 1 : -1, &f));
		return true;
	case 'r':
		if (!v->t.nrace) {
			tui_msg(app, false, "this run has no race");
			return true;
		}
		v->next_race %= 2 * v->t.nrace;
		go(v, app,
		   (int64_t)v->t.race[v->next_race / 2].ev[v->next_race % 2]);
		tui_msg(app, false, "race %u, its %s access",
			v->next_race / 2 + 1,
			v->next_race % 2 ? "second" : "first");
		v->next_race++;
		return true;
	case 'c':
	case 'C': {
		int64_t to;
		if (!v->bp) {
			tui_msg(app, true, "no breakpoint: b sets one");
			return true;
		}
		f.sites = v->bp;
		to = rep_trace_seek(&v->t, v->cur, ch == 'c' ? 1 : -1, &f);
		if (to < 0)
			tui_msg(app, false, "no event at %s %s this one",
				v->bp_text, ch == 'c' ? "after" : "before");
		go(v, app, to);
		return true;
	}
	case 'b': {
		tui_ask_spec a = {"Break at (FILE:LINE, FUNCTION, site N): ",
				  v->bp ? v->bp_text : "",
				  NULL,
				  false,
				  set_break,
				  NULL,
				  v,
				  false};
		tui_ask(app, &a);
		return true;
	}
	case 'w': {
		tui_ask_spec a = {"Watch (ADDR or ADDR:WIDTH): ",
				  "",
				  NULL,
				  false,
				  set_watch,
				  NULL,
				  v,
				  false};
		tui_ask(app, &a);
		return true;
	}
	case 's':
		if (v->show_stack && v->stack_ev == v->cur)
			v->show_stack = false;
		else
			show_stack(v, app);
		tui_dirty(app);
		return true;
	}
	return false;
}

static const tui_screen_ops tl_ops = {
    "timeline", tl_keys, tl_load, tl_draw, tl_key, NULL, tl_free,
};

bool tui_open_timeline(tui_app *app, rep_spec *s, const char *progpath)
{
	timeline *v = calloc(1, sizeof *v);
	char title[256];
	wasm_err e;

	if (!v) {
		rep_spec_clear(s);
		tui_msg(app, true, "out of memory");
		return false;
	}
	v->s = *s;
	memset(s, 0, sizeof *s);
	v->s.mode = REP_SCHEDULE;
	snprintf(v->progpath, sizeof v->progpath, "%s", progpath);
	if (rep_load_program(&v->s, progpath, false, &v->p, &e)) {
		tui_msg(app, true, "%s: %s", progpath, e.msg);
		rep_spec_clear(&v->s);
		free(v);
		return false;
	}
	snprintf(title, sizeof title, "Timeline %s", v->p->name);
	return tui_push(app, &tl_ops, v, title, false);
}

bool tui_open_timeline_of(tui_app *app, int64_t bug, int64_t run)
{
	rep_spec s = {0};
	wasm_err e;
	wasm_status st;

	if (bug && !run) {
		if (db_bug_sched_run(tui_app_db(app), bug, &run, &e)) {
			tui_fail_msg(app, &e);
			return false;
		}
		if (!run) {
			tui_msg(app, true,
				"no serial run found bug %" PRId64 ": explore "
				"its program (e on the Campaigns screen)",
				bug);
			return false;
		}
	}
	st = bug ? rep_spec_from_db(tui_app_db(app), bug, run, &s, &e)
		 : rep_spec_from_run(tui_app_db(app), run, &s, &e);
	if (st) {
		tui_fail_msg(app, &e);
		return false;
	}
	if (!s.has_sched || !s.program_path) {
		tui_msg(app, true, "%s",
			!s.has_sched ? "that run was not serial: only a "
				       "schedule can be stepped through"
				     : "the workspace has lost the "
				       "program's path");
		rep_spec_clear(&s);
		return false;
	}
	{
		char path[1024];
		snprintf(path, sizeof path, "%s", s.program_path);
		return tui_open_timeline(app, &s, path);
	}
}

typedef struct debug_root {
	rep_spec *s;
	const char *path;
} debug_root;

static bool root_timeline(tui_app *app, void *ctx)
{
	debug_root *r = ctx;

	return tui_open_timeline(app, r->s, r->path);
}

int tui_cmd_debug(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err)
{
	rep_spec s = {0};
	det_prog *p = NULL;
	const char *path, *dbpath;
	debug_root r;
	struct stat sb;
	int rc;

	(void)out;
	if ((rc = tui_open_schedule(cmd, a, &s, &p, &path, err)))
		goto out;
	/* The screen loads the program again; this load checked it. */
	det_prog_free(p);
	p = NULL;
	if (!s.program_path || strcmp(s.program_path, path)) {
		wasm_free(s.program_path);
		if (!(s.program_path = wasm_strdup(path))) {
			fprintf(err, "heisen debug: out of memory\n");
			rc = TUI_EXIT_INTERNAL;
			goto out;
		}
	}
	/* A repro file needs no workspace: the app then has a scratch one,
	 * so that nothing is created in the current folder. */
	dbpath = db_path_choose(tui_opt_value(cmd, a, "--db"));
	if (stat(dbpath, &sb))
		dbpath = ":memory:";
	r.s = &s;
	r.path = path;
	rc = tui_app_run("debug", dbpath, root_timeline, &r, err);
out:
	det_prog_free(p);
	rep_spec_clear(&s);
	return rc;
}
