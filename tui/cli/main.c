/*
 * main.c - heisen's entry point: argv to the command dispatcher, or a
 * script (-f FILE, -c COMMANDS, commands on stdin) to tui_run_script.
 */
#include "tui/cli/cli.h"

#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char script_usage[] =
    "usage: heisen -f FILE [--keep-going] | heisen -c 'CMD; CMD' "
    "[--keep-going]\n";

/* heisen [-f FILE | -c COMMANDS] [--keep-going]: with neither, the
 * commands come from stdin, which is not a terminal. */
static int run_script(int argc, char **argv)
{
	const char *file = NULL, *cmds = NULL;
	tui_session s;
	FILE *in = NULL;
	int rc;

	tui_session_init(&s);
	for (int i = 1; i < argc; i++) {
		bool f = !strcmp(argv[i], "-f"), c = !strcmp(argv[i], "-c");
		if (!strcmp(argv[i], "--keep-going")) {
			s.keep_going = true;
		} else if ((f || c) && (file || cmds)) {
			fprintf(stderr, "heisen: one of -f and -c, once\n%s",
				script_usage);
			return TUI_EXIT_USAGE;
		} else if ((f || c) && i + 1 == argc) {
			fprintf(stderr, "heisen: %s needs %s\n%s", argv[i],
				f ? "FILE" : "COMMANDS", script_usage);
			return TUI_EXIT_USAGE;
		} else if (f || c) {
			*(f ? &file : &cmds) = argv[++i];
		} else {
			fprintf(stderr, "heisen: unexpected '%s'\n%s", argv[i],
				script_usage);
			return TUI_EXIT_USAGE;
		}
	}
	if (cmds) {
		rc = tui_run_line(&s, cmds, "-c", stdout, stderr);
	} else if (file && strcmp(file, "-")) {
		if (!(in = fopen(file, "r"))) {
			fprintf(stderr, "heisen: cannot read script %s: %s\n",
				file, strerror(errno));
			return TUI_EXIT_USAGE;
		}
		rc = tui_run_script(&s, in, file, stdout, stderr);
		fclose(in);
	} else if (file || !isatty(STDIN_FILENO)) {
		rc = tui_run_script(&s, stdin, "stdin", stdout, stderr);
	} else {
		fprintf(stderr, "heisen: --keep-going needs a script\n%s",
			script_usage);
		rc = TUI_EXIT_USAGE;
	}
	tui_session_free(&s);
	return rc;
}

int main(int argc, char **argv)
{
	/* SQLite allocates and frees a 64 KiB statement journal for each
	 * write in a transaction; at the top of the heap, glibc gave it back
	 * to the kernel and took it again every time (15 000 brk calls, two
	 * thirds of an import's time: 100 ms for 1000 runs, 36 ms with
	 * this). Keeping up to 64 MiB of freed memory stops that. */
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
	{
		const char *e = getenv("HEISEN_ENGINE");
		if (e && *e && strcmp(e, "jit") && strcmp(e, "interp")) {
			fprintf(stderr,
				"heisen: HEISEN_ENGINE is '%s'; it takes jit "
				"(compile to machine code where the machine "
				"allows, the default) or interp (interpret "
				"every function)\n",
				e);
			return TUI_EXIT_USAGE;
		}
	}
	if (argc < 2) {
		char tui[] = "tui", *tv[] = {tui, NULL};
		if (!isatty(STDIN_FILENO))
			return run_script(argc, argv);
		if (!isatty(STDOUT_FILENO)) {
			tui_print_usage(stderr);
			return TUI_EXIT_USAGE;
		}
		return tui_dispatch(1, tv, stdout, stderr);
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		tui_print_usage(stdout);
		return TUI_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("heisen %s\n", HEISEN_VERSION);
		return TUI_EXIT_OK;
	}
	if (!strcmp(argv[1], "-f") || !strcmp(argv[1], "-c") ||
	    !strcmp(argv[1], "--keep-going"))
		return run_script(argc, argv);
	return tui_dispatch(argc - 1, argv + 1, stdout, stderr);
}
