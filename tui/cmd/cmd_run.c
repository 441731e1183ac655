/*
 * cmd_run.c - `heisen run`: run a WASI command module in heisen's engine.
 * The WASI host is core/wasi.c; this file turns options into a
 * wasi_config and the run's outcome into an exit code.
 */
#include "tui/cli.h"

#include "core/wasi.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Exit codes of `heisen run` beyond cli.h's: what timeout(1) and a
 * SIGABRT-killed shell job report, so scripts can tell them apart. */
enum {
	RUN_EXIT_TIMEOUT = 124,
	RUN_EXIT_TRAP = 134,
};

/* "65536", "64K", "64M", "1G", "1GiB", "512MB": bytes (powers of 1024). */
static bool parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	int shift = 0;

	if (!*s || *s == '-' || *s == '+')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return false;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	}
	if (shift && *end == 'i')
		end++;
	if (*end == 'b' || *end == 'B')
		end++;
	if (*end || v > (UINT64_MAX >> shift))
		return false;
	*out = (uint64_t)v << shift;
	return true;
}

/* Options into cfg (and the strings it borrows into dirs); false after
 * printing what is wrong. */
static bool parse_run_opts(const tui_cmd *cmd, const tui_args *a,
			   wasi_config *cfg, wasi_dir *dirs, char **copies,
			   const char **env, FILE *err)
{
	const char *v, *vals[TUI_MAX_SEEN];
	int n;

	n = tui_opt_values(cmd, a, "--dir", vals, TUI_MAX_SEEN);
	for (int i = 0; i < n; i++) {
		const char *sep = strstr(vals[i], "::");
		size_t hl = sep ? (size_t)(sep - vals[i]) : strlen(vals[i]);
		if (hl == 0 || (sep && !sep[2])) {
			fprintf(err,
				"heisen run: --dir expects HOST or "
				"HOST::GUEST, got '%s'\n",
				vals[i]);
			return false;
		}
		if (!(copies[i] = strndup(vals[i], hl))) {
			fprintf(err, "heisen run: out of memory\n");
			return false;
		}
		dirs[i].host = copies[i];
		dirs[i].guest = sep ? sep + 2 : copies[i];
	}
	cfg->dirs = dirs;
	cfg->ndirs = (uint32_t)n;

	n = tui_opt_values(cmd, a, "--env", env, TUI_MAX_SEEN);
	for (int i = 0; i < n; i++)
		if (env[i][0] == '=' || !strchr(env[i], '=')) {
			fprintf(err,
				"heisen run: --env expects NAME=VALUE, got "
				"'%s'\n",
				env[i]);
			return false;
		}
	cfg->env = env;
	cfg->nenv = (uint32_t)n;

	if ((v = tui_opt_value(cmd, a, "--timeout"))) {
		double s;
		if (!tui_parse_duration(v, &s)) {
			fprintf(err,
				"heisen run: --timeout expects a duration such "
				"as 30 (seconds), 30s, 10m or 2h, got '%s'\n",
				v);
			return false;
		}
		cfg->limits.timeout_s = s;
	}
	if ((v = tui_opt_value(cmd, a, "--max-threads"))) {
		char *end;
		unsigned long k;
		errno = 0;
		k = strtoul(v, &end, 10);
		if (errno || end == v || *end || *v == '-' || k < 1 ||
		    k > 1u << 20) {
			fprintf(err,
				"heisen run: --max-threads expects a number "
				"from 1 to 1048576, got '%s'\n",
				v);
			return false;
		}
		cfg->limits.max_threads = (uint32_t)k;
	}
	if ((v = tui_opt_value(cmd, a, "--max-memory"))) {
		uint64_t bytes;
		if (!parse_size(v, &bytes) || bytes < 65536 ||
		    bytes > (1ull << 32)) {
			fprintf(err,
				"heisen run: --max-memory expects a size from "
				"64K to 4G (bytes, or with K, M, G), got "
				"'%s'\n",
				v);
			return false;
		}
		cfg->limits.max_memory_pages = (uint32_t)(bytes / 65536);
	}
	return true;
}

int tui_cmd_run(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err)
{
	const char *path = a->operands[0];
	const char *argv[TUI_MAX_OPERANDS], *env[TUI_MAX_SEEN];
	wasi_dir dirs[TUI_MAX_SEEN];
	char *copies[TUI_MAX_SEEN] = {NULL};
	char line[512];
	wasi_config cfg;
	eng_module *cm = NULL;
	eng_trap trap;
	wasm_err e;
	wasm_status st;
	int rc, code;

	wasi_config_init(&cfg);
	if (!parse_run_opts(cmd, a, &cfg, dirs, copies, env, err)) {
		rc = TUI_EXIT_USAGE;
		goto done;
	}
	for (int i = 0; i < a->noperands; i++)
		argv[i] = a->operands[i];
	cfg.argv = argv;
	cfg.argc = (uint32_t)a->noperands;
	cfg.stdio[1] = fileno(out);
	cfg.stdio[2] = fileno(err);
	if (tui_opt_value(cmd, a, "--density") ||
	    tui_opt_value(cmd, a, "--mask")) {
		if (tui_opt_value(cmd, a, "--json"))
			cfg.stdio[1] = fileno(err);
		rc = tui_run_masked(cmd, a, &cfg, out, err);
		goto done;
	}
	{
		static const char *const masked_only[] = {
		    "--seed", "--delay", "--profile", "--json",
		    "--fail-on-bugs", "--suppressions"};
		for (size_t i = 0;
		     i < sizeof masked_only / sizeof *masked_only; i++)
			if (tui_opt_value(cmd, a, masked_only[i])) {
				fprintf(err,
					"heisen run: %s needs --density or "
					"--mask\n",
					masked_only[i]);
				rc = TUI_EXIT_USAGE;
				goto done;
			}
	}

	if ((st = wasi_load(path, &cm, &e))) {
		wasm_err_format(&e, path, line, sizeof line);
		fprintf(err, "%s\n", line);
		rc = st == WASM_NOMEM ? TUI_EXIT_INTERNAL : TUI_EXIT_USAGE;
		goto done;
	}
	/* The program writes to the same fds: our buffered output first. */
	fflush(out);
	fflush(err);
	st = wasi_run(cm, &cfg, &trap, &code, &e);
	if (st) {
		wasm_err_format(&e, path, line, sizeof line);
		fprintf(err, "heisen run: %s\n", line);
		rc = st == WASM_NOMEM ? TUI_EXIT_INTERNAL : TUI_EXIT_USAGE;
		goto done;
	}
	switch (trap.kind) {
	case ENG_EXIT:
		rc = code & 0xff; /* what exit(code) gives a native program */
		break;
	case ENG_TIMEOUT:
		fprintf(err,
			"heisen: timeout: %s did not finish within %g s\n",
			path, cfg.limits.timeout_s);
		rc = RUN_EXIT_TIMEOUT;
		break;
	case ENG_LIMIT:
		fprintf(err, "heisen: limit: %s\n",
			trap.msg[0] ? trap.msg : eng_trap_name(trap.kind));
		rc = RUN_EXIT_TRAP;
		break;
	case ENG_STOPPED:
	case ENG_OK:
		/* Nothing in `heisen run` stops a run from outside. */
		fprintf(err, "heisen run: internal error: run ended without "
			     "an exit or a trap\n");
		rc = TUI_EXIT_INTERNAL;
		break;
	default:
		fprintf(err, "heisen: trap: %s\n",
			trap.msg[0] ? trap.msg : eng_trap_name(trap.kind));
		rc = RUN_EXIT_TRAP;
	}
done:
	eng_module_free(cm);
	for (int i = 0; i < TUI_MAX_SEEN; i++)
		free(copies[i]);
	return rc;
}
