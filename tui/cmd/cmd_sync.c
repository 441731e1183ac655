/*
 * cmd_sync.c - `heisen export` and `heisen import`: a workspace's records
 * as a stream (db/sync.h, docs/sync.md), so that runs made on another
 * machine can join this workspace.
 */
#include "tui/cli/cli.h"
#include "tui/cmd/cmd.h"
#include "tui/report/jsonw.h"

#include "db/sync.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A stream or database the user can fix (2) or a failure of ours (3). */
static int sync_exit(wasm_status st)
{
	return st == WASM_IO || st == WASM_MALFORMED || st == WASM_INVALID
		   ? TUI_EXIT_USAGE
		   : TUI_EXIT_INTERNAL;
}

int tui_cmd_export(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err)
{
	const char *sincev = tui_opt_value(cmd, a, "--since");
	const char *file = tui_opt_value(cmd, a, "-o");
	uint64_t since = 0, cursor, nruns;
	const char *path;
	FILE *f = out;
	wasm_status st;
	wasm_err e;
	db *d;
	int rc;

	if (sincev && (!tui_parse_u64(sincev, &since) || since > INT64_MAX)) {
		fprintf(err,
			"heisen export: --since expects a cursor (a run id "
			"that an earlier export printed), got '%s'\n",
			sincev);
		return TUI_EXIT_USAGE;
	}
	if (!file && isatty(fileno(out))) {
		fprintf(err, "heisen export: the stream is binary and stdout "
			     "is a terminal; write it with -o FILE or pipe "
			     "it ('heisen export | heisen import --db B -')\n");
		return TUI_EXIT_USAGE;
	}
	if ((rc = tui_open_existing_db(tui_opt_value(cmd, a, "--db"), &d, &path,
				       err)))
		return rc;
	if (file && !(f = fopen(file, "wb"))) {
		fprintf(err, "heisen export: cannot create %s: %s\n", file,
			strerror(errno));
		db_close(d);
		return TUI_EXIT_USAGE;
	}
	wasm_err_clear(&e);
	st = db_export(d, since,
		       tui_opt_value(cmd, a, "--all-campaigns") != NULL, f,
		       &cursor, &nruns, &e);
	if (file && fclose(f) != 0 && st == WASM_OK)
		st = wasm_err_set(&e, WASM_IO, WASM_NO_OFFSET,
				  "cannot write %s: %s", file, strerror(errno));
	db_close(d);
	if (st) {
		if (file)
			unlink(file);
		fprintf(err, "heisen export: %s\n", e.msg);
		return sync_exit(st);
	}
	fprintf(err, "heisen export: %" PRIu64 " runs, cursor %" PRIu64 "\n",
		nruns, cursor);
	return TUI_EXIT_OK;
}

/* Whether f (at its start) is an SQLite database: a workspace copied by
 * hand, rather than a stream. */
static bool is_workspace(FILE *f)
{
	static const char magic[16] = "SQLite format 3";
	char head[16];
	bool yes = fread(head, 1, sizeof head, f) == sizeof head &&
		   !memcmp(head, magic, sizeof head);

	rewind(f);
	return yes;
}

/* The records of the workspace in file, into d: its export stream, made
 * in memory, imported as any other. */
static wasm_status import_workspace(db *d, const char *file, db_sync_added *n,
				    wasm_err *e)
{
	uint64_t cursor, nruns;
	char *buf = NULL;
	size_t len = 0;
	wasm_status st;
	FILE *mem;
	db *src;

	if ((st = db_open(file, &src, e)))
		return st;
	if (!(mem = open_memstream(&buf, &len))) {
		db_close(src);
		return wasm_err_set(e, WASM_NOMEM, WASM_NO_OFFSET,
				    "out of memory");
	}
	st = db_export(src, 0, true, mem, &cursor, &nruns, e);
	db_close(src);
	if (fclose(mem) && !st)
		st = wasm_err_set(e, WASM_NOMEM, WASM_NO_OFFSET,
				  "out of memory for the records of %s", file);
	if (!st)
		st = db_import_mem(d, (const uint8_t *)buf, len, file, 0, n, e);
	free(buf);
	return st;
}

int tui_cmd_import(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err)
{
	const char *file = a->operands[0];
	bool json = tui_opt_value(cmd, a, "--json") != NULL;
	bool std_in = !strcmp(file, "-");
	const char *src = std_in ? "stdin" : file;
	db_sync_added n;
	wasm_status st;
	wasm_err e;
	tui_json j;
	FILE *f;
	db *d;
	int rc;

	if (!std_in && !(f = fopen(file, "rb"))) {
		fprintf(err, "heisen import: cannot open %s: %s\n", file,
			strerror(errno));
		return TUI_EXIT_USAGE;
	}
	f = std_in ? stdin : f;
	if ((rc = tui_open_db(tui_opt_value(cmd, a, "--db"), &d, err))) {
		if (!std_in)
			fclose(f);
		return rc;
	}
	wasm_err_clear(&e);
	if (!std_in && is_workspace(f)) {
		fclose(f);
		st = import_workspace(d, file, &n, &e);
	} else {
		st = db_import(d, f, src, &n, &e);
		if (!std_in)
			fclose(f);
	}
	db_close(d);
	if (st) {
		fprintf(err, "heisen import: %s\n", e.msg);
		return sync_exit(st);
	}
	if (json) {
		tui_json_init(&j, out);
		tui_json_obj(&j, NULL);
		tui_json_str(&j, "schema", "heisen.import/1");
		tui_json_str(&j, "source", src);
		tui_json_u64(&j, "runs_added", n.runs);
		tui_json_u64(&j, "campaigns_added", n.campaigns);
		tui_json_u64(&j, "bugs_added", n.bugs);
		tui_json_end(&j, '}');
		tui_json_done(&j);
	} else {
		fprintf(out,
			"heisen import: %" PRIu64 " runs added (%" PRIu64
			" campaigns, %" PRIu64 " bugs new) from %s\n",
			n.runs, n.campaigns, n.bugs, src);
	}
	return TUI_EXIT_OK;
}
