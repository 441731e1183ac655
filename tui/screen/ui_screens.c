/*
 * ui_screens.c - the TUI's screens: campaigns (the root, with the live
 * sweep), the new-sweep form, bugs, a bug's detail with its detections
 * grid, a campaign's runs, one run, the remote nodes, and a child
 * command's output. Each is
 * a tui_screen_ops row over the widgets of ui.h; the data comes from db/
 * through the same calls the listing commands use.
 */
#include "tui/race.h"
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

/* "func file:line" with the file's base name: tables are narrow. */
static void short_site(const struct db_bug_site *s, char *buf, size_t cap)
{
	struct db_bug_site t = *s;
	const char *slash = s->file ? strrchr(s->file, '/') : NULL;

	if (slash)
		t.file = (char *)slash + 1;
	tui_fmt_site(&t, buf, cap);
}

static void fail_msg(tui_app *app, const wasm_err *e)
{
	tui_msg(app, true, "%s", e->msg);
}

static bool open_key(int ch)
{
	return ch == '\n' || ch == '\r' || ch == KEY_ENTER || ch == 'l' ||
	       ch == KEY_RIGHT;
}

/* ---- table screens -------------------------------------------------------
 * Campaigns, bugs and runs are a table filled from one db list call: they
 * share their state's head and how they load, draw, free and open. */

typedef struct list {
	tui_table t;
	int64_t arg; /* what the screen lists: a program, a campaign... */
	bool nomem;
	/* Fill t from the database (rows through list_add). */
	wasm_status (*fill)(struct list *l, db *d, wasm_err *e);
	/* Open the row id (Enter). */
	bool (*open)(tui_app *app, int64_t id);
	void (*extra_free)(struct list *l);
} list;

static bool list_add(list *l, int64_t id, tui_role role,
		     const char *const *cells)
{
	if (!tui_table_add(&l->t, id, role, cells))
		l->nomem = true;
	return !l->nomem;
}

static bool list_load(tui_screen *scr, tui_app *app)
{
	list *l = scr->st;
	int64_t keep = tui_table_selected(&l->t);
	wasm_err e;

	tui_table_clear(&l->t);
	l->nomem = false;
	wasm_err_clear(&e);
	if (l->fill(l, tui_app_db(app), &e)) {
		fail_msg(app, &e);
		return false;
	}
	if (l->nomem)
		tui_msg(app, true, "out of memory: the list is incomplete");
	tui_table_done(&l->t, keep);
	return true;
}

static void list_draw(tui_screen *scr, tui_app *app, int y, int rows, int cols)
{
	list *l = scr->st;
	tui_table_draw(&l->t, y, rows, cols);
}

/* The keys every table screen has: moving, sorting, filtering, Enter. */
static bool list_key(tui_screen *scr, tui_app *app, int ch)
{
	list *l = scr->st;
	int64_t id = tui_table_selected(&l->t);

	if (tui_table_key(&l->t, app, ch))
		return true;
	if (open_key(ch) && id > 0) {
		l->open(app, id);
		return true;
	}
	return false;
}

static void list_free(tui_screen *scr)
{
	list *l = scr->st;
	tui_table_free(&l->t);
	if (l->extra_free)
		l->extra_free(l);
	free(l);
}

/* ---- nodes ----------------------------------------------------------------
 * The remote nodes of the workspace (docs/nodes.md). Everything that
 * reaches a node (check, status, fetch, dispatch) runs as a child heisen
 * on an output screen: ssh may take seconds, the screen never waits. */

/* What the screen learns of a node in the background: `node check` and
 * `node status` (the newest campaign there) as children. */
typedef struct node_probe {
	char name[DB_NODE_NAME_MAX + 1];
	tui_child check, status;
	char cout[4096], sout[4096]; /* the first of their output */
	size_t clen, slen;
	char reach[16], camp[128];
} node_probe;

typedef struct nodes_view {
	list l; /* first: the screen's state is a list */
	char **names;
	size_t n, cap;
	int64_t ask_id; /* the node `d` asks a program for */
	char program[4096];
	node_probe *probe;
	size_t nprobe;
	const char *dbpath;
} nodes_view;

static const tui_col node_cols[] = {
    {"NAME", 8, false, false},	      {"HOST", 14, false, false},
    {"REACH", 5, false, false},	      {"CAMPAIGN THERE", 22, false, false},
    {"LAST FETCH", 16, false, false}, {"RUNS", 6, true, false},
    {"URL", 20, false, true},
};

static const tui_keydoc nodes_keys[] = {
    {"Enter c", "check the node: reachable, heisen version, cores"},
    {"s", "the node's campaigns (heisen node status)"},
    {"f", "fetch the node's new runs"},
    {"F", "fetch every node"},
    {"d", "dispatch a sweep of a program to the node"},
    {NULL, NULL},
};

static node_probe *probe_of(nodes_view *v, const char *name)
{
	for (size_t i = 0; i < v->nprobe; i++)
		if (!strcmp(v->probe[i].name, name))
			return &v->probe[i];
	return NULL;
}

static bool node_row_cb(void *ctx, const db_remote *r)
{
	nodes_view *v = ctx;
	char host[2 * DB_NODE_URL_MAX + 2], fetched[32] = "never", runs[24],
					    msg[128];
	const char *cell[7];
	const node_probe *pr = probe_of(v, r->name);
	db_node_url u;

	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 8;
		char **p = realloc(v->names, cap * sizeof *p);
		if (!p)
			return false;
		v->names = p;
		v->cap = cap;
	}
	if (!(v->names[v->n] = strdup(r->name)))
		return false;
	v->n++;
	if (db_node_url_parse(r->url, &u, msg, sizeof msg))
		snprintf(host, sizeof host, "%s%s%s", u.user,
			 *u.user ? "@" : "", u.host);
	else
		snprintf(host, sizeof host, "?");
	if (r->last_fetch > 0)
		tui_fmt_time(r->last_fetch, fetched, sizeof fetched);
	snprintf(runs, sizeof runs, "%" PRIu64, r->runs_fetched);
	cell[0] = r->name;
	cell[1] = host;
	cell[2] = pr ? pr->reach : "...";
	cell[3] = pr ? pr->camp : "...";
	cell[4] = fetched;
	cell[5] = runs;
	cell[6] = r->url;
	return list_add(&v->l, (int64_t)v->n,
			pr && !strcmp(pr->reach, "no") ? TUI_ERROR : TUI_NORMAL,
			cell);
}

/* The value of "key" in JSON text js (the first one): a string's
 * characters or a number's digits, into buf; "" when absent. Enough for
 * heisen's own compact JSON, which is all a probe reads. */
static void json_first(const char *js, const char *key, char *buf, size_t cap)
{
	char pat[64];
	const char *p;
	size_t k = 0;

	buf[0] = 0;
	snprintf(pat, sizeof pat, "\"%s\":", key);
	if (!(p = strstr(js, pat)))
		return;
	p += strlen(pat);
	if (*p == '"')
		for (p++; *p && *p != '"' && k + 1 < cap; p++)
			buf[k++] = (unsigned char)*p < 0x20 ? '?' : *p;
	else
		for (; ((*p >= '0' && *p <= '9') || *p == 't' || *p == 'r' ||
			*p == 'u' || *p == 'e' || *p == 'f' || *p == 'a' ||
			*p == 'l' || *p == 's' || *p == 'n') &&
		       k + 1 < cap;
		     p++)
			buf[k++] = *p;
	buf[k] = 0;
}

static void probe_take(char *out, size_t *len, const char *line)
{
	size_t n = strlen(line);

	if (*len + n + 1 < 4096) {
		memcpy(out + *len, line, n);
		*len += n;
		out[*len] = 0;
	}
}

static void check_line(void *ctx, const char *line)
{
	node_probe *p = ctx;
	probe_take(p->cout, &p->clen, line);
}

static void status_line(void *ctx, const char *line)
{
	node_probe *p = ctx;
	probe_take(p->sout, &p->slen, line);
}

/* Start the probes of every node (once the last ones have ended). */
static void probes_start(nodes_view *v)
{
	node_probe *p;
	char err[256];

	for (size_t i = 0; i < v->nprobe; i++)
		if (v->probe[i].check.running || v->probe[i].status.running)
			return;
	for (size_t i = 0; i < v->nprobe; i++) {
		tui_child_free(&v->probe[i].check);
		tui_child_free(&v->probe[i].status);
	}
	free(v->probe);
	v->nprobe = 0;
	if (!(v->probe = calloc(v->n ? v->n : 1, sizeof *v->probe)))
		return;
	for (size_t i = 0; i < v->n; i++) {
		p = &v->probe[v->nprobe++];
		snprintf(p->name, sizeof p->name, "%s", v->names[i]);
		snprintf(p->reach, sizeof p->reach, "...");
		snprintf(p->camp, sizeof p->camp, "...");
		char *check[] = {"heisen", "node", "check",	      p->name,
				 "--json", "--db", (char *)v->dbpath, NULL};
		char *status[] = {"heisen", "node", "status",	       p->name,
				  "--json", "--db", (char *)v->dbpath, NULL};
		p->check.out = p->check.prog = p->status.out = p->status.prog =
		    -1;
		if (!tui_child_start(&p->check, check, false, err, sizeof err))
			snprintf(p->reach, sizeof p->reach, "?");
		if (!tui_child_start(&p->status, status, false, err,
				     sizeof err))
			snprintf(p->camp, sizeof p->camp, "?");
	}
}

/* What a probe's answers say, into its cells. */
static void probe_read(node_probe *p)
{
	char st[32], id[24], done[24], planned[24];
	const char *c;

	if (!p->check.running && p->check.pid)
		snprintf(p->reach, sizeof p->reach, "%s",
			 strstr(p->cout, "\"reachable\":true") ? "yes" : "no");
	if (p->status.running || !p->status.pid)
		return;
	if (p->status.status || !(c = strstr(p->sout, "\"campaigns\":["))) {
		snprintf(p->camp, sizeof p->camp, "?");
		return;
	}
	json_first(c, "id", id, sizeof id);
	json_first(c, "status", st, sizeof st);
	json_first(c, "runs_done", done, sizeof done);
	json_first(c, "runs_planned", planned, sizeof planned);
	if (!*id)
		snprintf(p->camp, sizeof p->camp, "none");
	else
		snprintf(p->camp, sizeof p->camp, "#%s %s %s/%s", id, st, done,
			 strcmp(planned, "null") ? planned : "-");
}

static void nodes_tick(tui_screen *scr, tui_app *app)
{
	nodes_view *v = scr->st;
	bool changed = false;

	for (size_t i = 0; i < v->nprobe; i++) {
		node_probe *p = &v->probe[i];
		bool was = p->check.running || p->status.running;
		changed |= tui_child_poll(&p->check, check_line, NULL, p);
		changed |= tui_child_poll(&p->status, status_line, NULL, p);
		if (was && !(p->check.running && p->status.running))
			probe_read(p);
	}
	if (changed && list_load(scr, app))
		tui_dirty(app);
}

static wasm_status nodes_fill(list *l, db *d, wasm_err *e)
{
	nodes_view *v = (nodes_view *)l;

	for (size_t i = 0; i < v->n; i++)
		free(v->names[i]);
	v->n = 0;
	return db_remote_list(d, node_row_cb, v, e);
}

/* The name of the selected node, or NULL. */
static const char *node_sel(nodes_view *v)
{
	int64_t id = tui_table_selected(&v->l.t);

	return id > 0 && (size_t)id <= v->n ? v->names[id - 1] : NULL;
}

/* `heisen WORDS... --db WORKSPACE` on an output screen. */
static void node_output(tui_app *app, const char *title, const char *w0,
			const char *w1, const char *w2, const char *w3)
{
	char *argv[] = {"heisen",   (char *)w0, (char *)w1, (char *)w2,
			(char *)w3, NULL,	NULL,	    NULL};
	int n = 1;

	while (argv[n])
		n++;
	argv[n++] = "--db";
	argv[n++] = (char *)tui_app_dbpath(app);
	tui_open_output(app, title, argv);
}

static void dispatch_to(void *ctx, tui_app *app, const char *text)
{
	nodes_view *v = ctx;
	char title[160];
	const char *name;

	if (!text || !*text || v->ask_id < 1 || (size_t)v->ask_id > v->n)
		return;
	name = v->names[v->ask_id - 1];
	snprintf(title, sizeof title, "Dispatch to %s", name);
	node_output(app, title, "dispatch", name, text, NULL);
}

static bool first_program(void *ctx, const db_campaign *c)
{
	*(int64_t *)ctx = c->program_id;
	return false;
}

/* The path of the program of the newest campaign, what `d` offers, into
 * buf (empty when there is none). */
static void newest_program(tui_app *app, char *buf, size_t cap)
{
	int64_t id = 0;
	db_program p = {0};
	wasm_err e;

	buf[0] = 0;
	wasm_err_clear(&e);
	if (!db_campaign_list(tui_app_db(app), first_program, &id, &e) && id &&
	    !db_program_get(tui_app_db(app), id, &p, &e) && p.path)
		snprintf(buf, cap, "%s", p.path);
	db_program_clear(&p);
}

static bool nodes_key(tui_screen *scr, tui_app *app, int ch)
{
	nodes_view *v = scr->st;
	const char *name = node_sel(v);
	char title[160];

	if (open_key(ch))
		ch = 'c';
	else if (list_key(scr, app, ch))
		return true;
	if (ch == 'F') {
		node_output(app, "Fetch of every node", "fetch", "--all", NULL,
			    NULL);
		return true;
	}
	if (!name)
		return false;
	switch (ch) {
	case 'c':
		snprintf(title, sizeof title, "Check of %s", name);
		node_output(app, title, "node", "check", name, NULL);
		return true;
	case 's':
		snprintf(title, sizeof title, "Campaigns on %s", name);
		node_output(app, title, "node", "status", name, NULL);
		return true;
	case 'f':
		snprintf(title, sizeof title, "Fetch of %s", name);
		node_output(app, title, "fetch", name, NULL, NULL);
		return true;
	case 'd': {
		tui_ask_spec a = {"Dispatch a sweep of: ",
				  v->program,
				  "",
				  true,
				  dispatch_to,
				  NULL,
				  v,
				  false};
		newest_program(app, v->program, sizeof v->program);
		v->ask_id = tui_table_selected(&v->l.t);
		tui_ask(app, &a);
		return true;
	}
	}
	return false;
}

static void nodes_free(list *l)
{
	nodes_view *v = (nodes_view *)l;

	for (size_t i = 0; i < v->nprobe; i++) {
		tui_child_free(&v->probe[i].check);
		tui_child_free(&v->probe[i].status);
	}
	free(v->probe);
	for (size_t i = 0; i < v->n; i++)
		free(v->names[i]);
	free(v->names);
}

/* The first load starts the probes; `r` (a reload) starts them again
 * when the last ones have ended. Rows of nodes not asked yet say "...". */
static bool nodes_load(tui_screen *scr, tui_app *app)
{
	if (!list_load(scr, app))
		return false;
	probes_start(scr->st);
	return true;
}

static const tui_screen_ops nodes_ops = {
    "Nodes",   nodes_keys, nodes_load, list_draw,
    nodes_key, nodes_tick, list_free,
};

bool tui_open_nodes(tui_app *app)
{
	nodes_view *v = calloc(1, sizeof *v);

	if (!v)
		return false;
	v->l.fill = nodes_fill;
	v->l.extra_free = nodes_free;
	v->dbpath = tui_app_dbpath(app);
	tui_table_init(&v->l.t, node_cols,
		       (int)(sizeof node_cols / sizeof *node_cols),
		       "no nodes: add one with ':node add NAME "
		       "ssh://[user@]host[:port]/path/heisen.db'");
	return tui_push(app, &nodes_ops, v, "Nodes", false);
}

/* ---- campaigns ----------------------------------------------------------- */

typedef struct camp_row {
	int64_t id, program_id;
	char status[16];
	char profile[64]; /* its first: the one-profile strategies' */
} camp_row;

typedef struct campaigns {
	list l; /* first: the screen's state is a list */
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
	return list_add(&s->l, c->id, role, cell);
}

static wasm_status camp_fill(list *l, db *d, wasm_err *e)
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

/* `heisen check` of a campaign's program with its arguments, one run,
 * into an output screen; the check is a campaign of its own. */
static void open_check(tui_app *app, const camp_row *r)
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
	argv[n++] = "check";
	argv[n++] = p.path;
	argv[n++] = "--db";
	argv[n++] = (char *)tui_app_dbpath(app);
	argv[n++] = "--";
	for (uint32_t i = 0, at = 0; i < c.nargs; i++) {
		argv[n++] = c.args + at;
		at += (uint32_t)strlen(c.args + at) + 1;
	}
	snprintf(title, sizeof title, "Check of %s", p.name);
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

	if (list_key(scr, app, ch))
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
		if (r)
			open_check(app, r);
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

static void camp_free(list *l) { free(((campaigns *)l)->rows); }

static const tui_screen_ops camp_ops = {
    "Campaigns", camp_keys, list_load, list_draw, camp_key, NULL, list_free,
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

/* ---- forms: a new sweep, a replay --------------------------------------- */

/* A field of a form: its label, the command option it becomes, a hint;
 * with choices ("no|yes") Enter cycles through them instead of editing. */
typedef struct form_field {
	const char *label, *option, *hint, *choices;
} form_field;

#define FORM_MAX 16

/* A form: fields (the last is the start button), their values, and what
 * starting does. id: the replay form's bug. */
typedef struct form {
	const form_field *fields;
	int n, sel;
	char val[FORM_MAX][512];
	const char *prefix; /* the command line an edit completes as */
	void (*start)(tui_app *app, struct form *f);
	int64_t id;
} form;

enum {
	F_PROGRAM,
	F_ARGS,
	F_DENS,
	F_RUNS,
	F_BUDGET,
	F_PROFILES,
	F_JOBS,
	F_DELAY,
	F_TIMEOUT,
	F_PRUNE,
	F_START,
	F_N
};

static const form_field sweep_fields[F_N] = {
    [F_PROGRAM] = {"Program", NULL, "a .wasm file (Tab completes)", NULL},
    [F_ARGS] = {"Arguments", "--", "the program's arguments", NULL},
    [F_DENS] = {"Densities", "--densities", "FROM:TO:STEP or a list, in %",
		NULL},
    [F_RUNS] = {"Runs per cell", "--runs", "empty with a budget", NULL},
    [F_BUDGET] = {"Budget", "--budget", "e.g. 10m; instead of runs", NULL},
    [F_PROFILES] = {"Profiles", "--profiles", "see 'heisen profiles'", NULL},
    [F_JOBS] = {"Jobs", "--jobs", "worker processes; empty: one per CPU", NULL},
    [F_DELAY] = {"Delay", "--delay", "spin units per armed access", NULL},
    [F_TIMEOUT] = {"Timeout", "--timeout", "per run, e.g. 30s", NULL},
    [F_PRUNE] = {"Prune", "--prune",
		 "yes: arm only sites seen on shared memory", "no|yes"},
    [F_START] = {"[ Start sweep ]", NULL, "Enter or s starts", NULL},
};

enum { R_MODE, R_RUNS, R_HOLD, R_START, R_N };

static const form_field replay_fields[R_N] = {
    [R_MODE] = {"Mode", "--mode",
		"trigger forces it; pinned, minimal: how often it shows",
		"trigger|pinned|minimal"},
    [R_RUNS] = {"Runs", "--runs", "how many times to run it", NULL},
    [R_HOLD] = {"Hold", "--hold",
		"trigger: seconds a thread waits; empty: a tenth of a run",
		NULL},
    [R_START] = {"[ Start replay ]", NULL, "Enter or s starts", NULL},
};

static const tui_keydoc form_keys[] = {
    {"Up/Down j/k", "choose a field"},
    {"Enter", "edit the field (Esc cancels the edit), or start"},
    {"s", "start"},
    {"q Esc", "back without starting"},
    {NULL, NULL},
};

static void form_draw(tui_screen *scr, tui_app *app, int y, int rows, int cols)
{
	form *f = scr->st;
	int last = f->n - 1;

	for (int i = 0; i < f->n && 2 * i + 1 < rows; i++) {
		int attr = i == f->sel ? tui_attr(TUI_SELECTED) : (int)A_NORMAL;
		int row = y + 1 + 2 * i;
		if (i == f->sel) {
			attrset(attr);
			mvhline(row, 0, ' ', cols);
		}
		tui_put(row, 2, f->fields[i].label, 16,
			i == last ? (attr | (int)A_BOLD) : attr);
		if (i != last && cols > 20) {
			int w = tui_put(row, 20, f->val[i], cols - 22, attr);
			if (!f->val[i][0] || i == f->sel)
				tui_put(row, 20 + w + (w ? 2 : 0),
					f->fields[i].hint, cols - 24 - w,
					i == f->sel ? attr : tui_attr(TUI_DIM));
		}
	}
}

static void form_edit_done(void *ctx, tui_app *app, const char *text)
{
	form *f = ctx;
	if (text)
		snprintf(f->val[f->sel], sizeof f->val[f->sel], "%s", text);
	if (text && f->sel < f->n - 1)
		f->sel++;
}

/* The next of a field's choices after its value ("no|yes": no -> yes). */
static void form_cycle(form *f)
{
	const char *c = f->fields[f->sel].choices, *at = c;
	char *v = f->val[f->sel];
	size_t n = strlen(v);

	while (at && (strncmp(at, v, n) || (at[n] && at[n] != '|')))
		at = (at = strchr(at, '|')) ? at + 1 : NULL;
	at = at && (at = strchr(at, '|')) ? at + 1 : c;
	snprintf(v, sizeof f->val[0], "%.*s", (int)strcspn(at, "|"), at);
}

/* Collect the form into sweep words and start it. */
static void sweep_start(tui_app *app, form *f)
{
	char *words[64];
	int n = 0;
	tui_words args = {0};
	wasm_err e;
	size_t pos = 0;

	if (!f->val[F_PROGRAM][0]) {
		tui_msg(app, true, "the form needs a program (a .wasm file)");
		f->sel = F_PROGRAM;
		return;
	}
	if (tui_split_words(f->val[F_ARGS], &pos, &args, &e)) {
		tui_msg(app, true, "arguments: %s", e.msg);
		f->sel = F_ARGS;
		return;
	}
	words[n++] = f->val[F_PROGRAM];
	for (int i = F_DENS; i <= F_TIMEOUT; i++)
		if (f->val[i][0]) {
			words[n++] = (char *)f->fields[i].option;
			words[n++] = f->val[i];
		}
	if (!strcmp(f->val[F_PRUNE], "yes"))
		words[n++] = "--prune";
	if (args.argc) {
		words[n++] = "--";
		for (int i = 0; i < args.argc && n < 63; i++)
			words[n++] = args.argv[i];
	}
	if (tui_sweep_start(app, words, n))
		tui_pop(app);
	tui_words_free(&args);
}

/* `heisen replay BUG [--save FILE] OPTIONS --progress` in an output
 * screen, which shows the progress lines as they come. */
static void open_replay(tui_app *app, int64_t bug, const char *save,
			char *const opts[], int nopts)
{
	char id[24], title[64];
	char *argv[24] = {"heisen", "replay", id};
	int n = 3;

	snprintf(id, sizeof id, "%" PRId64, bug);
	for (int i = 0; i < nopts && n < 16; i++)
		argv[n++] = opts[i];
	if (save) {
		argv[n++] = "--save";
		argv[n++] = (char *)save;
	}
	argv[n++] = "--progress";
	argv[n++] = "--db";
	argv[n++] = (char *)tui_app_dbpath(app);
	argv[n] = NULL;
	snprintf(title, sizeof title, "%s of bug %" PRId64,
		 save ? "Repro file" : "Replay", bug);
	tui_open_output(app, title, argv);
}

static void replay_start(tui_app *app, form *f)
{
	char val[R_START][512], *opts[2 * R_START];
	int n = 0;
	int64_t bug = f->id;

	for (int i = R_MODE; i < R_START; i++)
		if (f->val[i][0]) {
			memcpy(val[i], f->val[i], sizeof val[i]);
			opts[n++] = (char *)f->fields[i].option;
			opts[n++] = val[i];
		}
	/* The output screen takes the form's place. */
	tui_pop(app);
	open_replay(app, bug, NULL, opts, n);
}

static bool form_key(tui_screen *scr, tui_app *app, int ch)
{
	form *f = scr->st;

	switch (ch) {
	case KEY_UP:
	case 'k': f->sel = f->sel ? f->sel - 1 : f->n - 1; break;
	case KEY_DOWN:
	case 'j':
	case '\t': f->sel = (f->sel + 1) % f->n; break;
	case 's': f->start(app, f); return true;
	case '\n':
	case '\r':
	case KEY_ENTER:
	case KEY_RIGHT:
		if (f->sel == f->n - 1) {
			f->start(app, f);
			return true;
		} else if (f->fields[f->sel].choices) {
			form_cycle(f);
		} else {
			char prompt[48];
			tui_ask_spec a = {prompt,
					  f->val[f->sel],
					  f->prefix,
					  f->sel == F_PROGRAM &&
					      f->fields == sweep_fields,
					  form_edit_done,
					  NULL,
					  f,
					  false};
			snprintf(prompt, sizeof prompt,
				 "%s: ", f->fields[f->sel].label);
			tui_ask(app, &a);
		}
		break;
	default: return false;
	}
	tui_dirty(app);
	return true;
}

static void form_free(tui_screen *scr) { free(scr->st); }

static const tui_screen_ops form_ops = {
    "Form", form_keys, NULL, form_draw, form_key, NULL, form_free,
};

bool tui_open_sweep_form(tui_app *app, const char *program)
{
	form *f = calloc(1, sizeof *f);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	if (!f)
		return false;
	f->fields = sweep_fields;
	f->n = F_N;
	f->prefix = "sweep ";
	f->start = sweep_start;
	snprintf(f->val[F_PROGRAM], sizeof f->val[0], "%s",
		 program ? program : "");
	snprintf(f->val[F_DENS], sizeof f->val[0], "5:100:5");
	snprintf(f->val[F_RUNS], sizeof f->val[0], "5");
	det_profile_names(f->val[F_PROFILES], sizeof f->val[0], ",");
	snprintf(f->val[F_JOBS], sizeof f->val[0], "%ld", ncpu > 0 ? ncpu : 1);
	snprintf(f->val[F_DELAY], sizeof f->val[0], "%u", DET_DEFAULT_DELAY);
	snprintf(f->val[F_PRUNE], sizeof f->val[0], "no");
	f->sel = program ? F_START : F_PROGRAM;
	return tui_push(app, &form_ops, f, "New sweep", false);
}

static bool open_replay_form(tui_app *app, int64_t bug)
{
	form *f = calloc(1, sizeof *f);
	char title[48];

	if (!f)
		return false;
	f->fields = replay_fields;
	f->n = R_N;
	f->prefix = "replay ";
	f->start = replay_start;
	f->id = bug;
	snprintf(f->val[R_MODE], sizeof f->val[0], "trigger");
	snprintf(f->val[R_RUNS], sizeof f->val[0], "100");
	f->sel = R_START;
	snprintf(title, sizeof title, "Replay bug %" PRId64, bug);
	return tui_push(app, &form_ops, f, title, false);
}

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
	list l; /* first: the screen's state is a list */
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
	list *l = ctx;
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
	short_site(&b->site[0], sa, sizeof sa);
	short_site(&b->site[1], sb, sizeof sb);
	return list_add(l, b->id, TUI_NORMAL, cell);
}

static wasm_status bugs_fill(list *l, db *d, wasm_err *e)
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
		list_load(scr, app);
		tui_dirty(app);
	}
}

static void bugs_free(list *l)
{
	bugs_view *v = (bugs_view *)l;
	free(v->ids);
	free(v->same);
	free(v->runs);
}

/* Move bug id to the next triage state (docs/triage.md): what `heisen
 * triage BUG STATE` records, without a note. */
static void triage_next(tui_app *app, int64_t id)
{
	db *d = tui_app_db(app);
	db_bug b;
	db_state next;
	wasm_err e;

	wasm_err_clear(&e);
	if (db_bug_get(d, id, &b, &e)) {
		fail_msg(app, &e);
		return;
	}
	next = (db_state)((b.state + 1) % DB_NSTATES);
	if (db_triage_set(d, id, next, NULL, &e))
		fail_msg(app, &e);
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
	list *l = scr->st;
	int64_t id = tui_table_selected(&l->t);

	if (list_key(scr, app, ch))
		return true;
	if (ch == 't') {
		if (id > 0) {
			triage_next(app, id);
			list_load(scr, app);
		}
		return true;
	}
	return false;
}

static const tui_screen_ops bugs_ops = {
    "Bugs", bug_keys, list_load, list_draw, bugs_key, bugs_tick, list_free,
};

bool tui_open_bugs(tui_app *app, int64_t program_id)
{
	bugs_view *v = calloc(1, sizeof *v);
	list *s = &v->l;
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
	tui_doc doc;
	unsigned gen; /* of the factors last shown */
	bool unfold[2];
	bugv_target target[BUGV_TARGETS];
	int ntarget, cur; /* cur: the selected target, -1 for none */
	char progpath[4096];
} bug_view;

static const tui_keydoc bugv_keys[] = {
    {"Up/Down PgUp/PgDn", "scroll"},
    {"Left/Right", "scroll sideways (Left at the edge: back)"},
    {"x", "rerun the first example run exactly (same mask seed)"},
    {"o", "the runs that detected it"},
    {"p", "replay it: a form for the mode, then the rate live"},
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
		if (f->file)
			n += snprintf(line + n, cap - (size_t)n, " %s:%u",
				      base ? base + 1 : f->file, f->line);
		if (f->inlined)
			n += snprintf(line + n, cap - (size_t)n, " (inlined)");
	}
	if (st->truncated && n >= 0 && (size_t)n + 8 < cap)
		snprintf(line + n, cap - (size_t)n, " < ...");
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
			    TUI_M_HEADER "Thread %u" TUI_M_NORMAL
					 " created by thread %u%s%s",
			    x->tid[i], sp->parent, sp->stack.n ? " at" : "",
			    frames);
	}
	if (r->loc.kind || r->spawn[0].known || r->spawn[1].known)
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

static void doc_site(bug_view *v, const tui_report *r, int i)
{
	tui_doc *d = &v->doc;
	const struct db_bug_site *s = &r->bug.site[i];
	const db_stack *st = &r->stack[i];
	const char *progpath = r->prog.path;
	char which = (char)('A' + i);
	tui_context cx;
	char where[320];

	tui_fmt_site(s, where, sizeof where);
	tui_doc_add(d, TUI_M_HEADER "Site %c" TUI_M_NORMAL "  %u (%s)  %s",
		    which, s->id, rw_kind_name((rw_kind)s->kind), where);
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
			if (f->file)
				snprintf(pos, sizeof pos, " %s:%u", f->file,
					 f->line);
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
	char kinds[8], seen[32];
	wasm_err e;

	if (!r) {
		tui_msg(app, true, "out of memory");
		return false;
	}
	wasm_err_clear(&e);
	if (tui_report_load(tui_app_db(app), s->id, r, &e)) {
		fail_msg(app, &e);
		tui_report_free(r);
		free(r);
		return false;
	}
	tui_doc_clear(d);
	tui_fmt_kinds(&r->bug, kinds, sizeof kinds);
	tui_fmt_time(r->bug.first_seen, seen, sizeof seen);
	tui_doc_add(d,
		    TUI_M_TITLE " Bug %" PRId64 " " TUI_M_NORMAL
				"  %s race in %s (%s)",
		    r->bug.id, kinds, r->prog.name ? r->prog.name : "?",
		    r->prog.path ? r->prog.path : "?");
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
	tui_doc_draw(&s->doc, y, rows, cols);
}

static void open_rerun(tui_app *app, int64_t run)
{
	char id[24], title[64];
	char *argv[] = {
	    "heisen", "rerun", id, "--db", (char *)tui_app_dbpath(app), NULL};

	snprintf(id, sizeof id, "%" PRId64, run);
	snprintf(title, sizeof title, "Rerun of run %" PRId64, run);
	tui_open_output(app, title, argv);
}

static void write_repro(void *ctx, tui_app *app, const char *text)
{
	bug_view *s = ctx;

	if (text && *text)
		open_replay(app, s->id, text, NULL, 0);
}

static bool bugv_key(tui_screen *scr, tui_app *app, int ch)
{
	bug_view *s = scr->st;

	if (tui_doc_key(&s->doc, app, ch))
		return true;
	if (ch == 'x') {
		if (s->rerun)
			open_rerun(app, s->rerun);
		return true;
	}
	if (ch == 'o') {
		tui_open_runs(app, -s->id);
		return true;
	}
	if (ch == 'p') {
		open_replay_form(app, s->id);
		return true;
	}
	if (ch == 't') {
		triage_next(app, s->id);
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
	list *l = ctx;
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
	return list_add(l, r->id, role, cell);
}

/* arg > 0: a campaign's runs; arg < 0: the runs that detected bug -arg. */
static wasm_status runs_fill(list *l, db *d, wasm_err *e)
{
	return db_run_list(d, l->arg > 0 ? l->arg : 0, l->arg < 0 ? -l->arg : 0,
			   run_row_cb, l, e);
}

static bool runs_key(tui_screen *scr, tui_app *app, int ch)
{
	list *l = scr->st;
	int64_t id = tui_table_selected(&l->t);

	if (list_key(scr, app, ch))
		return true;
	if (ch == 'x') {
		if (id > 0)
			open_rerun(app, id);
		return true;
	}
	return false;
}

static const tui_screen_ops runs_ops = {
    "Runs", run_keys, list_load, list_draw, runs_key, NULL, list_free,
};

/* campaign_id < 0 lists the runs that detected bug -campaign_id. */
bool tui_open_runs(tui_app *app, int64_t campaign_id)
{
	list *s = calloc(1, sizeof *s);
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
    {NULL, NULL},
};

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
		fail_msg(app, &e);
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
			fail_msg(app, &e);
			return false;
		}
		tui_fmt_kinds(&b, kinds, sizeof kinds);
		short_site(&b.site[0], sa, sizeof sa);
		short_site(&b.site[1], sb, sizeof sb);
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
	if (open_key(ch) && id > 0) {
		tui_open_bug(app, id);
		return true;
	}
	if (ch == 'x') {
		open_rerun(app, s->id);
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
