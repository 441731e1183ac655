/*
 * cli.h - heisen's command language: one table of commands that argv
 * parsing, `help`, scripts, the command line, the TUI's ':' prompt and
 * completion all read, and the doors every command handler goes through
 * to what a command names (a module, a workspace, a node).
 *
 * A command is a row of tui_commands[] (tui/cli/table.c): its name, a
 * usage synopsis, a one-line summary, a longer description, its options
 * and its handler (tui/cmd/cmd.h). Options are parsed by tui_parse_opts
 * from the same rows, so help text and parsing cannot drift apart.
 *
 * Layer: tui/cli/ includes only this header, detector/, replay/, db/,
 * remote/ and core/; table.c alone also includes tui/cmd/cmd.h, to name
 * each handler. Commands (tui/cmd/), the report model (tui/report/) and
 * screens (tui/screen/) build on it, never the other way round.
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
#define TUI_MAX_OPTS	 48
#define TUI_MAX_OPERANDS 64
#define TUI_MAX_SEEN	 64
typedef struct tui_args {
	const char *values[TUI_MAX_OPTS];
	const char *operands[TUI_MAX_OPERANDS];
	int noperands;
	struct tui_seen {
		int opt;	   /* index into the command's opts */
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
	const tui_opt *opts;		/* terminated by a row with name NULL */
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

/* For a command with sub-commands (`node add ...`, operands[0] names
 * it): options that mean nothing to sub-command `sub` are refused, not
 * ignored, so that 'node add --json' does not look as if it printed JSON.
 * allowed lists the option names it takes, NULL-terminated; false after
 * printing which option is not one of them. */
bool tui_sub_only(const tui_cmd *cmd, const tui_args *a, const char *sub,
		  const char *const *allowed, FILE *err);

/* Run one command line (argv[0] is the command name). */
int tui_dispatch(int argc, char **argv, FILE *out, FILE *err);

/* ---- sessions and scripts (tui/cli/script.c) --------------------------------
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
	bool keep_going;	/* scripts: go on after a failed command */
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
int tui_run_line(tui_session *s, const char *line, const char *loc, FILE *out,
		 FILE *err);

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
int tui_cmd_unset(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err);

/* Tab completion (tui/cli/complete.c), for the command line and the TUI's
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
void tui_complete(tui_session *s, const char *line, size_t start, size_t end,
		  tui_complete_cb cb, void *ctx);

/* The command-line history (tui/cli/history.c), shared by `heisen shell`
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
/* Whether s is one or more decimal digits and nothing else. */
bool tui_is_decimal(const char *s);
/* A watched address, "ADDR" or "ADDR:WIDTH" (numbers as above; the
 * width 1 to 8 bytes, default 4): `timeline --watch` and the Timeline
 * screen's w. */
bool tui_parse_watch(const char *v, uint32_t *addr, uint8_t *width);

/* A seed for a command given none: from getrandom, else the time and
 * the process id. */
uint64_t tui_random_seed(void);

/* A positive duration: seconds as a plain number or with s, or minutes
 * (m) or hours (h): "30", "1.5s", "10m", "2h". False when v is not one. */
bool tui_parse_duration(const char *v, double *out);

/* The overview (`heisen --help`) and one command's help. */
void tui_print_usage(FILE *f);
void tui_print_cmd_help(const tui_cmd *cmd, FILE *f);
/* Shared by the handlers that read a module. tui_load_module reads,
 * decodes and validates path; on failure it prints the one-line error
 * and returns its exit code, on success *out owns the module (free with
 * wasm_module_free). tui_exit_for maps a core status to an exit code: the
 * input is bad (2) or we are (3). tui_print_err prints "PATH: offset
 * ...: reason" (path may be NULL). */
int tui_load_module(const char *path, wasm_module **out, wasm_err *e,
		    FILE *err);
int tui_exit_for(wasm_status st);
/* The same for a program the detector runs (det_prog_load): *p owns it
 * on success (det_prog_free). */
struct det_prog;
int tui_load_prog(const char *path, struct det_prog **p, FILE *err);
/* The program a campaign ran, from its recorded path, for a resume
 * or a rerun: exit 2 when the file is gone or is no longer the binary
 * the campaign ran (its hash), since masks and sites are the binary's,
 * or when this heisen draws masks differently from the one that ran it. */
struct db_program;
struct db_campaign;
int tui_load_recorded(const tui_cmd *cmd, const struct db_program *prog,
		      const struct db_campaign *c, struct det_prog **p,
		      FILE *err);
struct rep_sched_spec;
/* --schedule's strategy for runs that each draw their own schedule (a
 * sweep's, a minimize's) into *out, its seed 0: exit 2 with the message
 * for a bad one, for fixed (one recorded schedule) and when the command
 * was also given its profile option (profile_opt, e.g. "--profiles"). */
int tui_drawn_sched(const tui_cmd *cmd, const tui_args *a,
		    const char *profile_opt, struct rep_sched_spec *out,
		    FILE *err);
/* A serial campaign's strategy (c->schedule, not NULL) into *out, its
 * seed 0: exit 2 with the message when this heisen does not know it. */
int tui_campaign_sched(const tui_cmd *cmd, const struct db_campaign *c,
		       struct rep_sched_spec *out, FILE *err);
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
int tui_open_existing_db(const char *dbopt, struct db **out, const char **path,
			 FILE *err);
/* An error of a query on an open workspace: "heisen CMD: MESSAGE" (e
 * names the file) and its exit code (2: the file or the lookup, 3:
 * ours). */
int tui_query_fail(const tui_cmd *cmd, wasm_status st, const wasm_err *e,
		   FILE *err);
/* The registered node `name` of the workspace dbopt names, and its URL
 * parsed; an exit code, with the error printed as "heisen
 * WHO: ..." (free *r with db_remote_clear on TUI_EXIT_OK). */
struct db_remote;
struct db_node_url;
int tui_node_find(const char *dbopt, const char *name, const char *who,
		  struct db_remote *r, struct db_node_url *u, FILE *err);
/* Node r's stored URL parsed into *u; exit 2 with the reason printed
 * when it is not usable (path: the workspace, for the message). */
int tui_node_url(const char *who, const char *path, const struct db_remote *r,
		 struct db_node_url *u, FILE *err);

/* A new campaign's program arguments, the operands after FILE.wasm, into
 * c->args (NUL-separated, malloc'd) and c->nargs; false when out of
 * memory. Then tui_campaign_add records p's program (by hash, its path
 * made absolute), this node and the campaign c (setting its ids). Shared
 * by sweep and check. */
/* What replay, timeline, debug and bisect replay: a bug (BUG, the
 * operand), a run (--run RUN), or a repro file (--file FILE.repro
 * PROGRAM.wasm, or FILE.repro PROGRAM.wasm); with schedule, a bug is its
 * first serial run's schedule. *s filled (rep_spec_clear), *d the
 * workspace opened when one was read (db_close), *path the program to
 * load. On failure prints the message under cmd's name and returns the
 * exit code. */
struct rep_spec;
int tui_open_spec(const tui_cmd *cmd, const tui_args *a, bool schedule,
		  struct rep_spec *s, struct db **d, const char **path,
		  FILE *err);

/* The same for a schedule (timeline, debug, bisect): a serial run's,
 * its program loaded and checked against it (--force: a program whose
 * hash differs). *s is mode schedule; *p to det_prog_free. */
struct det_prog;
int tui_open_schedule(const tui_cmd *cmd, const tui_args *a, struct rep_spec *s,
		      struct det_prog **p, const char **path, FILE *err);

struct db_campaign;
bool tui_campaign_args(const tui_args *a, struct db_campaign *c);
/* --jobs (1 to 256, default the CPUs online) and --timeout (default 10 s)
 * of the commands that run in worker processes; an exit code, the
 * message on err under cmd's name. */
int tui_opt_workers(const tui_cmd *cmd, const tui_args *a, uint32_t *jobs,
		    double *timeout_s, FILE *err);
wasm_status tui_campaign_add(struct db *d, const struct det_prog *p,
			     struct db_campaign *c, wasm_err *e);
/* --stdin FILE of the commands that run a program many times: FILE read
 * whole, once (at most DET_STDIN_MAX bytes), into *bytes (wasm_malloc'd,
 * *n bytes) and its rw_hash in hex into *hash (wasm_malloc'd). Without
 * the option all three are NULL/0: the runs' stdin is empty. An exit
 * code; an unreadable or too large FILE is bad usage, said on err. */
int tui_opt_stdin(const tui_cmd *cmd, const tui_args *a, uint8_t **bytes,
		  uint32_t *n, char **hash, FILE *err);
/* The text of a stdin's rw_hash, as tui_opt_stdin gives it: 16 hex
 * digits into out (17 bytes). */
void tui_stdin_hash(const uint8_t *b, uint32_t n, char out[17]);
/* --dir, --env, --max-threads and --max-memory of the commands that run
 * a program, as `heisen run` reads them, into *w: each option given
 * replaces that part of base (NULL: the empty world), one not given
 * keeps it. With absolute, a granted directory's host path is made
 * absolute (a campaign or repro file is replayed from other folders),
 * and one that does not exist is refused. An exit code, the message on
 * err under cmd's name; *w is the caller's to clear on success. */
int tui_opt_world(const tui_cmd *cmd, const tui_args *a, const wasi_world *base,
		  bool absolute, wasi_world *w, FILE *err);

#endif
