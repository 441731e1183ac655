/*
 * cmd_node.c - `heisen node`: the remote nodes of a workspace (db/nodes.h,
 * docs/nodes.md). add, list and remove keep the registry; check reaches a
 * node over the transport (ssh, or $HEISEN_SSH) and asks its heisen
 * `node self`, which prints what this machine is.
 *
 * The transport runs with posix_spawnp and one argv word per argument,
 * never through a local shell, and every word that comes from the user
 * (host, user, port) was checked by db_node_url_parse to hold nothing a
 * shell or ssh's option parser could misread.
 */
#include "tui/cli/cli.h"
#include "tui/report/report.h"
#include "tui/cmd/cmd.h"
#include "tui/report/jsonw.h"

#include "db/nodes.h"
#include "remote/transport.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#define NODE_OUT_MAX   (64 * 1024) /* what check reads of the answer */
#define NODE_TIMEOUT_S 10.0

/* A sub-command's operand count, or exit 2 with its usage. */
static bool node_arity(const tui_args *a, int n, const char *usage, FILE *err)
{
	if (a->noperands == n)
		return true;
	fprintf(err, "heisen node: usage: heisen node %s\n", usage);
	return false;
}

int tui_node_add(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err)
{
	static const char *const opts[] = {"--db",   "--partition", "--account",
					   "--time", "--tasks",	    NULL};
	static const char *const slurm_opts[] = {"partition", "account", "time",
						 "tasks"};
	const char *name, *url;
	char msg[256], stored[DB_NODE_URL_MAX];
	db_node_url u;
	wasm_err e;
	db *d;
	int rc;

	if (!tui_sub_only(cmd, a, "add", opts, err) ||
	    !node_arity(a, 3,
			"add NAME ssh://[user@]host[:port]/path | "
			"slurm://[[user@]host[:port]]/dir [--partition P] "
			"[--account A] [--time LIMIT] [--tasks N]",
			err))
		return TUI_EXIT_USAGE;
	name = a->operands[1];
	url = a->operands[2];
	if (!db_node_name_ok(name, msg, sizeof msg)) {
		fprintf(err, "heisen node add: %s; nothing was added\n", msg);
		return TUI_EXIT_USAGE;
	}
	if (!db_node_url_parse(url, &u, msg, sizeof msg)) {
		fprintf(err, "heisen node add: %s; nothing was added\n", msg);
		return TUI_EXIT_USAGE;
	}
	for (size_t i = 0; i < 4; i++) {
		char opt[32];
		const char *v;
		snprintf(opt, sizeof opt, "--%s", slurm_opts[i]);
		if (!(v = tui_opt_value(cmd, a, opt)))
			continue;
		if (!u.slurm) {
			fprintf(err,
				"heisen node add: %s is for a slurm:// node; "
				"nothing was added\n",
				opt);
			return TUI_EXIT_USAGE;
		}
		if (!db_node_url_opt(&u, slurm_opts[i], v, msg, sizeof msg)) {
			fprintf(err, "heisen node add: %s; nothing was added\n",
				msg);
			return TUI_EXIT_USAGE;
		}
	}
	if (!db_node_url_format(&u, stored, sizeof stored)) {
		fprintf(err, "heisen node add: the URL with its options is "
			     "too long; nothing was added\n");
		return TUI_EXIT_USAGE;
	}
	url = stored;
	if ((rc = tui_open_db(tui_opt_value(cmd, a, "--db"), &d, err)))
		return rc;
	wasm_err_clear(&e);
	if (db_remote_add(d, name, url, &e)) {
		db_close(d);
		fprintf(err, "heisen node add: %s\n", e.msg);
		return tui_exit_for(e.status);
	}
	db_close(d);
	fprintf(out,
		"heisen node add: %s is %s%s%s%s (check it with 'heisen "
		"node check %s')\n",
		name, u.slurm ? "the Slurm cluster of " : "", u.user,
		*u.user ? "@" : "", *u.host ? u.host : "this machine", name);
	return TUI_EXIT_OK;
}

typedef struct node_list {
	tui_json *j; /* NULL: a table */
	FILE *out;
	uint64_t n;
} node_list;

static bool node_row(void *ctx, const db_remote *r)
{
	node_list *l = ctx;
	char added[32], fetched[32], msg[256];
	db_node_url u;
	bool ok = db_node_url_parse(r->url, &u, msg, sizeof msg);

	if (l->j) {
		tui_json_obj(l->j, NULL);
		tui_json_str(l->j, "name", r->name);
		tui_json_str(l->j, "url", r->url);
		if (ok)
			tui_json_str(l->j, "kind", u.slurm ? "slurm" : "ssh");
		else
			tui_json_null(l->j, "kind");
		/* A URL edited into the database by hand may not parse:
		 * its parts are then null rather than guessed. */
		if (ok && *u.user)
			tui_json_str(l->j, "user", u.user);
		else
			tui_json_null(l->j, "user");
		if (ok)
			tui_json_str(l->j, "host", u.host);
		else
			tui_json_null(l->j, "host");
		if (ok && u.port)
			tui_json_u64(l->j, "port", u.port);
		else
			tui_json_null(l->j, "port");
		if (ok)
			tui_json_str(l->j, "path", u.path);
		else
			tui_json_null(l->j, "path");
		tui_json_f64(l->j, "added", r->added);
		if (r->last_fetch > 0)
			tui_json_f64(l->j, "last_fetch", r->last_fetch);
		else
			tui_json_null(l->j, "last_fetch");
		tui_json_u64(l->j, "runs_fetched", r->runs_fetched);
		tui_json_end(l->j, '}');
	} else {
		if (!l->n)
			fprintf(l->out, "%-16s %-16s %-16s %8s  %s\n", "NAME",
				"ADDED", "LAST FETCH", "RUNS", "URL");
		tui_fmt_time(r->added, added, sizeof added);
		tui_fmt_time(r->last_fetch, fetched, sizeof fetched);
		fprintf(l->out, "%-16s %-16s %-16s %8" PRIu64 "  %s\n", r->name,
			added, fetched, r->runs_fetched, r->url);
	}
	l->n++;
	return true;
}

int tui_node_list(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err)
{
	static const char *const opts[] = {"--db", "--json", NULL};
	node_list l = {.out = out};
	const char *path;
	wasm_err e;
	tui_json j;
	db *d;
	int rc;

	if (!tui_sub_only(cmd, a, "list", opts, err) ||
	    !node_arity(a, 1, "list [--db FILE] [--json]", err))
		return TUI_EXIT_USAGE;
	if ((rc = tui_open_existing_db(tui_opt_value(cmd, a, "--db"), &d, &path,
				       err)))
		return rc;
	if (tui_opt_value(cmd, a, "--json")) {
		tui_json_init(&j, out);
		tui_json_obj(&j, NULL);
		tui_json_str(&j, "schema", "heisen.nodes/1");
		tui_json_arr(&j, "nodes");
		l.j = &j;
	}
	wasm_err_clear(&e);
	rc = db_remote_list(d, node_row, &l, &e) ? tui_exit_for(e.status)
						 : TUI_EXIT_OK;
	db_close(d);
	if (l.j) {
		tui_json_end(&j, ']');
		tui_json_end(&j, '}');
		tui_json_done(&j);
	} else if (!rc && !l.n) {
		fprintf(out,
			"no nodes in %s (add one with 'heisen node add "
			"NAME ssh://host/path/heisen.db')\n",
			path);
	}
	if (rc)
		fprintf(err, "heisen node list: %s\n", e.msg);
	return rc;
}

int tui_node_remove(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err)
{
	static const char *const opts[] = {"--db", NULL};
	const char *path;
	wasm_err e;
	db *d;
	int rc;

	if (!tui_sub_only(cmd, a, "remove", opts, err) ||
	    !node_arity(a, 2, "remove NAME [--db FILE]", err))
		return TUI_EXIT_USAGE;
	if ((rc = tui_open_existing_db(tui_opt_value(cmd, a, "--db"), &d, &path,
				       err)))
		return rc;
	wasm_err_clear(&e);
	if (db_remote_remove(d, a->operands[1], &e)) {
		db_close(d);
		fprintf(err, "heisen node remove: %s\n", e.msg);
		return tui_exit_for(e.status);
	}
	db_close(d);
	fprintf(out, "heisen node remove: %s removed from %s\n", a->operands[1],
		path);
	return TUI_EXIT_OK;
}

/* ---- self ---------------------------------------------------------------- */

int tui_node_self(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err)
{
	static const char *const opts[] = {"--json", NULL};
	char host[256] = "";
	struct utsname un;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	tui_json j;

	if (!tui_sub_only(cmd, a, "self", opts, err) ||
	    !node_arity(a, 1, "self [--json]", err))
		return TUI_EXIT_USAGE;
	if (uname(&un) != 0) {
		fprintf(err, "heisen node self: uname failed: %s\n",
			strerror(errno));
		return TUI_EXIT_INTERNAL;
	}
	/* gethostname may leave the name unterminated when it is cut. */
	if (gethostname(host, sizeof host - 1) != 0)
		snprintf(host, sizeof host, "%s", un.nodename);
	if (cores < 1)
		cores = 1;
	if (tui_opt_value(cmd, a, "--json")) {
		tui_json_init(&j, out);
		tui_json_obj(&j, NULL);
		tui_json_str(&j, "schema", "heisen.node-self/1");
		tui_json_str(&j, "version", HEISEN_VERSION);
		tui_json_str(&j, "arch", un.machine);
		tui_json_u64(&j, "cores", (uint64_t)cores);
		tui_json_str(&j, "hostname", host);
		tui_json_end(&j, '}');
		tui_json_done(&j);
	} else {
		fprintf(out, "heisen %s on %s: %s, %ld cores\n", HEISEN_VERSION,
			host, un.machine, cores);
	}
	return TUI_EXIT_OK;
}

/* ---- check --------------------------------------------------------------- */

/* The value of "key" in a flat JSON object written by 'node self': a
 * string (escapes kept only for \" and \\) or a bare number, into
 * buf; false when absent. The answer is untrusted: control bytes and
 * anything past cap are dropped. */
static bool json_field(const char *js, const char *key, char *buf, size_t cap)
{
	char pat[64];
	const char *p;
	size_t k = 0;

	snprintf(pat, sizeof pat, "\"%s\"", key);
	if (!(p = strstr(js, pat)))
		return false;
	p += strlen(pat);
	while (*p == ' ')
		p++;
	if (*p++ != ':')
		return false;
	while (*p == ' ')
		p++;
	if (*p == '"') {
		for (p++; *p && *p != '"'; p++) {
			if (*p == '\\' && p[1])
				p++;
			if ((unsigned char)*p >= 0x20 && k + 1 < cap)
				buf[k++] = *p;
		}
		if (*p != '"')
			return false;
	} else {
		for (; *p >= '0' && *p <= '9'; p++)
			if (k + 1 < cap)
				buf[k++] = *p;
	}
	buf[k] = 0;
	return k > 0;
}

typedef struct node_answer {
	bool reachable;
	char why[512];
	char version[64], arch[64], cores[16], hostname[256];
} node_answer;

/* How the transport ended, into ans. */
static void judge(const rmt_result *io, node_answer *ans)
{
	static const char schema[] = "\"schema\":\"heisen.node-self/1\"";
	const char *out = io->out ? (const char *)io->out : "";

	if (rmt_failed(io, ans->why, sizeof ans->why))
		return;
	if (io->out_cut || strncmp(out, "{", 1) || !strstr(out, schema)) {
		snprintf(ans->why, sizeof ans->why,
			 "the node answered, but not as 'heisen node self "
			 "--json' does (an older heisen, or another program "
			 "called heisen on its PATH?)");
		return;
	}
	ans->reachable = true;
	json_field(out, "version", ans->version, sizeof ans->version);
	json_field(out, "arch", ans->arch, sizeof ans->arch);
	json_field(out, "cores", ans->cores, sizeof ans->cores);
	json_field(out, "hostname", ans->hostname, sizeof ans->hostname);
}

static void check_report(const db_remote *r, const node_answer *ans, bool json,
			 FILE *out)
{
	tui_json j;

	if (json) {
		tui_json_init(&j, out);
		tui_json_obj(&j, NULL);
		tui_json_str(&j, "schema", "heisen.node-check/1");
		tui_json_str(&j, "name", r->name);
		tui_json_str(&j, "url", r->url);
		tui_json_bool(&j, "reachable", ans->reachable);
		if (ans->reachable) {
			tui_json_null(&j, "error");
			tui_json_str(&j, "version", ans->version);
			tui_json_str(&j, "arch", ans->arch);
			tui_json_u64(&j, "cores",
				     strtoull(ans->cores, NULL, 10));
			tui_json_str(&j, "hostname", ans->hostname);
		} else {
			tui_json_str(&j, "error", ans->why);
		}
		tui_json_end(&j, '}');
		tui_json_done(&j);
	} else if (ans->reachable) {
		fprintf(out, "%s: reachable, heisen %s on %s (%s, %s cores)\n",
			r->name, ans->version, ans->hostname, ans->arch,
			ans->cores);
	} else {
		fprintf(out, "%s: unreachable: %s\n", r->name, ans->why);
	}
}

int tui_node_check(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err)
{
	static const char *const opts[] = {"--db", "--json", "--timeout", NULL};
	static const char *const words[] = {"heisen", "node", "self", "--json",
					    NULL};
	const char *tv = tui_opt_value(cmd, a, "--timeout");
	node_answer ans = {0};
	rmt_result io;
	db_node_url u;
	db_remote r;
	wasm_err e;
	int rc;

	if (!tui_sub_only(cmd, a, "check", opts, err) ||
	    !node_arity(
		a, 2, "check NAME [--timeout TIME] [--db FILE] [--json]", err))
		return TUI_EXIT_USAGE;
	rmt_call c = {&u, words, NODE_TIMEOUT_S, -1, NODE_OUT_MAX, NULL, NULL};
	if (tv && !tui_parse_duration(tv, &c.timeout_s)) {
		fprintf(err,
			"heisen node check: --timeout expects a duration such "
			"as 10, 30s or 2m, got '%s'\n",
			tv);
		return TUI_EXIT_USAGE;
	}
	if ((rc = tui_node_find(tui_opt_value(cmd, a, "--db"), a->operands[1],
				"node check", &r, &u, err)))
		return rc;
	if (u.slurm) {
		rc = tui_slurm_check(&r, c.timeout_s,
				     tui_opt_value(cmd, a, "--json") != NULL,
				     out, err);
		db_remote_clear(&r);
		return rc;
	}
	wasm_err_clear(&e);
	if (rmt_run(&c, &io, &e)) {
		if (e.status == WASM_NOMEM || e.status == WASM_INVALID) {
			fprintf(err, "heisen node check: %s\n", e.msg);
			db_remote_clear(&r);
			return e.status == WASM_NOMEM ? TUI_EXIT_INTERNAL
						      : TUI_EXIT_USAGE;
		}
		snprintf(ans.why, sizeof ans.why, "%s", e.msg);
	} else {
		judge(&io, &ans);
		rmt_result_free(&io);
	}
	check_report(&r, &ans, tui_opt_value(cmd, a, "--json"), out);
	db_remote_clear(&r);
	return ans.reachable ? TUI_EXIT_OK : TUI_EXIT_FINDINGS;
}
