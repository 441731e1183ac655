/*
 * cli.h - heisen's command language: one table of commands that argv
 * parsing, `help`, and (later) the TUI prompt, scripts and completion all
 * read.
 *
 * A command is a row of tui_commands[]: its name, a usage synopsis, a
 * one-line summary, a longer description, its options and its handler.
 * Options are parsed by tui_parse_opts from the same rows, so help text and
 * parsing cannot drift apart.
 *
 * Exit codes (also the handlers' return values), everywhere:
 *   0 success, 1 findings when asked for, 2 bad usage or bad input,
 *   3 internal error. Errors go to stderr, results to stdout.
 */
#ifndef HEISEN_TUI_CLI_H
#define HEISEN_TUI_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "core/wasm.h"
#include "db/db.h"

enum {
	TUI_EXIT_OK = 0,
	TUI_EXIT_FINDINGS = 1,
	TUI_EXIT_USAGE = 2,
	TUI_EXIT_INTERNAL = 3,
};

/* One option of a command. `arg` names the value ("FILE"), or is NULL
 * for a flag, or lists in brackets the words of an optional value
 * ("[new|any]"): given as --opt=WORD (any word: the handler judges it),
 * or as --opt WORD when WORD is one of them, else the value is "". */
typedef struct tui_opt {
	const char *name; /* "--json" */
	const char *arg;
	const char *help;
} tui_opt;
/* Whether word is one of the choices of o's optional value. */
bool tui_opt_choice(const tui_opt *o, const char *word);

/* Parsed options: values[i] is the value of opts[i] ("" for a set flag,
 * NULL when absent; the last one when given more than once); operands are
 * the remaining words in order. seen[] lists every option given, in
 * order, so that repeatable options (--dir, --env) keep each value: read
 * them with tui_opt_values. Storage points into argv; nothing to free. */
#define TUI_MAX_OPTS 20
#define TUI_MAX_OPERANDS 64
#define TUI_MAX_SEEN 64
typedef struct tui_args {
	const char *values[TUI_MAX_OPTS];
	const char *operands[TUI_MAX_OPERANDS];
	int noperands;
	struct tui_seen {
		int opt;           /* index into the command's opts */
		const char *value; /* as in values[] */
	} seen[TUI_MAX_SEEN];
	int nseen;
} tui_args;

typedef struct tui_cmd tui_cmd;

/* A handler runs a command with its parsed arguments; returns an exit
 * code. out/err are where results and errors go. */
typedef int (*tui_handler)(const tui_cmd *cmd, const tui_args *a, FILE *out,
			   FILE *err);

struct tui_cmd {
	const char *name;
	const char *usage;   /* "FILE.wasm [--json]" */
	const char *summary; /* one line, for the command list */
	const char *help;    /* paragraphs shown by `heisen help CMD` */
	int min_operands, max_operands; /* max TUI_RAW_ARGS: see below */
	const tui_opt *opts; /* terminated by a row with name NULL */
	tui_handler run;
};

/* max_operands of a command whose words are not heisen's to parse
 * (`heisen cc` hands them to clang): every word after the command name
 * becomes an operand, options included; only --help and -h still show
 * the command's help. */
#define TUI_RAW_ARGS (-1)

extern const tui_cmd tui_commands[];

/* Find a command by name, or NULL. */
const tui_cmd *tui_find_cmd(const char *name);

/* Parse argv (after the command name) against cmd's options. On a bad
 * option or operand count prints a one-line message to err and returns
 * false. */
bool tui_parse_opts(const tui_cmd *cmd, int argc, char **argv, tui_args *a,
		    FILE *err);

/* Value of option `name` in a, or NULL when not given. */
const char *tui_opt_value(const tui_cmd *cmd, const tui_args *a,
			  const char *name);

/* Every value of a repeatable option `name`, in command-line order:
 * stores up to cap of them in vals and returns how many were given. */
int tui_opt_values(const tui_cmd *cmd, const tui_args *a, const char *name,
		   const char **vals, int cap);

/* Run one command line (argv[0] is the command name). */
int tui_dispatch(int argc, char **argv, FILE *out, FILE *err);

/* ---- sessions and scripts (tui/script.c) --------------------------------
 *
 * One command language for argv, scripts (`heisen -f FILE`, `heisen -c
 * 'CMD; CMD'`, commands on stdin when it is not a terminal) and the
 * interactive command line: a line is split into words (whitespace;
 * '...' literal; "..." with \" \\ \$ escapes; # to end of line is a
 * comment; ';' separates commands) and each command goes through
 * tui_dispatch. `set NAME VALUE` (a command row) gives a session default
 * for an option: `set db FILE` makes every later command that takes --db
 * use FILE unless it names its own; `set` alone lists them; `unset NAME`
 * removes one. Settable names are the TUI_SETTABLE rows below. */
#define TUI_MAX_SET 8
typedef struct tui_session {
	char *val[TUI_MAX_SET]; /* by index in tui_settable; NULL = unset */
	bool keep_going;        /* scripts: go on after a failed command */
} tui_session;

/* The settable names and the option each stands for ("db" -> "--db"),
 * terminated by a row with name NULL. */
typedef struct tui_setting {
	const char *name, *option, *help;
} tui_setting;
extern const tui_setting tui_settable[];

void tui_session_init(tui_session *s);
void tui_session_free(tui_session *s);

/* The words of one command, from tui_split_words: argv[0..argc) and a
 * NULL after them, all in one allocation. Free with tui_words_free. */
typedef struct tui_words {
	char **argv;
	int argc;
	char *buf; /* the words' bytes, each NUL-terminated */
} tui_words;

/* Split the command of line that starts at byte *pos into w: words up to
 * an unquoted ';' or newline or the end (a comment runs to the newline),
 * then move *pos past that separator. A command of no words gives argc
 * 0. Returns WASM_OK; WASM_MALFORMED for an unclosed quote or a backslash
 * ending the line (e's message names the column, e->offset is its byte
 * index); WASM_NOMEM. On error w is empty. */
wasm_status tui_split_words(const char *line, size_t *pos, tui_words *w,
			    wasm_err *e);
void tui_words_free(tui_words *w);

/* Run every command of one line in s. Returns 0 when all succeeded,
 * else the exit code of the first that failed (later commands on the
 * line still run only with keep_going); a syntax error (unclosed quote)
 * prints "LOC: message" (LOC = where, e.g. "script.hz:4" or "-c") and
 * returns 2, before any command of the line ran. A command that fails
 * is followed on err by "LOC: command 'NAME' failed (exit N)", after its
 * own message. loc may be NULL (the interactive prompt): no location,
 * and no line after a failed command. Exit 1 (findings, e.g.
 * --fail-on-bugs) is a failure; exit 130 (Ctrl-C) stops even with
 * keep_going. */
int tui_run_line(tui_session *s, const char *line, const char *loc,
		 FILE *out, FILE *err);

/* Run a script read from in, named `name` in messages ("FILE:LINE: ...").
 * Stops at the first failing line unless s->keep_going; returns 0 when
 * every command succeeded, else the first failure's exit code. */
int tui_run_script(tui_session *s, FILE *in, const char *name, FILE *out,
		   FILE *err);

/* The session of the running command: the dispatcher fills unset
 * options from it. NULL outside scripts and the command line. */
extern tui_session *tui_current_session;

/* `set [NAME VALUE]` and `unset NAME`: exit 2 outside a session. */
int tui_cmd_set(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err);
int tui_cmd_unset(const tui_cmd *cmd, const tui_args *a, FILE *out,
		  FILE *err);

/* Tab completion (tui/complete.c), for the command line and the TUI's
 * ':' prompt: the candidates for the word line[start, end) given the
 * words before it: a command name for the first word of a command (after
 * a ';' too), the command's option names for a word starting with '-',
 * for an option's value or an operand what its name in the command table
 * says (FILE/MASKFILE/FILE.wasm..., a program's ARGS... and cc's
 * words: file names, directories end with '/'; HOST of --dir and DIR:
 * directories; words joined by '|' (sarif|junit|jsonl) or an optional
 * value's ([new|any]): those words; BUG, RUN, CAMPAIGN: ids from the
 * workspace database (--db on the line, else s's db setting, else
 * $HEISEN_DB or ./heisen.db), never creating it, RUN the runs of the
 * newest campaign;
 * NAME of set/unset: the settable names, and VALUE what that setting's
 * option takes; COMMAND of help: command names; PROFILE/LIST of
 * --profile(s): profile names). Each candidate that starts with the word
 * goes to cb, sorted (ids by number), once; cb returns false to stop. s
 * may be NULL (no session settings). */
typedef bool (*tui_complete_cb)(void *ctx, const char *cand);
void tui_complete(tui_session *s, const char *line, size_t start,
		  size_t end, tui_complete_cb cb, void *ctx);

/* The command-line history (tui/history.c), shared by `heisen shell`
 * and the TUI's ':' prompt: $XDG_STATE_HOME/heisen/history (an absolute
 * XDG_STATE_HOME only), else ~/.local/state/heisen/history, directories
 * made 0700; one entry per line, oldest first, the last TUI_HISTORY_MAX.
 * When the file cannot be read or written, warning says why (once) and
 * the history lives on in memory only. The struct owns its strings:
 * tui_history_free. */
#define TUI_HISTORY_MAX 1000
typedef struct tui_history {
	char *path; /* NULL: no usable location */
	char *v[TUI_HISTORY_MAX];
	int n;
	char warning[512];
	bool warned; /* for the caller: the warning was shown */
} tui_history;
void tui_history_load(tui_history *h);
/* Keep line when it is worth recalling (not blank, not starting with a
 * space, not the previous entry again) and rewrite the file; true when
 * kept. */
bool tui_history_add(tui_history *h, const char *line);
void tui_history_free(tui_history *h);

/* A workspace id (a positive decimal number) for `what` ("bug", "run"),
 * into *out; else prints "heisen CMD: 'x' is not a bug id (... 'heisen
 * LIST' lists them)" and returns exit code 2. */
int tui_parse_id(const tui_cmd *cmd, const char *what, const char *s,
		 const char *list, int64_t *out, FILE *err);

/* Whole numbers of an option: decimal or 0x hex, no sign; u32 within
 * [lo, hi]. False when v is not one. */
bool tui_parse_u32(const char *v, uint32_t lo, uint32_t hi, uint32_t *out);
bool tui_parse_u64(const char *v, uint64_t *out);

/* A positive duration: seconds as a plain number or with s, or minutes
 * (m) or hours (h): "30", "1.5s", "10m", "2h". False when v is not one. */
bool tui_parse_duration(const char *v, double *out);

/* The overview (`heisen --help`) and one command's help. */
void tui_print_usage(FILE *f);
void tui_print_cmd_help(const tui_cmd *cmd, FILE *f);
/* The manual page heisen(1) in roff, from the command table
 * (tui/cmd/cmd_doc.c; `heisen help --man`). */
void tui_print_man(FILE *f);

/* Shared by the handlers that read a module. tui_load_module reads,
 * decodes and validates path; on failure it prints the one-line error
 * and returns its exit code, on success *out owns the module (free with
 * wasm_module_free). tui_exit_for maps a core status to an exit code: the
 * input is bad (2) or we are (3). tui_print_err prints "PATH: offset
 * ...: reason" (path may be NULL). */
int tui_load_module(const char *path, wasm_module **out, wasm_err *e,
		    FILE *err);
int tui_exit_for(wasm_status st);
void tui_print_err(FILE *err, const char *path, const wasm_err *e);

/* The workspace database of a command: its --db value (may be NULL),
 * else $HEISEN_DB, else ./heisen.db (db_path_choose). Opens and migrates
 * it; on failure prints the one-line error and returns its exit code
 * (2: unwritable, not a database, newer schema; 3: internal), on success
 * 0 with *out open (close with db_close). */
struct db;
int tui_open_db(const char *dbopt, struct db **out, FILE *err);
/* The same for commands that read a workspace and must not create one (a
 * mistyped --db must not look like an empty workspace): exit 2 with a
 * hint when the file does not exist. *path is the file chosen. */
int tui_open_existing_db(const char *dbopt, struct db **out,
			 const char **path, FILE *err);
/* An error of a query on an open workspace: "heisen CMD: MESSAGE" (e
 * names the file) and its exit code (2: the file or the lookup, 3:
 * ours). */
int tui_query_fail(const tui_cmd *cmd, wasm_status st, const wasm_err *e,
		   FILE *err);
/* The registered node `name` of the workspace dbopt names, and its URL
 * parsed (tui/cmd/cmd_node.c); an exit code, with the error printed as "heisen
 * WHO: ..." (free *r with db_remote_clear on TUI_EXIT_OK). */
struct db_remote;
struct db_node_url;
int tui_node_find(const char *dbopt, const char *name, const char *who,
		  struct db_remote *r, struct db_node_url *u, FILE *err);
/* Node r's stored URL parsed into *u; exit 2 with the reason printed
 * when it is not usable (path: the workspace, for the message). */
int tui_node_url(const char *who, const char *path, const struct db_remote *r,
		 struct db_node_url *u, FILE *err);

/* Rows of `heisen bugs` (tui/cmd/cmd_db.c), also printed by `heisen sweep`:
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
	 * tui/report_fmt.h) instead of text or j. */
	struct tui_emit *em;
} tui_list;
bool tui_bug_row(void *ctx, const struct db_bug *b);

/* ---- the CI gate (tui/gate.c) ------------------------------------------
 *
 * --fail-on-bugs [new|any]: which reported bugs make a command exit 1.
 * any (also the option alone): every bug not suppressed; new: of those,
 * the ones in triage state new (never triaged) or fixed (came back). */
typedef enum tui_gate { TUI_GATE_OFF, TUI_GATE_ANY, TUI_GATE_NEW } tui_gate;
/* cmd's --fail-on-bugs into *g; exit 2 with the message on err for a
 * value that is neither. */
int tui_gate_parse(const tui_cmd *cmd, const tui_args *a, tui_gate *g,
		   FILE *err);
/* Whether a bug in triage state s fails gate g. */
bool tui_gate_fails(tui_gate g, db_state s);
/* How many bugs that campaign's runs detected fail g, suppressed ones
 * (by supp, may be NULL) aside. The database's errors. */
struct det_supp;
wasm_status tui_gate_campaign(struct db *d, int64_t campaign,
			      const struct det_supp *supp, tui_gate g,
			      uint64_t *n, wasm_err *err);
/* The same for races not recorded as bugs (`run`): hits[i] with skip[i]
 * set (skip may be NULL) are suppressed; under new, each other's state
 * is its signature's in the workspace dbopt names (db_path_choose), read
 * only when that file exists. An exit code (the database's errors
 * printed under cmd's name); *failing the count. */
int tui_gate_hits(const tui_cmd *cmd, tui_gate g, const char *dbopt,
		  const char *program, const db_hit *hits, const bool *skip,
		  uint32_t n, uint32_t *failing, FILE *err);

/* ---- suppressions in reports (tui/suppress.c; detector/suppress.h) ----
 *
 * tui_supp_open reads cmd's --suppressions FILE, else ./.heisen-
 * suppressions when it exists: *out (NULL: no file; det_supp_free it).
 * An exit code; a bad file prints "heisen CMD: FILE:LINE: reason" (2). */
struct det_supp;
int tui_supp_open(const tui_cmd *cmd, const tui_args *a, struct det_supp **out,
		  FILE *err);
/* A db_bug_list callback over tui_bug_row that judges each bug
 * (det_supp_match_bug over all its runs), counts the suppressed ones as
 * hits of their rules and leaves them out, or with show passes them on
 * marked. open counts the rows not suppressed, failing those of them
 * that fail gate (tui_gate_fails on their state).
 * A database error stops the list: st and *err say why. */
typedef struct tui_supp_list {
	tui_list *list;
	struct det_supp *supp; /* NULL: nothing is suppressed */
	struct db *d;
	bool show;
	uint64_t suppressed, open;
	tui_gate gate;
	uint64_t failing;
	wasm_status st;
	wasm_err *err;
} tui_supp_list;
bool tui_supp_bug_row(void *ctx, const struct db_bug *b);
/* With l->marks, the marker column of a row (its rule, or "-") or of
 * the header; nothing otherwise. */
void tui_supp_column(const tui_list *l, bool header);
/* The end of a text report: "N WHATs suppressed by FILE (HINT)" and a
 * line per rule that suppressed something, with its count; nothing when
 * n is 0. hint may be NULL. */
void tui_supp_print(FILE *out, const struct det_supp *s, uint64_t n,
		    const char *what, const char *hint);
/* The same as JSON members of j's open object: "suppressed": n and
 * "suppressions": null without a file, else {file, rules: [{rule, line,
 * text, hits}]}. */
void tui_supp_json(struct tui_json *j, const struct det_supp *s, uint64_t n);
/* A bug row's members: "suppressed" (bool) and "suppressed_by": null or
 * {rule, line, text}. */
void tui_supp_json_row(struct tui_json *j, const struct det_supp_rule *rule);
/* What a site does, in one letter: R read, W write, A atomic. */
char tui_kind_letter(uint8_t kind);

/* Formatting shared by the listings and the TUI (tui/cmd/cmd_db.c), each into
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
/* The same two for site `site` of a loaded program (tui/cmd/cmd_detect.c):
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
/* A call stack's JSON (tui/race.h prints one): an array under key of
 * {function, file, line, offset} (null when there is none), then
 * "stack_truncated". */
void tui_json_stack(struct tui_json *j, const char *key, const db_stack *s);

/* ---- a bug's report (tui/cmd/cmd_db.c): what `heisen show` prints and the TUI's
 * bug screen draws, read from the database in one go. */
#define TUI_REPORT_EXAMPLES 5
#define TUI_CONTEXT_LINES 2 /* on each side of the racing line */
#define TUI_CONTEXT_COLS 200

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
} tui_report;

/* Load bug `bug`: WASM_INVALID when there is no such bug (the message
 * says so), the db's errors otherwise. */
wasm_status tui_report_load(struct db *d, int64_t bug, tui_report *r,
			    wasm_err *e);
void tui_report_free(tui_report *r);
const tui_cell *tui_report_cell(const tui_report *r, size_t row, size_t col);
/* The report's detections grid as text (tui/cmd/cmd_analysis.c): a row per
 * (node, profile), a K/N column per density, in blocks of the densities
 * that fit in `width` columns (0: one block); with colour, each cell's
 * background shows its K/N against the bug's best cell (ANSI). */
void tui_print_grid(FILE *out, const tui_report *r, int width, bool colour);
/* The bug's race report (tui/race.h) from its evidence run. */
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

/* Command handlers, one per command row. */
int tui_cmd_help(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err);
int tui_cmd_version(const tui_cmd *cmd, const tui_args *a, FILE *out,
		    FILE *err);
int tui_cmd_inspect(const tui_cmd *cmd, const tui_args *a, FILE *out,
		    FILE *err);
int tui_cmd_validate(const tui_cmd *cmd, const tui_args *a, FILE *out,
		     FILE *err);
int tui_cmd_run(const tui_cmd *cmd, const tui_args *a, FILE *out,
		FILE *err);
int tui_cmd_cc(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err);
int tui_cmd_instrument(const tui_cmd *cmd, const tui_args *a, FILE *out,
		       FILE *err);
int tui_cmd_sites(const tui_cmd *cmd, const tui_args *a, FILE *out,
		  FILE *err);
int tui_cmd_sweep(const tui_cmd *cmd, const tui_args *a, FILE *out,
		  FILE *err);
int tui_cmd_check(const tui_cmd *cmd, const tui_args *a, FILE *out,
		  FILE *err);

/* A new campaign's program arguments, the operands after FILE.wasm, into
 * c->args (NUL-separated, malloc'd) and c->nargs; false when out of
 * memory. Then tui_campaign_add records p's program (by hash, its path
 * made absolute), this node and the campaign c (setting its ids). Shared
 * by sweep and check (tui/cmd/cmd_detect.c). */
struct db_campaign;
bool tui_campaign_args(const tui_args *a, struct db_campaign *c);
/* --jobs (1 to 256, default the CPUs online) and --timeout (default 10 s)
 * of the commands that run in worker processes; an exit code, the
 * message on err under cmd's name. */
int tui_opt_workers(const tui_cmd *cmd, const tui_args *a, uint32_t *jobs,
		    double *timeout_s, FILE *err);
wasm_status tui_campaign_add(struct db *d, const struct det_prog *p,
			     struct db_campaign *c, wasm_err *e);
int tui_cmd_rerun(const tui_cmd *cmd, const tui_args *a, FILE *out,
		  FILE *err);
int tui_cmd_shared(const tui_cmd *cmd, const tui_args *a, FILE *out,
		   FILE *err);
/* Moving records between workspaces (tui/cmd/cmd_sync.c). */
int tui_cmd_export(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err);
int tui_cmd_import(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err);
/* Remote nodes: add, list, remove, check, self (tui/cmd/cmd_node.c); status,
 * and receive and start (the node's side of dispatch), fetch and
 * dispatch (tui/cmd/cmd_remote.c). */
int tui_cmd_node(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err);
int tui_node_status(const tui_cmd *cmd, const tui_args *a, FILE *out,
		    FILE *err);
int tui_node_receive(const tui_cmd *cmd, const tui_args *a, FILE *out,
		     FILE *err);
int tui_node_start(const tui_cmd *cmd, const tui_args *a, FILE *out,
		   FILE *err);
int tui_cmd_fetch(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err);
int tui_cmd_dispatch(const tui_cmd *cmd, const tui_args *a, FILE *out,
		     FILE *err);
int tui_cmd_campaigns(const tui_cmd *cmd, const tui_args *a, FILE *out,
		      FILE *err);
int tui_cmd_runs(const tui_cmd *cmd, const tui_args *a, FILE *out,
		 FILE *err);
int tui_cmd_bugs(const tui_cmd *cmd, const tui_args *a, FILE *out,
		 FILE *err);
/* Triage and comparing builds (tui/cmd/cmd_triage.c). */
int tui_cmd_triage(const tui_cmd *cmd, const tui_args *a, FILE *out,
		   FILE *err);
int tui_cmd_diff(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err);
int tui_cmd_show(const tui_cmd *cmd, const tui_args *a, FILE *out,
		 FILE *err);
int tui_cmd_profiles(const tui_cmd *cmd, const tui_args *a, FILE *out,
		     FILE *err);
/* `heisen replay` and `heisen mask save` (tui/cmd/cmd_replay.c). */
int tui_cmd_replay(const tui_cmd *cmd, const tui_args *a, FILE *out,
		   FILE *err);
int tui_cmd_mask(const tui_cmd *cmd, const tui_args *a, FILE *out,
		 FILE *err);
int tui_cmd_minimize(const tui_cmd *cmd, const tui_args *a, FILE *out,
		     FILE *err);
/* `heisen factor`, `grid`, `simulate` and `plot` (tui/cmd/cmd_analysis.c). */
int tui_cmd_factor(const tui_cmd *cmd, const tui_args *a, FILE *out,
		   FILE *err);
int tui_cmd_grid(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err);
int tui_cmd_simulate(const tui_cmd *cmd, const tui_args *a, FILE *out,
		     FILE *err);
int tui_cmd_plot(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err);
/* `heisen completion` (tui/cmd/cmd_doc.c): the bash script, and the
 * candidates it asks for. */
int tui_cmd_completion(const tui_cmd *cmd, const tui_args *a, FILE *out,
		       FILE *err);
/* `heisen tui`: the ncurses front end (tui/screen/ui.c). */
int tui_cmd_tui(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err);
/* `heisen shell` (tui/line.c): the interactive command line. */
int tui_cmd_shell(const tui_cmd *cmd, const tui_args *a, FILE *out,
		  FILE *err);
/* `heisen run` with --density or --mask: one run under a probe mask,
 * starting from the WASI set-up of run's other options. */
struct wasi_config;
int tui_run_masked(const tui_cmd *cmd, const tui_args *a,
		   const struct wasi_config *base, FILE *out, FILE *err);

#endif
