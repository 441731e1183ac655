/*
 * ui_nodes.c - the Nodes screen: the workspace's remote nodes, probed in the
 * background, and the commands that reach them (check, status, fetch,
 * dispatch) run as child processes.
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
	tui_listview l; /* first: the screen's state is a tui_listview */
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
    {"REACH", 5, false, false},	      {"CAMPAIGN THERE", 30, false, false},
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
			 *u.user ? "@" : "", *u.host ? u.host : "local");
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
	return tui_listview_add(
	    &v->l, (int64_t)v->n,
	    pr && !strcmp(pr->reach, "no") ? TUI_ERROR : TUI_NORMAL, cell);
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
	/* A Slurm node's campaign: its array tasks by state, those that
	 * have any (heisen.node-jobs/1). */
	if (*id && (c = strstr(c, "\"tasks\":{"))) {
		static const char *const states[][2] = {
		    {"pending", "pend"},     {"running", "run"},
		    {"completed", "ok"},     {"failed", "fail"},
		    {"cancelled", "cancel"}, {"timeout", "timeout"},
		    {"unknown", "?"}};
		for (size_t i = 0; i < sizeof states / sizeof *states; i++) {
			char n[24];
			size_t k = strlen(p->camp);
			json_first(c, states[i][0], n, sizeof n);
			if (*n && strcmp(n, "0"))
				snprintf(p->camp + k, sizeof p->camp - k,
					 " %s %s", n, states[i][1]);
		}
	}
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
	if (changed && tui_listview_load(scr, app))
		tui_dirty(app);
}

static wasm_status nodes_fill(tui_listview *l, db *d, wasm_err *e)
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

	if (tui_open_key(ch))
		ch = 'c';
	else if (tui_listview_key(scr, app, ch))
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

static void nodes_free(tui_listview *l)
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
	if (!tui_listview_load(scr, app))
		return false;
	probes_start(scr->st);
	return true;
}

static const tui_screen_ops nodes_ops = {
    "Nodes",   nodes_keys, nodes_load,	      tui_listview_draw,
    nodes_key, nodes_tick, tui_listview_free,
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
