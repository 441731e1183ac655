/*
 * ui.h - the ncurses front end (`heisen tui`): a stack of screens over one
 * workspace database, a title line, a status line, the ':' prompt, '/'
 * filters, '?' help, and a live sweep that runs in a child process while
 * the user browses.
 *
 * A screen is a tui_screen_ops row (its name, its keys for '?', how it
 * loads, draws and takes keys) plus its own state; a new screen plugs in
 * by defining its ops and calling tui_push. The app offers screens the
 * widgets below (a sortable, filterable table; a scrolling document of
 * coloured lines), child processes of heisen itself (sweeps, reruns,
 * commands typed at ':'), the bottom-line editor and messages.
 *
 * Keys go to the app's line editor when it is open, else to the top
 * screen, else to the global keys (q/Esc back, ? help, : prompt, r
 * reload, 1 campaigns, 2 bugs, S stop the sweep, Q quit).
 *
 * Ownership: the app owns the screen stack and frees each screen with
 * its ops->free when popped. Children started with tui_child_start are
 * the caller's; tui_child_free kills and reaps what is still running.
 * Errors: nothing here exits the process; problems are messages on the
 * status line (tui_msg). The terminal is restored on every way out,
 * including Ctrl-C, SIGTERM and a crash.
 */
#ifndef HEISEN_TUI_UI_H
#define HEISEN_TUI_UI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "tui/cli/cli.h"
#include "db/db.h"
#include "detector/stats.h"

typedef struct tui_app tui_app;
typedef struct tui_screen tui_screen;

/* Colours by role; with NO_COLOR or a monochrome terminal each role
 * falls back to bold, dim or reverse video. TUI_HEAT0..3 colour a K/N
 * detections cell: none, under 1/4, under 1/2, at least 1/2. */
typedef enum tui_role {
	TUI_NORMAL,
	TUI_TITLE,
	TUI_HEADER,
	TUI_SELECTED,
	TUI_DIM,
	TUI_ERROR,
	TUI_GOOD,
	TUI_KEY,
	TUI_HEAT0,
	TUI_HEAT1,
	TUI_HEAT2,
	TUI_HEAT3,
	TUI_NROLES
} tui_role;

/* The curses attribute of a role. */
int tui_attr(tui_role r);
/* The heat role of k detections out of n runs. */
tui_role tui_heat(uint64_t k, uint64_t n);

/* One key of a screen, for the '?' help ("Enter", "open the bug"). */
typedef struct tui_keydoc {
	const char *keys, *what;
} tui_keydoc;

typedef struct tui_screen_ops {
	const char *name;
	const tui_keydoc *keys; /* terminated by a row with keys NULL */
	/* (Re)read the screen's data; false after tui_msg on failure. */
	bool (*load)(tui_screen *s, tui_app *app);
	/* Draw into rows [y, y + rows) of the whole width cols. */
	void (*draw)(tui_screen *s, tui_app *app, int y, int rows, int cols);
	/* A key; false when the screen does not use it. */
	bool (*key)(tui_screen *s, tui_app *app, int ch);
	/* Every turn of the loop (at least every 50 ms); may be NULL. */
	void (*tick)(tui_screen *s, tui_app *app);
	void (*free)(tui_screen *s);
} tui_screen_ops;

struct tui_screen {
	const tui_screen_ops *ops;
	char title[512]; /* longer titles keep their end (tui_path_fit) */
	void *st;	 /* the screen's state, freed by ops->free */
	bool live;	 /* reload while a sweep runs */
};

/* Push a new screen with state st and load it; on a failed load the
 * screen is freed, not shown, and false returned. */
bool tui_push(tui_app *app, const tui_screen_ops *ops, void *st,
	      const char *title, bool live);
void tui_pop(tui_app *app);
/* A message on the status line until the next key or 4 s. */
void tui_msg(tui_app *app, bool error, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Ask for the whole screen to be drawn again. */
void tui_dirty(tui_app *app);
/* The workspace database (open for the app's life) and its path. */
db *tui_app_db(tui_app *app);
const char *tui_app_dbpath(tui_app *app);
/* Whether the terminal takes UTF-8 (the ellipsis of tui_path_fit). */
bool tui_app_utf8(tui_app *app);
/* The screen area's height, for page keys. */
int tui_app_rows(tui_app *app);

/* The bottom-line editor: prompt text, initial value; done(ctx, text) on
 * Enter (text NULL on Esc); change(ctx, text) after each edit when not
 * NULL (live filters). Tab completes with tui_complete when complete is
 * set: the text is completed as a command line after `prefix`. With
 * history set, Up/Down walk the history `heisen shell` keeps, and Enter
 * adds the line to it. */
typedef struct tui_ask_spec {
	const char *prompt, *initial, *prefix;
	bool complete;
	void (*done)(void *ctx, tui_app *app, const char *text);
	void (*change)(void *ctx, tui_app *app, const char *text);
	void *ctx;
	bool history; /* Up/Down recall, Enter keeps: the shell's history */
} tui_ask_spec;
void tui_ask(tui_app *app, const tui_ask_spec *spec);

/* Run the app on the workspace at dbpath (":memory:": none, a scratch
 * one) with the screen root(app, ctx) pushes as its first: `heisen
 * tui`'s Campaigns, `heisen debug`'s Timeline. An exit code; a root that
 * fails is exit 2 with its message printed under who's name. */
int tui_app_run(const char *who, const char *dbpath,
		bool (*root)(tui_app *app, void *ctx), void *ctx, FILE *err);

/* ---- widgets ------------------------------------------------------------ */

/* Write s at (y, x) in at most width columns (wide characters counted by
 * their width; control bytes shown as '?'); returns the columns used. */
int tui_put(int y, int x, const char *s, int width, int attr);
/* The columns s takes, as tui_put counts them (a tab as 1). */
int tui_cols(const char *s);
/* A path (or a text that ends in one, "FILE:LINE") in at most width
 * columns: whole when it fits, else shortened from the left, where a
 * path says least, at a '/' when one fits ("\u2026/demos/race.c:24"; "..."
 * without utf8), into buf of cap bytes. */
void tui_path_fit(const char *path, int width, bool utf8, char *buf,
		  size_t cap);

/* A table: columns, rows of strings, one selected row; '<' '>' choose the
 * sort column, 'I' inverts it, '/' filters by a substring of any cell.
 * Numeric columns (num set) sort by value. Rows are the table's. */
typedef struct tui_col {
	const char *title;
	int width; /* at least this wide */
	bool num;  /* right-aligned, sorted as a number */
	bool flex; /* takes the spare width */
} tui_col;

typedef struct tui_row {
	int64_t id;
	tui_role role;
	char **cell;
} tui_row;

typedef struct tui_table {
	const tui_col *cols;
	int ncols;
	tui_row *rows;
	size_t nrows, cap;
	size_t *vis; /* indices of the shown rows, filtered and sorted */
	size_t nvis;
	size_t sel, top;
	int sort; /* column, or -1 for the order of insertion */
	bool desc;
	char filter[128];
	const char *empty; /* what an empty table says */
} tui_table;

void tui_table_init(tui_table *t, const tui_col *cols, int ncols,
		    const char *empty);
/* Drop the rows (the selection is kept by id across a reload). */
void tui_table_clear(tui_table *t);
void tui_table_free(tui_table *t);
/* Append a row of ncols cells; false when out of memory. */
bool tui_table_add(tui_table *t, int64_t id, tui_role role,
		   const char *const *cells);
/* Apply filter and sort after adding rows; reselects id keep if shown. */
void tui_table_done(tui_table *t, int64_t keep);
/* Id of the selected row, or -1. */
int64_t tui_table_selected(const tui_table *t);
void tui_table_draw(tui_table *t, int y, int rows, int cols);
bool tui_table_key(tui_table *t, tui_app *app, int ch);

/* A document: lines of text in which "\x01" followed by a tui_role
 * character ('A' + role) switches the role of the rest of the line. */
typedef struct tui_doc {
	char **line;
	size_t n, cap;
	size_t top;
	int left;
	/* A marked line (the selected stack or frame, the line a source
	 * view opened at): drawn selected, and drawing scrolls to keep it
	 * on screen. marked false: none. */
	size_t mark;
	bool marked;
} tui_doc;

void tui_doc_clear(tui_doc *d);
/* Append text (may hold several lines); false when out of memory. */
bool tui_doc_add(tui_doc *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The markers that switch role inside a tui_doc_add text, in the order
 * of tui_role ("\x01" "A" is TUI_NORMAL). */
/* One marker a line reads best. */
/* clang-format off */
#define TUI_M_NORMAL "\x01" "A"
#define TUI_M_TITLE "\x01" "B"
#define TUI_M_HEADER "\x01" "C"
#define TUI_M_DIM "\x01" "E"
#define TUI_M_ERROR "\x01" "F"
#define TUI_M_GOOD "\x01" "G"
#define TUI_M_KEY "\x01" "H"
/* clang-format on */
/* The heat marker of k detections out of n: "\x01" then this. */
char tui_heat_ch(uint64_t k, uint64_t n);
void tui_doc_draw(tui_doc *d, int y, int rows, int cols);
bool tui_doc_key(tui_doc *d, tui_app *app, int ch);

/* ---- child processes ---------------------------------------------------- */

/* A child running this heisen binary with argv (argv[0] is ignored),
 * stdin /dev/null, stdout and stderr into one pipe read line by line
 * without blocking, optionally a progress pipe on fd 3 (for sweep
 * --progress-fd 3), in its own process group so that the terminal's
 * Ctrl-C reaches only the TUI, which decides. */
typedef struct tui_child {
	pid_t pid;
	int out, prog; /* read ends, -1 when closed */
	char obuf[4096], pbuf[4096];
	size_t olen, plen;
	bool running;
	int status; /* exit code when done: 128+N for signal N */
} tui_child;

bool tui_child_start(tui_child *c, char *const argv[], bool progress, char *err,
		     size_t cap);
/* Read what is there: each whole line of output to out(ctx, line), of
 * progress to prog(ctx, line); reaps the child once both pipes closed.
 * Returns true when anything happened. */
bool tui_child_poll(tui_child *c, void (*out)(void *, const char *),
		    void (*prog)(void *, const char *), void *ctx);
/* SIGINT to the child's group: a sweep stops after its running runs. */
void tui_child_interrupt(tui_child *c);
/* Kill (SIGKILL) what still runs, reap, close. */
void tui_child_free(tui_child *c);

/* ---- what the screens share (ui_list.c) ---------------------------------
 *
 * Campaigns, bugs, runs and nodes are a table filled from one db list
 * call: their state starts with a tui_listview, and they share how they
 * load, draw, free and open. */
typedef struct tui_listview {
	tui_table t;
	int64_t arg; /* what the screen lists: a program, a campaign... */
	bool nomem;
	/* Fill t from the database (rows through tui_listview_add). */
	wasm_status (*fill)(struct tui_listview *l, db *d, wasm_err *e);
	/* Open the row id (Enter). */
	bool (*open)(tui_app *app, int64_t id);
	void (*extra_free)(struct tui_listview *l);
} tui_listview;
/* A row into l's table; false (and l->nomem) when out of memory. */
bool tui_listview_add(tui_listview *l, int64_t id, tui_role role,
		      const char *const *cells);
/* The tui_screen_ops of a screen whose st is a tui_listview. */
bool tui_listview_load(tui_screen *scr, tui_app *app);
void tui_listview_draw(tui_screen *scr, tui_app *app, int y, int rows,
		       int cols);
/* The keys every table screen has: moving, sorting, filtering, Enter. */
bool tui_listview_key(tui_screen *scr, tui_app *app, int ch);
void tui_listview_free(tui_screen *scr);
/* "func file:line" with the file's base name: tables are narrow. */
void tui_short_site(const struct db_bug_site *s, char *buf, size_t cap);
/* e's message on the status line, as an error. */
void tui_fail_msg(tui_app *app, const wasm_err *e);
/* Whether key ch opens the selected row (Enter, l, Right). */
bool tui_open_key(int ch);

/* ---- screens (ui_campaigns.c, ui_bugs.c, ui_bug.c, ui_nodes.c,
 * ui_forms.c, ui_output.c) ------------------------------------------------ */

/* The root screen: campaigns. */
bool tui_open_campaigns(tui_app *app);
/* Bugs of program_id (0: all programs). */
bool tui_open_bugs(tui_app *app, int64_t program_id);
bool tui_open_bug(tui_app *app, int64_t bug_id);
bool tui_open_runs(tui_app *app, int64_t campaign_id);
bool tui_open_run(tui_app *app, int64_t run_id);
/* The remote nodes (docs/nodes.md): check, status, fetch, dispatch. */
bool tui_open_nodes(tui_app *app);
/* A child's output, live, under title; argv as for tui_child_start. */
bool tui_open_output(tui_app *app, const char *title, char *const argv[]);
/* `heisen rerun RUN` in an output screen. */
void tui_open_rerun(tui_app *app, int64_t run);
/* The new-sweep form, with program preset when not NULL. */
bool tui_open_sweep_form(tui_app *app, const char *program);
/* The replay form of bug, and `heisen replay BUG [--save FILE] OPTIONS
 * --progress` run in an output screen (save may be NULL; bug 0: no BUG,
 * the options name the run, "--run RUN ..."). */
bool tui_open_replay_form(tui_app *app, int64_t bug);
void tui_open_replay(tui_app *app, int64_t bug, const char *save,
		     char *const opts[], int nopts);
/* The Timeline screen (ui_timeline.c) of a serial run's schedule: from
 * spec s (taken: cleared here, freed with the screen) on the program at
 * progpath, or of bug (its run, or its first serial run when run is 0)
 * or of run alone (bug 0) from the workspace. False with a message when
 * there is no schedule or the program is gone. */
struct rep_spec;
bool tui_open_timeline(tui_app *app, struct rep_spec *s, const char *progpath);
bool tui_open_timeline_of(tui_app *app, int64_t bug, int64_t run);
/* Move bug id to the next triage state (docs/triage.md): what `heisen
 * triage BUG STATE` records, without a note. */
void tui_triage_next(tui_app *app, int64_t id);

/* ---- the live sweep (ui.c) ---------------------------------------------- */

/* Start `heisen sweep` with these words (after "sweep"; --db and
 * --progress-fd are added). False with a message when one already runs. */
bool tui_sweep_start(tui_app *app, char *const words[], int nwords);

/* ---- heisen factors off the drawing path (ui_factor.c) ------------------
 *
 * One cache per app (tui_app_factors) of each bug's F and class, as
 * `heisen factor` computes them (seed 0, 10 000 draws), keyed by bug and
 * valid for the number of runs that detected it. tui_factors_want reads
 * the cells of the bugs whose entry is missing or stale from d (the
 * caller's thread) and computes them on a thread of their own; it does
 * nothing while a computation runs. tui_factors_poll, from a screen's
 * tick, merges a finished computation and returns a generation number
 * that grows with every merge: a screen reloads when it changes. */
typedef struct tui_factors tui_factors;
tui_factors *tui_factors_new(void);
void tui_factors_free(tui_factors *f);
tui_factors *tui_app_factors(tui_app *app);
bool tui_factors_get(tui_factors *f, int64_t bug, uint64_t runs,
		     det_factor *out, det_class *cls);
void tui_factors_want(tui_factors *f, db *d, const int64_t *bugs,
		      const uint64_t *runs, const int64_t *same, size_t n);
unsigned tui_factors_poll(tui_factors *f);

#endif
