/*
 * ui_widgets.c - what the TUI's screens are made of: clipped wide-char
 * text, the sortable and filterable table, the scrolling document.
 */
#include "tui/screen/ui.h"

#include <ctype.h>
#include <curses.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

int tui_put(int y, int x, const char *s, int width, int attr)
{
	mbstate_t ms;
	int used = 0;

	memset(&ms, 0, sizeof ms);
	attrset(attr);
	move(y, x);
	while (*s && used < width) {
		wchar_t wc;
		size_t k = mbrtowc(&wc, s, MB_CUR_MAX, &ms);
		int w;
		if (k == (size_t)-1 || k == (size_t)-2 || k == 0) {
			memset(&ms, 0, sizeof ms);
			wc = L'?';
			k = 1;
		}
		if (wc == L'\t') {
			/* Tab stops every 8 screen columns, as source files
			 * expect. */
			int stop = 8 - (x + used) % 8;
			for (; stop > 0 && used < width; stop--, used++)
				addch(' ');
			s += k;
			continue;
		}
		w = wcwidth(wc);
		if (w < 0) {
			wc = L'?';
			w = 1;
		}
		if (used + w > width)
			break;
		addnwstr(&wc, 1);
		used += w;
		s += k;
	}
	attrset(A_NORMAL);
	return used;
}

int tui_cols(const char *s)
{
	mbstate_t ms;
	int used = 0;

	memset(&ms, 0, sizeof ms);
	while (*s) {
		wchar_t wc;
		size_t k = mbrtowc(&wc, s, MB_CUR_MAX, &ms);
		int w;
		if (k == (size_t)-1 || k == (size_t)-2 || k == 0) {
			memset(&ms, 0, sizeof ms);
			k = 1;
			w = 1;
		} else {
			w = wc == L'\t' ? 1 : wcwidth(wc);
		}
		used += w < 0 ? 1 : w;
		s += k;
	}
	return used;
}

void tui_path_fit(const char *path, int width, bool utf8, char *buf, size_t cap)
{
	const char *ell = utf8 ? "\u2026" : "...";
	int ellw = utf8 ? 1 : 3;
	const char *tail = NULL;

	if (tui_cols(path) <= width) {
		snprintf(buf, cap, "%s", path);
		return;
	}
	/* The longest tail that starts at a '/' and fits beside the
	 * ellipsis: whole directory names, the file name and what follows
	 * it (":LINE") last to go. */
	for (const char *p = path; (p = strchr(p, '/')); p++)
		if (tui_cols(p) + ellw <= width) {
			tail = p;
			break;
		}
	/* No '/' tail fits: the last characters that do. */
	for (const char *p = path; !tail && *p;) {
		int k = mblen(p, MB_CUR_MAX);
		if (tui_cols(p) + ellw <= width)
			tail = p;
		p += k > 0 ? k : 1;
	}
	if (width < ellw)
		snprintf(buf, cap, "%s", "");
	else
		snprintf(buf, cap, "%s%s", ell, tail ? tail : "");
}

/* ---- table --------------------------------------------------------------- */

void tui_table_init(tui_table *t, const tui_col *cols, int ncols,
		    const char *empty)
{
	memset(t, 0, sizeof *t);
	t->cols = cols;
	t->ncols = ncols;
	t->sort = -1;
	t->empty = empty;
}

void tui_table_clear(tui_table *t)
{
	for (size_t i = 0; i < t->nrows; i++) {
		for (int c = 0; c < t->ncols; c++)
			free(t->rows[i].cell[c]);
		free(t->rows[i].cell);
	}
	t->nrows = 0;
	t->nvis = 0;
}

void tui_table_free(tui_table *t)
{
	tui_table_clear(t);
	free(t->rows);
	free(t->vis);
	t->rows = NULL;
	t->vis = NULL;
	t->cap = 0;
}

bool tui_table_add(tui_table *t, int64_t id, tui_role role,
		   const char *const *cells)
{
	tui_row *r;

	if (t->nrows == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		tui_row *p = realloc(t->rows, cap * sizeof *p);
		size_t *v = realloc(t->vis, cap * sizeof *v);
		if (p)
			t->rows = p;
		if (v)
			t->vis = v;
		if (!p || !v)
			return false;
		t->cap = cap;
	}
	r = &t->rows[t->nrows];
	r->id = id;
	r->role = role;
	if (!(r->cell = calloc((size_t)t->ncols, sizeof *r->cell)))
		return false;
	for (int c = 0; c < t->ncols; c++)
		if (!(r->cell[c] = strdup(cells[c] ? cells[c] : ""))) {
			while (c--)
				free(r->cell[c]);
			free(r->cell);
			return false;
		}
	t->nrows++;
	return true;
}

static bool matches(const tui_table *t, const tui_row *r)
{
	if (!t->filter[0])
		return true;
	for (int c = 0; c < t->ncols; c++)
		if (strcasestr(r->cell[c], t->filter))
			return true;
	return false;
}

static int cmp_rows(const void *x, const void *y, void *ctx)
{
	const tui_table *t = ctx;
	size_t a = *(const size_t *)x, b = *(const size_t *)y;
	const char *ca = t->rows[a].cell[t->sort],
		   *cb = t->rows[b].cell[t->sort];
	int r;

	if (t->cols[t->sort].num) {
		double da = strtod(ca, NULL), dv = strtod(cb, NULL);
		r = da < dv ? -1 : da > dv;
	} else {
		r = strcmp(ca, cb);
	}
	if (!r)
		r = a < b ? -1 : a > b;
	return t->desc ? -r : r;
}

void tui_table_done(tui_table *t, int64_t keep)
{
	t->nvis = 0;
	for (size_t i = 0; i < t->nrows; i++)
		if (matches(t, &t->rows[i]))
			t->vis[t->nvis++] = i;
	if (t->sort >= 0 && t->nvis > 1)
		qsort_r(t->vis, t->nvis, sizeof *t->vis, cmp_rows, t);
	for (size_t i = 0; keep >= 0 && i < t->nvis; i++)
		if (t->rows[t->vis[i]].id == keep) {
			t->sel = i;
			return;
		}
	if (t->sel >= t->nvis)
		t->sel = t->nvis ? t->nvis - 1 : 0;
}

int64_t tui_table_selected(const tui_table *t)
{
	return t->nvis ? t->rows[t->vis[t->sel]].id : -1;
}

/* Column widths for cols screen columns: each its minimum, the spare to
 * the flexible ones; columns that do not fit are dropped from the right
 * (width 0). */
static void layout(const tui_table *t, int cols, int *w)
{
	int used = 0, nflex = 0, spare;

	for (int c = 0; c < t->ncols; c++) {
		int need = t->cols[c].width + (c ? 1 : 0);
		if (used + need > cols) {
			w[c] = 0;
			continue;
		}
		w[c] = t->cols[c].width;
		used += need;
		nflex += t->cols[c].flex;
	}
	spare = cols - used;
	for (int c = 0; c < t->ncols && nflex; c++)
		if (w[c] && t->cols[c].flex) {
			int add = spare / nflex--;
			w[c] += add;
			spare -= add;
		}
}

static void cell_at(int y, int x, const char *s, int w, bool num, int attr)
{
	if (num) {
		int len = (int)strlen(s);
		int pad = w > len ? w - len : 0;
		tui_put(y, x + pad, s, w - pad, attr);
	} else {
		tui_put(y, x, s, w, attr);
	}
}

void tui_table_draw(tui_table *t, int y, int rows, int cols)
{
	int w[32], x = 0;

	if (rows < 2)
		return;
	layout(t, cols, w);
	attrset(tui_attr(TUI_HEADER));
	mvhline(y, 0, ' ', cols);
	for (int c = 0; c < t->ncols && c < 32; c++) {
		char title[64];
		if (!w[c])
			continue;
		snprintf(title, sizeof title, "%s%s", t->cols[c].title,
			 c == t->sort ? (t->desc ? "v" : "^") : "");
		cell_at(y, x, title, w[c], t->cols[c].num,
			tui_attr(TUI_HEADER));
		x += w[c] + 1;
	}
	rows--;
	y++;
	if (!t->nvis) {
		char msg[200];
		if (t->filter[0])
			snprintf(msg, sizeof msg,
				 "no row matches '%s' (/ to change the filter)",
				 t->filter);
		else
			snprintf(msg, sizeof msg, "%s", t->empty);
		tui_put(y + 1, 2, msg, cols - 2, tui_attr(TUI_DIM));
		return;
	}
	if (t->sel < t->top)
		t->top = t->sel;
	if (t->sel >= t->top + (size_t)rows)
		t->top = t->sel - (size_t)rows + 1;
	for (int i = 0; i < rows && t->top + (size_t)i < t->nvis; i++) {
		size_t k = t->top + (size_t)i;
		const tui_row *r = &t->rows[t->vis[k]];
		int attr =
		    k == t->sel ? tui_attr(TUI_SELECTED) : tui_attr(r->role);
		x = 0;
		attrset(attr);
		mvhline(y + i, 0, ' ', cols);
		for (int c = 0; c < t->ncols && c < 32; c++) {
			if (!w[c])
				continue;
			cell_at(y + i, x, r->cell[c], w[c], t->cols[c].num,
				attr);
			x += w[c] + 1;
		}
	}
	attrset(A_NORMAL);
}

static void on_filter(void *ctx, tui_app *app, const char *text)
{
	tui_table *t = ctx;
	int64_t keep = tui_table_selected(t);

	snprintf(t->filter, sizeof t->filter, "%s", text ? text : "");
	tui_table_done(t, keep);
	tui_dirty(app);
}

static void on_filter_done(void *ctx, tui_app *app, const char *text)
{
	tui_table *t = ctx;

	/* Esc leaves the filter as it was typed so far; an empty Enter
	 * clears it. */
	if (text)
		on_filter(ctx, app, text);
	if (t->filter[0])
		tui_msg(app, false, "%zu of %zu rows match '%s'", t->nvis,
			t->nrows, t->filter);
}

bool tui_table_key(tui_table *t, tui_app *app, int ch)
{
	size_t page =
	    (size_t)(tui_app_rows(app) > 3 ? tui_app_rows(app) - 2 : 1);
	int64_t keep = tui_table_selected(t);

	switch (ch) {
	case KEY_UP:
	case 'k':
		if (t->sel)
			t->sel--;
		break;
	case KEY_DOWN:
	case 'j':
		if (t->sel + 1 < t->nvis)
			t->sel++;
		break;
	case KEY_PPAGE:
	case 2: /* Ctrl-B */ t->sel = t->sel > page ? t->sel - page : 0; break;
	case KEY_NPAGE:
	case 6: /* Ctrl-F */
	case ' ':
		t->sel = t->sel + page < t->nvis ? t->sel + page
			 : t->nvis		 ? t->nvis - 1
						 : 0;
		break;
	case KEY_HOME:
	case 'g': t->sel = 0; break;
	case KEY_END:
	case 'G': t->sel = t->nvis ? t->nvis - 1 : 0; break;
	case '>':
		t->sort = t->sort + 1 < t->ncols ? t->sort + 1 : -1;
		tui_table_done(t, keep);
		break;
	case '<':
		t->sort = t->sort >= 0 ? t->sort - 1 : t->ncols - 1;
		tui_table_done(t, keep);
		break;
	case 'I':
		t->desc = !t->desc;
		tui_table_done(t, keep);
		break;
	case '/': {
		tui_ask_spec a = {"/",	 t->filter,	 NULL,
				  false, on_filter_done, on_filter,
				  t,	 false};
		tui_ask(app, &a);
		return true;
	}
	default: return false;
	}
	tui_dirty(app);
	return true;
}

/* ---- document ------------------------------------------------------------ */

void tui_doc_clear(tui_doc *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->line[i]);
	free(d->line);
	memset(d, 0, sizeof *d);
}

static bool doc_line(tui_doc *d, const char *s, size_t len)
{
	char *l;

	if (d->n == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 64;
		char **p = realloc(d->line, cap * sizeof *p);
		if (!p)
			return false;
		d->line = p;
		d->cap = cap;
	}
	if (!(l = malloc(len + 1)))
		return false;
	memcpy(l, s, len);
	l[len] = '\0';
	d->line[d->n++] = l;
	return true;
}

bool tui_doc_add(tui_doc *d, const char *fmt, ...)
{
	char *text, *p;
	va_list ap;
	bool ok = true;
	int k;

	va_start(ap, fmt);
	k = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (k < 0)
		return false;
	for (p = text; ok;) {
		char *nl = strchr(p, '\n');
		ok = doc_line(d, p, nl ? (size_t)(nl - p) : strlen(p));
		if (!nl)
			break;
		p = nl + 1;
		if (!*p)
			break;
	}
	free(text);
	return ok;
}

/* Draw one line from column d->left: the role markers switch the
 * attribute, and skipped columns count like drawn ones. */
static void doc_draw_line(const tui_doc *d, const char *s, int y, int cols,
			  bool sel)
{
	int attr = tui_attr(sel ? TUI_SELECTED : TUI_NORMAL), x = 0,
	    skip = d->left;
	char seg[1024];

	while (*s && x < cols) {
		size_t n = 0;
		if (*s == '\x01' && s[1] >= 'A' && s[1] < 'A' + TUI_NROLES) {
			if (!sel)
				attr = tui_attr((tui_role)(s[1] - 'A'));
			s += 2;
			continue;
		}
		while (s[n] && s[n] != '\x01' && n < sizeof seg - 1)
			n++;
		memcpy(seg, s, n);
		seg[n] = '\0';
		s += n;
		{
			const char *t = seg;
			/* Horizontal scroll counts bytes of plain text:
			 * documents are mostly ASCII; a wide character cut
			 * in the middle shows as '?'. */
			while (skip > 0 && *t) {
				t++;
				skip--;
			}
			x += tui_put(y, x, t, cols - x, attr);
		}
	}
	/* A selected line is a bar across the screen. */
	if (sel) {
		attrset(attr);
		for (; x < cols; x++)
			mvaddch(y, x, ' ');
	}
}

void tui_doc_draw(tui_doc *d, int y, int rows, int cols)
{
	if (d->marked && rows > 0) {
		if (d->mark < d->top)
			d->top = d->mark;
		else if (d->mark >= d->top + (size_t)rows)
			d->top = d->mark - (size_t)rows + 1;
	}
	if (d->n && d->top >= d->n)
		d->top = d->n - 1;
	for (int i = 0; i < rows && d->top + (size_t)i < d->n; i++)
		doc_draw_line(d, d->line[d->top + (size_t)i], y + i, cols,
			      d->marked && d->mark == d->top + (size_t)i);
}

bool tui_doc_key(tui_doc *d, tui_app *app, int ch)
{
	size_t page =
	    (size_t)(tui_app_rows(app) > 2 ? tui_app_rows(app) - 1 : 1);
	size_t last = d->n > page ? d->n - page : 0;

	switch (ch) {
	case KEY_UP:
	case 'k':
		if (d->top)
			d->top--;
		break;
	case KEY_DOWN:
	case 'j':
		if (d->top < last)
			d->top++;
		break;
	case KEY_PPAGE:
	case 2: d->top = d->top > page ? d->top - page : 0; break;
	case KEY_NPAGE:
	case 6:
	case ' ': d->top = d->top + page < last ? d->top + page : last; break;
	case KEY_HOME:
	case 'g': d->top = 0; break;
	case KEY_END:
	case 'G': d->top = last; break;
	case KEY_RIGHT: d->left += 8; break;
	case KEY_LEFT:
		if (!d->left)
			return false;
		d->left = d->left > 8 ? d->left - 8 : 0;
		break;
	default: return false;
	}
	tui_dirty(app);
	return true;
}
