/*
 * report.h - the report model: a bug as `heisen show` prints it and the
 * TUI's bug screen draws it (loaded from the workspace in one go), its
 * detections grid, the source lines around a site, and the formatting
 * every listing shares (times, densities, sites, kinds, bug rows, JSON
 * of sites and stacks).
 *
 * Layer: tui/report/ includes tui/cli/cli.h (for a command's name in
 * messages and its options), detector/, replay/, db/ and core/; commands
 * (tui/cmd/) and screens (tui/screen/) print through it. Its other
 * headers: race.h (a race's text), jsonw.h (the JSON writer),
 * report_fmt.h (SARIF, JUnit, JSON lines) and filter.h (suppressions and
 * the CI gate as they apply to output).
 */
#ifndef HEISEN_TUI_REPORT_H
#define HEISEN_TUI_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "core/wasm.h"
#include "db/db.h"

/* Rows of `heisen bugs` (rows.c), also printed by `heisen sweep`:
 * plain text with a header before the first row, or with j set one JSON
 * object per bug (heisen.bugs/1's rows) into j's open array. A db list
 * callback: ctx is a tui_list. */
struct tui_json;
struct db_bug;
struct det_supp_rule;
typedef struct tui_list {
	struct tui_json *j; /* NULL: plain text */
	FILE *out;
	uint64_t n; /* rows so far */
	/* The rule that suppressed this row (NULL: none), for the JSON
	 * "suppressed" members; marks: text rows start with a column that
	 * names it (bugs --show-suppressed). Set by tui_supp_bug_row. */
	const struct det_supp_rule *rule;
	bool marks;
	bool builds; /* text rows have a column of builds (bugs --program) */
	/* Not NULL: each row goes to this machine report (--format,
	 * report_fmt.h) instead of text or j. */
	struct tui_emit *em;
} tui_list;
bool tui_bug_row(void *ctx, const struct db_bug *b);

/* s, or "?" when it is NULL or empty: a name the workspace may lack. */
const char *tui_or_unknown(const char *s);
/* What a site does, in one letter: R read, W write, A atomic. */
char tui_kind_letter(uint8_t kind);

/* Formatting shared by the listings and the TUI (rows.c), each into
 * buf of cap bytes: local time to the minute ("-" when unknown); a
 * density in basis points as "5%" or "12.5%"; a site as "func file:line"
 * with "?" for what is unknown; a bug's kinds as "W/R". */
void tui_fmt_time(double t, char *buf, size_t cap);
void tui_fmt_density(uint32_t bp, char *buf, size_t cap);
struct db_bug_site;
void tui_fmt_site(const struct db_bug_site *s, char *buf, size_t cap);
void tui_fmt_kinds(const struct db_bug *b, char *buf, size_t cap);
/* A site's JSON fields into j's open object: site, kind, function,
 * file, line (heisen.bug/1's). */
void tui_json_site(struct tui_json *j, const struct db_bug_site *s);
/* The same two for site `site` of a loaded program (rows.c):
 * `func file:line` into buf, and the JSON fields. */
struct det_prog;
void tui_prog_site_text(const struct det_prog *p, uint32_t site, char *buf,
			size_t cap);
void tui_json_prog_site(struct tui_json *j, const struct det_prog *p,
			uint32_t site);
/* The same with the access's kind instead of the site's (a memory.copy
 * site reads its source: range-read). */
void tui_json_prog_access(struct tui_json *j, const struct det_prog *p,
			  uint32_t site, uint8_t kind);
/* A call stack's JSON (race.h prints one): an array under key of
 * {function, file, line, offset} (null when there is none), then
 * "stack_truncated". */
void tui_json_stack(struct tui_json *j, const char *key, const db_stack *s);

/* ---- a recorded execution's rows (timeline.c) -------------------------
 * What row i of a trace (replay/trace.h) did, in a few words ("write 4
 * @0x1040 =7", "call fd_write", "spawn T2") and where ("deposit
 * bank.c:21", empty for a row that is not an access), into buf (cap
 * bytes); and the row as an object of heisen.timeline/1's events (the
 * watched value too with watch). */
struct rep_trace;
void tui_event_what(const struct rep_trace *t, uint64_t i, char *buf,
		    size_t cap);
void tui_event_where(const struct det_prog *p, const struct rep_trace *t,
		     uint64_t i, char *buf, size_t cap);
/* The same in a lane's width: "W4 0x1040 7 deposit:21" (kind letter,
 * width, address, the value before, function and line). */
void tui_event_short(const struct det_prog *p, const struct rep_trace *t,
		     uint64_t i, char *buf, size_t cap);
void tui_json_event(struct tui_json *j, const struct det_prog *p,
		    const struct rep_trace *t, uint64_t i, bool watch);

/* Why a campaign's runs did not end ok (rows.c), as check, explore and
 * sweep list them: each distinct (status, message) of a run that
 * trapped, timed out, hit a limit, crashed or could not start (a trap's
 * message names its function and offset), how many runs and the first
 * of them with the last lines of its stderr; beyond TUI_REASONS reasons
 * the runs are counted in more. A run that exited with its own code is
 * not one (its code is the program's to give). Zero-initialise. */
#define TUI_REASONS 8
typedef struct tui_reasons {
	struct tui_reason {
		char status[16];
		char msg[256];
		char tail[DB_TAIL_MAX]; /* the first run's stderr, "" none */
		uint64_t runs;
		int64_t first;
	} reason[TUI_REASONS];
	size_t n;
	uint64_t more;
} tui_reasons;
void tui_reasons_note(tui_reasons *rs, const db_run *r);
/* The reasons as text, indented under a campaign's summary. */
void tui_reasons_print(FILE *out, const tui_reasons *rs);
/* The JSON array "reasons" into j's open object: status, message, runs,
 * first_run, stderr (null: none). */
void tui_reasons_json(struct tui_json *j, const tui_reasons *rs);

/* ---- a bug's report (report.c): what `heisen show` prints and the TUI's
 * bug screen draws, read from the database in one go. */
#define TUI_REPORT_EXAMPLES 5
#define TUI_CONTEXT_LINES   2 /* on each side of the racing line */
#define TUI_CONTEXT_COLS    200

/* A run that detected the bug; tid/addr/count are this bug's in that run
 * when found. */
typedef struct tui_example {
	int64_t run, campaign;
	char profile[64];
	uint32_t density_bp;
	uint64_t seed;
	bool found;
	uint32_t tid[2], addr[2];
	uint64_t count;
	db_value value;
} tui_example;

/* Detections in one (node, profile, density) cell: k of n runs. */
typedef struct tui_cell {
	int64_t node_id;
	char *node, *profile;
	uint32_t density_bp;
	uint64_t k, n;
} tui_cell;

/* Everything about one bug. The detections grid has nrows rows, one per
 * (node, profile) (row r's first cell is cells[row_of[r]]) and ndens
 * columns, densities ascending; tui_report_cell gives a cell or NULL when
 * no run of that cell exists. The report owns its memory: free with
 * tui_report_free (also after a failed load). */
typedef struct tui_report {
	db_bug bug;
	db_program prog;
	tui_example ex[TUI_REPORT_EXAMPLES];
	int nex, cur;
	tui_cell *cells;
	size_t ncells, cap;
	uint32_t *dens;
	size_t ndens;
	size_t *row_of;
	size_t nrows;
	bool multi_node, nomem;
	char *note; /* the newest triage decision's note, or NULL */
	/* Each site's call stack, from the first example run that kept both
	 * (a collision's pair), else from the first that kept one for it
	 * (stack_run[i], 0: none did); `evidence` is the example whose
	 * threads, addresses and value the race report prints (-1: none was
	 * found in its run's bugs). */
	db_stack stack[2];
	int64_t stack_run[2];
	int evidence;
	/* The evidence run's location of the race and who created its
	 * threads (kind DB_LOC_NONE, spawns unknown: not recorded). */
	db_loc loc;
	db_spawn spawn[2];
	/* The first serial run that found it and kept its schedule
	 * (sched_run 0: none): the schedule, and its campaign's strategy
	 * (sched_strategy, NULL when unknown). */
	int64_t sched_run, sched_campaign;
	db_sched sched;
	char *sched_strategy;
	/* The locks each access's thread held in the evidence run, and
	 * the names the program gave those threads ("" none). */
	db_locks locks[2];
	char name[2][DB_NAME_MAX];
} tui_report;

/* Load bug `bug`: WASM_INVALID when there is no such bug (the message
 * says so), the db's errors otherwise. */
wasm_status tui_report_load(struct db *d, int64_t bug, tui_report *r,
			    wasm_err *e);
void tui_report_free(tui_report *r);
const tui_cell *tui_report_cell(const tui_report *r, size_t row, size_t col);
/* The report's detections grid as text (grid.c): a row per
 * (node, profile), a K/N column per density, in blocks of the densities
 * that fit in `width` columns (0: one block); with colour, each cell's
 * background shows its K/N against the bug's best cell (ANSI). */
void tui_print_grid(FILE *out, const tui_report *r, int width, bool colour);
/* The best cell's detection rate K/N (0: no cell detected it), the
 * scale of the grid's heat. */
double tui_report_best(const tui_report *r);
/* The bug's race report (tui/report/race.h) from its evidence run. */
void tui_report_race(FILE *out, const tui_report *r);

/* Source lines around a site: up to TUI_CONTEXT_LINES on each side,
 * control bytes replaced, long lines cut. */
typedef struct tui_context {
	char path[4096]; /* where the file was found */
	uint32_t first, n;
	char text[2 * TUI_CONTEXT_LINES + 1][TUI_CONTEXT_COLS + 1];
} tui_context;
/* Open a source file DWARF names: the path as recorded, then its base
 * name in the current directory, then in the program's directory
 * (progpath's; the recorded relative path, then the base name), as
 * DWARF records paths as they were where the program was compiled.
 * path (cap bytes) says where it was found; NULL when nowhere. */
FILE *tui_find_source(const char *file, const char *progpath, char *path,
		      size_t cap);
/* Find the site's source file (tui_find_source) and read the lines
 * around its line; false when not found or shorter than the line (it
 * changed since). */
bool tui_read_context(const struct db_bug_site *site, const char *progpath,
		      tui_context *cx);

#endif
