/*
 * line.c - `heisen shell`: the interactive command line. Each line runs
 * as a script line would (tui_run_line in one session), read with GNU
 * readline or, built with `make LINE=edit` (TUI_LINE_EDIT), libedit's
 * readline interface; completion comes from tui_complete.
 *
 * Lines are read through readline's callback interface so that Ctrl-C
 * is ours: at the prompt it clears the line instead of ending heisen.
 * While a command runs, SIGINT is back to what it was, so a sweep stops
 * cleanly on Ctrl-C (it installs its own handler) and returns here.
 */
#include "tui/cli/cli.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef TUI_LINE_EDIT
#include <editline/readline.h>
#else
#include <readline/history.h>
#include <readline/readline.h>
#endif

/* ---- completion ------------------------------------------------------ */

static tui_session *shell_session;

typedef struct found {
	char **v;
	size_t n, cap;
} found;

static bool keep(void *ctx, const char *cand)
{
	found *f = ctx;
	char *s;

	if (f->n == f->cap) {
		size_t nc = f->cap ? 2 * f->cap : 32;
		char **nv = realloc(f->v, nc * sizeof *nv);
		if (!nv)
			return false;
		f->v = nv;
		f->cap = nc;
	}
	if (!(s = strdup(cand)))
		return false;
	f->v[f->n++] = s;
	return true;
}

static found matches;

/* rl_completion_matches' generator: hands over the candidates one by one
 * (readline frees them). */
static char *next_match(const char *text, int state)
{
	static size_t i;

	if (!state)
		i = 0;
	return i < matches.n ? matches.v[i++] : NULL;
}

static char **attempt(const char *text, int start, int end)
{
	char **m;

	/* Where tui_complete finds nothing, nothing fits: readline's own
	 * file name completion would offer files for a bug id. */
	rl_attempted_completion_over = 1;
	rl_completion_append_character = ' ';
	matches.n = 0;
	tui_complete(shell_session, rl_line_buffer, (size_t)start, (size_t)end,
		     keep, &matches);
	if (!matches.n)
		return NULL;
	/* A directory is completed without the space after it, so the
	 * next Tab goes on into it. */
	if (matches.n == 1 && matches.v[0][strlen(matches.v[0]) - 1] == '/')
		rl_completion_append_character = '\0';
	m = rl_completion_matches(text, next_match);
	matches.n = 0; /* each one is readline's now */
	return m;
}

/* ---- reading a line ----------------------------------------------------- */

static volatile sig_atomic_t got_sigint, got_sigwinch;

static void on_signal(int sig)
{
	if (sig == SIGINT)
		got_sigint = 1;
	else
		got_sigwinch = 1;
}

static bool line_done;
static char *line_read;

static void on_line(char *line)
{
	/* Uninstalled here so readline does not print the next prompt
	 * before the command has run. */
	rl_callback_handler_remove();
	line_done = true;
	line_read = line;
}

/* Ctrl-C at the prompt: "^C" after the line, which is dropped, and a
 * fresh prompt below it. */
static void interrupt(const char *prompt)
{
	FILE *o = rl_outstream ? rl_outstream : stdout;

#ifndef TUI_LINE_EDIT
	rl_point = rl_end;
	rl_redisplay();
	rl_free_line_state();
	rl_callback_sigcleanup();
#endif
	fputs("^C", o);
	fflush(o);
	rl_replace_line("", 0);
	rl_callback_handler_remove();
	fputs("\n", o);
	fflush(o);
	rl_callback_handler_install(prompt, on_line);
}

/* One line from the terminal, or NULL at end of input. Ctrl-C drops the
 * line being edited and starts a fresh one. */
static char *read_line(const char *prompt)
{
	struct sigaction sa, old_int, old_winch;
	sigset_t block, old_mask, wait_mask;
	struct pollfd p = {fileno(rl_instream ? rl_instream : stdin), POLLIN,
			   0};

	/* The signals arrive only inside ppoll: never between a check of
	 * the flags and the wait. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGWINCH);
	sigprocmask(SIG_BLOCK, &block, &old_mask);
	wait_mask = old_mask;
	sigdelset(&wait_mask, SIGINT);
	sigdelset(&wait_mask, SIGWINCH);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGWINCH, &sa, &old_winch);
	got_sigint = got_sigwinch = 0;

	line_done = false;
	line_read = NULL;
	rl_callback_handler_install(prompt, on_line);
	while (!line_done) {
		int r = ppoll(&p, 1, NULL, &wait_mask);
		if (got_sigint) {
			got_sigint = 0;
			interrupt(prompt);
			continue;
		}
		if (got_sigwinch) {
			got_sigwinch = 0;
			rl_resize_terminal();
		}
		if (r < 0 && errno == EINTR)
			continue;
		/* A hung-up terminal polls as an error, forever readable
		 * but with nothing to read. */
		if (r < 0 || (p.revents & (POLLNVAL | POLLERR))) {
			rl_callback_handler_remove();
			break;
		}
		rl_callback_read_char();
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGWINCH, &old_winch, NULL);
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	return line_read;
}

/* ---- the shell -------------------------------------------------------- */

static int setting(const char *name)
{
	for (int i = 0; tui_settable[i].name; i++)
		if (!strcmp(tui_settable[i].name, name))
			return i;
	return -1;
}

/* "heisen> ", or "heisen w.db> " once a database is set. */
static void make_prompt(const tui_session *s, char *buf, size_t cap)
{
	const char *file = s->val[setting("db")], *base;

	if (!file) {
		snprintf(buf, cap, "heisen> ");
		return;
	}
	base = strrchr(file, '/');
	snprintf(buf, cap, "heisen %s> ", base && base[1] ? base + 1 : file);
}

/* Ctrl-D leaves the cursor after the prompt; the shell's prompt goes
 * below it. GNU readline has moved down already when it had the terminal
 * in bracketed-paste mode. */
static void end_of_input(FILE *out)
{
#ifndef TUI_LINE_EDIT
	const char *bp = rl_variable_value("enable-bracketed-paste");
	if (bp && !strcmp(bp, "on") &&
	    isatty(fileno(rl_instream ? rl_instream : stdin)))
		return;
#endif
	fputc('\n', out);
}

/* `quit` or `exit` alone on its line. */
static bool is_quit(const char *line)
{
	tui_words w;
	wasm_err e;
	size_t pos = 0;
	bool quit;

	if (tui_split_words(line, &pos, &w, &e))
		return false;
	quit = w.argc == 1 && line[pos] == '\0' &&
	       (!strcmp(w.argv[0], "quit") || !strcmp(w.argv[0], "exit"));
	tui_words_free(&w);
	return quit;
}

/* Standard input that is not a terminal (a pipe, a file): its lines as
 * they come, without prompt, editing nor history. libedit cannot read
 * such input through the callback interface. */
static void run_plain(tui_session *s, FILE *out, FILE *err)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;

	while ((len = getline(&line, &cap, stdin)) >= 0) {
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		if (is_quit(line))
			break;
		tui_run_line(s, line, NULL, out, err);
		fflush(out);
	}
	free(line);
}

/* The history file's trouble, said once. */
static void history_note(tui_history *h, FILE *err)
{
	if (h->warning[0] && !h->warned) {
		fprintf(err, "heisen shell: %s\n", h->warning);
		h->warned = true;
	}
}

static void run_interactive(tui_session *s, FILE *out, FILE *err)
{
	static char breaks[] = " \t\n;";
	tui_history h;
	char prompt[256], *line;

	rl_readline_name = "heisen";
	rl_catch_signals = 0;
	rl_catch_sigwinch = 0;
	rl_attempted_completion_function = attempt;
	rl_completer_word_break_characters = breaks;
	rl_basic_word_break_characters = breaks;
	rl_completer_quote_characters = "'\"";
	/* tui_complete's order: ids by number. */
	rl_sort_completion_matches = 0;
#ifndef TUI_LINE_EDIT
	using_history();
#endif
	stifle_history(TUI_HISTORY_MAX);
	tui_history_load(&h);
	history_note(&h, err);
	for (int i = 0; i < h.n; i++)
		add_history(h.v[i]);

	for (;;) {
		make_prompt(s, prompt, sizeof prompt);
		if (!(line = read_line(prompt))) {
			end_of_input(out);
			break;
		}
		if (tui_history_add(&h, line))
			add_history(line);
		history_note(&h, err);
		if (is_quit(line)) {
			free(line);
			break;
		}
		tui_run_line(s, line, NULL, out, err);
		free(line);
		fflush(out);
	}
	clear_history();
	free(matches.v);
	matches = (found){0};
	tui_history_free(&h);
}

int tui_cmd_shell(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err)
{
	const char *dbfile = tui_opt_value(cmd, a, "--db");
	tui_session s;

	if (tui_current_session) {
		fprintf(err, "heisen shell: already reading commands (from a "
			     "script or the command line)\n");
		return TUI_EXIT_USAGE;
	}
	tui_session_init(&s);
	if (dbfile && !(s.val[setting("db")] = strdup(dbfile))) {
		fprintf(err, "heisen shell: out of memory\n");
		return TUI_EXIT_INTERNAL;
	}
	shell_session = &s;
	if (isatty(STDIN_FILENO))
		run_interactive(&s, out, err);
	else
		run_plain(&s, out, err);
	shell_session = NULL;
	tui_session_free(&s);
	return TUI_EXIT_OK;
}
