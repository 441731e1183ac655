/*
 * ui.c - the TUI's frame: terminal set-up and restore, the loop that
 * multiplexes keys and child processes, the screen stack, the title and
 * status lines, the bottom-line editor (':' commands, '/' filters, form
 * fields), '?' help, and the live sweep.
 */
#include "tui/cmd/cmd.h"
#include "tui/screen/ui.h"

#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <langinfo.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define TUI_MAX_DEPTH 16
/* How often live screens reread the database while a sweep runs. */
#define TUI_LIVE_RELOAD_S 1.0
#define TUI_MSG_S	  4.0

typedef struct sweep_state {
	tui_child child;
	bool active, stopping;
	int64_t campaign;
	uint64_t done, planned, bugs;
	double rps, eta;
	char program[128];
	char last[256]; /* last line of the child's output */
	double last_reload;
} sweep_state;

struct tui_app {
	db *d;
	char dbpath[4096];
	tui_screen *stack[TUI_MAX_DEPTH];
	int depth;
	bool dirty, quit;
	int quit_requests;
	/* status-line message */
	char msg[512];
	bool msg_err;
	double msg_at;
	/* the bottom-line editor */
	bool asking;
	tui_ask_spec ask;
	char prompt[32], prefix[64];
	char buf[512];
	size_t len, cur;
	int hist_pos;
	tui_history hist;
	/* ':' settings, as in scripts */
	tui_session session;
	sweep_state sweep;
	struct latency *lat;  /* HEISEN_TUI_STATS: NULL when not asked */
	tui_factors *factors; /* made on first use */
	bool utf8;
	int attr[TUI_NROLES];
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- terminal ------------------------------------------------------------ */

static struct termios saved_tty;
static bool tty_saved;
static volatile sig_atomic_t got_quit;

static void on_quit_signal(int sig) { got_quit = sig; }

/* A crash must not leave the terminal raw and on the alternate screen:
 * restore what was saved (async-signal-safe calls only) and die of the
 * same signal. */
static void on_fatal_signal(int sig)
{
	static const char reset[] = "\033[0m\033[?25h\033[?1049l\r\n";
	if (tty_saved)
		tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved_tty);
	if (write(STDOUT_FILENO, reset, sizeof reset - 1) < 0)
		_exit(128 + sig);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void install_signals(void)
{
	struct sigaction sa;
	static const int quit_sigs[] = {SIGINT, SIGTERM, SIGHUP};
	static const int fatal_sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL,
					 SIGABRT};

	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: poll() must return so the loop sees the flag. */
	sa.sa_handler = on_quit_signal;
	for (size_t i = 0; i < sizeof quit_sigs / sizeof *quit_sigs; i++)
		sigaction(quit_sigs[i], &sa, NULL);
	sa.sa_handler = on_fatal_signal;
	sa.sa_flags = SA_RESETHAND;
	for (size_t i = 0; i < sizeof fatal_sigs / sizeof *fatal_sigs; i++)
		sigaction(fatal_sigs[i], &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static void restore_signals(void)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGSEGV,
				   SIGBUS, SIGFPE,  SIGILL, SIGABRT};
	for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
		signal(sigs[i], SIG_DFL);
}

static void init_colors(tui_app *app)
{
	const char *nc = getenv("NO_COLOR");
	/* Fallbacks without colour: each role keeps a distinct look. */
	static const int mono[TUI_NROLES] = {
	    [TUI_NORMAL] = A_NORMAL,
	    [TUI_TITLE] = A_REVERSE | A_BOLD,
	    [TUI_HEADER] = A_BOLD | A_UNDERLINE,
	    [TUI_SELECTED] = A_REVERSE,
	    [TUI_DIM] = A_DIM,
	    [TUI_ERROR] = A_BOLD,
	    [TUI_GOOD] = A_BOLD,
	    [TUI_KEY] = A_BOLD,
	    [TUI_HEAT0] = A_DIM,
	    [TUI_HEAT1] = A_NORMAL,
	    [TUI_HEAT2] = A_BOLD,
	    [TUI_HEAT3] = A_REVERSE | A_BOLD,
	};
	static const struct {
		short fg, bg;
		int extra;
	} pal[TUI_NROLES] = {
	    [TUI_NORMAL] = {-1, -1, 0},
	    [TUI_TITLE] = {COLOR_WHITE, COLOR_BLUE, A_BOLD},
	    [TUI_HEADER] = {COLOR_CYAN, -1, A_BOLD},
	    [TUI_SELECTED] = {COLOR_BLACK, COLOR_CYAN, 0},
	    [TUI_DIM] = {-1, -1, A_DIM},
	    [TUI_ERROR] = {COLOR_RED, -1, A_BOLD},
	    [TUI_GOOD] = {COLOR_GREEN, -1, A_BOLD},
	    [TUI_KEY] = {COLOR_YELLOW, -1, A_BOLD},
	    [TUI_HEAT0] = {-1, -1, A_DIM},
	    [TUI_HEAT1] = {COLOR_GREEN, -1, 0},
	    [TUI_HEAT2] = {COLOR_YELLOW, -1, A_BOLD},
	    [TUI_HEAT3] = {COLOR_RED, -1, A_BOLD},
	};

	bool color = !(nc && *nc) && has_colors() && start_color() == OK;

	if (color)
		use_default_colors();
	for (int r = 0; r < TUI_NROLES; r++) {
		if (!color) {
			app->attr[r] = mono[r];
			continue;
		}
		init_pair((short)(r + 1), pal[r].fg, pal[r].bg);
		app->attr[r] = COLOR_PAIR(r + 1) | pal[r].extra;
	}
}

static tui_app *the_app; /* for tui_attr: one TUI per process */

int tui_attr(tui_role r)
{
	return the_app && r < TUI_NROLES ? the_app->attr[r] : (int)A_NORMAL;
}

tui_role tui_heat(uint64_t k, uint64_t n)
{
	if (!k || !n)
		return TUI_HEAT0;
	if (4 * k < n)
		return TUI_HEAT1;
	if (2 * k < n)
		return TUI_HEAT2;
	return TUI_HEAT3;
}

char tui_heat_ch(uint64_t k, uint64_t n)
{
	return (char)('A' + tui_heat(k, n));
}

/* ---- app services -------------------------------------------------------- */

void tui_dirty(tui_app *app) { app->dirty = true; }
db *tui_app_db(tui_app *app) { return app->d; }

tui_factors *tui_app_factors(tui_app *app)
{
	if (!app->factors)
		app->factors = tui_factors_new();
	return app->factors;
}
const char *tui_app_dbpath(tui_app *app) { return app->dbpath; }
bool tui_app_utf8(tui_app *app) { return app->utf8; }
int tui_app_rows(tui_app *app) { return LINES - 2; }

void tui_msg(tui_app *app, bool error, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(app->msg, sizeof app->msg, fmt, ap);
	va_end(ap);
	app->msg_err = error;
	app->msg_at = now_s();
	app->dirty = true;
}

static void request_quit(tui_app *app);

static void screen_free(tui_screen *s)
{
	if (s->ops->free)
		s->ops->free(s);
	free(s);
}

bool tui_push(tui_app *app, const tui_screen_ops *ops, void *st,
	      const char *title, bool live)
{
	tui_screen *s = calloc(1, sizeof *s);

	if (!s) {
		tui_msg(app, true, "out of memory");
		return false;
	}
	s->ops = ops;
	s->st = st;
	s->live = live;
	tui_path_fit(title, (int)sizeof s->title - 4, app->utf8, s->title,
		     sizeof s->title);
	if (app->depth == TUI_MAX_DEPTH) {
		tui_msg(app, true, "too many screens open: go back with q");
		screen_free(s);
		return false;
	}
	if (ops->load && !ops->load(s, app)) {
		screen_free(s);
		return false;
	}
	app->stack[app->depth++] = s;
	app->dirty = true;
	return true;
}

void tui_pop(tui_app *app)
{
	if (app->depth <= 1) {
		request_quit(app);
		return;
	}
	screen_free(app->stack[--app->depth]);
	/* The screen below may be stale: a rerun or a sweep changed things. */
	tui_screen *top = app->stack[app->depth - 1];
	if (top->ops->load)
		top->ops->load(top, app);
	app->dirty = true;
}

void tui_ask(tui_app *app, const tui_ask_spec *spec)
{
	app->asking = true;
	app->ask = *spec;
	snprintf(app->prompt, sizeof app->prompt, "%s", spec->prompt);
	snprintf(app->prefix, sizeof app->prefix, "%s",
		 spec->prefix ? spec->prefix : "");
	snprintf(app->buf, sizeof app->buf, "%s",
		 spec->initial ? spec->initial : "");
	app->len = app->cur = strlen(app->buf);
	app->hist_pos = app->hist.n;
	app->dirty = true;
	curs_set(1);
}

/* ---- child processes ----------------------------------------------------- */

bool tui_child_start(tui_child *c, char *const argv[], bool progress, char *err,
		     size_t cap)
{
	int op[2] = {-1, -1}, pp[2] = {-1, -1};
	int devnull;

	memset(c, 0, sizeof *c);
	c->out = c->prog = -1;
	if (pipe2(op, O_CLOEXEC) || (progress && pipe2(pp, O_CLOEXEC))) {
		snprintf(err, cap, "cannot create a pipe: %s", strerror(errno));
		goto fail;
	}
	fflush(NULL);
	c->pid = fork();
	if (c->pid < 0) {
		snprintf(err, cap, "cannot start heisen: %s", strerror(errno));
		goto fail;
	}
	if (c->pid == 0) {
		setpgid(0, 0);
		restore_signals();
		signal(SIGPIPE, SIG_DFL);
		devnull = open("/dev/null", O_RDONLY);
		if (devnull >= 0)
			dup2(devnull, 0);
		dup2(op[1], 1);
		dup2(op[1], 2);
		if (progress)
			dup2(pp[1], 3);
		execv("/proc/self/exe", argv);
		dprintf(2, "heisen: cannot run itself: %s\n", strerror(errno));
		_exit(3);
	}
	setpgid(c->pid, c->pid);
	close(op[1]);
	c->out = op[0];
	fcntl(c->out, F_SETFL, O_NONBLOCK);
	if (progress) {
		close(pp[1]);
		c->prog = pp[0];
		fcntl(c->prog, F_SETFL, O_NONBLOCK);
	}
	c->running = true;
	return true;
fail:
	for (int i = 0; i < 2; i++) {
		if (op[i] >= 0)
			close(op[i]);
		if (pp[i] >= 0)
			close(pp[i]);
	}
	return false;
}

/* Read one pipe; hand out whole lines (a line longer than the buffer is
 * handed out in pieces). At EOF the rest goes out and *fd closes. */
static bool drain(int *fd, char *buf, size_t *len, size_t cap,
		  void (*cb)(void *, const char *), void *ctx)
{
	bool any = false;

	while (*fd >= 0) {
		ssize_t k = read(*fd, buf + *len, cap - 1 - *len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			break;
		any = true;
		if (k == 0) {
			close(*fd);
			*fd = -1;
			if (*len && cb) {
				buf[*len] = '\0';
				cb(ctx, buf);
			}
			*len = 0;
			break;
		}
		*len += (size_t)k;
		for (;;) {
			char *nl = memchr(buf, '\n', *len);
			size_t n;
			if (!nl && *len < cap - 1)
				break;
			n = nl ? (size_t)(nl - buf) : *len;
			buf[n] = '\0';
			if (cb)
				cb(ctx, buf);
			n += nl != NULL;
			memmove(buf, buf + n, *len - n);
			*len -= n;
		}
	}
	return any;
}

bool tui_child_poll(tui_child *c, void (*out)(void *, const char *),
		    void (*prog)(void *, const char *), void *ctx)
{
	bool any = drain(&c->out, c->obuf, &c->olen, sizeof c->obuf, out, ctx);
	int st;

	any |= drain(&c->prog, c->pbuf, &c->plen, sizeof c->pbuf, prog, ctx);
	/* WNOHANG: a child may close its output and run on (a rerun guest
	 * that closes stdout), and the screen must not wait for it. */
	if (c->running && c->out < 0 && c->prog < 0 &&
	    waitpid(c->pid, &st, WNOHANG) == c->pid) {
		c->running = false;
		c->status = WIFEXITED(st)     ? WEXITSTATUS(st)
			    : WIFSIGNALED(st) ? 128 + WTERMSIG(st)
					      : 3;
		any = true;
	}
	return any;
}

void tui_child_interrupt(tui_child *c)
{
	if (c->running)
		kill(-c->pid, SIGINT);
}

void tui_child_free(tui_child *c)
{
	if (c->running) {
		kill(-c->pid, SIGKILL);
		waitpid(c->pid, NULL, 0);
		c->running = false;
	}
	if (c->out >= 0)
		close(c->out);
	if (c->prog >= 0)
		close(c->prog);
	c->out = c->prog = -1;
}

/* ---- the live sweep ------------------------------------------------------ */

/* The number after "key": in one line of heisen.progress/1; false when
 * the key is absent or null. */
static bool json_num(const char *line, const char *key, double *v)
{
	char pat[64];
	const char *p;
	char *end;

	snprintf(pat, sizeof pat, "\"%s\":", key);
	if (!(p = strstr(line, pat)))
		return false;
	p += strlen(pat);
	*v = strtod(p, &end);
	return end != p;
}

static bool json_is(const char *line, const char *event)
{
	char pat[64];
	snprintf(pat, sizeof pat, "\"event\":\"%s\"", event);
	return strstr(line, pat) != NULL;
}

static void sweep_progress_line(void *ctx, const char *line)
{
	tui_app *app = ctx;
	sweep_state *s = &app->sweep;
	double v;

	if (json_num(line, "campaign", &v))
		s->campaign = (int64_t)v;
	if (json_num(line, "done", &v))
		s->done = (uint64_t)v;
	if (json_num(line, "planned", &v))
		s->planned = (uint64_t)v;
	if (json_num(line, "bugs", &v))
		s->bugs = (uint64_t)v;
	if (json_num(line, "runs_per_s", &v))
		s->rps = v;
	/* Only progress lines carry eta_s (null while unknown). */
	if (json_is(line, "progress"))
		s->eta = json_num(line, "eta_s", &v) ? v : -1;
	if (json_is(line, "bug"))
		tui_msg(app, false, "sweep: new bug (%" PRIu64 " so far)",
			s->bugs);
	app->dirty = true;
}

static void sweep_output_line(void *ctx, const char *line)
{
	tui_app *app = ctx;
	if (*line)
		snprintf(app->sweep.last, sizeof app->sweep.last, "%s", line);
}

bool tui_sweep_start(tui_app *app, char *const words[], int nwords)
{
	sweep_state *s = &app->sweep;
	char **argv, err[256];
	int n = 0;

	if (s->active) {
		tui_msg(app, true,
			"a sweep is running (campaign %" PRId64
			"): stop it with S first",
			s->campaign);
		return false;
	}
	if (!(argv = calloc((size_t)nwords + 8, sizeof *argv))) {
		tui_msg(app, true, "out of memory");
		return false;
	}
	argv[n++] = "heisen";
	argv[n++] = "sweep";
	argv[n++] = "--db";
	argv[n++] = app->dbpath;
	argv[n++] = "--progress-fd";
	argv[n++] = "3";
	/* The words may end with "-- ARGS": they stay last. */
	for (int i = 0; i < nwords; i++)
		argv[n++] = words[i];
	argv[n] = NULL;
	memset(s, 0, sizeof *s);
	s->eta = -1;
	for (int i = 0; i < nwords; i++)
		if (words[i][0] != '-') {
			const char *b = strrchr(words[i], '/');
			snprintf(s->program, sizeof s->program, "%s",
				 b ? b + 1 : words[i]);
			break;
		}
	if (!tui_child_start(&s->child, argv, true, err, sizeof err)) {
		free(argv);
		tui_msg(app, true, "sweep: %s", err);
		return false;
	}
	free(argv);
	s->active = true;
	s->last_reload = now_s();
	tui_msg(app, false, "sweep of %s started (S stops it)", s->program);
	return true;
}

static void reload_top(tui_app *app)
{
	tui_screen *top = app->stack[app->depth - 1];
	if (top->ops->load)
		top->ops->load(top, app);
	app->dirty = true;
}

static void sweep_tick(tui_app *app)
{
	sweep_state *s = &app->sweep;

	if (!s->active)
		return;
	tui_child_poll(&s->child, sweep_output_line, sweep_progress_line, app);
	if (s->child.running) {
		double t = now_s();
		if (t - s->last_reload >= TUI_LIVE_RELOAD_S &&
		    app->stack[app->depth - 1]->live && !app->asking) {
			s->last_reload = t;
			reload_top(app);
		}
		return;
	}
	s->active = false;
	if (s->child.status == 0)
		tui_msg(app, false,
			"sweep of %s done: %" PRIu64 " runs, %" PRIu64 " bug%s",
			s->program, s->done, s->bugs, s->bugs == 1 ? "" : "s");
	else if (s->child.status == 130)
		tui_msg(app, false,
			"sweep of %s stopped after %" PRIu64
			" runs (R on its campaign resumes it)",
			s->program, s->done);
	else
		tui_msg(app, true, "sweep failed (exit %d): %s",
			s->child.status, s->last[0] ? s->last : "no message");
	tui_child_free(&s->child);
	reload_top(app);
}

/* ---- drawing ------------------------------------------------------------- */

static void fmt_eta(double s, char *buf, size_t cap)
{
	unsigned long t = s < 0 ? 0 : (unsigned long)(s + 0.5);
	if (s < 0)
		snprintf(buf, cap, "-");
	else if (t >= 3600)
		snprintf(buf, cap, "%lu:%02lu:%02lu", t / 3600, t / 60 % 60,
			 t % 60);
	else
		snprintf(buf, cap, "%lu:%02lu", t / 60, t % 60);
}

/* "sweep #3 fibonacci.wasm [####----] 412/8000 290 runs/s 1 bug ETA 0:26"
 * in cols; the program's name goes first when the bar would not fit. */
static void draw_sweep(tui_app *app, int y, int x, int cols)
{
	sweep_state *s = &app->sweep;
	char left[192], right[160], eta[32];
	int barw;

	fmt_eta(s->eta, eta, sizeof eta);
	if (s->planned)
		snprintf(right, sizeof right,
			 "%" PRIu64 "/%" PRIu64 " %.0f runs/s %" PRIu64
			 " bug%s ETA %s",
			 s->done, s->planned, s->rps, s->bugs,
			 s->bugs == 1 ? "" : "s", eta);
	else
		snprintf(
		    right, sizeof right,
		    "%" PRIu64 " runs %.0f runs/s %" PRIu64 " bug%s left %s",
		    s->done, s->rps, s->bugs, s->bugs == 1 ? "" : "s", eta);
	snprintf(left, sizeof left, "sweep #%" PRId64 " %s ", s->campaign,
		 s->stopping ? "stopping" : s->program);
	if (cols - (int)strlen(left) - (int)strlen(right) - 3 < 10)
		snprintf(left, sizeof left, "sweep #%" PRId64 " %s",
			 s->campaign, s->stopping ? "stopping " : "");
	x += tui_put(y, x, left, cols, tui_attr(TUI_KEY));
	cols -= (int)strlen(left);
	barw = cols - (int)strlen(right) - 3;
	if (barw > 40)
		barw = 40;
	if (barw >= 8) {
		int fill = s->planned ? (int)((double)barw * (double)s->done /
					      (double)s->planned)
				      : 0;
		if (fill > barw)
			fill = barw;
		x += tui_put(y, x, "[", 1, A_NORMAL);
		for (int i = 0; i < barw; i++)
			x +=
			    tui_put(y, x,
				    i < fill ? (app->utf8 ? "\u2588" : "#")
					     : (app->utf8 ? "\u00b7" : "-"),
				    1, tui_attr(i < fill ? TUI_GOOD : TUI_DIM));
		x += tui_put(y, x, "] ", 2, A_NORMAL);
		cols -= barw + 3;
	}
	tui_put(y, x, right, cols, A_NORMAL);
}

static void draw_status(tui_app *app)
{
	int y = LINES - 1, x = 0;
	char path[4096];

	move(y, 0);
	clrtoeol();
	if (app->asking) {
		int pl = tui_put(y, 0, app->prompt, COLS, tui_attr(TUI_KEY));
		int avail = COLS - pl - 1;
		size_t from = 0;
		/* Scroll the text so the cursor stays visible (bytes as
		 * columns: the prompt's text is mostly ASCII). */
		if ((int)app->cur > avail)
			from = app->cur - (size_t)avail;
		tui_put(y, pl, app->buf + from, avail, A_NORMAL);
		move(y, pl + (int)(app->cur - from));
		return;
	}
	/* The loop clears a message once it is TUI_MSG_S old. */
	if (app->msg[0]) {
		tui_put(y, 0, app->msg, COLS,
			tui_attr(app->msg_err ? TUI_ERROR : TUI_GOOD));
		return;
	}
	tui_path_fit(app->dbpath, COLS / 3, app->utf8, path, sizeof path);
	x = tui_put(y, 1, path, COLS / 3, tui_attr(TUI_DIM)) + 2;
	/* A running sweep takes the room of the help hint: at 80 columns
	 * its progress needs it all (the ETA was cut off). */
	if (app->sweep.active) {
		draw_sweep(app, y, x + 1, COLS - x - 2);
		return;
	}
	if (COLS > x + 8)
		tui_put(y, COLS - 8, " ? help", 8, tui_attr(TUI_DIM));
}

/* The breadcrumb of the open screens. When it does not fit, crumbs that
 * hold a path lose their heads first, the deepest first: a source
 * screen's "FILE:LINE" under a long checkout keeps the file and line. */
static void draw_title(tui_app *app)
{
	const char *sep = app->utf8 ? " \u203a " : " > ";
	char crumb[TUI_MAX_DEPTH][sizeof app->stack[0]->title];
	char t[TUI_MAX_DEPTH * (sizeof crumb[0] + 8) + 16] = " heisen";
	int total = tui_cols(t);
	size_t n = strlen(t);

	for (int i = 0; i < app->depth; i++) {
		snprintf(crumb[i], sizeof crumb[i], "%s", app->stack[i]->title);
		total += tui_cols(sep) + tui_cols(crumb[i]);
	}
	for (int i = app->depth - 1; i >= 0 && total > COLS; i--) {
		int w = tui_cols(crumb[i]);
		if (!strchr(crumb[i], '/'))
			continue;
		tui_path_fit(app->stack[i]->title, w - (total - COLS),
			     app->utf8, crumb[i], sizeof crumb[i]);
		total -= w - tui_cols(crumb[i]);
	}
	for (int i = 0; i < app->depth; i++)
		n += (size_t)snprintf(t + n, sizeof t - n, "%s%s", sep,
				      crumb[i]);
	attrset(tui_attr(TUI_TITLE));
	mvhline(0, 0, ' ', COLS);
	tui_put(0, 0, t, COLS, tui_attr(TUI_TITLE));
}

static void draw(tui_app *app)
{
	tui_screen *top = app->stack[app->depth - 1];

	erase();
	if (COLS < 40 || LINES < 8) {
		tui_put(0, 0, "heisen: terminal too small (40x8 at least)",
			COLS, A_BOLD);
	} else {
		draw_title(app);
		top->ops->draw(top, app, 1, LINES - 2, COLS);
		draw_status(app);
	}
	if (!app->asking)
		curs_set(0);
	refresh();
	app->dirty = false;
}

/* ---- the bottom-line editor ---------------------------------------------- */

typedef struct cands {
	char first[512], common[512];
	char list[400];
	int n;
} cands;

static bool on_cand(void *ctx, const char *cand)
{
	cands *c = ctx;
	size_t k = 0;

	if (!c->n++) {
		snprintf(c->first, sizeof c->first, "%s", cand);
		snprintf(c->common, sizeof c->common, "%s", cand);
	} else {
		while (c->common[k] && c->common[k] == cand[k])
			k++;
		c->common[k] = '\0';
	}
	if (strlen(c->list) + strlen(cand) + 2 < sizeof c->list) {
		strcat(c->list, cand);
		strcat(c->list, "  ");
	}
	return c->n < 500;
}

static void ask_insert(tui_app *app, const char *s, size_t n)
{
	if (app->len + n >= sizeof app->buf)
		return;
	memmove(app->buf + app->cur + n, app->buf + app->cur,
		app->len - app->cur + 1);
	memcpy(app->buf + app->cur, s, n);
	app->len += n;
	app->cur += n;
}

static void ask_complete(tui_app *app)
{
	char line[sizeof app->buf + 64];
	size_t pl = strlen(app->prefix), start = app->cur;
	cands c;

	memset(&c, 0, sizeof c);
	while (start && app->buf[start - 1] != ' ')
		start--;
	snprintf(line, sizeof line, "%s%.*s", app->prefix, (int)app->cur,
		 app->buf);
	tui_complete(&app->session, line, pl + start, pl + app->cur, on_cand,
		     &c);
	if (!c.n) {
		beep();
		return;
	}
	/* Replace the word by the candidates' common part. */
	memmove(app->buf + start, app->buf + app->cur, app->len - app->cur + 1);
	app->len -= app->cur - start;
	app->cur = start;
	ask_insert(app, c.common, strlen(c.common));
	if (c.n == 1 && c.common[0] && c.common[strlen(c.common) - 1] != '/')
		ask_insert(app, " ", 1);
	else if (c.n > 1)
		tui_msg(app, false, "%s", c.list);
}

static void ask_end(tui_app *app, bool ok)
{
	tui_ask_spec a = app->ask;
	char text[sizeof app->buf];

	snprintf(text, sizeof text, "%s", app->buf);
	app->asking = false;
	curs_set(0);
	if (ok && a.history) {
		tui_history_add(&app->hist, text);
		if (app->hist.warning[0] && !app->hist.warned) {
			app->hist.warned = true;
			tui_msg(app, true, "history: %s", app->hist.warning);
		}
	}
	app->dirty = true;
	if (a.done)
		a.done(a.ctx, app, ok ? text : NULL);
}

static void ask_key(tui_app *app, int ch)
{
	bool changed = false;

	switch (ch) {
	case 27: /* Esc */
	case 7: /* Ctrl-G */ ask_end(app, false); return;
	case '\n':
	case '\r':
	case KEY_ENTER: ask_end(app, true); return;
	case KEY_LEFT:
	case 2:
		if (app->cur)
			app->cur--;
		break;
	case KEY_RIGHT:
	case 6:
		if (app->cur < app->len)
			app->cur++;
		break;
	case KEY_HOME:
	case 1: app->cur = 0; break;
	case KEY_END:
	case 5: app->cur = app->len; break;
	case KEY_BACKSPACE:
	case 127:
	case 8:
		if (!app->cur)
			break;
		memmove(app->buf + app->cur - 1, app->buf + app->cur,
			app->len - app->cur + 1);
		app->cur--;
		app->len--;
		changed = true;
		break;
	case KEY_DC:
	case 4:
		if (app->cur == app->len)
			break;
		memmove(app->buf + app->cur, app->buf + app->cur + 1,
			app->len - app->cur);
		app->len--;
		changed = true;
		break;
	case 21: /* Ctrl-U */
		memmove(app->buf, app->buf + app->cur, app->len - app->cur + 1);
		app->len -= app->cur;
		app->cur = 0;
		changed = true;
		break;
	case 23: /* Ctrl-W */ {
		size_t k = app->cur;
		while (k && app->buf[k - 1] == ' ')
			k--;
		while (k && app->buf[k - 1] != ' ')
			k--;
		memmove(app->buf + k, app->buf + app->cur,
			app->len - app->cur + 1);
		app->len -= app->cur - k;
		app->cur = k;
		changed = true;
		break;
	}
	case '\t':
		if (app->ask.complete) {
			ask_complete(app);
			changed = true;
		}
		break;
	case KEY_UP:
	case KEY_DOWN:
		if (!app->ask.history || !app->hist.n)
			break;
		app->hist_pos += ch == KEY_UP ? -1 : 1;
		if (app->hist_pos < 0)
			app->hist_pos = 0;
		if (app->hist_pos >= app->hist.n) {
			app->hist_pos = app->hist.n;
			app->buf[0] = '\0';
		} else {
			snprintf(app->buf, sizeof app->buf, "%s",
				 app->hist.v[app->hist_pos]);
		}
		app->len = app->cur = strlen(app->buf);
		break;
	default:
		/* Printable bytes, UTF-8 sequences included (getch gives
		 * them one byte at a time). */
		if (ch >= 32 && ch < 256 && ch != 127) {
			char b = (char)ch;
			ask_insert(app, &b, 1);
			changed = true;
		}
	}
	app->dirty = true;
	if (changed && app->ask.change)
		app->ask.change(app->ask.ctx, app, app->buf);
}

/* ---- ':' commands -------------------------------------------------------- */

/* Append "word" to the command line b quoted for tui_split_words. */
static void quote_word(char *b, size_t cap, const char *w)
{
	size_t n = strlen(b);
	if (n + 2 < cap)
		b[n++] = '"';
	for (; *w && n + 3 < cap; w++) {
		if (*w == '"' || *w == '\\' || *w == '$')
			b[n++] = '\\';
		b[n++] = *w;
	}
	b[n++] = '"';
	b[n] = '\0';
}

static void on_command(void *ctx, tui_app *app, const char *text)
{
	tui_words w = {0};
	wasm_err e;
	size_t pos = 0;
	char line[2048] = "set db ";

	if (!text)
		return;
	if (tui_split_words(text, &pos, &w, &e)) {
		tui_msg(app, true, ":%s", e.msg);
		return;
	}
	if (!w.argc) {
		tui_words_free(&w);
		return;
	}
	if (!strcmp(w.argv[0], "q") || !strcmp(w.argv[0], "quit")) {
		request_quit(app);
	} else if (!strcmp(w.argv[0], "sweep") && !text[pos]) {
		tui_sweep_start(app, w.argv + 1, w.argc - 1);
	} else if (!strcmp(w.argv[0], "set") || !strcmp(w.argv[0], "unset")) {
		char *out = NULL;
		size_t outlen = 0;
		FILE *f = open_memstream(&out, &outlen);
		if (f) {
			int rc = tui_run_line(&app->session, text, NULL, f, f);
			fclose(f);
			/* One line of output fits the status line. */
			char *nl = out ? strchr(out, '\n') : NULL;
			if (nl && nl[1] == '\0')
				*nl = '\0';
			if (out && *out)
				tui_msg(app, rc != 0, "%s", out);
			free(out);
		}
	} else {
		/* The command runs in a child, like `heisen -c`, with this
		 * workspace and the ':set' settings: a long or failing command
		 * cannot freeze or break the screen. */
		char *argv[] = {"heisen", "-c", line, NULL};
		quote_word(line, sizeof line, app->dbpath);
		for (int i = 0; tui_settable[i].name; i++)
			if (app->session.val[i] &&
			    strcmp(tui_settable[i].name, "db")) {
				size_t n = strlen(line);
				snprintf(line + n, sizeof line - n, "; set %s ",
					 tui_settable[i].name);
				quote_word(line, sizeof line,
					   app->session.val[i]);
			}
		snprintf(line + strlen(line), sizeof line - strlen(line),
			 "; %s", text);
		tui_open_output(app, text, argv);
	}
	tui_words_free(&w);
}

/* ---- help ---------------------------------------------------------------- */

static const tui_keydoc global_keys[] = {
    {"Up/Down j/k", "move; PgUp/PgDn Ctrl-B/F Space page; g/G first/last"},
    {"Enter l Right", "open"},
    {"q Esc h Left", "back (q on the first screen quits)"},
    {"?", "this help"},
    {":", "command prompt: any heisen command, Tab completes"},
    {"/", "filter the rows of a table by text"},
    {"< > I", "sort column left, right; invert the order"},
    {"r", "reload from the database"},
    {"1 2 3", "campaigns, all bugs, remote nodes"},
    {"S", "stop the running sweep (its runs are kept)"},
    {"Q Ctrl-C", "quit (a running sweep is stopped first)"},
    {NULL, NULL},
};

static void help_free(tui_screen *s)
{
	tui_doc_clear(s->st);
	free(s->st);
}

static void help_draw(tui_screen *s, tui_app *app, int y, int rows, int cols)
{
	tui_doc_draw(s->st, y, rows, cols);
}

static bool help_key(tui_screen *s, tui_app *app, int ch)
{
	return tui_doc_key(s->st, app, ch);
}

static const tui_screen_ops help_ops = {
    "Help", NULL, NULL, help_draw, help_key, NULL, help_free,
};

static void open_help(tui_app *app)
{
	const tui_screen *top = app->stack[app->depth - 1];
	tui_doc *d = calloc(1, sizeof *d);
	char title[200];

	if (!d)
		return;
	if (top->ops->keys) {
		tui_doc_add(d, TUI_M_HEADER "Keys of %s", top->ops->name);
		for (const tui_keydoc *k = top->ops->keys; k->keys; k++)
			tui_doc_add(d,
				    "  " TUI_M_KEY "%-14s" TUI_M_NORMAL " %s",
				    k->keys, k->what);
		tui_doc_add(d, " ");
	}
	tui_doc_add(d, TUI_M_HEADER "Keys everywhere");
	for (const tui_keydoc *k = global_keys; k->keys; k++)
		tui_doc_add(d, "  " TUI_M_KEY "%-14s" TUI_M_NORMAL " %s",
			    k->keys, k->what);
	tui_doc_add(d, " \n" TUI_M_DIM
		       "Commands at ':' are heisen's (see 'help'); they run "
		       "on this workspace.");
	snprintf(title, sizeof title, "Help (%s)", top->ops->name);
	tui_push(app, &help_ops, d, title, false);
}

/* ---- the loop ------------------------------------------------------------ */

static void global_key(tui_app *app, int ch)
{
	tui_ask_spec cmd = {":", "", "", true, on_command, NULL, NULL, true};

	switch (ch) {
	case 'q':
	case 27:
	case 'h':
	case KEY_LEFT: tui_pop(app); break;
	case 'Q': request_quit(app); break;
	case '?':
		if (app->stack[app->depth - 1]->ops != &help_ops)
			open_help(app);
		break;
	case ':': tui_ask(app, &cmd); break;
	case 'r':
		reload_top(app);
		tui_msg(app, false, "reloaded %s", app->dbpath);
		break;
	case '1':
		while (app->depth > 1)
			tui_pop(app);
		break;
	case '2': tui_open_bugs(app, 0); break;
	case '3': tui_open_nodes(app); break;
	case 'S':
		if (!app->sweep.active) {
			tui_msg(app, true, "no sweep is running");
		} else {
			app->sweep.stopping = true;
			tui_child_interrupt(&app->sweep.child);
			tui_msg(app, false,
				"stopping the sweep: the runs in flight finish "
				"and are recorded");
		}
		break;
	case 12: /* Ctrl-L */ clearok(curscr, TRUE); break;
	case KEY_RESIZE: break;
	default: return;
	}
	app->dirty = true;
}

static void handle_key(tui_app *app, int ch)
{
	tui_screen *top = app->stack[app->depth - 1];

	if (app->msg[0] && !app->asking) {
		app->msg[0] = '\0';
		app->dirty = true;
	}
	if (app->asking) {
		ask_key(app, ch);
		return;
	}
	if (ch == KEY_RESIZE) {
		app->dirty = true;
		return;
	}
	if (top->ops->key && top->ops->key(top, app, ch))
		return;
	global_key(app, ch);
}

/* Quitting with a sweep running stops it first, so that every finished
 * run is recorded; a second request does not wait. */
static void request_quit(tui_app *app)
{
	sweep_state *s = &app->sweep;

	app->quit = true;
	if (++app->quit_requests > 1 || !s->active || s->stopping)
		return;
	s->stopping = true;
	tui_child_interrupt(&s->child);
	tui_msg(app, false,
		"stopping the sweep before quitting (Q again: do not wait)");
}

/* ---- responsiveness ------------------------------------------------------
 * With HEISEN_TUI_STATS=FILE the TUI measures itself and writes, when it
 * ends, how long each turn of the loop kept it from reading keys (its
 * work between two polls: reloads, drawing, children's output) and how
 * long from reading a key to the screen showing its effect. `make bench`
 * reads it (tests/bench/tui_echo.sh). Milliseconds, in 0.1 ms buckets up
 * to 2 s. */
#define LAT_BUCKETS 20000

typedef struct lat_hist {
	uint64_t n, count[LAT_BUCKETS + 1];
	double max_ms;
} lat_hist;

struct latency {
	char *path;
	lat_hist busy, key;
};

static void lat_add(lat_hist *h, double ms)
{
	size_t b = (size_t)(ms * 10.0);
	h->count[b < LAT_BUCKETS ? b : LAT_BUCKETS]++;
	h->n++;
	if (ms > h->max_ms)
		h->max_ms = ms;
}

/* The q-quantile's bucket, as milliseconds (its upper edge). */
static double lat_q(const lat_hist *h, double q)
{
	uint64_t want = (uint64_t)((double)h->n * q), seen = 0;
	for (size_t b = 0; b <= LAT_BUCKETS; b++)
		if ((seen += h->count[b]) > want || seen == h->n)
			return (double)(b + 1) / 10.0;
	return h->max_ms;
}

static void lat_write(const struct latency *l)
{
	FILE *f = fopen(l->path, "w");
	const struct {
		const char *name;
		const lat_hist *h;
	} rows[] = {{"loop_busy_ms", &l->busy}, {"key_to_screen_ms", &l->key}};

	if (!f)
		return;
	for (size_t i = 0; i < 2; i++)
		fprintf(
		    f, "%s samples %" PRIu64 " median %.1f p99 %.1f max %.1f\n",
		    rows[i].name, rows[i].h->n, lat_q(rows[i].h, 0.5),
		    lat_q(rows[i].h, 0.99), rows[i].h->max_ms);
	fclose(f);
}

static void loop(tui_app *app)
{
	double woke = 0, key_at = 0;

	while (app->depth > 0) {
		struct pollfd p = {STDIN_FILENO, POLLIN, 0};
		int ch;

		if (got_quit) {
			got_quit = 0;
			request_quit(app);
		}
		if (app->quit && (!app->sweep.active || app->quit_requests > 1))
			break;
		if (app->dirty)
			draw(app);
		if (app->lat && woke > 0) {
			double t = now_s();
			lat_add(&app->lat->busy, (t - woke) * 1e3);
			if (key_at > 0)
				lat_add(&app->lat->key, (t - key_at) * 1e3);
			key_at = 0;
		}
		/* getch even when poll saw no input: a resize (SIGWINCH)
		 * interrupts poll and comes out of getch as KEY_RESIZE. */
		poll(&p, 1, 50);
		woke = app->lat ? now_s() : 0;
		while ((ch = getch()) != ERR) {
			if (app->lat && key_at == 0)
				key_at = now_s();
			handle_key(app, ch);
		}
		sweep_tick(app);
		if (app->stack[app->depth - 1]->ops->tick)
			app->stack[app->depth - 1]->ops->tick(
			    app->stack[app->depth - 1], app);
		/* Messages expire without a key. */
		if (app->msg[0] && now_s() - app->msg_at >= TUI_MSG_S) {
			app->msg[0] = '\0';
			app->dirty = true;
		}
	}
}

int tui_app_run(const char *who, const char *dbpath,
		bool (*root)(tui_app *app, void *ctx), void *ctx, FILE *err)
{
	tui_app *app;
	struct stat sb;
	bool created;
	int rc;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fprintf(err,
			"heisen %s: needs a terminal on standard input and "
			"output (for scripts use 'heisen -f' or 'heisen "
			"-c')\n",
			who);
		return TUI_EXIT_USAGE;
	}
	if (!(app = calloc(1, sizeof *app))) {
		fprintf(err, "heisen %s: out of memory\n", who);
		return TUI_EXIT_INTERNAL;
	}
	created = stat(dbpath, &sb) != 0;
	if ((rc = tui_open_db(dbpath, &app->d, err))) {
		free(app);
		return rc;
	}
	snprintf(app->dbpath, sizeof app->dbpath, "%s", dbpath);
	tui_session_init(&app->session);
	tui_history_load(&app->hist);
	if (getenv("HEISEN_TUI_STATS") && *getenv("HEISEN_TUI_STATS") &&
	    (app->lat = calloc(1, sizeof *app->lat)))
		app->lat->path = getenv("HEISEN_TUI_STATS");
	app->session.keep_going = true;
	setlocale(LC_ALL, "");
	app->utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");
	tty_saved = tcgetattr(STDIN_FILENO, &saved_tty) == 0;
	set_escdelay(25);
	if (!initscr()) {
		fprintf(err,
			"heisen %s: cannot initialise the terminal "
			"(is TERM set?)\n",
			who);
		db_close(app->d);
		free(app);
		return TUI_EXIT_USAGE;
	}
	the_app = app;
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	curs_set(0);
	init_colors(app);
	install_signals();
	rc = TUI_EXIT_OK;
	if (root(app, ctx)) {
		if (created && strcmp(dbpath, ":memory:"))
			tui_msg(app, false,
				"new workspace %s: press n to start a sweep",
				dbpath);
		loop(app);
	} else {
		rc = TUI_EXIT_USAGE;
	}
	while (app->depth)
		screen_free(app->stack[--app->depth]);
	tui_child_free(&app->sweep.child);
	endwin();
	restore_signals();
	the_app = NULL;
	if (rc && app->msg[0])
		fprintf(err, "heisen %s: %s\n", who, app->msg);
	tui_history_free(&app->hist);
	if (app->lat) {
		lat_write(app->lat);
		free(app->lat);
	}
	tui_session_free(&app->session);
	tui_factors_free(app->factors);
	db_close(app->d);
	free(app);
	return rc;
}

static bool root_campaigns(tui_app *app, void *ctx)
{
	(void)ctx;
	return tui_open_campaigns(app);
}

int tui_cmd_tui(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err)
{
	return tui_app_run("tui", db_path_choose(tui_opt_value(cmd, a, "--db")),
			   root_campaigns, NULL, err);
}
