/*
 * ui_output.c - a child command's output, followed live.
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

/* ---- a child's output ---------------------------------------------------- */

typedef struct output {
	tui_child child;
	tui_doc doc;
	bool follow; /* keep the end in view */
} output;

static const tui_keydoc out_keys[] = {
    {"Up/Down PgUp/PgDn", "scroll (G follows the end again)"},
    {"q Esc", "back; a command still running is stopped"},
    {NULL, NULL},
};

static void out_line(void *ctx, const char *line)
{
	output *o = ctx;
	tui_doc_add(&o->doc, "%s", line);
}

static void out_tick(tui_screen *scr, tui_app *app)
{
	output *o = scr->st;
	bool was = o->child.running;

	if (!tui_child_poll(&o->child, out_line, NULL, o))
		return;
	if (was && !o->child.running)
		tui_doc_add(&o->doc, "%s[exit %d]",
			    o->child.status ? TUI_M_ERROR : TUI_M_GOOD,
			    o->child.status);
	if (o->follow) {
		int rows = tui_app_rows(app);
		o->doc.top =
		    o->doc.n > (size_t)rows ? o->doc.n - (size_t)rows : 0;
	}
	tui_dirty(app);
}

static void out_draw(tui_screen *scr, tui_app *app, int y, int rows, int cols)
{
	output *o = scr->st;
	tui_doc_draw(&o->doc, y, rows, cols);
}

static bool out_key(tui_screen *scr, tui_app *app, int ch)
{
	output *o = scr->st;

	if (!tui_doc_key(&o->doc, app, ch))
		return false;
	o->follow = ch == 'G' || ch == KEY_END;
	return true;
}

static void out_free(tui_screen *scr)
{
	output *o = scr->st;
	tui_child_free(&o->child);
	tui_doc_clear(&o->doc);
	free(o);
}

static const tui_screen_ops out_ops = {
    "Output", out_keys, NULL, out_draw, out_key, out_tick, out_free,
};

bool tui_open_output(tui_app *app, const char *title, char *const argv[])
{
	output *o = calloc(1, sizeof *o);
	char err[256];

	if (!o)
		return false;
	o->follow = true;
	if (!tui_child_start(&o->child, argv, false, err, sizeof err)) {
		tui_msg(app, true, "%s", err);
		free(o);
		return false;
	}
	return tui_push(app, &out_ops, o, title, false);
}

void tui_open_rerun(tui_app *app, int64_t run)
{
	char id[24], title[64];
	char *argv[] = {
	    "heisen", "rerun", id, "--db", (char *)tui_app_dbpath(app), NULL};

	snprintf(id, sizeof id, "%" PRId64, run);
	snprintf(title, sizeof title, "Rerun of run %" PRId64, run);
	tui_open_output(app, title, argv);
}
