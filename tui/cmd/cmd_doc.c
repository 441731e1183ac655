/*
 * cmd_doc.c - what heisen says about itself: `help` and `version`, the
 * manual page (`heisen help --man`) and the shell completion (`heisen
 * completion`), both read from the one command table, so a new command
 * or option appears in them without a line here.
 *
 * The completion scripts are thin: they hand the line being typed to
 * `heisen completion --line`, which answers with tui_complete, the same
 * completer as the command line and the TUI's ':' prompt. Ids (bugs,
 * runs, campaigns) come from the workspace that way, never from a list
 * frozen into the script.
 */
#include "tui/cli/cli.h"
#include "tui/cmd/cmd.h"

#include <string.h>

/* The environment heisen reads, for the manual's ENVIRONMENT section. */
static const struct {
	const char *name, *help;
} env_vars[] = {
    {"HEISEN_DB", "the workspace database when a command has no --db "
		  "(default ./heisen.db)"},
    {"HEISEN_CLANG", "the C compiler 'heisen cc' runs (default clang)"},
    {"HEISEN_WASI_SYSROOT",
     "the wasi-libc sysroot of 'heisen cc' (default /usr)"},
    {"HEISEN_TUI_STATS",
     "FILE: the TUI times its own loop and writes the figures there when "
     "it ends"},
    {"XDG_CACHE_HOME", "instrumented binaries are cached in "
		       "$XDG_CACHE_HOME/heisen (default ~/.cache/heisen)"},
    {"XDG_STATE_HOME",
     "the command-line history is $XDG_STATE_HOME/heisen/history "
     "(default ~/.local/state/heisen/history)"},
    {"NO_COLOR", "when set, the TUI draws without colours"},
};

static const struct {
	const char *path, *help;
} files[] = {
    {"./heisen.db", "the workspace: campaigns, runs and bugs (SQLite, WAL "
		    "mode; heisen.db-wal and heisen.db-shm beside it)"},
    {"~/.cache/heisen/", "instrumented binaries, by the hash of the original"},
    {"~/.local/state/heisen/history", "the last 1000 command lines"},
    {"PREFIX/lib/heisen/guest, PREFIX/include/heisen/guest",
     "the guest library 'heisen cc' links (pthreads on wasi-threads)"},
};

/* ---- the manual page ---------------------------------------------------- */

/* Text for roff: backslashes escaped, '-' as a real minus (so options can
 * be searched for and copied), a leading '.' or '\'' made literal. */
static void roff(FILE *f, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char ch = s[i];
		if (i == 0 && (ch == '.' || ch == '\''))
			fputs("\\&", f);
		if (ch == '\\')
			fputs("\\e", f);
		else if (ch == '-')
			fputs("\\-", f);
		else
			fputc(ch, f);
	}
}

static void roff_line(FILE *f, const char *s)
{
	roff(f, s, strlen(s));
	fputc('\n', f);
}

/* A help text: paragraphs separated by '\n'; a line indented by two
 * spaces is an example and is set as it is. */
static void roff_text(FILE *f, const char *text)
{
	bool example = false;

	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		bool ex = n >= 2 && p[0] == ' ' && p[1] == ' ';
		if (ex && !example)
			fputs(".PP\n.RS 4\n.nf\n", f);
		else if (!ex && example)
			fputs(".fi\n.RE\n", f);
		if (!ex)
			fputs(".PP\n", f);
		roff(f, ex ? p + 2 : p, ex ? n - 2 : n);
		fputc('\n', f);
		example = ex;
		p += n + (nl != NULL);
	}
	if (example)
		fputs(".fi\n.RE\n", f);
}

static void print_man(FILE *f)
{
	fprintf(f, ".TH HEISEN 1 \"\" \"heisen %s\" \"User Commands\"\n",
		HEISEN_VERSION);
	fputs(".SH NAME\nheisen \\- find, measure and reproduce data\\-race "
	      "heisenbugs in multi\\-threaded WebAssembly programs\n"
	      ".SH SYNOPSIS\n.B heisen\n.I COMMAND\n[\\fIARGS\\fR...]\n.br\n"
	      ".B heisen\n\\-f \\fIFILE\\fR | \\-c '\\fICMD; CMD\\fR' "
	      "[\\-\\-keep\\-going]\n.br\n.B heisen\n.SH DESCRIPTION\n",
	      f);
	roff_text(f,
		  "heisen instruments every shared-memory access of a "
		  "multi-threaded WebAssembly (WASI, wasi-threads) program "
		  "with a probe behind a probe mask, runs the program many "
		  "times in its own engine, each run arming a random subset "
		  "of the probes and delaying threads at them, and records in "
		  "a workspace database the data races the runs catch.\n"
		  "With a command, heisen runs it and exits. With -f FILE, -c "
		  "COMMANDS, or commands on standard input when it is not a "
		  "terminal, it runs a script of commands (see SCRIPTS). "
		  "Alone on a terminal, it opens the full-screen interface "
		  "(the tui command).");
	fputs(".SH COMMANDS\n", f);
	for (const tui_cmd *c = tui_commands; c->name; c++) {
		fputs(".SS \"", f);
		roff(f, c->name, strlen(c->name));
		fputs("\"\n.B heisen ", f);
		roff_line(f, c->name);
		roff_line(f, c->usage);
		fputs(".PP\n", f);
		roff(f, c->summary, strlen(c->summary));
		fputs(".\n", f);
		roff_text(f, c->help);
		for (const tui_opt *o = c->opts; o->name; o++) {
			fputs(".TP\n.B ", f);
			roff(f, o->name, strlen(o->name));
			if (o->arg) {
				fputs(" \"\\fI", f);
				roff(f, o->arg, strlen(o->arg));
				fputs("\\fR\"", f);
			}
			fputc('\n', f);
			roff_line(f, o->help);
		}
	}
	fputs(".SH SCRIPTS\n", f);
	roff_text(f,
		  "A script line is a command as typed after 'heisen' in a "
		  "shell: words split at blanks, '...' taken literally, "
		  "\"...\" with \\\", \\\\ and \\$ escapes, # starting a "
		  "comment, ';' or a new line ending a command. 'set NAME "
		  "VALUE' gives later commands a default option (see the set "
		  "command). A script stops at the first command that fails "
		  "and exits with its code; with --keep-going it runs every "
		  "line and exits with the first failure's code. Messages "
		  "name the failing line:\n"
		  "  campaign.hz:3: command 'sweep' failed (exit 2)");
	fputs(".SH EXIT STATUS\n", f);
	roff_text(f, "0 success; 1 findings when asked for (--fail-on-bugs); "
		     "2 bad usage or bad input (an unreadable, malformed or "
		     "invalid module, a bad option, an unusable database); 3 "
		     "an internal error. 'heisen run' returns the program's "
		     "own code, 134 when it traps and 124 when --timeout "
		     "passes; a sweep stopped by Ctrl-C returns 130. Errors "
		     "go to standard error, results to standard output.");
	fputs(".SH ENVIRONMENT\n", f);
	for (size_t i = 0; i < sizeof env_vars / sizeof *env_vars; i++) {
		fputs(".TP\n.B ", f);
		roff_line(f, env_vars[i].name);
		roff_line(f, env_vars[i].help);
	}
	fputs(".SH FILES\n", f);
	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		fputs(".TP\n.I ", f);
		roff_line(f, files[i].path);
		roff_line(f, files[i].help);
	}
	fputs(".SH SEE ALSO\n", f);
	roff_text(f, "clang(1), wasm-ld(1), sqlite3(1); the README and docs/ "
		     "of heisen's sources.");
}

/* ---- shell completion ---------------------------------------------------- */

/* Both scripts ask the heisen on the command line they complete (the
 * first word: build/heisen completes from build/heisen) and pass the
 * line up to the cursor. bash splits words at '=' and ':' too: its
 * current word is the tail of heisen's, so the candidates lose the head
 * bash already has. */
static const char bash_script[] =
    "# bash completion for heisen; generated by 'heisen completion bash'.\n"
    "# Load it with: source <(heisen completion bash)\n"
    "_heisen() {\n"
    "\tlocal line=${COMP_LINE:0:COMP_POINT} IFS=$'\\n' c q\n"
    "\tlocal word=${line##*[[:space:];]}\n"
    "\tlocal cur=${line##*[[:space:]${COMP_WORDBREAKS}]}\n"
    "\tlocal cut=$(( ${#word} - ${#cur} ))\n"
    "\tlocal -a cands\n"
    "\tcands=($(\"${COMP_WORDS[0]}\" completion --line \"$line\" "
    "2>/dev/null))\n"
    "\tCOMPREPLY=()\n"
    "\tfor c in \"${cands[@]}\"; do\n"
    "\t\tprintf -v q '%q' \"${c:cut}\"\n"
    "\t\tCOMPREPLY+=(\"$q\")\n"
    "\tdone\n"
    "\tif [ ${#COMPREPLY[@]} -eq 1 ] && [ \"${COMPREPLY[0]: -1}\" = / ]; "
    "then\n"
    "\t\tcompopt -o nospace 2>/dev/null\n"
    "\tfi\n"
    "}\n"
    "complete -F _heisen heisen\n";

/* The word being completed: what follows the last blank or ';' of the
 * line, as in a script (tui_split_words). */
static size_t word_start(const char *line)
{
	size_t start = 0;

	for (size_t i = 0; line[i]; i++)
		if (line[i] == ' ' || line[i] == '\t' || line[i] == ';')
			start = i + 1;
	return start;
}

static bool print_cand(void *ctx, const char *cand)
{
	fprintf(ctx, "%s\n", cand);
	return true;
}

int tui_cmd_completion(const tui_cmd *cmd, const tui_args *a, FILE *out,
		       FILE *err)
{
	const char *line = tui_opt_value(cmd, a, "--line");

	if (line) {
		/* The shell's line starts with heisen's own path. */
		size_t skip = strcspn(line, " \t");
		if (a->noperands) {
			fprintf(err, "heisen completion: --line goes "
				     "alone\n");
			return TUI_EXIT_USAGE;
		}
		if (!line[skip])
			return TUI_EXIT_OK;
		line += skip + 1;
		tui_complete(NULL, line, word_start(line), strlen(line),
			     print_cand, out);
		return TUI_EXIT_OK;
	}
	if (a->noperands != 1 || strcmp(a->operands[0], "bash")) {
		fprintf(err, "heisen completion: say which shell: 'heisen "
			     "completion bash' (or --line LINE)\n");
		return TUI_EXIT_USAGE;
	}
	fputs(bash_script, out);
	return TUI_EXIT_OK;
}

int tui_cmd_help(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err)
{
	const tui_cmd *c;

	if (tui_opt_value(cmd, a, "--man")) {
		if (a->noperands) {
			fprintf(err, "heisen help: --man prints every "
				     "command's page; it takes no COMMAND\n");
			return TUI_EXIT_USAGE;
		}
		print_man(out);
		return TUI_EXIT_OK;
	}
	if (a->noperands == 0) {
		tui_print_usage(out);
		return TUI_EXIT_OK;
	}
	c = tui_find_cmd(a->operands[0]);
	if (!c) {
		fprintf(err,
			"heisen help: no command '%s' (see 'heisen help')\n",
			a->operands[0]);
		return TUI_EXIT_USAGE;
	}
	tui_print_cmd_help(c, out);
	return TUI_EXIT_OK;
}

int tui_cmd_version(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err)
{
	fprintf(out, "heisen %s\n", HEISEN_VERSION);
	return TUI_EXIT_OK;
}
