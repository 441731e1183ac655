/*
 * commands.c - the command table and the dispatcher every front end uses.
 *
 * To add a command: write its handler, add one row below. Help, the
 * command list and option parsing follow from the row.
 */
#include "cli.h"

#include <string.h>

static const tui_opt no_opts[] = {{NULL, NULL, NULL}};

static const tui_opt inspect_opts[] = {
	{"--json", NULL, "print the report as JSON (schema heisen.inspect/1)"},
	{NULL, NULL, NULL},
};

static const tui_opt validate_opts[] = {
	{"--json", NULL,
	 "print the verdict as JSON (schema heisen.validate/1)"},
	{NULL, NULL, NULL},
};

const tui_cmd tui_commands[] = {
	{"help", "[COMMAND]", "show the command list or one command's help",
	 "Without an argument, lists every command. With one, shows its "
	 "usage, options and description.",
	 0, 1, no_opts, tui_cmd_help},
	{"version", "", "print heisen's version",
	 "Prints the version of heisen.", 0, 0, no_opts, tui_cmd_version},
	{"inspect", "FILE.wasm [--json]",
	 "summarise a Wasm module: sections, imports, memories, accesses",
	 "Decodes and validates FILE.wasm and reports its sections with "
	 "sizes, imports, exports, memories (limits, shared or not), the "
	 "number of functions, the number of memory-access instructions per "
	 "memory (loads, stores, atomics, memory.copy/fill/init), and whether "
	 "DWARF debug information and a name section are present.\n"
	 "Exit status: 0 on success; 2 if the file cannot be read, is not a "
	 "well-formed module, or is invalid (the error names the offset).",
	 1, 1, inspect_opts, tui_cmd_inspect},
	{"validate", "FILE.wasm [--json]",
	 "check that a Wasm module is well formed and valid",
	 "Decodes FILE.wasm and type-checks it against the WebAssembly 2.0 "
	 "core specification with the threads and multi-memory proposals "
	 "(SIMD included).\n"
	 "Exit status: 0 if valid; 2 with a one-line error naming the byte "
	 "offset, section, function and reason otherwise, e.g.\n"
	 "  app.wasm: offset 0x1a3f (code, func 12): type mismatch: i32.add "
	 "expects i32, got f64",
	 1, 1, validate_opts, tui_cmd_validate},
	{NULL, NULL, NULL, NULL, 0, 0, NULL, NULL},
};

const tui_cmd *tui_find_cmd(const char *name)
{
	for (const tui_cmd *c = tui_commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

static int opt_index(const tui_cmd *cmd, const char *name, size_t len)
{
	for (int i = 0; cmd->opts[i].name; i++)
		if (strlen(cmd->opts[i].name) == len &&
		    !strncmp(cmd->opts[i].name, name, len))
			return i;
	return -1;
}

bool tui_parse_opts(const tui_cmd *cmd, int argc, char **argv, tui_args *a,
		    FILE *err)
{
	bool only_operands = false;

	memset(a, 0, sizeof *a);
	for (int i = 0; i < argc; i++) {
		const char *w = argv[i];
		if (!only_operands && !strcmp(w, "--")) {
			only_operands = true;
		} else if (!only_operands && w[0] == '-' && w[1]) {
			const char *eq = strchr(w, '=');
			size_t len = eq ? (size_t)(eq - w) : strlen(w);
			int k = opt_index(cmd, w, len);
			if (k < 0) {
				fprintf(err,
					"heisen %s: unknown option '%.*s' "
					"(see 'heisen help %s')\n",
					cmd->name, (int)len, w, cmd->name);
				return false;
			}
			if (!cmd->opts[k].arg) {
				if (eq) {
					fprintf(err,
						"heisen %s: option %s takes "
						"no value\n",
						cmd->name, cmd->opts[k].name);
					return false;
				}
				a->values[k] = "";
			} else if (eq) {
				a->values[k] = eq + 1;
			} else if (i + 1 < argc) {
				a->values[k] = argv[++i];
			} else {
				fprintf(err, "heisen %s: option %s needs %s\n",
					cmd->name, cmd->opts[k].name,
					cmd->opts[k].arg);
				return false;
			}
		} else {
			if (a->noperands == TUI_MAX_OPERANDS) {
				fprintf(err, "heisen %s: too many arguments\n",
					cmd->name);
				return false;
			}
			a->operands[a->noperands++] = w;
		}
	}
	if (a->noperands < cmd->min_operands ||
	    a->noperands > cmd->max_operands) {
		fprintf(err, "heisen %s: %s; usage: heisen %s %s\n", cmd->name,
			a->noperands < cmd->min_operands ? "missing argument"
							 : "too many arguments",
			cmd->name, cmd->usage);
		return false;
	}
	return true;
}

const char *tui_opt_value(const tui_cmd *cmd, const tui_args *a,
			  const char *name)
{
	int k = opt_index(cmd, name, strlen(name));
	return k < 0 ? NULL : a->values[k];
}

int tui_dispatch(int argc, char **argv, FILE *out, FILE *err)
{
	const tui_cmd *cmd;
	tui_args a;

	if (argc < 1)
		return TUI_EXIT_USAGE;
	cmd = tui_find_cmd(argv[0]);
	if (!cmd) {
		fprintf(err,
			"heisen: unknown command '%s' (see 'heisen help')\n",
			argv[0]);
		return TUI_EXIT_USAGE;
	}
	/* --help works after every command, as users expect. */
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			tui_print_cmd_help(cmd, out);
			return TUI_EXIT_OK;
		}
	if (!tui_parse_opts(cmd, argc - 1, argv + 1, &a, err))
		return TUI_EXIT_USAGE;
	return cmd->run(cmd, &a, out, err);
}

void tui_print_usage(FILE *f)
{
	fprintf(f, "heisen %s - find, measure and reproduce data-race "
		   "heisenbugs in WebAssembly\n\n"
		   "usage: heisen COMMAND [ARGS...]\n\ncommands:\n",
		HEISEN_VERSION);
	for (const tui_cmd *c = tui_commands; c->name; c++)
		fprintf(f, "  %-10s %s\n", c->name, c->summary);
	fprintf(f, "\n'heisen help COMMAND' shows a command's options.\n"
		   "Exit status: 0 success, 1 findings when asked for, 2 bad "
		   "usage or input, 3 internal error.\n");
}

void tui_print_cmd_help(const tui_cmd *cmd, FILE *f)
{
	fprintf(f, "usage: heisen %s %s\n\n%s.\n\n%s\n", cmd->name, cmd->usage,
		cmd->summary, cmd->help);
	if (cmd->opts[0].name) {
		fprintf(f, "\noptions:\n");
		for (const tui_opt *o = cmd->opts; o->name; o++) {
			char left[40];
			snprintf(left, sizeof left, "%s%s%s", o->name,
				 o->arg ? " " : "", o->arg ? o->arg : "");
			fprintf(f, "  %-20s %s\n", left, o->help);
		}
	}
}

int tui_cmd_help(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err)
{
	const tui_cmd *c;

	if (a->noperands == 0) {
		tui_print_usage(out);
		return TUI_EXIT_OK;
	}
	c = tui_find_cmd(a->operands[0]);
	if (!c) {
		fprintf(err, "heisen help: no command '%s' (see 'heisen help')\n",
			a->operands[0]);
		return TUI_EXIT_USAGE;
	}
	tui_print_cmd_help(c, out);
	return TUI_EXIT_OK;
}

int tui_cmd_version(const tui_cmd *cmd, const tui_args *a, FILE *out,
		    FILE *err)
{
	fprintf(out, "heisen %s\n", HEISEN_VERSION);
	return TUI_EXIT_OK;
}
