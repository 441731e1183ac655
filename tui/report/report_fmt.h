/*
 * report_fmt.h - machine output for CI: `--format sarif|junit|jsonl` of
 * `heisen bugs`, `sweep` and `check` (docs/triage.md, "Machine output for
 * CI"; the JSONL events are heisen.event/1 in docs/json.md). `--json`
 * stays heisen's own schema; these are the formats other tools read:
 *
 *   sarif  SARIF 2.1.0, one run, a result per bug (code scanning);
 *   junit  JUnit XML, a test case per program, a failure per bug;
 *   jsonl  heisen.event/1 lines: run, bug, summary.
 *
 * A command opens a tui_emit on its stdout, hands it the runs as they are
 * recorded (jsonl writes each at once and flushes it: a reader sees a
 * sweep's runs while it goes on), the programs it reports on and the bugs
 * it reports (suppressed bugs are the command's to leave out: it only
 * counts them here), then closes it. Everything else is written at
 * close, when every bug is known: each bug's stacks and race report are
 * read from the workspace then.
 *
 * Memory: the emitter copies what it is handed (bugs, program names) and
 * owns its source root; tui_emit_close writes and frees it all,
 * tui_emit_fini frees it without writing (after an error). Both accept an
 * emitter that tui_emit_init left empty (format text).
 */
#ifndef HEISEN_TUI_REPORT_FMT_H
#define HEISEN_TUI_REPORT_FMT_H

#include "tui/cli/cli.h"
#include "tui/report/filter.h"

typedef enum tui_format {
	TUI_FORMAT_TEXT, /* none given: the command's own text (or --json) */
	TUI_FORMAT_SARIF,
	TUI_FORMAT_JUNIT,
	TUI_FORMAT_JSONL,
} tui_format;

/* cmd's --format into *f and its --source-root into *root (wasm_malloc'd:
 * the directory's real path with a trailing '/', NULL when not given).
 * An exit code, the message on err under cmd's name: 2 for an unknown
 * format, --format with --json, --source-root without --format sarif or
 * naming no directory. */
int tui_format_parse(const tui_cmd *cmd, const tui_args *a, tui_format *f,
		     char **root, FILE *err);

/* What a summary says besides the bugs (tui_emit_close). */
typedef struct tui_emit_end {
	int64_t campaign;    /* 0: none (bugs) */
	const char *status;  /* the campaign's "done", "stopped"; NULL: none */
	uint64_t suppressed; /* bugs left out by the suppressions file */
	bool ran; /* the command ran the program (sweep, check): runs counted */
} tui_emit_end;

typedef struct tui_emit {
	tui_format fmt;
	const char *command; /* "bugs", "sweep", "check" */
	FILE *out;
	struct db *d;
	tui_gate gate;	    /* counted in the summary: bugs that fail it */
	char *root;	    /* --source-root, owned; NULL: absolute URIs */
	int64_t program_id; /* sweep/check: its runs' program, for bug ids */
	char **prog;	    /* program names, JUnit's test cases */
	size_t nprog, capprog;
	db_bug *bug; /* the bugs to report, in order */
	size_t nbug, capbug;
	uint64_t runs; /* run lines written */
	/* A failure inside a callback that cannot return one (a sweep
	 * hook): tui_emit_close reports it. */
	wasm_status st;
	wasm_err err;
} tui_emit;

/* An emitter of format fmt writing to out for command `command` (a
 * string that outlives it), reading bugs' details from d; it takes root
 * (tui_format_parse's) over. */
void tui_emit_init(tui_emit *em, tui_format fmt, const char *command, FILE *out,
		   struct db *d, tui_gate gate, char *root);

/* A program reported on: a JUnit test case even when it has no bug.
 * tui_emit_programs adds every program of the workspace that ran a
 * campaign (db errors). */
void tui_emit_program(tui_emit *em, const char *name);
wasm_status tui_emit_programs(tui_emit *em, wasm_err *e);

/* A bug to report (copied), its program added. False when out of
 * memory (em->st says so), to stop a db list. */
bool tui_emit_bug(tui_emit *em, const db_bug *b);

/* A run just recorded, with the hits db_run_add stored with it: a
 * heisen.event/1 run line with jsonl, nothing otherwise. For
 * det_sweep_hooks.run. */
void tui_emit_run(tui_emit *em, const db_run *r, const db_hit *hits,
		  uint32_t nhits);

/* Write the report (jsonl: a bug line per bug, then the summary line)
 * and free the emitter. The database's errors, and one a callback kept,
 * with e's message; the output is then incomplete. */
wasm_status tui_emit_close(tui_emit *em, const tui_emit_end *end, wasm_err *e);
void tui_emit_fini(tui_emit *em);

/* ---- the encoders, public for their unit tests ----------------------- */

/* n bytes of s as XML 1.0 character data (attr: as an attribute value
 * in double quotes, where '"', tab and line breaks become character
 * references, as a parser would change the latter): & < > and CR
 * escaped, and what XML 1.0 cannot carry at all
 * (control characters but tab and line breaks, U+FFFE, U+FFFF, UTF-16
 * surrogates, bytes that are not UTF-8) replaced by U+FFFD. */
void tui_xml_text(FILE *out, const char *s, size_t n, bool attr);

/* The URI of file path: with root (an absolute directory path ending in
 * '/') and path under it, the rest of path as a relative reference
 * (*relative set), else "file://" and path (absolute; a relative path
 * stays a relative reference, *relative clear). Each byte that RFC 3986
 * does not allow as itself in a path is percent-encoded (%XX, upper
 * case): all but letters, digits, "-._~!$&'()*+,;=@/" and, in an
 * absolute URI, ':'. wasm_malloc'd; NULL when out of memory. */
char *tui_file_uri(const char *path, const char *root, bool *relative);

#endif
