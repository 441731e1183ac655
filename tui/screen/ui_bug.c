/*
 * ui_bug.c - one bug: its race report, stacks, location and detections
 * grid (tui/report/report.h), and the source screen its frames open.
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

/* ---- one bug ------------------------------------------------------------- */

/* What Tab selects on a bug's screen: a site's call stack (frame -1:
 * Enter folds or unfolds it) or, unfolded, one of its frames (Enter
 * opens its source), at doc line `line`. */
#define BUGV_TARGETS (2 * ((int)DET_MAX_CALLERS + 2))
typedef struct bugv_target {
	size_t line;
	int site, frame;
	char file[512];
	uint32_t lineno;
} bugv_target;

typedef struct bug_view {
	int64_t id;
	int64_t rerun; /* the first example run, for x */
	int64_t sched_run; /* its first serial run, for e (0: none) */
	tui_doc doc;
	unsigned gen; /* of the factors last shown */
	bool unfold[2];
	bugv_target target[BUGV_TARGETS];
	int ntarget, cur; /* cur: the selected target, -1 for none */
	char progpath[4096];
	/* The width the paths were fitted to; a resize reloads. */
	int cols;
	bool utf8;
} bug_view;

static const tui_keydoc bugv_keys[] = {
    {"Up/Down PgUp/PgDn", "scroll"},
    {"Left/Right", "scroll sideways (Left at the edge: back)"},
    {"x", "rerun the first example run exactly (same mask seed)"},
    {"o", "the runs that detected it"},
    {"p", "replay it: a form for the mode, then the rate live"},
    {"e", "found by a serial run: replay its schedule exactly"},
    {"d", "found by a serial run: step through it (Timeline screen)"},
    {"w", "write a repro file (replays it 100 times to measure the rate)"},
    {"t", "triage: new, confirmed, fixed, not-a-bug (in turn)"},
    {"Tab S-Tab", "select a call stack, or a frame of an unfolded one"},
    {"Enter", "unfold or fold the selected stack; open a frame's source"},
    {NULL, NULL},
};

/* "FUNC FILE:LINE < FUNC FILE:LINE ..." of frames [from, st->n) into
 * line (cap bytes). */
static void doc_frames(const db_stack *st, uint32_t from, char *line,
		       size_t cap)
{
	int n = 0;

	line[0] = '\0';
	for (uint32_t k = from; k < st->n && n >= 0 && (size_t)n + 100 < cap;
	     k++) {
		const db_frame *f = &st->frame[k];
		const char *base = f->file ? strrchr(f->file, '/') : NULL;
		n += snprintf(line + n, cap - (size_t)n, "%s %s",
			      k > from ? " <" : "", f->func);
		if (f->file && f->line)
			n += snprintf(line + n, cap - (size_t)n, " %s:%u",
				      base ? base + 1 : f->file, f->line);
		else if (f->file)
			n += snprintf(line + n, cap - (size_t)n, " %s:?",
				      base ? base + 1 : f->file);
		if (f->inlined)
			n += snprintf(line + n, cap - (size_t)n, " (inlined)");
	}
	if (st->truncated && n >= 0 && (size_t)n + 8 < cap)
		snprintf(line + n, cap - (size_t)n, " < ...");
}

/* The locks each thread held at the race, as the text report's access
 * lines say them ("mutexes: write M1"), then a line per lock: what it
 * is, where it lies and where the run first took it. */
static void doc_locks(tui_doc *d, const tui_report *r)
{
	const db_locks *const acc[2] = {&r->locks[0], &r->locks[1]};
	const tui_example *x = r->evidence >= 0 ? &r->ex[r->evidence] : NULL;
	char list[256], text[300], frames[1024];

	for (int i = 0; i < 2 && x; i++) {
		int n = 0;
		if (!acc[i]->held)
			continue;
		list[0] = '\0';
		for (uint32_t k = 0;
		     k < acc[i]->n && n >= 0 && (size_t)n + 32 < sizeof list;
		     k++)
			n += snprintf(list + n, sizeof list - (size_t)n,
				      "%s %s M%u", k ? "," : "",
				      tui_lock_mode(acc[i]->lock[k].kind),
				      tui_lock_number(acc, i, k));
		if (acc[i]->held > acc[i]->n && n >= 0 &&
		    (size_t)n + 32 < sizeof list)
			snprintf(list + n, sizeof list - (size_t)n,
				 "%s %u more", acc[i]->n ? "," : "",
				 acc[i]->held - acc[i]->n);
		tui_doc_add(
		    d, TUI_M_HEADER "Thread %u" TUI_M_NORMAL " held mutexes:%s",
		    x->tid[i], list);
	}
	for (int i = 0; i < 2; i++)
		for (uint32_t k = 0; k < acc[i]->n; k++) {
			const db_lock *l = &acc[i]->lock[k];
			uint32_t m = tui_lock_number(acc, i, k);
			bool at = tui_loc_text(&l->loc, text, sizeof text);
			/* A lock both held is described once. */
			if (i && m <= acc[0]->n)
				continue;
			doc_frames(&l->first, 0, frames, sizeof frames);
			tui_doc_add(d,
				    TUI_M_HEADER "Mutex M%u" TUI_M_NORMAL
						 " is a %s at 0x%08x%s%s%s%s",
				    m, tui_lock_type(l->kind), l->addr,
				    at ? ", " : "", at ? text : "",
				    l->first.n ? ", first taken at" : "",
				    frames);
		}
}

/* The evidence run's location and who created the threads, a line each,
 * their stacks on the same line so that the screen keeps its shape. */
static void doc_location(tui_doc *d, const tui_report *r)
{
	char text[300], frames[1024];
	int64_t run = r->evidence >= 0 ? r->ex[r->evidence].run : 0;

	if (tui_loc_text(&r->loc, text, sizeof text)) {
		doc_frames(&r->loc.stack, 0, frames, sizeof frames);
		tui_doc_add(d,
			    TUI_M_HEADER "Location" TUI_M_NORMAL
					 " is %s%s%s " TUI_M_DIM "(run %" PRId64
					 ")",
			    text, r->loc.stack.n ? " at" : "", frames, run);
	}
	for (int i = 0; i < 2; i++) {
		const db_spawn *sp = &r->spawn[i];
		const tui_example *x = run ? &r->ex[r->evidence] : NULL;
		if (!sp->known || !x || (i && x->tid[1] == x->tid[0]))
			continue;
		doc_frames(&sp->stack, 0, frames, sizeof frames);
		tui_doc_add(d,
			    TUI_M_HEADER "Thread %u%s%s%s" TUI_M_NORMAL
					 " created by thread %u%s%s",
			    x->tid[i], r->name[i][0] ? " '" : "", r->name[i],
			    r->name[i][0] ? "'" : "", sp->parent,
			    sp->stack.n ? " at" : "", frames);
	}
	doc_locks(d, r);
	if (r->loc.kind || r->spawn[0].known || r->spawn[1].known ||
	    r->locks[0].held || r->locks[1].held)
		tui_doc_add(d, " ");
}

/* Remember doc's next line as Tab's next stop. */
static void bugv_target_add(bug_view *v, int site, int frame, const db_frame *f)
{
	bugv_target *t;

	if (v->ntarget == BUGV_TARGETS)
		return;
	t = &v->target[v->ntarget++];
	t->line = v->doc.n;
	t->site = site;
	t->frame = frame;
	snprintf(t->file, sizeof t->file, "%s", f && f->file ? f->file : "");
	t->lineno = f ? f->line : 0;
}

/* "FILE:LINE" (FILE "?" when unknown, no ":LINE" without a line) in
 * the columns left of a doc line whose other text takes `used`; a
 * deep checkout's paths lose their heads, not the file and line. */
static void fit_pos(const bug_view *v, const char *file, uint32_t line,
		    size_t used, char *buf, size_t cap)
{
	char whole[4200];
	int room = v->cols - (int)used - 1;

	if (line)
		snprintf(whole, sizeof whole, "%s:%u", tui_or_unknown(file),
			 line);
	else
		snprintf(whole, sizeof whole, "%s:?", tui_or_unknown(file));
	tui_path_fit(whole, room > 12 ? room : 12, v->utf8, buf, cap);
}

static void doc_site(bug_view *v, const tui_report *r, int i)
{
	tui_doc *d = &v->doc;
	const struct db_bug_site *s = &r->bug.site[i];
	const db_stack *st = &r->stack[i];
	const char *progpath = r->prog.path;
	char which = (char)('A' + i);
	tui_context cx;
	char head[200], where[600];

	snprintf(head, sizeof head, "Site %c  %u (%s)  %s ", which, s->id,
		 rw_kind_name((rw_kind)s->kind), tui_or_unknown(s->func));
	fit_pos(v, s->file, s->line, strlen(head), where, sizeof where);
	tui_doc_add(d, TUI_M_HEADER "Site %c" TUI_M_NORMAL "  %u (%s)  %s %s",
		    which, s->id, rw_kind_name((rw_kind)s->kind),
		    tui_or_unknown(s->func), where);
	if (tui_read_context(s, progpath, &cx)) {
		for (uint32_t k = 0; k < cx.n; k++)
			tui_doc_add(d, "%s %6u | %s",
				    cx.first + k == s->line ? TUI_M_KEY " >"
							    : TUI_M_DIM "  ",
				    cx.first + k, cx.text[k]);
	} else if (s->file && *s->file && s->line) {
		tui_doc_add(d,
			    TUI_M_DIM "  (source not shown: %s not found, "
				      "or shorter than %u lines)",
			    s->file, s->line);
	}
	if (st->n > 1 && !v->unfold[i]) {
		/* Folded: the callers on one line (frame 0 is the site
		 * above), so that the screen keeps its shape. */
		char line[1024];
		doc_frames(st, 1, line, sizeof line);
		bugv_target_add(v, i, -1, NULL);
		tui_doc_add(d,
			    "  + called from%s " TUI_M_DIM "(run %" PRId64 ")",
			    line, r->stack_run[i]);
	} else if (st->n > 1) {
		bugv_target_add(v, i, -1, NULL);
		tui_doc_add(
		    d,
		    "  - call stack of site %c, innermost first " TUI_M_DIM
		    "(run %" PRId64 "; Enter on a frame: its source)",
		    which, r->stack_run[i]);
		for (uint32_t k = 0; k < st->n; k++) {
			const db_frame *f = &st->frame[k];
			char pos[600] = "";
			if (f->file) {
				pos[0] = ' ';
				fit_pos(v, f->file, f->line,
					9 + strlen(f->func) +
					    (f->inlined ? 10 : 0),
					pos + 1, sizeof pos - 1);
			}
			bugv_target_add(v, i, (int)k, f);
			tui_doc_add(d, "    #%-2u %s%s" TUI_M_DIM "%s%s", k,
				    f->func, pos,
				    f->inlined ? " (inlined)" : "",
				    f->file ? "" : "  (no source position)");
		}
		if (st->truncated)
			tui_doc_add(d, TUI_M_DIM "    ... (deeper callers not "
						 "kept)");
	}
	tui_doc_add(d, " ");
}

/* The detections grid: K/N per (profile, density), coloured by K/N. */
static void doc_grid(tui_doc *d, const tui_report *r)
{
	char line[4096];
	int pw = 8, fit;
	size_t per;

	tui_doc_add(d, TUI_M_HEADER
		    "Detections" TUI_M_NORMAL
		    " (runs that detected it / runs, per profile and density)");
	for (size_t k = 0; k < r->nrows; k++) {
		const tui_cell *c = &r->cells[r->row_of[k]];
		int n = (int)strlen(c->profile) +
			(r->multi_node ? (int)strlen(c->node) + 1 : 0);
		pw = n > pw ? n : pw;
	}
	/* Blocks of as many densities as fit in 80 columns, the narrowest
	 * terminal supported: a density column is 10 wide. */
	fit = (78 - pw) / 10;
	per = fit > 1 ? (size_t)fit : 1;
	for (size_t col = 0; col < r->ndens; col += per) {
		size_t end = col + per < r->ndens ? col + per : r->ndens;
		int n = snprintf(line, sizeof line, TUI_M_DIM "  %-*s", pw,
				 "profile");
		for (size_t k = col; k < end; k++) {
			char dl[16];
			tui_fmt_density(r->dens[k], dl, sizeof dl);
			n += snprintf(line + n, sizeof line - (size_t)n, " %9s",
				      dl);
		}
		tui_doc_add(d, "%s", line);
		for (size_t row = 0; row < r->nrows; row++) {
			const tui_cell *c0 = &r->cells[r->row_of[row]];
			char name[160];
			if (r->multi_node)
				snprintf(name, sizeof name, "%s/%s", c0->node,
					 c0->profile);
			else
				snprintf(name, sizeof name, "%s", c0->profile);
			n = snprintf(line, sizeof line, "  %-*s", pw, name);
			for (size_t k = col; k < end && n < 3900; k++) {
				const tui_cell *c = tui_report_cell(r, row, k);
				char kn[48] = "-";
				if (c)
					snprintf(kn, sizeof kn,
						 "%" PRIu64 "/%" PRIu64, c->k,
						 c->n);
				n += snprintf(line + n, sizeof line - (size_t)n,
					      "\x01%c %9s" TUI_M_NORMAL,
					      c ? tui_heat_ch(c->k, c->n)
						: 'A' + TUI_DIM,
					      kn);
			}
			tui_doc_add(d, "%s", line);
		}
		tui_doc_add(d, " ");
	}
}

static bool bugv_load(tui_screen *scr, tui_app *app)
{
	bug_view *s = scr->st;
	tui_report *r = malloc(sizeof *r);
	tui_doc *d = &s->doc;
	size_t top = d->top;
	char kinds[8], seen[32], head[200], path[4200];
	wasm_err e;

	if (!r) {
		tui_msg(app, true, "out of memory");
		return false;
	}
	wasm_err_clear(&e);
	if (tui_report_load(tui_app_db(app), s->id, r, &e)) {
		tui_fail_msg(app, &e);
		tui_report_free(r);
		free(r);
		return false;
	}
	tui_doc_clear(d);
	s->cols = COLS;
	s->utf8 = tui_app_utf8(app);
	tui_fmt_kinds(&r->bug, kinds, sizeof kinds);
	tui_fmt_time(r->bug.first_seen, seen, sizeof seen);
	snprintf(head, sizeof head, " Bug %" PRId64 "   %s race in %s (",
		 r->bug.id, kinds, tui_or_unknown(r->prog.name));
	tui_path_fit(tui_or_unknown(r->prog.path),
		     s->cols - (int)strlen(head) - 2 > 12
			 ? s->cols - (int)strlen(head) - 2
			 : 12,
		     s->utf8, path, sizeof path);
	tui_doc_add(d,
		    TUI_M_TITLE " Bug %" PRId64 " " TUI_M_NORMAL
				"  %s race in %s (%s)",
		    r->bug.id, kinds, tui_or_unknown(r->prog.name), path);
	tui_doc_add(
	    d,
	    "  detected by %" PRIu64 " run%s, first seen %s (run "
	    "%" PRIu64 "); triage " TUI_M_KEY "%s" TUI_M_NORMAL "%s%s%s\n ",
	    r->bug.runs, r->bug.runs == 1 ? "" : "s", seen, r->bug.first_run,
	    db_state_name(r->bug.state), r->note ? " (" : "",
	    r->note ? r->note : "", r->note ? ")" : "");
	s->ntarget = 0;
	snprintf(s->progpath, sizeof s->progpath, "%s",
		 r->prog.path ? r->prog.path : "");
	doc_site(s, r, 0);
	doc_site(s, r, 1);
	doc_location(&s->doc, r);
	if (r->evidence >= 0) {
		const tui_example *x = &r->ex[r->evidence];
		char change[128];
		if (x->value.side < 2 &&
		    tui_value_change(&x->value, change, sizeof change))
			tui_doc_add(d,
				    TUI_M_HEADER "Value changed" TUI_M_NORMAL
						 " while thread %u waited "
						 "(site %c): %s " TUI_M_DIM
						 "(run %" PRId64 ")\n ",
				    x->tid[x->value.side],
				    (char)('A' + x->value.side), change,
				    x->run);
	}
	if (r->ncells) {
		tui_factors *fac = tui_app_factors(app);
		det_factor f;
		det_class c;
		if (tui_factors_get(fac, r->bug.id, r->bug.runs, &f, &c)) {
			tui_doc_add(d,
				    TUI_M_HEADER "Heisen factor" TUI_M_NORMAL
						 " %.2f (90 %%: %.2f-%.2f, "
						 "naive %.2f), class %s%s",
				    f.map, f.lo, f.hi, f.naive,
				    det_class_name(c),
				    f.few ? ": few detections" : "");
		} else {
			int64_t id = r->bug.id,
				same = r->bug.site[0].id == r->bug.site[1].id;
			uint64_t runs = r->bug.runs;
			tui_factors_want(fac, tui_app_db(app), &id, &runs,
					 &same, 1);
			tui_doc_add(d, TUI_M_HEADER "Heisen factor" TUI_M_DIM
						    " being computed");
		}
		doc_grid(d, r);
	}
	s->sched_run = r->sched_run;
	if (r->sched_run) {
		tui_doc_add(d,
			    TUI_M_HEADER
			    "Schedule" TUI_M_NORMAL " of run %" PRId64
			    " (campaign %" PRId64 "): %s, %" PRIu64
			    " points, %u "
			    "switches, digest %016" PRIx64 " " TUI_M_DIM
			    "(e replays it exactly)",
			    r->sched_run, r->sched_campaign,
			    tui_or_unknown(r->sched_strategy), r->sched.points,
			    r->sched.switches, r->sched.digest);
		tui_doc_add(d, " ");
	}
	s->rerun = r->nex ? r->ex[0].run : 0;
	if (r->nex) {
		tui_doc_add(d, TUI_M_HEADER "Example runs" TUI_M_NORMAL
					    " (x reruns the first)");
		tui_doc_add(d,
			    TUI_M_DIM "  %-7s %-8s %-10s %7s  %-16s  "
				      "%-9s %s",
			    "run", "campaign", "profile", "density", "seed",
			    "threads", "addresses");
		for (int i = 0; i < r->nex; i++) {
			const tui_example *x = &r->ex[i];
			char dens[16], th[32] = "?", ad[48] = "?";
			tui_fmt_density(x->density_bp, dens, sizeof dens);
			if (x->found) {
				snprintf(th, sizeof th, "%u %u", x->tid[0],
					 x->tid[1]);
				snprintf(ad, sizeof ad, "0x%x 0x%x", x->addr[0],
					 x->addr[1]);
			}
			tui_doc_add(d,
				    "  %-7" PRId64 " %-8" PRId64
				    " %-10s %7s  %016" PRIx64 "  %-9s %s",
				    x->run, x->campaign, x->profile, dens,
				    x->seed, th, ad);
		}
	}
	d->top = top;
	if (s->cur >= s->ntarget)
		s->cur = s->ntarget - 1;
	d->marked = s->cur >= 0;
	d->mark = d->marked ? s->target[s->cur].line : 0;
	tui_report_free(r);
	free(r);
	return true;
}

/* ---- a source file --------------------------------------------------------
 */

typedef struct src_view {
	tui_doc doc;
	char file[512], progpath[4096];
	uint32_t line;
} src_view;

static const tui_keydoc srcv_keys[] = {
    {"Up/Down PgUp/PgDn g G", "scroll"},
    {"Left/Right", "scroll sideways (Left at the edge: back)"},
    {NULL, NULL},
};

/* The whole file, numbered, the frame's line marked; control bytes as
 * '?' like the context lines of a bug. */
static bool srcv_load(tui_screen *scr, tui_app *app)
{
	src_view *v = scr->st;
	char path[4096], buf[1024];
	uint32_t no = 0;
	bool at_start = true;
	FILE *f = tui_find_source(v->file, v->progpath, path, sizeof path);

	if (!f) {
		tui_msg(app, true,
			"%s: not found (tried as recorded, here, and beside "
			"the program)",
			v->file);
		return false;
	}
	tui_doc_clear(&v->doc);
	while (fgets(buf, sizeof buf, f)) {
		size_t len = strlen(buf);
		bool eol = len && buf[len - 1] == '\n';
		for (size_t i = 0; i < len; i++)
			if ((unsigned char)buf[i] < 0x20 && buf[i] != '\t')
				buf[i] = buf[i] == '\n' || buf[i] == '\r' ? '\0'
									  : '?';
		/* A line longer than buf is shown cut: the rest is skipped. */
		no += at_start;
		if (at_start &&
		    !tui_doc_add(&v->doc, "%s%6u | %s",
				 no == v->line ? "" : TUI_M_DIM, no, buf)) {
			fclose(f);
			tui_msg(app, true, "out of memory");
			return false;
		}
		at_start = eol;
	}
	fclose(f);
	v->doc.marked = v->line > 0 && v->line <= v->doc.n;
	v->doc.mark = v->doc.marked ? v->line - 1 : 0;
	return true;
}

static void srcv_draw(tui_screen *scr, tui_app *app, int y, int rows, int cols)
{
	src_view *v = scr->st;

	/* Open with the line a third down the screen, not at the bottom. */
	if (v->doc.marked && !v->doc.top && v->doc.mark >= (size_t)rows / 3)
		v->doc.top = v->doc.mark - (size_t)rows / 3;
	tui_doc_draw(&v->doc, y, rows, cols);
}

static bool srcv_key(tui_screen *scr, tui_app *app, int ch)
{
	src_view *v = scr->st;

	/* Scrolling moves away from the frame's line: no mark pulls the
	 * view back. */
	if (tui_doc_key(&v->doc, app, ch)) {
		v->doc.marked = false;
		return true;
	}
	return false;
}

static void srcv_free(tui_screen *scr)
{
	src_view *v = scr->st;
	tui_doc_clear(&v->doc);
	free(v);
}

static const tui_screen_ops srcv_ops = {
    "Source", srcv_keys, srcv_load, srcv_draw, srcv_key, NULL, srcv_free,
};

static bool open_source(tui_app *app, const char *file, uint32_t line,
			const char *progpath)
{
	src_view *v = calloc(1, sizeof *v);
	char title[600];

	if (!v)
		return false;
	snprintf(v->file, sizeof v->file, "%s", file);
	snprintf(v->progpath, sizeof v->progpath, "%s", progpath);
	v->line = line;
	snprintf(title, sizeof title, "%s:%u", file, line);
	return tui_push(app, &srcv_ops, v, title, false);
}

static void bugv_draw(tui_screen *scr, tui_app *app, int y, int rows, int cols)
{
	bug_view *s = scr->st;
	/* Paths were fitted to the width of the load. */
	if (s->cols != COLS)
		bugv_load(scr, app);
	tui_doc_draw(&s->doc, y, rows, cols);
}

static void write_repro(void *ctx, tui_app *app, const char *text)
{
	bug_view *s = ctx;

	if (text && *text)
		tui_open_replay(app, s->id, text, NULL, 0);
}

static bool bugv_key(tui_screen *scr, tui_app *app, int ch)
{
	bug_view *s = scr->st;

	if (tui_doc_key(&s->doc, app, ch))
		return true;
	if (ch == 'x') {
		if (s->rerun)
			tui_open_rerun(app, s->rerun);
		return true;
	}
	if (ch == 'o') {
		tui_open_runs(app, -s->id);
		return true;
	}
	if (ch == 'p') {
		tui_open_replay_form(app, s->id);
		return true;
	}
	if (ch == 'e' || ch == 'd') {
		char *opts[] = {"--mode", "schedule"};
		if (!s->sched_run)
			tui_msg(app, true,
				"no serial run found bug %" PRId64 ": explore "
				"its program (e on the Campaigns screen)",
				s->id);
		else if (ch == 'e')
			tui_open_replay(app, s->id, NULL, opts, 2);
		else
			tui_open_timeline_of(app, s->id, s->sched_run);
		return true;
	}
	if (ch == 't') {
		tui_triage_next(app, s->id);
		bugv_load(scr, app);
		return true;
	}
	if ((ch == '\t' || ch == KEY_BTAB) && s->ntarget) {
		s->cur = ch == '\t' ? (s->cur + 1) % s->ntarget
				    : (s->cur <= 0 ? s->ntarget : s->cur) - 1;
		s->doc.marked = true;
		s->doc.mark = s->target[s->cur].line;
		tui_dirty(app);
		return true;
	}
	if ((ch == '\n' || ch == '\r' || ch == KEY_ENTER) && s->cur >= 0) {
		const bugv_target *t = &s->target[s->cur];
		if (t->frame < 0) {
			s->unfold[t->site] = !s->unfold[t->site];
			bugv_load(scr, app);
			tui_dirty(app);
		} else if (!t->file[0]) {
			tui_msg(app, true,
				"frame #%d has no source position (no DWARF "
				"for its code)",
				t->frame);
		} else {
			open_source(app, t->file, t->lineno, s->progpath);
		}
		return true;
	}
	if (ch == 'w') {
		char initial[48];
		tui_ask_spec a = {"Write repro file: ",
				  initial,
				  "replay --save ",
				  true,
				  write_repro,
				  NULL,
				  s,
				  false};
		snprintf(initial, sizeof initial, "bug-%" PRId64 ".repro",
			 s->id);
		tui_ask(app, &a);
		return true;
	}
	return false;
}

static void bugv_free(tui_screen *scr)
{
	bug_view *s = scr->st;
	tui_doc_clear(&s->doc);
	free(s);
}

/* Reload when the background computation has new factors. */
static void bugv_tick(tui_screen *scr, tui_app *app)
{
	bug_view *s = scr->st;
	unsigned gen = tui_factors_poll(tui_app_factors(app));

	if (gen != s->gen) {
		s->gen = gen;
		scr->ops->load(scr, app);
		tui_dirty(app);
	}
}

static const tui_screen_ops bugv_ops = {
    "Bug", bugv_keys, bugv_load, bugv_draw, bugv_key, bugv_tick, bugv_free,
};

bool tui_open_bug(tui_app *app, int64_t bug_id)
{
	bug_view *s = calloc(1, sizeof *s);
	char title[64];

	if (!s)
		return false;
	s->id = bug_id;
	s->cur = -1;
	snprintf(title, sizeof title, "Bug %" PRId64, bug_id);
	return tui_push(app, &bugv_ops, s, title, true);
}
