/*
 * cmd_remote.c - working with remote nodes (docs/nodes.md): `heisen fetch`
 * brings a node's records home, `heisen dispatch` starts a sweep on nodes,
 * `heisen node status` shows a node's campaigns; and the node's side of
 * dispatch: `node receive` stores a program sent by hash, `node start`
 * starts a sweep that outlives the ssh session.
 *
 * Everything reaches the node through remote/transport.h (ssh, one
 * quoted word per argument). What comes back is untrusted: a fetched
 * stream is checked whole before anything is imported (db/sync.h), and
 * text shown from a node has its control bytes replaced.
 */
#include "tui/cli/cli.h"
#include "tui/cmd/cmd.h"
#include "tui/report/jsonw.h"

#include "db/nodes.h"
#include "db/sync.h"
#include "remote/transport.h"
#include "rewriter/instrument.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define FETCH_TIMEOUT_S	   600.0
#define DISPATCH_TIMEOUT_S 120.0
#define STATUS_OUT_MAX	   (1024 * 1024)
#define PROGRAM_MAX	   ((size_t)1 << 30) /* what `node receive` takes */

/* The nodes a command names: every operand that is a node, or all of them
 * with --all. */
typedef struct node_set {
	db_remote *v;
	size_t n;
} node_set;

static void node_set_free(node_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		db_remote_clear(&s->v[i]);
	free(s->v);
	memset(s, 0, sizeof *s);
}

static bool collect(void *ctx, const db_remote *r)
{
	node_set *s = ctx;
	db_remote *v = realloc(s->v, (s->n + 1) * sizeof *v);

	if (!v)
		return false;
	s->v = v;
	v[s->n] = *r;
	v[s->n].name = wasm_strdup(r->name);
	v[s->n].url = wasm_strdup(r->url);
	s->n++;
	return v[s->n - 1].name && v[s->n - 1].url;
}

/* Fill s with names[0..n) (each looked up: an unknown one is an error),
 * or with every node when n is 0 and all is set. An exit code. */
static int nodes_named(db *d, const char *who, const char *const *names, int n,
		       bool all, node_set *s, FILE *err)
{
	wasm_err e;

	wasm_err_clear(&e);
	if (all) {
		if (db_remote_list(d, collect, s, &e)) {
			fprintf(err, "heisen %s: %s\n", who, e.msg);
			return tui_exit_for(e.status);
		}
		if (!s->n) {
			fprintf(err,
				"heisen %s: no nodes in %s (add one with "
				"'heisen node add NAME URL')\n",
				who, db_file(d));
			return TUI_EXIT_USAGE;
		}
		return TUI_EXIT_OK;
	}
	for (int i = 0; i < n; i++) {
		db_remote r;
		if (db_remote_get(d, names[i], &r, &e)) {
			fprintf(err, "heisen %s: %s\n", who, e.msg);
			return tui_exit_for(e.status);
		}
		bool ok = collect(s, &r);
		db_remote_clear(&r);
		if (!ok) {
			fprintf(err, "heisen %s: out of memory\n", who);
			return TUI_EXIT_INTERNAL;
		}
	}
	return TUI_EXIT_OK;
}

/* ---- fetch --------------------------------------------------------------- */

typedef struct fetch_progress {
	const char *name;
	FILE *tty; /* NULL: not a terminal, no progress line */
} fetch_progress;

static void on_bytes(void *ctx, uint64_t bytes)
{
	fetch_progress *p = ctx;

	if (p->tty)
		fprintf(p->tty, "\r%s: %.1f MiB received", p->name,
			(double)bytes / (1024.0 * 1024.0));
}

/* What one node's fetch did, for the report. */
typedef struct fetched {
	bool ok;
	char why[600];
	db_sync_added added;
	uint64_t cursor, bytes;
} fetched;

static void fetch_one(db *d, const char *path, const db_remote *r,
		      double timeout, FILE *err, fetched *f)
{
	char cursor[32];
	db_node_url u;
	rmt_result io;
	wasm_err e;
	fetch_progress pr = {r->name, isatty(fileno(err)) ? err : NULL};

	memset(f, 0, sizeof *f);
	f->cursor = r->cursor;
	if (tui_node_url("fetch", path, r, &u, err)) {
		snprintf(f->why, sizeof f->why, "its URL is not usable");
		return;
	}
	snprintf(cursor, sizeof cursor, "%" PRIu64, r->cursor);
	const char *words[] = {"heisen",	  "export", "--since", cursor,
			       "--all-campaigns", "--db",   u.path,    NULL};
	rmt_call c = {&u, words, timeout, -1, 0, on_bytes, &pr};
	wasm_err_clear(&e);
	if (rmt_run(&c, &io, &e)) {
		snprintf(f->why, sizeof f->why, "%s", e.msg);
		return;
	}
	if (pr.tty)
		fprintf(pr.tty, "\r\033[K");
	f->bytes = io.nout;
	if (rmt_failed(&io, f->why, sizeof f->why)) {
		rmt_result_free(&io);
		return;
	}
	if (db_import_mem(d, io.out, io.nout, "its stream", r->id, &f->added,
			  &e)) {
		/* The report names the node and says nothing was imported:
		 * once each, not again from the import's message. */
		static const char tail[] = "; nothing was imported";
		size_t n = strlen(e.msg), k = sizeof tail - 1;
		if (n >= k && !strcmp(e.msg + n - k, tail))
			e.msg[n - k] = 0;
		snprintf(f->why, sizeof f->why, "%s", e.msg);
	} else {
		f->ok = true;
	}
	if (f->ok && f->added.last_run > f->cursor)
		f->cursor = f->added.last_run;
	rmt_result_free(&io);
}

/* Fetch from a Slurm node (with wait, until its tasks have ended) and
 * report it as fetch reports a node, with the task files imported,
 * refused and still running. */
static bool fetch_slurm(db *d, const db_remote *r, double timeout, bool wait,
			bool json, tui_json *j, FILE *out, FILE *err)
{
	tui_slurm_fetched f;

	tui_slurm_fetch(d, r, timeout, wait,
			wait && isatty(fileno(err)) ? err : NULL, &f);
	if (json) {
		tui_json_obj(j, NULL);
		tui_json_str(j, "name", r->name);
		tui_json_bool(j, "ok", f.reached && !f.refused);
		if (f.reached && !f.refused)
			tui_json_null(j, "error");
		else
			tui_json_str(j, "error", f.why);
		tui_json_u64(j, "bytes", f.bytes);
		tui_json_u64(j, "runs_added", f.runs);
		tui_json_u64(j, "campaigns_added", f.campaigns);
		tui_json_u64(j, "bugs_added", f.bugs);
		tui_json_u64(j, "cursor", 0);
		tui_json_u64(j, "task_files", f.files);
		tui_json_u64(j, "task_files_refused", f.refused);
		tui_json_u64(j, "tasks_running", f.active);
		tui_json_u64(j, "fetches", f.fetches);
		tui_json_end(j, '}');
	} else if (f.reached) {
		fprintf(out,
			"%s: %" PRIu64 " runs added (%" PRIu64
			" campaigns, %" PRIu64 " bugs new) from %u task "
			"files%s",
			r->name, f.runs, f.campaigns, f.bugs, f.files,
			f.active ? "; " : "\n");
		if (f.active)
			fprintf(out,
				"%u tasks still pending or running, fetched "
				"when they end\n",
				f.active);
	}
	if (!f.reached)
		fprintf(err, "heisen fetch: %s: %s; %s\n", r->name, f.why,
			f.fetches > 1
			    ? "what the fetches before brought is kept"
			    : "nothing was imported from it");
	else if (f.refused)
		fprintf(err,
			"heisen fetch: %s: %u task files refused, nothing "
			"imported from them (the others were): %s\n",
			r->name, f.refused, f.why);
	else if (f.timed_out)
		fprintf(err,
			"heisen fetch: %s: %u tasks still pending or running "
			"after %.0f s of --wait; what ended is home, 'heisen "
			"fetch %s' brings the rest later\n",
			r->name, f.active, timeout, r->name);
	return f.reached && !f.refused && !f.timed_out;
}

int tui_cmd_fetch(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err)
{
	bool all = tui_opt_value(cmd, a, "--all") != NULL;
	bool json = tui_opt_value(cmd, a, "--json") != NULL;
	bool wait = tui_opt_value(cmd, a, "--wait") != NULL;
	const char *tv = tui_opt_value(cmd, a, "--timeout");
	double timeout = FETCH_TIMEOUT_S;
	node_set s = {0};
	int rc, failed = 0;
	const char *path;
	tui_json j;
	db *d;

	if (all == (a->noperands > 0)) {
		fprintf(err, "heisen fetch: name the nodes, or give --all; "
			     "usage: heisen fetch NAME...|--all\n");
		return TUI_EXIT_USAGE;
	}
	if (tv && !tui_parse_duration(tv, &timeout)) {
		fprintf(err,
			"heisen fetch: --timeout expects a duration such as "
			"90s or 10m, got '%s'\n",
			tv);
		return TUI_EXIT_USAGE;
	}
	if ((rc = tui_open_existing_db(tui_opt_value(cmd, a, "--db"), &d, &path,
				       err)))
		return rc;
	if ((rc = nodes_named(d, "fetch", a->operands, a->noperands, all, &s,
			      err))) {
		db_close(d);
		node_set_free(&s);
		return rc;
	}
	for (size_t i = 0; wait && !all && i < s.n; i++)
		if (strncmp(s.v[i].url, "slurm://", 8)) {
			fprintf(err,
				"heisen fetch: --wait waits for the tasks of a "
				"Slurm node; %s is an ssh node, whose sweep "
				"'heisen node status %s' follows\n",
				s.v[i].name, s.v[i].name);
			db_close(d);
			node_set_free(&s);
			return TUI_EXIT_USAGE;
		}
	if (json) {
		tui_json_init(&j, out);
		tui_json_obj(&j, NULL);
		tui_json_str(&j, "schema", "heisen.fetch/1");
		tui_json_arr(&j, "nodes");
	}
	for (size_t i = 0; i < s.n; i++) {
		fetched f;
		if (!strncmp(s.v[i].url, "slurm://", 8)) {
			failed += !fetch_slurm(d, &s.v[i], timeout, wait, json,
					       &j, out, err);
			continue;
		}
		fetch_one(d, path, &s.v[i], timeout, err, &f);
		failed += !f.ok;
		if (json) {
			tui_json_obj(&j, NULL);
			tui_json_str(&j, "name", s.v[i].name);
			tui_json_bool(&j, "ok", f.ok);
			if (f.ok)
				tui_json_null(&j, "error");
			else
				tui_json_str(&j, "error", f.why);
			tui_json_u64(&j, "bytes", f.bytes);
			tui_json_u64(&j, "runs_added", f.added.runs);
			tui_json_u64(&j, "campaigns_added", f.added.campaigns);
			tui_json_u64(&j, "bugs_added", f.added.bugs);
			tui_json_u64(&j, "cursor", f.cursor);
			tui_json_end(&j, '}');
		} else if (f.ok) {
			fprintf(out,
				"%s: %" PRIu64 " runs added (%" PRIu64
				" campaigns, %" PRIu64 " bugs new), cursor "
				"%" PRIu64 "\n",
				s.v[i].name, f.added.runs, f.added.campaigns,
				f.added.bugs, f.cursor);
		} else {
			fprintf(err,
				"heisen fetch: %s: %s; nothing was imported "
				"from it\n",
				s.v[i].name, f.why);
		}
	}
	if (json) {
		tui_json_end(&j, ']');
		tui_json_end(&j, '}');
		tui_json_done(&j);
	}
	db_close(d);
	node_set_free(&s);
	return failed ? TUI_EXIT_FINDINGS : TUI_EXIT_OK;
}

/* ---- dispatch ------------------------------------------------------------ */

/* Whether an option of `dispatch` goes on to the node's sweep: all but
 * its own --db and --json (its table is sweep's plan options and these). */
static bool passed_on(const char *opt)
{
	return strcmp(opt, "--db") && strcmp(opt, "--json");
}

/* The first line of s without control bytes, into buf. */
static void first_line(const uint8_t *s, size_t n, char *buf, size_t cap)
{
	size_t k = 0;

	for (size_t i = 0; i < n && s[i] != '\n' && k + 1 < cap; i++)
		buf[k++] = s[i] < 0x20 ? '?' : (char)s[i];
	buf[k] = 0;
}

/* Send the program (fd, hash) to node u and start the sweep there; false
 * with why. The node's answers go into stored and started. */
static bool dispatch_one(const db_node_url *u, int fd, const char *hash,
			 const char *name, const char *const *sweep_words,
			 char *stored, char *started, size_t cap, char *why,
			 size_t wcap)
{
	const char *recv[] = {"heisen", "node", "receive", "--db",
			      u->path,	hash,	name,	   NULL};
	const char *words[TUI_MAX_OPERANDS + 2 * TUI_MAX_SEEN + 16];
	rmt_call c = {u, recv, DISPATCH_TIMEOUT_S, fd, 64 * 1024, NULL, NULL};
	rmt_result io;
	wasm_err e;
	int n = 0;

	wasm_err_clear(&e);
	if (lseek(fd, 0, SEEK_SET) != 0 || rmt_run(&c, &io, &e)) {
		snprintf(why, wcap, "%s",
			 e.status ? e.msg : "cannot read the program");
		return false;
	}
	if (rmt_failed(&io, why, wcap)) {
		rmt_result_free(&io);
		return false;
	}
	first_line(io.out, io.nout, stored, cap);
	rmt_result_free(&io);
	if (!*stored || *stored != '/') {
		snprintf(why, wcap,
			 "the node did not say where it stored the program "
			 "(an older heisen there?)");
		return false;
	}
	words[n++] = "heisen";
	words[n++] = "node";
	words[n++] = "start";
	words[n++] = "--db";
	words[n++] = u->path;
	words[n++] = "--";
	words[n++] = "sweep";
	words[n++] = stored;
	for (const char *const *w = sweep_words; *w; w++)
		words[n++] = *w;
	words[n] = NULL;
	c = (rmt_call){u, words, DISPATCH_TIMEOUT_S, -1, 64 * 1024, NULL, NULL};
	if (rmt_run(&c, &io, &e)) {
		snprintf(why, wcap, "%s", e.msg);
		return false;
	}
	if (rmt_failed(&io, why, wcap)) {
		rmt_result_free(&io);
		return false;
	}
	first_line(io.out, io.nout, started, cap);
	rmt_result_free(&io);
	return true;
}

static bool file_name_ok(const char *name);

/* The operand that is the program: the first ending in ".wasm". */
static int program_operand(const tui_args *a)
{
	for (int i = 0; i < a->noperands; i++) {
		size_t n = strlen(a->operands[i]);
		if (n > 5 && !strcmp(a->operands[i] + n - 5, ".wasm"))
			return i;
	}
	return -1;
}

int tui_cmd_dispatch(const tui_cmd *cmd, const tui_args *a, FILE *out,
		     FILE *err)
{
	bool json = tui_opt_value(cmd, a, "--json") != NULL;
	const char *sweep_words[2 * TUI_MAX_SEEN + TUI_MAX_OPERANDS + 2];
	int prog = program_operand(a), n = 0, rc, failed = 0, fd;
	char hash[24], name[256], stored[1024], started[1024], why[600];
	node_set s = {0};
	uint8_t *bytes;
	size_t len;
	const char *path;
	tui_json j;
	wasm_err e;
	db *d;

	if (tui_opt_value(cmd, a, "--resume") || prog >= 1) {
		int nn = prog >= 1 ? prog : a->noperands;
		db_remote r;
		bool slurm = false;
		if ((rc = tui_open_existing_db(tui_opt_value(cmd, a, "--db"),
					       &d, &path, err)))
			return rc;
		if ((rc = nodes_named(d, "dispatch", a->operands, nn, false, &s,
				      err))) {
			db_close(d);
			node_set_free(&s);
			return rc;
		}
		db_close(d);
		for (size_t i = 0; i < s.n; i++)
			slurm = slurm || !strncmp(s.v[i].url, "slurm://", 8);
		if ((slurm || tui_opt_value(cmd, a, "--resume")) &&
		    (s.n != 1 || !slurm)) {
			fprintf(err, "heisen dispatch: %s\n",
				slurm ? "a Slurm node takes a campaign alone: "
					"dispatch to it by itself"
				      : "--resume is for a campaign dispatched "
					"to a Slurm node; resume a sweep on an "
					"ssh node there (heisen sweep "
					"--resume)");
			node_set_free(&s);
			return TUI_EXIT_USAGE;
		}
		if (slurm) {
			r = s.v[0];
			rc = tui_slurm_dispatch(
			    cmd, a,
			    tui_opt_value(cmd, a, "--resume") ? -1 : prog, &r,
			    out, err);
			node_set_free(&s);
			return rc;
		}
		node_set_free(&s);
	}
	if (prog < 1) {
		fprintf(err, "heisen dispatch: usage: heisen dispatch NAME... "
			     "PROGRAM.wasm [sweep options] [-- ARGS] | "
			     "heisen dispatch NAME --resume CAMPAIGN\n");
		return TUI_EXIT_USAGE;
	}
	wasm_err_clear(&e);
	if (wasm_read_file(a->operands[prog], &bytes, &len, &e)) {
		tui_print_err(err, a->operands[prog], &e);
		return TUI_EXIT_USAGE;
	}
	snprintf(hash, sizeof hash, "%016" PRIx64, rw_hash(bytes, len));
	wasm_free(bytes);
	{
		char *copy = strdup(a->operands[prog]);
		snprintf(name, sizeof name, "%s", copy ? basename(copy) : "");
		free(copy);
	}
	/* The node stores it under this name and refuses any other
	 * character: better said here than as the node's usage line. */
	if (!file_name_ok(name)) {
		fprintf(err,
			"heisen dispatch: %s: a program sent to a node is "
			"named with letters, digits, '.', '_' and '-' only; "
			"copy it to such a name\n",
			a->operands[prog]);
		return TUI_EXIT_USAGE;
	}
	for (int i = 0; i < a->nseen; i++) {
		const char *o = cmd->opts[a->seen[i].opt].name;
		if (!passed_on(o))
			continue;
		sweep_words[n++] = o;
		if (cmd->opts[a->seen[i].opt].arg)
			sweep_words[n++] = a->seen[i].value;
	}
	if (prog + 1 < a->noperands)
		sweep_words[n++] = "--";
	for (int i = prog + 1; i < a->noperands; i++)
		sweep_words[n++] = a->operands[i];
	sweep_words[n] = NULL;
	if ((fd = open(a->operands[prog], O_RDONLY | O_CLOEXEC)) < 0) {
		fprintf(err, "heisen dispatch: cannot open %s: %s\n",
			a->operands[prog], strerror(errno));
		return TUI_EXIT_USAGE;
	}
	if ((rc = tui_open_existing_db(tui_opt_value(cmd, a, "--db"), &d, &path,
				       err))) {
		close(fd);
		return rc;
	}
	rc = nodes_named(d, "dispatch", a->operands, prog, false, &s, err);
	db_close(d);
	if (rc) {
		close(fd);
		node_set_free(&s);
		return rc;
	}
	if (json) {
		tui_json_init(&j, out);
		tui_json_obj(&j, NULL);
		tui_json_str(&j, "schema", "heisen.dispatch/1");
		tui_json_str(&j, "program", name);
		tui_json_str(&j, "hash", hash);
		tui_json_arr(&j, "nodes");
	}
	for (size_t i = 0; i < s.n; i++) {
		db_node_url u;
		bool ok = !tui_node_url("dispatch", path, &s.v[i], &u, err);
		*why = *stored = *started = 0;
		if (ok)
			ok = dispatch_one(&u, fd, hash, name, sweep_words,
					  stored, started, sizeof stored, why,
					  sizeof why);
		failed += !ok;
		if (json) {
			tui_json_obj(&j, NULL);
			tui_json_str(&j, "name", s.v[i].name);
			tui_json_bool(&j, "ok", ok);
			if (ok) {
				tui_json_null(&j, "error");
				tui_json_str(&j, "program_path", stored);
				tui_json_str(&j, "started", started);
			} else {
				tui_json_str(&j, "error", why);
			}
			tui_json_end(&j, '}');
		} else if (ok) {
			fprintf(out,
				"%s: sweep of %s started (%s); follow it with "
				"'heisen node status %s', bring its runs home "
				"with 'heisen fetch %s'\n",
				s.v[i].name, name, started, s.v[i].name,
				s.v[i].name);
		} else {
			fprintf(err, "heisen dispatch: %s: %s\n", s.v[i].name,
				why);
		}
	}
	if (json) {
		tui_json_end(&j, ']');
		tui_json_end(&j, '}');
		tui_json_done(&j);
	}
	close(fd);
	node_set_free(&s);
	return failed ? TUI_EXIT_FINDINGS : TUI_EXIT_OK;
}

/* ---- node status --------------------------------------------------------- */

int tui_node_status(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err)
{
	bool json = tui_opt_value(cmd, a, "--json") != NULL;
	const char *words[] = {"heisen", "campaigns", "--db", NULL, NULL, NULL};
	char why[600];
	db_node_url u;
	db_remote r;
	rmt_result io;
	wasm_err e;
	int rc;

	if (a->noperands != 2) {
		fprintf(err, "heisen node: usage: heisen node status NAME "
			     "[--db FILE] [--json]\n");
		return TUI_EXIT_USAGE;
	}
	if ((rc = tui_node_find(tui_opt_value(cmd, a, "--db"), a->operands[1],
				"node status", &r, &u, err)))
		return rc;
	if (u.slurm) {
		rc = tui_slurm_status(&r, tui_opt_value(cmd, a, "--db"), json,
				      out, err);
		db_remote_clear(&r);
		return rc;
	}
	words[3] = u.path;
	words[4] = json ? "--json" : NULL;
	rmt_call c = {&u,   words, DISPATCH_TIMEOUT_S, -1, STATUS_OUT_MAX,
		      NULL, NULL};
	wasm_err_clear(&e);
	if (rmt_run(&c, &io, &e)) {
		fprintf(err, "heisen node status: %s: %s\n", r.name, e.msg);
		db_remote_clear(&r);
		return TUI_EXIT_FINDINGS;
	}
	if (rmt_failed(&io, why, sizeof why)) {
		fprintf(err, "heisen node status: %s: %s\n", r.name, why);
		rc = TUI_EXIT_FINDINGS;
	} else if (json && (io.nout < 1 || io.out[0] != '{')) {
		fprintf(err,
			"heisen node status: %s answered, but not with JSON "
			"(an older heisen there?)\n",
			r.name);
		rc = TUI_EXIT_FINDINGS;
	} else {
		/* The node's text, as it wrote it, bar control bytes. */
		if (!json)
			fprintf(out, "%s (%s):\n", r.name, r.url);
		for (size_t i = 0; i < io.nout; i++)
			fputc(io.out[i] < 0x20 && io.out[i] != '\n' &&
				      io.out[i] != '\t'
				  ? '?'
				  : io.out[i],
			      out);
	}
	rmt_result_free(&io);
	db_remote_clear(&r);
	return rc;
}

/* ---- the node's side of dispatch ----------------------------------------- */

/* dir of the workspace path ws + "/heisen-programs/" + hash, made. */
static bool program_dir(const char *ws, const char *hash, char *buf, size_t cap)
{
	char *copy = strdup(ws);
	int n;

	if (!copy)
		return false;
	n = snprintf(buf, cap, "%s/heisen-programs", dirname(copy));
	free(copy);
	if (n < 0 || (size_t)n >= cap)
		return false;
	mkdir(buf, 0755);
	n = snprintf(buf + n, cap - (size_t)n, "/%s", hash);
	if (n < 0)
		return false;
	return mkdir(buf, 0755) == 0 || errno == EEXIST;
}

/* Whether file exists and hashes to hash. */
static bool have_program(const char *file, const char *hash)
{
	uint8_t *bytes;
	size_t len;
	wasm_err e;
	char h[24];

	if (wasm_read_file(file, &bytes, &len, &e))
		return false;
	snprintf(h, sizeof h, "%016" PRIx64, rw_hash(bytes, len));
	wasm_free(bytes);
	return !strcmp(h, hash);
}

static bool hash_ok(const char *h)
{
	size_t n = strlen(h);

	if (n != 16)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((h[i] >= '0' && h[i] <= '9') ||
		      (h[i] >= 'a' && h[i] <= 'f')))
			return false;
	return true;
}

/* A program's file name: what db_node_name_ok allows, ending in .wasm. */
static bool file_name_ok(const char *name)
{
	char msg[128];
	size_t n = strlen(name);

	return n > 5 && !strcmp(name + n - 5, ".wasm") &&
	       db_node_name_ok(name, msg, sizeof msg);
}

int tui_node_receive(const tui_cmd *cmd, const tui_args *a, FILE *out,
		     FILE *err)
{
	const char *ws = tui_opt_value(cmd, a, "--db");
	char dir[4096], file[4400], tmp[4500], wsbuf[4096];
	wasm_buf b = {0};
	uint8_t buf[65536];
	wasm_err e;
	ssize_t n;

	if (a->noperands != 3 || !ws || !hash_ok(a->operands[1]) ||
	    !file_name_ok(a->operands[2])) {
		fprintf(err, "heisen node: usage: heisen node receive --db "
			     "WORKSPACE HASH NAME.wasm (HASH: 16 hex digits; "
			     "NAME: letters, digits, '.', '_', '-'), the "
			     "program on stdin\n");
		return TUI_EXIT_USAGE;
	}
	ws = db_path_resolve(ws, wsbuf, sizeof wsbuf);
	if (!program_dir(ws, a->operands[1], dir, sizeof dir)) {
		fprintf(err, "heisen node receive: cannot make %s: %s\n", dir,
			strerror(errno));
		return TUI_EXIT_USAGE;
	}
	snprintf(file, sizeof file, "%s/%s", dir, a->operands[2]);
	/* Sent once: a program already here is not read again. */
	if (have_program(file, a->operands[1])) {
		fprintf(out, "%s\n", file);
		return TUI_EXIT_OK;
	}
	while ((n = read(0, buf, sizeof buf)) > 0 && b.len <= PROGRAM_MAX)
		wasm_buf_put(&b, buf, (size_t)n);
	if (n < 0 || b.oom || b.len > PROGRAM_MAX) {
		fprintf(err,
			"heisen node receive: cannot read the program: %s\n",
			n < 0 ? strerror(errno) : "too large or out of memory");
		wasm_buf_fini(&b);
		return TUI_EXIT_USAGE;
	}
	snprintf(tmp, sizeof tmp, "%s.%ld.tmp", file, (long)getpid());
	char h[24];
	snprintf(h, sizeof h, "%016" PRIx64, rw_hash(b.data, b.len));
	wasm_err_clear(&e);
	if (strcmp(h, a->operands[1])) {
		fprintf(
		    err,
		    "heisen node receive: the program arrived with hash %s, "
		    "not %s: cut short on the way? nothing was stored\n",
		    h, a->operands[1]);
		wasm_buf_fini(&b);
		return TUI_EXIT_USAGE;
	}
	bool written = !wasm_write_file(tmp, b.data, b.len, &e);
	wasm_buf_fini(&b);
	if (!written || rename(tmp, file) != 0) {
		fprintf(err, "heisen node receive: cannot store %s: %s\n", file,
			written ? strerror(errno) : e.msg);
		unlink(tmp);
		return TUI_EXIT_USAGE;
	}
	fprintf(out, "%s\n", file);
	return TUI_EXIT_OK;
}

/* The last line of the log file at path, from offset from on. */
static void log_tail(const char *path, off_t from, char *buf, size_t cap)
{
	char text[4096];
	ssize_t n = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	*buf = 0;
	if (fd < 0)
		return;
	if (lseek(fd, from, SEEK_SET) == from)
		n = read(fd, text, sizeof text - 1);
	close(fd);
	text[n > 0 ? n : 0] = 0;
	rmt_last_line(text, buf, cap);
}

/* How long `node start` watches the sweep it started: one that cannot
 * open its workspace or program ends well within it, and dispatch
 * reports that instead of "started". */
#define START_WATCH_MS 400

int tui_node_start(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err)
{
	const char *ws = tui_opt_value(cmd, a, "--db");
	const char *argv[TUI_MAX_OPERANDS + 4];
	char log[4200], wsbuf[4096], line[400], *copy;
	struct stat sb;
	int n = 0, fd, status;
	off_t log_at;
	pid_t pid;
	db *d;

	if (a->noperands < 3 || !ws || strcmp(a->operands[1], "sweep")) {
		fprintf(err, "heisen node: usage: heisen node start --db "
			     "WORKSPACE -- sweep PROGRAM.wasm [sweep "
			     "options]\n");
		return TUI_EXIT_USAGE;
	}
	ws = db_path_resolve(ws, wsbuf, sizeof wsbuf);
	/* What the sweep would fail on at once is said here, to dispatch,
	 * rather than only in the log. */
	if (stat(a->operands[2], &sb) != 0 || !S_ISREG(sb.st_mode)) {
		fprintf(err,
			"heisen node start: the program %s is not a file on "
			"the node; nothing was started\n",
			a->operands[2]);
		return TUI_EXIT_USAGE;
	}
	if (tui_open_db(ws, &d, err))
		return TUI_EXIT_USAGE;
	db_close(d);
	if (!(copy = strdup(ws))) {
		fprintf(err, "heisen node start: out of memory\n");
		return TUI_EXIT_INTERNAL;
	}
	snprintf(log, sizeof log, "%s/heisen-dispatch.log", dirname(copy));
	free(copy);
	/* --db goes before the sweep's own words: after a '--' there, it
	 * would be one of the program's arguments, and the sweep would write
	 * to ./heisen.db in the login's home. */
	argv[n++] = "heisen";
	argv[n++] = "sweep";
	argv[n++] = "--db";
	argv[n++] = ws;
	for (int i = 2; i < a->noperands; i++)
		argv[n++] = a->operands[i];
	argv[n] = NULL;
	if ((fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644)) <
	    0) {
		fprintf(err, "heisen node start: cannot open %s: %s\n", log,
			strerror(errno));
		return TUI_EXIT_USAGE;
	}
	log_at = lseek(fd, 0, SEEK_END);
	fflush(out);
	fflush(err);
	pid = fork();
	if (pid < 0) {
		fprintf(err, "heisen node start: cannot fork: %s\n",
			strerror(errno));
		close(fd);
		return TUI_EXIT_INTERNAL;
	}
	if (pid == 0) {
		/* Its own session, no terminal, output to the log: the sweep
		 * outlives the ssh session that started it. */
		int in = open("/dev/null", O_RDONLY);
		setsid();
		if (in >= 0)
			dup2(in, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		execv("/proc/self/exe", (char *const *)argv);
		_exit(127);
	}
	close(fd);
	for (int ms = 0; ms < START_WATCH_MS; ms += 20) {
		struct timespec ts = {0, 20 * 1000000L};
		if (waitpid(pid, &status, WNOHANG) == pid) {
			if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
				break;
			log_tail(log, log_at < 0 ? 0 : log_at, line,
				 sizeof line);
			fprintf(err,
				"heisen node start: the sweep ended at once "
				"(%s %d)%s%s; see %s\n",
				WIFEXITED(status) ? "exit" : "signal",
				WIFEXITED(status) ? WEXITSTATUS(status)
						  : WTERMSIG(status),
				*line ? ": " : "", line, log);
			return TUI_EXIT_USAGE;
		}
		nanosleep(&ts, NULL);
	}
	fprintf(out, "pid %ld on the node, log %s\n", (long)pid, log);
	return TUI_EXIT_OK;
}
