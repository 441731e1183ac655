/*
 * main.c - heisen's entry point: argv to the command dispatcher.
 */
#include "cli.h"

#include <string.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		tui_print_usage(stderr);
		return TUI_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		tui_print_usage(stdout);
		return TUI_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("heisen %s\n", HEISEN_VERSION);
		return TUI_EXIT_OK;
	}
	return tui_dispatch(argc - 1, argv + 1, stdout, stderr);
}
