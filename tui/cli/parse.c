/*
 * parse.c - the command language at work: finding a command, parsing its
 * options and operands from its table row, filling what a line left out
 * from the session's `set` values, dispatching to the handler, and the
 * help text made from the same rows.
 */
#include "tui/cli/cli.h"

#include <string.h>

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

bool tui_opt_choice(const tui_opt *o, const char *word)
{
	size_t n = strlen(word);
	const char *p;

	if (!o->arg || o->arg[0] != '[' || !n)
		return false;
	for (p = o->arg + 1; *p && *p != ']';) {
		size_t len = strcspn(p, "|]");
		if (len == n && !memcmp(p, word, n))
			return true;
		p += len + (p[len] == '|');
	}
	return false;
}

bool tui_parse_opts(const tui_cmd *cmd, int argc, char **argv, tui_args *a,
		    FILE *err)
{
	bool only_operands = false;

	memset(a, 0, sizeof *a);
	if (cmd->max_operands == TUI_RAW_ARGS) {
		if (argc > TUI_MAX_OPERANDS) {
			fprintf(err,
				"heisen %s: too many arguments (at most %d)\n",
				cmd->name, TUI_MAX_OPERANDS);
			return false;
		}
		for (int i = 0; i < argc; i++)
			a->operands[a->noperands++] = argv[i];
		return true;
	}
	for (int i = 0; i < argc; i++) {
		const char *w = argv[i];
		if (!only_operands && !strcmp(w, "--")) {
			only_operands = true;
		} else if (!only_operands && w[0] == '-' && w[1]) {
			const char *eq = strchr(w, '=');
			size_t len = eq ? (size_t)(eq - w) : strlen(w);
			int k = opt_index(cmd, w, len);
			/* The table outgrowing tui_args is heisen's bug, and
			 * must not write past values[]. */
			if (k >= TUI_MAX_OPTS) {
				fprintf(err,
					"heisen %s: internal error: option %.*s "
					"is past the %d a command may have\n",
					cmd->name, (int)len, w, TUI_MAX_OPTS);
				return false;
			}
			if (k < 0) {
				fprintf(err,
					"heisen %s: unknown option '%.*s' "
					"(see 'heisen help %s')\n",
					cmd->name, (int)len, w, cmd->name);
				return false;
			}
			if (cmd->opts[k].arg && cmd->opts[k].arg[0] == '[') {
				/* An optional value: after '=', or the next
				 * word when it is one of the choices. */
				if (eq)
					a->values[k] = eq + 1;
				else if (i + 1 < argc &&
					 tui_opt_choice(&cmd->opts[k],
							argv[i + 1]))
					a->values[k] = argv[++i];
				else
					a->values[k] = "";
			} else if (!cmd->opts[k].arg) {
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
			if (a->nseen == TUI_MAX_SEEN) {
				fprintf(err, "heisen %s: too many options\n",
					cmd->name);
				return false;
			}
			a->seen[a->nseen].opt = k;
			a->seen[a->nseen++].value = a->values[k];
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

int tui_opt_values(const tui_cmd *cmd, const tui_args *a, const char *name,
		   const char **vals, int cap)
{
	int k = opt_index(cmd, name, strlen(name)), n = 0;

	for (int i = 0; k >= 0 && i < a->nseen; i++)
		if (a->seen[i].opt == k) {
			if (n < cap)
				vals[n] = a->seen[i].value;
			n++;
		}
	return n;
}

/* Whether a session default for option opt fits this form of cmd: run
 * accepts --seed and --delay only with --density or --mask, a resumed
 * sweep keeps its plan, node's sub-commands each take their own options
 * (only check has --timeout, self has no --db). A default that does not
 * fit is left out, not turned into a usage error the line never asked
 * for. */
static bool session_fits(const tui_cmd *cmd, const tui_args *a, const char *opt)
{
	if (!strcmp(cmd->name, "run") &&
	    (!strcmp(opt, "--seed") || !strcmp(opt, "--delay")))
		return tui_opt_value(cmd, a, "--density") ||
		       tui_opt_value(cmd, a, "--mask");
	if (!strcmp(cmd->name, "sweep") && tui_opt_value(cmd, a, "--resume"))
		return !strcmp(opt, "--db") || !strcmp(opt, "--jobs");
	if (!strcmp(cmd->name, "node") && a->noperands > 0)
		return !strcmp(opt, "--timeout")
			   ? !strcmp(a->operands[0], "check")
			   : strcmp(a->operands[0], "self") != 0;
	return true;
}

/* Options the line did not give, from the session's `set` values. */
static void session_defaults(const tui_cmd *cmd, tui_args *a,
			     const tui_session *s)
{
	for (int i = 0; tui_settable[i].name; i++) {
		const char *o = tui_settable[i].option;
		int k = opt_index(cmd, o, strlen(o));
		if (!s->val[i] || k < 0 || a->values[k] ||
		    !session_fits(cmd, a, o))
			continue;
		a->values[k] = s->val[i];
		if (a->nseen < TUI_MAX_SEEN) {
			a->seen[a->nseen].opt = k;
			a->seen[a->nseen++].value = s->val[i];
		}
	}
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
	if (tui_current_session && cmd->max_operands != TUI_RAW_ARGS)
		session_defaults(cmd, &a, tui_current_session);
	return cmd->run(cmd, &a, out, err);
}

void tui_print_usage(FILE *f)
{
	fprintf(f,
		"heisen %s - find, measure and reproduce data-race "
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

bool tui_sub_only(const tui_cmd *cmd, const tui_args *a, const char *sub,
		  const char *const *allowed, FILE *err)
{
	for (int i = 0; i < a->nseen; i++) {
		const char *name = cmd->opts[a->seen[i].opt].name;
		bool ok = false;

		for (const char *const *p = allowed; *p; p++)
			ok = ok || !strcmp(*p, name);
		if (!ok) {
			fprintf(err,
				"heisen %s %s: %s is not an option of '%s "
				"%s' (see 'heisen help %s')\n",
				cmd->name, sub, name, cmd->name, sub,
				cmd->name);
			return false;
		}
	}
	return true;
}
