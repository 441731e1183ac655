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
#include "cli.h"
#include "jsonw.h"

#include "db/nodes.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define NODE_OUT_MAX   (64 * 1024) /* what check reads of the answer */
#define NODE_ERR_KEEP  4096	   /* the tail of the transport's stderr */
#define NODE_ARGV_MAX  48	   /* transport words and ours */
#define NODE_TIMEOUT_S 10.0

/* A sub-command's operand count, or exit 2 with its usage. */
static bool node_arity(const tui_args *a, int n, const char *usage, FILE *err)
{
	if (a->noperands == n)
		return true;
	fprintf(err, "heisen node: usage: heisen node %s\n", usage);
	return false;
}

/* Options that mean nothing to a sub-command are refused, not ignored,
 * so that 'node add --json' does not look as if it printed JSON. */
static bool node_only(const tui_cmd *cmd, const tui_args *a, const char *sub,
		      const char *const *allowed, FILE *err)
{
	for (int i = 0; i < a->nseen; i++) {
		const char *name = cmd->opts[a->seen[i].opt].name;
		bool ok = false;

		for (const char *const *p = allowed; *p; p++)
			ok = ok || !strcmp(*p, name);
		if (!ok) {
			fprintf(err,
				"heisen node %s: %s is not an option of 'node "
				"%s' (see 'heisen help node')\n",
				sub, name, sub);
			return false;
		}
	}
	return true;
}

static int node_add(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err)
{
	static const char *const opts[] = {"--db", NULL};
	const char *name, *url;
	db_node_url u;
	char msg[256];
	wasm_err e;
	db *d;
	int rc;

	if (!node_only(cmd, a, "add", opts, err) ||
	    !node_arity(a, 3, "add NAME ssh://[user@]host[:port]/path", err))
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
		"heisen node add: %s is %s%s%s (check it with 'heisen "
		"node check %s')\n",
		name, u.user, *u.user ? "@" : "", u.host, name);
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

static int node_list_cmd(const tui_cmd *cmd, const tui_args *a, FILE *out,
			 FILE *err)
{
	static const char *const opts[] = {"--db", "--json", NULL};
	node_list l = {.out = out};
	const char *path;
	wasm_err e;
	tui_json j;
	db *d;
	int rc;

	if (!node_only(cmd, a, "list", opts, err) ||
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

static int node_remove(const tui_cmd *cmd, const tui_args *a, FILE *out,
		       FILE *err)
{
	static const char *const opts[] = {"--db", NULL};
	const char *path;
	wasm_err e;
	db *d;
	int rc;

	if (!node_only(cmd, a, "remove", opts, err) ||
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

static int node_self(const tui_cmd *cmd, const tui_args *a, FILE *out,
		     FILE *err)
{
	static const char *const opts[] = {"--json", NULL};
	char host[256] = "";
	struct utsname un;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	tui_json j;

	if (!node_only(cmd, a, "self", opts, err) ||
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

/* What the transport left: stdout (at most NODE_OUT_MAX bytes), the tail
 * of stderr, and how it ended. */
typedef struct node_io {
	char out[NODE_OUT_MAX + 1];
	size_t nout;
	bool out_cut;
	char err[NODE_ERR_KEEP + 1];
	size_t nerr;
	bool timed_out;
	int status; /* waitpid's */
} node_io;

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Append n bytes to the stderr tail, dropping the oldest when full. */
static void err_keep(node_io *io, const char *b, size_t n)
{
	if (n >= NODE_ERR_KEEP) {
		b += n - NODE_ERR_KEEP;
		n = NODE_ERR_KEEP;
	}
	if (io->nerr + n > NODE_ERR_KEEP) {
		size_t drop = io->nerr + n - NODE_ERR_KEEP;

		memmove(io->err, io->err + drop, io->nerr - drop);
		io->nerr -= drop;
	}
	memcpy(io->err + io->nerr, b, n);
	io->nerr += n;
	io->err[io->nerr] = 0;
}

/* Read both pipes until they close or the deadline passes. */
static void drain(int fo, int fe, double deadline, node_io *io)
{
	struct pollfd p[2] = {{fo, POLLIN, 0}, {fe, POLLIN, 0}};
	char buf[4096];

	while (p[0].fd >= 0 || p[1].fd >= 0) {
		double left = deadline - mono_now();

		if (left <= 0) {
			io->timed_out = true;
			return;
		}
		if (poll(p, 2, (int)(left * 1000) + 1) < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		for (int i = 0; i < 2; i++) {
			ssize_t n;

			if (p[i].fd < 0 || !p[i].revents)
				continue;
			n = read(p[i].fd, buf, sizeof buf);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				p[i].fd = -1;
				continue;
			}
			if (i == 1) {
				err_keep(io, buf, (size_t)n);
			} else {
				size_t room = NODE_OUT_MAX - io->nout;
				size_t k = (size_t)n < room ? (size_t)n : room;

				memcpy(io->out + io->nout, buf, k);
				io->nout += k;
				io->out_cut = io->out_cut || k < (size_t)n;
				io->out[io->nout] = 0;
			}
		}
	}
}

/* Run argv with stdin from /dev/null, collecting into io; errno-style
 * error from spawning, else 0. */
static int run_transport(char **argv, double timeout, node_io *io)
{
	posix_spawn_file_actions_t fa;
	int po[2], pe[2], rc;
	pid_t pid;

	if (pipe2(po, O_CLOEXEC) != 0)
		return errno;
	if (pipe2(pe, O_CLOEXEC) != 0) {
		rc = errno;
		close(po[0]);
		close(po[1]);
		return rc;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, po[1], 1);
	posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
	rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(po[1]);
	close(pe[1]);
	if (rc == 0) {
		drain(po[0], pe[0], mono_now() + timeout, io);
		/* Only the transport this check started is stopped. */
		if (io->timed_out)
			kill(pid, SIGKILL);
		while (waitpid(pid, &io->status, 0) < 0 && errno == EINTR)
			;
	}
	close(po[0]);
	close(pe[0]);
	return rc;
}

/* The last non-empty line of s, control bytes made '?', into buf. */
static void last_line(const char *s, char *buf, size_t cap)
{
	size_t n = strlen(s), end, start, k = 0;

	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		n--;
	end = n;
	while (n && s[n - 1] != '\n')
		n--;
	start = n;
	for (size_t i = start; i < end && k + 1 < cap; i++)
		buf[k++] = (unsigned char)s[i] < 0x20 ? '?' : s[i];
	buf[k] = 0;
}

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
static void judge(const node_io *io, const char *transport, node_answer *ans)
{
	char line[400];
	static const char schema[] = "\"schema\":\"heisen.node-self/1\"";

	last_line(io->err, line, sizeof line);
	if (io->timed_out) {
		snprintf(ans->why, sizeof ans->why,
			 "no answer in time (--timeout TIME waits longer)%s%s",
			 *line ? ": " : "", line);
	} else if (!WIFEXITED(io->status)) {
		snprintf(ans->why, sizeof ans->why,
			 "%s was killed by signal %d", transport,
			 WTERMSIG(io->status));
	} else if (WEXITSTATUS(io->status) != 0) {
		snprintf(ans->why, sizeof ans->why, "%s exited with %d%s%s",
			 transport, WEXITSTATUS(io->status), *line ? ": " : "",
			 line);
	} else if (io->out_cut || strncmp(io->out, "{", 1) ||
		   !strstr(io->out, schema)) {
		snprintf(ans->why, sizeof ans->why,
			 "the node answered, but not as 'heisen node self "
			 "--json' does (an older heisen, or another program "
			 "called heisen on its PATH?)");
	} else {
		ans->reachable = true;
		json_field(io->out, "version", ans->version,
			   sizeof ans->version);
		json_field(io->out, "arch", ans->arch, sizeof ans->arch);
		json_field(io->out, "cores", ans->cores, sizeof ans->cores);
		json_field(io->out, "hostname", ans->hostname,
			   sizeof ans->hostname);
	}
}

/* argv for the transport: $HEISEN_SSH split on spaces (default ssh),
 * then ssh's options, the destination and the remote words. dest and
 * port are storage for the words made here. False when it has too many
 * words. */
static bool transport_argv(char *env, const db_node_url *u, char **argv,
			   char *dest, size_t dcap, char *port, size_t pcap)
{
	static const char *const remote[] = {"heisen", "node", "self",
					     "--json"};
	int n = 0;

	for (char *w = strtok(env, " "); w; w = strtok(NULL, " "))
		if (n < NODE_ARGV_MAX - 12)
			argv[n++] = w;
		else
			return false;
	if (!n)
		argv[n++] = "ssh";
	if (u->port) {
		snprintf(port, pcap, "%u", u->port);
		argv[n++] = "-p";
		argv[n++] = port;
	}
	argv[n++] = "-o";
	argv[n++] = "BatchMode=yes";
	snprintf(dest, dcap, "%s%s%s", u->user, *u->user ? "@" : "", u->host);
	argv[n++] = dest;
	for (size_t i = 0; i < sizeof remote / sizeof *remote; i++)
		argv[n++] = (char *)remote[i];
	argv[n] = NULL;
	return true;
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

static int node_check(const tui_cmd *cmd, const tui_args *a, FILE *out,
		      FILE *err)
{
	static const char *const opts[] = {"--db", "--json", "--timeout", NULL};
	const char *tv = tui_opt_value(cmd, a, "--timeout");
	const char *env = getenv("HEISEN_SSH");
	char *argv[NODE_ARGV_MAX], dest[2 * DB_NODE_URL_MAX + 2], port[16];
	char msg[256], *words;
	double timeout = NODE_TIMEOUT_S;
	node_answer ans = {0};
	const char *path;
	db_node_url u;
	db_remote r;
	node_io *io;
	wasm_err e;
	db *d;
	int rc;

	if (!node_only(cmd, a, "check", opts, err) ||
	    !node_arity(
		a, 2, "check NAME [--timeout TIME] [--db FILE] [--json]", err))
		return TUI_EXIT_USAGE;
	if (tv && !tui_parse_duration(tv, &timeout)) {
		fprintf(err,
			"heisen node check: --timeout expects a duration such "
			"as 10, 30s or 2m, got '%s'\n",
			tv);
		return TUI_EXIT_USAGE;
	}
	if ((rc = tui_open_existing_db(tui_opt_value(cmd, a, "--db"), &d, &path,
				       err)))
		return rc;
	wasm_err_clear(&e);
	if (db_remote_get(d, a->operands[1], &r, &e)) {
		db_close(d);
		fprintf(err, "heisen node check: %s\n", e.msg);
		return tui_exit_for(e.status);
	}
	db_close(d);
	if (!db_node_url_parse(r.url, &u, msg, sizeof msg)) {
		fprintf(err,
			"heisen node check: the URL of %s in %s is not usable: "
			"%s; remove the node and add it again\n",
			r.name, path, msg);
		db_remote_clear(&r);
		return TUI_EXIT_USAGE;
	}
	words = strdup(env ? env : "");
	io = calloc(1, sizeof *io);
	if (!words || !io) {
		fprintf(err, "heisen node check: out of memory\n");
		rc = TUI_EXIT_INTERNAL;
	} else if (!transport_argv(words, &u, argv, dest, sizeof dest, port,
				   sizeof port)) {
		fprintf(err, "heisen node check: $HEISEN_SSH has too many "
			     "words; give it a wrapper script instead\n");
		rc = TUI_EXIT_USAGE;
	} else {
		int se = run_transport(argv, timeout, io);

		if (se)
			snprintf(ans.why, sizeof ans.why,
				 "cannot run %s: %s (is it installed? "
				 "$HEISEN_SSH names another transport)",
				 argv[0], strerror(se));
		else
			judge(io, argv[0], &ans);
		check_report(&r, &ans, tui_opt_value(cmd, a, "--json"), out);
		rc = ans.reachable ? TUI_EXIT_OK : TUI_EXIT_FINDINGS;
	}
	free(words);
	free(io);
	db_remote_clear(&r);
	return rc;
}

int tui_cmd_node(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err)
{
	const char *sub = a->operands[0];

	if (!strcmp(sub, "add"))
		return node_add(cmd, a, out, err);
	if (!strcmp(sub, "list"))
		return node_list_cmd(cmd, a, out, err);
	if (!strcmp(sub, "remove"))
		return node_remove(cmd, a, out, err);
	if (!strcmp(sub, "check"))
		return node_check(cmd, a, out, err);
	if (!strcmp(sub, "self"))
		return node_self(cmd, a, out, err);
	fprintf(
	    err,
	    "heisen node: no sub-command '%s'; use add, list, remove, check "
	    "or self (see 'heisen help node')\n",
	    sub);
	return TUI_EXIT_USAGE;
}
