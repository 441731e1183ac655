/*
 * script.c - sessions and scripts: lines of commands split into words
 * the way a shell would, run through the same dispatcher as argv, with
 * `set` defaults that later commands pick up.
 */
#include "tui/cli/cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

/* sweep's exit code when stopped by Ctrl-C (128 + SIGINT): the user wants
 * the whole script to stop, --keep-going or not. */
enum { SCRIPT_EXIT_INTERRUPTED = 130 };

tui_session *tui_current_session;

const tui_setting tui_settable[] = {
    {"db", "--db", "workspace database (sweep, campaigns, runs, bugs, show)"},
    {"delay", "--delay",
     "spin units of an armed probe (sweep; run with --density/--mask)"},
    {"jobs", "--jobs", "worker processes at once (sweep, shared)"},
    {"timeout", "--timeout",
     "time limit of a run (run: seconds; sweep, shared: 30 or 30s)"},
    {"profiles", "--profiles", "profiles of a campaign (sweep)"},
    {"densities", "--densities", "densities of a campaign (sweep)"},
    {"seed", "--seed", "campaign seed (sweep); mask seed (run with --density)"},
    {NULL, NULL, NULL},
};
_Static_assert(sizeof tui_settable / sizeof *tui_settable <= TUI_MAX_SET + 1,
	       "tui_session.val has a slot per settable name");

void tui_session_init(tui_session *s) { memset(s, 0, sizeof *s); }

void tui_session_free(tui_session *s)
{
	for (int i = 0; i < TUI_MAX_SET; i++) {
		free(s->val[i]);
		s->val[i] = NULL;
	}
}

void tui_words_free(tui_words *w)
{
	free(w->argv);
	free(w->buf);
	memset(w, 0, sizeof *w);
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static wasm_status syntax_error(tui_words *w, wasm_err *e, size_t at,
				const char *what)
{
	tui_words_free(w);
	wasm_err_clear(e);
	return wasm_err_set(e, WASM_MALFORMED, at, "%s at column %zu", what,
			    at + 1);
}

wasm_status tui_split_words(const char *line, size_t *pos, tui_words *w,
			    wasm_err *e)
{
	const char *s = line + *pos;
	/* A word takes at most the bytes it was written with, plus its NUL,
	 * and is at least one byte of the line long: buf never grows, so
	 * argv can point into it. */
	size_t len = strlen(s), n = 0, cap_argv = 0;
	bool in_word = false;

	memset(w, 0, sizeof *w);
	if (!(w->buf = malloc(2 * len + 1)))
		goto nomem;
	for (;;) {
		char c = *s;
		if (!c)
			break;
		if (c == ';' || c == '\n') {
			s++;
			break;
		}
		if (is_blank(c)) {
			if (in_word)
				w->buf[n++] = '\0';
			in_word = false;
			s++;
			continue;
		}
		if (c == '#' && !in_word) {
			while (*s && *s != '\n')
				s++;
			continue;
		}
		if (!in_word) {
			/* One slot more than the words, for the NULL. */
			if ((size_t)w->argc + 1 >= cap_argv) {
				size_t nc = cap_argv ? 2 * cap_argv : 8;
				char **na = realloc(w->argv, nc * sizeof *na);
				if (!na)
					goto nomem;
				w->argv = na;
				cap_argv = nc;
			}
			w->argv[w->argc++] = w->buf + n;
			in_word = true;
		}
		if (c == '\'' || c == '"') {
			size_t open = (size_t)(s - line);
			s++;
			while (*s && *s != c) {
				if (c == '"' && *s == '\\' &&
				    (s[1] == '"' || s[1] == '\\' ||
				     s[1] == '$'))
					s++;
				w->buf[n++] = *s++;
			}
			if (!*s)
				return syntax_error(w, e, open,
						    c == '"'
							? "unclosed quote (\")"
							: "unclosed quote (')");
			s++;
		} else if (c == '\\') {
			if (!s[1])
				return syntax_error(w, e, (size_t)(s - line),
						    "backslash at the end of "
						    "the line");
			w->buf[n++] = s[1];
			s += 2;
		} else {
			w->buf[n++] = *s++;
		}
	}
	if (in_word)
		w->buf[n++] = '\0';
	if (w->argv)
		w->argv[w->argc] = NULL;
	*pos = (size_t)(s - line);
	return WASM_OK;
nomem:
	tui_words_free(w);
	wasm_err_clear(e);
	return wasm_err_set(e, WASM_NOMEM, WASM_NO_OFFSET,
			    "out of memory splitting a line of %zu bytes", len);
}

static void print_loc(FILE *err, const char *loc)
{
	if (loc)
		fprintf(err, "%s: ", loc);
	else
		fputs("heisen: ", err);
}

int tui_run_line(tui_session *s, const char *line, const char *loc, FILE *out,
		 FILE *err)
{
	tui_words w;
	wasm_err e;
	wasm_status st;
	size_t pos = 0;
	int first = TUI_EXIT_OK;

	/* The whole line is checked first: a typo at its end must not leave
	 * the commands before it half run. */
	while (line[pos]) {
		if ((st = tui_split_words(line, &pos, &w, &e))) {
			print_loc(err, loc);
			fprintf(err, "%s\n", e.msg);
			return st == WASM_NOMEM ? TUI_EXIT_INTERNAL
						: TUI_EXIT_USAGE;
		}
		tui_words_free(&w);
	}
	pos = 0;
	while (line[pos]) {
		tui_session *outer = tui_current_session;
		int rc;

		if ((st = tui_split_words(line, &pos, &w, &e))) {
			print_loc(err, loc);
			fprintf(err, "%s\n", e.msg);
			return first ? first : TUI_EXIT_INTERNAL;
		}
		if (!w.argc) {
			tui_words_free(&w);
			continue;
		}
		tui_current_session = s;
		rc = tui_dispatch(w.argc, w.argv, out, err);
		tui_current_session = outer;
		/* Results before the next command's messages, also when
		 * stdout and stderr go to one file. */
		fflush(out);
		if (rc && loc)
			fprintf(err, "%s: command '%s' failed (exit %d)\n", loc,
				w.argv[0], rc);
		tui_words_free(&w);
		if (rc && !first)
			first = rc;
		if (rc && (!s->keep_going || rc == SCRIPT_EXIT_INTERRUPTED))
			break;
	}
	return first;
}

int tui_run_script(tui_session *s, FILE *in, const char *name, FILE *out,
		   FILE *err)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	unsigned long lineno = 0;
	int first = TUI_EXIT_OK;

	errno = 0;
	while ((len = getline(&line, &cap, in)) >= 0) {
		char loc[4200];
		int rc;

		lineno++;
		snprintf(loc, sizeof loc, "%s:%lu", name, lineno);
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		if (memchr(line, '\0', (size_t)len)) {
			fprintf(err,
				"%s: a NUL byte in the line (is this a "
				"text file?)\n",
				loc);
			rc = TUI_EXIT_USAGE;
		} else {
			rc = tui_run_line(s, line, loc, out, err);
		}
		if (rc && !first)
			first = rc;
		if (rc && (!s->keep_going || rc == SCRIPT_EXIT_INTERRUPTED))
			break;
		errno = 0;
	}
	if (ferror(in)) {
		fprintf(err, "%s: read error after line %lu: %s\n", name,
			lineno, strerror(errno));
		if (!first)
			first = TUI_EXIT_USAGE;
	}
	free(line);
	return first;
}

static int setting_index(const char *name)
{
	for (int i = 0; tui_settable[i].name; i++)
		if (!strcmp(tui_settable[i].name, name))
			return i;
	return -1;
}

/* Prints v so that a script line reads it back as one word. */
static void print_word(FILE *out, const char *v)
{
	bool plain = *v != '\0';

	for (const char *p = v; *p && plain; p++)
		plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRST"
			       "UVWXYZ0123456789_./:,=+-@%",
			       *p) != NULL;
	if (plain) {
		fputs(v, out);
		return;
	}
	fputc('\'', out);
	for (const char *p = v; *p; p++)
		if (*p == '\'')
			fputs("'\\''", out);
		else
			fputc(*p, out);
	fputc('\'', out);
}

static void bad_name(const char *cmd, const char *name, FILE *err)
{
	fprintf(err, "heisen %s: no setting '%s'; settable:", cmd, name);
	for (int i = 0; tui_settable[i].name; i++)
		fprintf(err, " %s", tui_settable[i].name);
	fputc('\n', err);
}

static tui_session *need_session(const char *cmd, FILE *err)
{
	if (!tui_current_session)
		fprintf(err,
			"heisen %s: set only works in scripts and the command "
			"line (heisen -f FILE, heisen -c 'CMD; CMD')\n",
			cmd);
	return tui_current_session;
}

int tui_cmd_set(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err)
{
	tui_session *s = need_session("set", err);
	char *v;
	int i;

	if (!s)
		return TUI_EXIT_USAGE;
	if (a->noperands == 0) {
		for (i = 0; tui_settable[i].name; i++)
			if (s->val[i]) {
				fprintf(out, "set %s ", tui_settable[i].name);
				print_word(out, s->val[i]);
				fputc('\n', out);
			}
		return TUI_EXIT_OK;
	}
	if (a->noperands != 2) {
		fprintf(err,
			"heisen set: missing VALUE; usage: heisen set %s "
			"(or 'unset NAME')\n",
			cmd->usage);
		return TUI_EXIT_USAGE;
	}
	if ((i = setting_index(a->operands[0])) < 0) {
		bad_name("set", a->operands[0], err);
		return TUI_EXIT_USAGE;
	}
	if (!*a->operands[1]) {
		fprintf(err,
			"heisen set: empty value for %s; 'unset %s' "
			"removes it\n",
			a->operands[0], a->operands[0]);
		return TUI_EXIT_USAGE;
	}
	if (!(v = strdup(a->operands[1]))) {
		fprintf(err, "heisen set: out of memory\n");
		return TUI_EXIT_INTERNAL;
	}
	free(s->val[i]);
	s->val[i] = v;
	return TUI_EXIT_OK;
}

int tui_cmd_unset(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err)
{
	tui_session *s = need_session("unset", err);
	int i;

	if (!s)
		return TUI_EXIT_USAGE;
	if ((i = setting_index(a->operands[0])) < 0) {
		bad_name("unset", a->operands[0], err);
		return TUI_EXIT_USAGE;
	}
	free(s->val[i]);
	s->val[i] = NULL;
	return TUI_EXIT_OK;
}
