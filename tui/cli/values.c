/*
 * values.c - the values a command's options and operands take: whole
 * numbers, durations, sizes, workspace ids, worker counts, the program's
 * world (directories, environment, limits), and the exit code and
 * message of a core error. Every command reads its options through
 * these, so one option means the same everywhere.
 */
#include "tui/cli/cli.h"

#include "detector/race.h"
#include "rewriter/instrument.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

bool tui_parse_u32(const char *v, uint32_t lo, uint32_t hi, uint32_t *out)
{
	char *end;
	unsigned long long k;

	if (!v || !*v || *v == '-' || *v == '+')
		return false;
	errno = 0;
	k = strtoull(v, &end, 0);
	if (errno || *end || k < lo || k > hi)
		return false;
	*out = (uint32_t)k;
	return true;
}

bool tui_is_decimal(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

bool tui_parse_u64(const char *v, uint64_t *out)
{
	char *end;

	if (!v || !*v || *v == '-' || *v == '+')
		return false;
	errno = 0;
	*out = strtoull(v, &end, 0);
	return !errno && !*end;
}

bool tui_parse_watch(const char *v, uint32_t *addr, uint8_t *width)
{
	char buf[64], *colon;
	uint64_t a;
	uint32_t w = 4;

	if (strlen(v) >= sizeof buf)
		return false;
	snprintf(buf, sizeof buf, "%s", v);
	if ((colon = strchr(buf, ':'))) {
		*colon = '\0';
		if (!tui_parse_u32(colon + 1, 1, 8, &w))
			return false;
	}
	if (!tui_parse_u64(buf, &a) || a > UINT32_MAX)
		return false;
	*addr = (uint32_t)a;
	*width = (uint8_t)w;
	return true;
}

/* "90", "90s", "10m", "2h", "1.5h": seconds. */
bool tui_parse_duration(const char *v, double *out)
{
	char *end;
	double s;

	errno = 0;
	s = strtod(v, &end);
	if (end == v || errno || !isfinite(s) || s <= 0)
		return false;
	if (*end == 'm')
		s *= 60, end++;
	else if (*end == 'h')
		s *= 3600, end++;
	else if (*end == 's')
		end++;
	*out = s;
	return !*end;
}

uint64_t tui_random_seed(void)
{
	uint64_t s = 0;

	if (getrandom(&s, sizeof s, 0) != sizeof s)
		s = (uint64_t)getpid() * 0x9e3779b97f4a7c15ULL ^
		    (uint64_t)time(NULL);
	return s;
}

int tui_opt_workers(const tui_cmd *cmd, const tui_args *a, uint32_t *jobs,
		    double *timeout_s, FILE *err)
{
	const char *v;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	*jobs = ncpu > 0 ? (uint32_t)ncpu : 1;
	*timeout_s = 10;
	if ((v = tui_opt_value(cmd, a, "--jobs")) &&
	    !tui_parse_u32(v, 1, 256, jobs)) {
		fprintf(err, "heisen %s: --jobs expects 1 to 256, got '%s'\n",
			cmd->name, v);
		return TUI_EXIT_USAGE;
	}
	if ((v = tui_opt_value(cmd, a, "--timeout")) &&
	    !tui_parse_duration(v, timeout_s)) {
		fprintf(err,
			"heisen %s: --timeout expects a duration such as "
			"5 or 30s, got '%s'\n",
			cmd->name, v);
		return TUI_EXIT_USAGE;
	}
	return TUI_EXIT_OK;
}

int tui_parse_id(const tui_cmd *cmd, const char *what, const char *s,
		 const char *list, int64_t *out, FILE *err)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = isdigit((unsigned char)s[0]) ? strtoull(s, &end, 10) : 0;
	if (!v || *end || errno || v > INT64_MAX) {
		fprintf(err,
			"heisen %s: '%s' is not a %s id (a positive number; "
			"'heisen %s' lists them)\n",
			cmd->name, s, what, list);
		return TUI_EXIT_USAGE;
	}
	*out = (int64_t)v;
	return TUI_EXIT_OK;
}

int tui_exit_for(wasm_status st)
{
	return st == WASM_NOMEM ? TUI_EXIT_INTERNAL : TUI_EXIT_USAGE;
}

void tui_print_err(FILE *err, const char *path, const wasm_err *e)
{
	char line[512];
	wasm_err_format(e, path, line, sizeof line);
	fprintf(err, "%s\n", line);
}

void tui_stdin_hash(const uint8_t *b, uint32_t n, char out[17])
{
	snprintf(out, 17, "%016" PRIx64, rw_hash(b, n));
}

int tui_opt_stdin(const tui_cmd *cmd, const tui_args *a, uint8_t **bytes,
		  uint32_t *n, char **hash, FILE *err)
{
	const char *path = tui_opt_value(cmd, a, "--stdin");
	size_t len = 0;
	uint8_t *b;
	int fd, e = 0;

	*bytes = NULL;
	*n = 0;
	*hash = NULL;
	if (!path)
		return TUI_EXIT_OK;
	/* One byte past the limit tells a file that is too large, whatever
	 * it is (a pipe has no size to ask). */
	if (!(b = wasm_malloc(DET_STDIN_MAX + 1)) ||
	    !(*hash = wasm_malloc(17))) {
		wasm_free(b);
		fprintf(err, "heisen %s: out of memory\n", cmd->name);
		return TUI_EXIT_INTERNAL;
	}
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		e = errno;
	} else {
		while (len <= DET_STDIN_MAX) {
			ssize_t k = read(fd, b + len, DET_STDIN_MAX + 1 - len);
			if (k < 0 && errno == EINTR)
				continue;
			if (k < 0)
				e = errno;
			if (k <= 0)
				break;
			len += (size_t)k;
		}
		close(fd);
	}
	if (e || len > DET_STDIN_MAX) {
		if (e)
			fprintf(err,
				"heisen %s: --stdin %s: cannot read it: %s\n",
				cmd->name, path, strerror(e));
		else
			fprintf(err,
				"heisen %s: --stdin %s: more than %u bytes "
				"(1 MiB), the most a run's stdin may have\n",
				cmd->name, path, DET_STDIN_MAX);
		wasm_free(b);
		wasm_free(*hash);
		*hash = NULL;
		return TUI_EXIT_USAGE;
	}
	tui_stdin_hash(b, (uint32_t)len, *hash);
	*bytes = b;
	*n = (uint32_t)len;
	return TUI_EXIT_OK;
}

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
	case 'k':
	case 'K': shift = 10; break;
	case 'm':
	case 'M': shift = 20; break;
	case 'g':
	case 'G': shift = 30; break;
	}
	if (shift)
		end++;
	if (shift && *end == 'i')
		end++;
	if (*end == 'b' || *end == 'B')
		end++;
	if (*end || v > (UINT64_MAX >> shift))
		return false;
	*out = (uint64_t)v << shift;
	return true;
}

int tui_opt_world(const tui_cmd *cmd, const tui_args *a, const wasi_world *base,
		  bool absolute, wasi_world *w, FILE *err)
{
	static const wasi_world empty;
	const char *v, *vals[TUI_MAX_SEEN];
	int ndir = tui_opt_values(cmd, a, "--dir", vals, TUI_MAX_SEEN);
	wasm_err e;
	int n;

	if (!base)
		base = &empty;
	*w = (wasi_world){.max_threads = base->max_threads,
			  .max_memory_pages = base->max_memory_pages};
	if (!ndir && !wasi_world_set_dirs(
			 w, base->dirs, wasi_world_dirs_len(base), &(bool){0}))
		goto oom;
	for (int i = 0; i < ndir; i++) {
		const char *sep = strstr(vals[i], "::");
		char *host = NULL, *given;
		wasm_status st;
		if (absolute && vals[i][0] && vals[i][0] != ':') {
			if (!(given =
				  strndup(vals[i], sep ? (size_t)(sep - vals[i])
						       : strlen(vals[i]))))
				goto oom;
			host = realpath(given, NULL);
			if (!host) {
				fprintf(err,
					"heisen %s: --dir %s: cannot grant "
					"it: %s\n",
					cmd->name, given, strerror(errno));
				free(given);
				goto fail;
			}
			free(given);
		}
		st = wasi_world_add_dir(w, vals[i], host, &e);
		free(host);
		if (st == WASM_NOMEM)
			goto oom;
		if (st) {
			fprintf(err, "heisen %s: %s\n", cmd->name, e.msg);
			goto fail;
		}
	}
	n = tui_opt_values(cmd, a, "--env", vals, TUI_MAX_SEEN);
	if (!n && !wasi_world_set_env(w, base->env, wasi_world_env_len(base),
				      &(bool){0}))
		goto oom;
	for (int i = 0; i < n; i++) {
		wasm_status st = wasi_world_add_env(w, vals[i], &e);
		if (st == WASM_NOMEM)
			goto oom;
		if (st) {
			fprintf(err, "heisen %s: %s\n", cmd->name, e.msg);
			goto fail;
		}
	}
	if ((v = tui_opt_value(cmd, a, "--max-threads")) &&
	    !tui_parse_u32(v, 1, 1u << 20, &w->max_threads)) {
		fprintf(err,
			"heisen %s: --max-threads expects a number from 1 to "
			"1048576, got '%s'\n",
			cmd->name, v);
		goto fail;
	}
	if ((v = tui_opt_value(cmd, a, "--max-memory"))) {
		uint64_t bytes;
		if (!parse_size(v, &bytes) || bytes < 65536 ||
		    bytes > (1ull << 32)) {
			fprintf(err,
				"heisen %s: --max-memory expects a size from "
				"64K to 4G (bytes, or with K, M, G), got "
				"'%s'\n",
				cmd->name, v);
			goto fail;
		}
		w->max_memory_pages = (uint32_t)(bytes / 65536);
	}
	return TUI_EXIT_OK;
oom:
	fprintf(err, "heisen %s: out of memory\n", cmd->name);
	wasi_world_clear(w);
	return TUI_EXIT_INTERNAL;
fail:
	wasi_world_clear(w);
	return TUI_EXIT_USAGE;
}
