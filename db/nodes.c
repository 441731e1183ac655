/*
 * nodes.c - the remotes table (db/nodes.h): registered nodes, and the
 * checks that keep their names and URLs safe to hand to ssh.
 */
#include "db/nodes.h"

#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- names and URLs ------------------------------------------------------ */

static bool word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

static bool fail(char *msg, size_t cap, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, cap, fmt, ap);
	va_end(ap);
	return false;
}

/* The first byte of s[0, n) that is neither a word character nor (when
 * slash) '/', or NULL. */
static const char *bad_char(const char *s, size_t n, bool slash)
{
	for (size_t i = 0; i < n; i++)
		if (!word_char(s[i]) && !(slash && s[i] == '/'))
			return s + i;
	return NULL;
}

/* A bad byte as the message shows it: 'x' when printable, else its
 * code, so that a newline or escape in hostile input never reaches the
 * terminal. */
static void show_char(char c, char buf[16])
{
	unsigned char u = (unsigned char)c;

	if (u > 0x20 && u < 0x7f)
		snprintf(buf, 16, "'%c'", c);
	else if (u == ' ')
		snprintf(buf, 16, "a space");
	else
		snprintf(buf, 16, "byte 0x%02x", u);
}

/* Check one part of a URL (what: "host") and copy it to dst. */
static bool url_part(const char *what, const char *s, size_t n, bool slash,
		     char *dst, char *msg, size_t cap)
{
	const char *b = bad_char(s, n, slash);
	char show[16];

	if (b) {
		show_char(*b, show);
		return fail(msg, cap,
			    "the %s of the URL has %s, which is not allowed: "
			    "a %s is letters, digits, '.', '_', '-'%s",
			    what, show, what, slash ? " and '/'" : "");
	}
	if (n && s[0] == '-')
		return fail(msg, cap,
			    "the %s of the URL starts with '-', which ssh "
			    "would read as an option",
			    what);
	memcpy(dst, s, n);
	dst[n] = 0;
	return true;
}

/* A Slurm option's value: a partition or account name (word characters,
 * not starting with '-'), a time limit (digits, ':' and '-', as sbatch's
 * --time reads it), or a task count. */
bool db_node_url_opt(db_node_url *u, const char *what, const char *value,
		     char *msg, size_t cap)
{
	size_t n = strlen(value);
	char show[16];

	if (!strcmp(what, "tasks")) {
		unsigned long t = 0;
		for (const char *p = value; *p; p++) {
			if (*p < '0' || *p > '9' || t > DB_NODE_TASKS_MAX)
				break;
			t = t * 10 + (unsigned long)(*p - '0');
		}
		if (!n || n > 6 || strspn(value, "0123456789") != n || t < 1 ||
		    t > DB_NODE_TASKS_MAX)
			return fail(msg, cap,
				    "tasks is a number of array tasks from 1 "
				    "to %d, not '%.32s'",
				    DB_NODE_TASKS_MAX, value);
		u->tasks = (unsigned)t;
		return true;
	}
	char *dst = !strcmp(what, "partition") ? u->partition
		    : !strcmp(what, "account") ? u->account
		    : !strcmp(what, "time")    ? u->time
					       : NULL;
	if (!dst)
		return fail(msg, cap,
			    "unknown Slurm option '%.32s' in the URL: the "
			    "options are partition, account, time and tasks",
			    what);
	if (!n || n > DB_NODE_NAME_MAX)
		return fail(msg, cap, "the %s is 1 to %d characters", what,
			    DB_NODE_NAME_MAX);
	for (size_t i = 0; i < n; i++) {
		bool ok = !strcmp(what, "time")
			      ? (value[i] >= '0' && value[i] <= '9') ||
				    value[i] == ':' || value[i] == '-'
			      : word_char(value[i]);
		if (ok)
			continue;
		show_char(value[i], show);
		return fail(msg, cap, "the %s has %s, which is not allowed: %s",
			    what, show,
			    !strcmp(what, "time")
				? "a time limit is digits, ':' and '-' (90, "
				  "1:30:00, 2-00:00:00)"
				: "a name is letters, digits, '.', '_', '-'");
	}
	if (value[0] == '-')
		return fail(msg, cap,
			    "the %s starts with '-', which Slurm's commands "
			    "would read as an option",
			    what);
	memcpy(dst, value, n + 1);
	return true;
}

/* The ?key=value&... tail of a Slurm URL into *out. */
static bool url_opts(const char *q, db_node_url *out, char *msg, size_t cap)
{
	char buf[DB_NODE_URL_MAX], *save = NULL;

	snprintf(buf, sizeof buf, "%s", q);
	for (char *kv = strtok_r(buf, "&", &save); kv;
	     kv = strtok_r(NULL, "&", &save)) {
		char *eq = strchr(kv, '=');
		if (!eq)
			return fail(msg, cap,
				    "a Slurm option in the URL is key=value, "
				    "not '%.32s'",
				    kv);
		*eq = 0;
		if (!db_node_url_opt(out, kv, eq + 1, msg, cap))
			return false;
	}
	return true;
}

bool db_node_url_parse(const char *url, db_node_url *out, char *msg, size_t cap)
{
	const char *auth, *slash, *at, *colon, *host, *hend, *q;
	char path[DB_NODE_URL_MAX];
	size_t len = strlen(url), plen;

	memset(out, 0, sizeof *out);
	if (len >= DB_NODE_URL_MAX)
		return fail(msg, cap, "the URL is longer than %d bytes",
			    DB_NODE_URL_MAX - 1);
	if (!strncmp(url, "ssh://", 6)) {
		auth = url + 6;
	} else if (!strncmp(url, "slurm://", 8)) {
		auth = url + 8;
		out->slurm = true;
	} else {
		return fail(msg, cap,
			    "a node URL starts with ssh:// or slurm://, as in "
			    "ssh://user@host:22/home/user/heisen.db or "
			    "slurm://login/shared/dir");
	}
	slash = strchr(auth, '/');
	if (!slash || !slash[1])
		return fail(msg, cap,
			    "the URL has no path: end it with the absolute "
			    "path of %s on the node, as in %s",
			    out->slurm ? "a directory shared by the cluster's "
					 "nodes"
				       : "the workspace database",
			    out->slurm ? "slurm://login/shared/heisen"
				       : "ssh://host/home/user/heisen.db");
	at = memchr(auth, '@', (size_t)(slash - auth));
	host = auth;
	if (at) {
		if (at == auth)
			return fail(msg, cap,
				    "the user before '@' in the URL is empty; "
				    "write user@host or leave out 'user@'");
		if (!url_part("user", auth, (size_t)(at - auth), false,
			      out->user, msg, cap))
			return false;
		host = at + 1;
	}
	if (*host == '[')
		return fail(msg, cap,
			    "IPv6 addresses are not supported in node URLs; "
			    "give the host a name in ~/.ssh/config or "
			    "/etc/hosts and use that");
	colon = memchr(host, ':', (size_t)(slash - host));
	hend = colon ? colon : slash;
	if (hend == host && (!out->slurm || at || colon))
		return fail(msg, cap, "the host of the URL is empty%s",
			    out->slurm ? " (slurm:///dir, with no user or "
					 "port, is a cluster whose sbatch is "
					 "on this machine)"
				       : "");
	if (!url_part("host", host, (size_t)(hend - host), false, out->host,
		      msg, cap))
		return false;
	if (colon) {
		unsigned long port = 0;
		const char *p = colon + 1;

		if (p == slash)
			return fail(msg, cap,
				    "the port after ':' in the URL is empty; "
				    "give one (1-65535) or leave out ':'");
		for (; p < slash; p++) {
			if (*p < '0' || *p > '9' || port > 65535)
				return fail(msg, cap,
					    "the port of the URL is not a "
					    "number from 1 to 65535");
			port = port * 10 + (unsigned long)(*p - '0');
		}
		if (port < 1 || port > 65535)
			return fail(msg, cap,
				    "the port of the URL is not a number from "
				    "1 to 65535");
		out->port = (unsigned)port;
	}
	q = out->slurm ? strchr(slash, '?') : NULL;
	plen = q ? (size_t)(q - slash) : strlen(slash);
	memcpy(path, slash, plen);
	path[plen] = 0;
	if (plen > 1 && path[plen - 1] == '/')
		return fail(msg, cap, "the path of the URL ends with '/': %s",
			    out->slurm ? "name the shared directory without it"
				       : "name the workspace database file, "
					 "as in /home/user/heisen.db, or the "
					 "directory without '/' (its "
					 "heisen.db is meant)");
	if (!url_part("path", path, plen, true, out->path, msg, cap))
		return false;
	return !q || url_opts(q + 1, out, msg, cap);
}

bool db_node_url_format(const db_node_url *u, char *buf, size_t cap)
{
	int n;
	char port[16] = "";

	if (u->port)
		snprintf(port, sizeof port, ":%u", u->port);
	n = snprintf(buf, cap, "%s://%s%s%s%s%s", u->slurm ? "slurm" : "ssh",
		     u->user, *u->user ? "@" : "", u->host, port, u->path);
	if (u->slurm) {
		const char *sep = "?";
		const char *k[] = {"partition", "account", "time"};
		const char *v[] = {u->partition, u->account, u->time};
		for (int i = 0; i < 3 && n >= 0 && (size_t)n < cap; i++) {
			if (!*v[i])
				continue;
			n += snprintf(buf + n, cap - (size_t)n, "%s%s=%s", sep,
				      k[i], v[i]);
			sep = "&";
		}
		if (u->tasks && n >= 0 && (size_t)n < cap)
			n += snprintf(buf + n, cap - (size_t)n, "%stasks=%u",
				      sep, u->tasks);
	}
	return n >= 0 && (size_t)n < cap;
}

bool db_node_name_ok(const char *name, char *msg, size_t cap)
{
	size_t n = strlen(name);
	const char *b = bad_char(name, n, false);
	char show[16];

	if (!n || n > DB_NODE_NAME_MAX)
		return fail(msg, cap, "a node name is 1 to %d characters",
			    DB_NODE_NAME_MAX);
	if (b) {
		show_char(*b, show);
		return fail(msg, cap,
			    "the node name has %s, which is not allowed: a "
			    "name is letters, digits, '.', '_' and '-'",
			    show);
	}
	if (name[0] == '-')
		return fail(msg, cap, "a node name must not start with '-'");
	return true;
}

/* ---- the remotes table --------------------------------------------------- */

static wasm_status prepare(db *d, const char *sql, sqlite3_stmt **s,
			   wasm_err *err)
{
	int rc = sqlite3_prepare_v2(db_sqlite(d), sql, -1, s, NULL);

	return rc == SQLITE_OK ? WASM_OK
			       : db_sql_fail(d, err, rc, "reading the nodes");
}

static double now_unix(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

wasm_status db_remote_add(db *d, const char *name, const char *url,
			  wasm_err *err)
{
	sqlite3_stmt *s;
	wasm_status st;
	int rc;

	if ((st = prepare(d,
			  "INSERT INTO remotes(name, url, added)"
			  " VALUES(?1, ?2, ?3)",
			  &s, err)))
		return st;
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, url, -1, SQLITE_STATIC);
	sqlite3_bind_double(s, 3, now_unix());
	rc = sqlite3_step(s);
	if ((rc & 0xff) == SQLITE_CONSTRAINT)
		st = wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
				  "%s already has a node called %s; remove it "
				  "first ('heisen node remove %s') or choose "
				  "another name",
				  db_file(d), name, name);
	else if (rc != SQLITE_DONE)
		st = db_sql_fail(d, err, rc, "adding a node");
	sqlite3_finalize(s);
	return st;
}

static void remote_free(db_remote *r)
{
	free(r->name);
	free(r->url);
	memset(r, 0, sizeof *r);
}

void db_remote_clear(db_remote *r) { remote_free(r); }

#define REMOTE_COLS                                                            \
	"SELECT id, name, url, added, last_fetch, runs_fetched, cursor"        \
	" FROM remotes"

/* Row of s into r (pointing into s when copy is false). */
static bool remote_row(sqlite3_stmt *s, db_remote *r, bool copy)
{
	const char *name = (const char *)sqlite3_column_text(s, 1);
	const char *url = (const char *)sqlite3_column_text(s, 2);

	r->id = sqlite3_column_int64(s, 0);
	r->added = sqlite3_column_double(s, 3);
	r->last_fetch = sqlite3_column_double(s, 4);
	r->runs_fetched = (uint64_t)sqlite3_column_int64(s, 5);
	r->cursor = (uint64_t)sqlite3_column_int64(s, 6);
	if (!copy) {
		r->name = (char *)name;
		r->url = (char *)url;
		return true;
	}
	r->name = strdup(name ? name : "");
	r->url = strdup(url ? url : "");
	if (r->name && r->url)
		return true;
	remote_free(r);
	return false;
}

wasm_status db_remote_list(db *d, bool (*cb)(void *ctx, const db_remote *r),
			   void *ctx, wasm_err *err)
{
	sqlite3_stmt *s;
	wasm_status st;
	db_remote r;
	int rc;

	if ((st = prepare(d, REMOTE_COLS " ORDER BY name", &s, err)))
		return st;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		remote_row(s, &r, false);
		if (!cb(ctx, &r))
			break;
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		st = db_sql_fail(d, err, rc, "listing the nodes");
	sqlite3_finalize(s);
	return st;
}

wasm_status db_remote_get(db *d, const char *name, db_remote *out,
			  wasm_err *err)
{
	sqlite3_stmt *s;
	wasm_status st;
	int rc;

	memset(out, 0, sizeof *out);
	if ((st = prepare(d, REMOTE_COLS " WHERE name = ?1", &s, err)))
		return st;
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	if (rc == SQLITE_DONE)
		st = wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
				  "%s has no node called %s ('heisen node "
				  "list' lists them)",
				  db_file(d), name);
	else if (rc != SQLITE_ROW)
		st = db_sql_fail(d, err, rc, "reading a node");
	else if (!remote_row(s, out, true))
		st = wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				  "out of memory reading %s", db_file(d));
	sqlite3_finalize(s);
	return st;
}

wasm_status db_remote_remove(db *d, const char *name, wasm_err *err)
{
	sqlite3_stmt *s;
	wasm_status st;
	int rc;

	/* Its jobs go with it: a node added later may get its id. */
	if ((st = prepare(d,
			  "DELETE FROM slurm_jobs WHERE remote_id IN"
			  " (SELECT id FROM remotes WHERE name = ?1)",
			  &s, err)))
		return st;
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return db_sql_fail(d, err, rc, "removing a node's jobs");
	if ((st = prepare(d, "DELETE FROM remotes WHERE name = ?1", &s, err)))
		return st;
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	if (rc != SQLITE_DONE)
		st = db_sql_fail(d, err, rc, "removing a node");
	else if (sqlite3_changes(db_sqlite(d)) == 0)
		st = wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
				  "%s has no node called %s ('heisen node "
				  "list' lists them)",
				  db_file(d), name);
	sqlite3_finalize(s);
	return st;
}

wasm_status db_remote_fetched(db *d, int64_t id, uint64_t cursor, uint64_t runs,
			      double when, wasm_err *err)
{
	/* Kept: a Slurm fetch records each of its task files. */
	sqlite3_stmt *s = db_stmt_keep(
	    d,
	    "UPDATE remotes SET cursor = max(cursor, ?2),"
	    " last_fetch = ?3, runs_fetched = runs_fetched + ?4 WHERE id = ?1",
	    err);
	wasm_status st = WASM_OK;
	int rc;

	if (!s)
		return err->status;
	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_int64(s, 2, (sqlite3_int64)cursor);
	sqlite3_bind_double(s, 3, when);
	sqlite3_bind_int64(s, 4, (sqlite3_int64)runs);
	rc = sqlite3_step(s);
	if (rc != SQLITE_DONE)
		st = db_sql_fail(d, err, rc, "recording a fetch");
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return st;
}

/* ---- Slurm jobs ---------------------------------------------------------- */

wasm_status db_slurm_job_add(db *d, const db_slurm_job *j, wasm_err *err)
{
	sqlite3_stmt *s;
	wasm_status st;
	int rc;

	if ((st = prepare(d,
			  "INSERT INTO slurm_jobs(campaign_id, remote_id,"
			  " job_id, slices, tasks, dir, script, submitted)"
			  " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
			  &s, err)))
		return st;
	sqlite3_bind_int64(s, 1, j->campaign_id);
	sqlite3_bind_int64(s, 2, j->remote_id);
	sqlite3_bind_text(s, 3, j->job_id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 4, j->slices);
	sqlite3_bind_text(s, 5, j->tasks, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 6, j->dir, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 7, j->script, -1, SQLITE_STATIC);
	sqlite3_bind_double(s, 8, now_unix());
	rc = sqlite3_step(s);
	if (rc != SQLITE_DONE)
		st = db_sql_fail(d, err, rc, "recording a Slurm job");
	sqlite3_finalize(s);
	return st;
}

wasm_status db_slurm_job_list(db *d, int64_t remote_id, int64_t campaign_id,
			      bool (*cb)(void *ctx, const db_slurm_job *j),
			      void *ctx, wasm_err *err)
{
	sqlite3_stmt *s;
	wasm_status st;
	int rc;

	if ((st = prepare(d,
			  "SELECT id, campaign_id, remote_id, job_id, slices,"
			  " tasks, dir, script, submitted FROM slurm_jobs"
			  " WHERE remote_id = ?1 AND (?2 = 0 OR campaign_id"
			  " = ?2) ORDER BY id",
			  &s, err)))
		return st;
	sqlite3_bind_int64(s, 1, remote_id);
	sqlite3_bind_int64(s, 2, campaign_id);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		db_slurm_job j = {
		    .id = sqlite3_column_int64(s, 0),
		    .campaign_id = sqlite3_column_int64(s, 1),
		    .remote_id = sqlite3_column_int64(s, 2),
		    .job_id = (char *)sqlite3_column_text(s, 3),
		    .slices = (uint32_t)sqlite3_column_int64(s, 4),
		    .tasks = (char *)sqlite3_column_text(s, 5),
		    .dir = (char *)sqlite3_column_text(s, 6),
		    .script = (char *)sqlite3_column_text(s, 7),
		    .submitted = sqlite3_column_double(s, 8),
		};
		if (!cb(ctx, &j))
			break;
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		st = db_sql_fail(d, err, rc, "listing Slurm jobs");
	sqlite3_finalize(s);
	return st;
}
