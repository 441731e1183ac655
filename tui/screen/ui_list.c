/*
 * ui_list.c - the table screens' common part: a table filled from one workspace
 * list call (campaigns, bugs, runs, nodes), and the small helpers every
 * screen shares.
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

void tui_short_site(const struct db_bug_site *s, char *buf, size_t cap)
{
	struct db_bug_site t = *s;
	const char *slash = s->file ? strrchr(s->file, '/') : NULL;

	if (slash)
		t.file = (char *)slash + 1;
	tui_fmt_site(&t, buf, cap);
}

void tui_fail_msg(tui_app *app, const wasm_err *e)
{
	tui_msg(app, true, "%s", e->msg);
}

bool tui_open_key(int ch)
{
	return ch == '\n' || ch == '\r' || ch == KEY_ENTER || ch == 'l' ||
	       ch == KEY_RIGHT;
}

bool tui_listview_add(tui_listview *l, int64_t id, tui_role role,
		      const char *const *cells)
{
	if (!tui_table_add(&l->t, id, role, cells))
		l->nomem = true;
	return !l->nomem;
}

bool tui_listview_load(tui_screen *scr, tui_app *app)
{
	tui_listview *l = scr->st;
	int64_t keep = tui_table_selected(&l->t);
	wasm_err e;

	tui_table_clear(&l->t);
	l->nomem = false;
	wasm_err_clear(&e);
	if (l->fill(l, tui_app_db(app), &e)) {
		tui_fail_msg(app, &e);
		return false;
	}
	if (l->nomem)
		tui_msg(app, true, "out of memory: the list is incomplete");
	tui_table_done(&l->t, keep);
	return true;
}

void tui_listview_draw(tui_screen *scr, tui_app *app, int y, int rows, int cols)
{
	tui_listview *l = scr->st;
	tui_table_draw(&l->t, y, rows, cols);
}

bool tui_listview_key(tui_screen *scr, tui_app *app, int ch)
{
	tui_listview *l = scr->st;
	int64_t id = tui_table_selected(&l->t);

	if (tui_table_key(&l->t, app, ch))
		return true;
	if (tui_open_key(ch) && id > 0) {
		l->open(app, id);
		return true;
	}
	return false;
}

void tui_listview_free(tui_screen *scr)
{
	tui_listview *l = scr->st;
	tui_table_free(&l->t);
	if (l->extra_free)
		l->extra_free(l);
	free(l);
}
