/*
 * spec_validate.c - checks heisen's decoder, validator and encoder against
 * the WebAssembly spec suite as converted by wast2json (see run.sh).
 *
 *   spec_validate [options] FILE.json...
 *   spec_validate --selftest
 *
 * For every command of every file:
 *   module, assert_unlinkable, assert_uninstantiable (binary)
 *       wasm_decode + wasm_validate must accept the module: the last two
 *       are valid modules that fail only when linked or instantiated.
 *   assert_malformed, assert_invalid (binary)
 *       decode or validate must reject it.
 *   the same in the text format
 *       skipped: they test a text parser, which heisen does not have.
 * Every accepted module then makes the round trip: wasm_encode, decode and
 * validate the result, wasm_module_equal with the original, encode again
 * (the encoding must be a fixpoint), and wabt's wasm-validate on the
 * re-encoded bytes, which proves the encoder's output is a module another
 * tool reads, not just one our own decoder tolerates. wasm-validate runs
 * as child processes, -j at a time, while this process goes on decoding.
 *
 * Known exceptions (--exceptions FILE) are lines "suite/file.wast:LINE
 * reason"; a listed case that fails counts as skipped with its reason, one
 * that passes is a failure ("stale exception") so that the list shrinks
 * when core/ is fixed.
 *
 * The last two lines of output are
 *   spec-validate: N passed, M failed[, K skipped]
 *   spec-roundtrip: N passed, M failed[, K skipped]
 * and the exit status is 0 only if nothing failed (2: bad usage or setup).
 *
 * --selftest exercises the JSON reader (json.c) on edge cases instead.
 */
#include "core/wasm.h"
#include "tests/spec/exceptions.h"
#include "tests/spec/json.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#endif

extern char **environ;

/* Features wasm-validate (wabt 1.0.32) needs per suite folder. Measured:
 * every module the suite accepts passes with exactly these flags, and
 * each proposal's modules fail without its own flag; core needs none. */
static const struct {
	const char *suite;
	const char *flag;
} suite_flags[] = {
    {"threads", "--enable-threads"},
    {"multi-memory", "--enable-multi-memory"},
    {"eh", "--enable-exceptions"},
};

typedef struct tally {
	unsigned long passed, failed, skipped;
} tally;

typedef struct exception {
	char *file;   /* "threads/imports.wast" */
	long line;    /* the command's line in that .wast */
	char *reason;
	int src_line; /* line in the exceptions file, for messages */
	bool file_run;    /* the .wast was among the inputs */
	bool seen;        /* a check ran at this location */
	bool used;        /* ... and failed, and was excused */
	bool val_passed;  /* the spec-validate check passed */
} exception;

/* A wasm-validate child checking one re-encoded module. */
typedef struct job {
	pid_t pid;
	char *loc;     /* "core/binary.wast:12" */
	char *path;    /* the re-encoded module */
	char *outpath; /* the child's stdout and stderr */
	exception *exc;
} job;

typedef struct runner {
	tally val, rt;
	unsigned long skip_text, skip_known, skip_rejected;
	unsigned long kind_mismatch; /* rejected, but not with the kind the
					suite names (malformed/invalid) */
	exception *excs;
	size_t nexcs;
	const char *exc_path;
	job *jobs;
	int njobs, maxjobs;
	char *tmpdir;
	bool own_tmpdir;
	const char *wasm_validate; /* NULL: do not run it */
	bool verbose;
} runner;

static char *xstrdup(const char *s)
{
	char *d = strdup(s);
	if (!d) {
		fprintf(stderr, "spec_validate: out of memory\n");
		exit(2);
	}
	return d;
}

__attribute__((format(printf, 1, 2))) static char *xasprintf(const char *fmt,
							      ...)
{
	va_list ap;
	char *s;
	va_start(ap, fmt);
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0) {
		fprintf(stderr, "spec_validate: out of memory\n");
		exit(2);
	}
	return s;
}

/* ---- outcomes ---------------------------------------------------------- */

static exception *find_exception(runner *r, const char *file, long line)
{
	for (size_t i = 0; i < r->nexcs; i++)
		if (r->excs[i].line == line && strcmp(r->excs[i].file, file) == 0)
			return &r->excs[i];
	return NULL;
}

static void pass(runner *r, tally *t, exception *e)
{
	t->passed++;
	if (e) {
		e->seen = true;
		if (t == &r->val)
			e->val_passed = true;
	}
}

/* One failed check: "FAIL LOC WHAT: DETAIL", or SKIP when excused. */
static void failed(runner *r, tally *t, const char *loc, exception *e,
		   const char *what, const char *detail)
{
	if (e) {
		e->seen = true;
		e->used = true;
		t->skipped++;
		r->skip_known++;
		printf("SKIP %s %s: %s (known exception: %s)\n", loc, what,
		       detail, e->reason);
		return;
	}
	t->failed++;
	printf("FAIL %s %s: %s\n", loc, what, detail);
}

/* ---- wasm-validate children -------------------------------------------- */

/* First lines of a child's output, newlines folded, for a FAIL line. */
static void read_output(const char *path, char *buf, size_t cap)
{
	buf[0] = '\0';
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	size_t n = fread(buf, 1, cap - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	for (size_t i = 0; i < n; i++)
		if (buf[i] == '\n')
			buf[i] = ';';
}

static void job_free(job *j)
{
	free(j->loc);
	free(j->path);
	free(j->outpath);
}

/* Wait for one child and record its verdict. */
static void reap_one(runner *r)
{
	int status;
	pid_t pid;
	do
		pid = waitpid(-1, &status, 0);
	while (pid < 0 && errno == EINTR);
	if (pid < 0) {
		fprintf(stderr, "spec_validate: waitpid: %s\n", strerror(errno));
		exit(2);
	}
	int k;
	for (k = 0; k < r->njobs && r->jobs[k].pid != pid; k++)
		;
	if (k == r->njobs)
		return; /* not ours */
	job j = r->jobs[k];
	r->jobs[k] = r->jobs[--r->njobs];
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		pass(r, &r->rt, j.exc);
		unlink(j.path);
		unlink(j.outpath);
	} else {
		char out[400], detail[600];
		read_output(j.outpath, out, sizeof out);
		if (WIFSIGNALED(status))
			snprintf(out, sizeof out, "killed by signal %d",
				 WTERMSIG(status));
		snprintf(detail, sizeof detail, "%s (kept %s)",
			 out[0] ? out : "no output", j.path);
		failed(r, &r->rt, j.loc, j.exc,
		       "roundtrip rejected by wasm-validate", detail);
		unlink(j.outpath);
	}
	job_free(&j);
}

static void spawn_validate(runner *r, const char *suite, const char *loc,
			   exception *e, const char *path)
{
	while (r->njobs >= r->maxjobs)
		reap_one(r);
	const char *flag = NULL;
	for (size_t i = 0; i < sizeof suite_flags / sizeof *suite_flags; i++)
		if (strcmp(suite, suite_flags[i].suite) == 0)
			flag = suite_flags[i].flag;
	char *outpath = xasprintf("%s.out", path);
	char *argv[4];
	int argc = 0;
	argv[argc++] = (char *)r->wasm_validate;
	if (flag)
		argv[argc++] = (char *)flag;
	argv[argc++] = (char *)path;
	argv[argc] = NULL;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, outpath,
					 O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_adddup2(&fa, 1, 2);
	pid_t pid;
	int rc = posix_spawnp(&pid, r->wasm_validate, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0) {
		char detail[300];
		snprintf(detail, sizeof detail, "cannot run %s: %s",
			 r->wasm_validate, strerror(rc));
		failed(r, &r->rt, loc, e, "roundtrip", detail);
		free(outpath);
		return;
	}
	job *j = &r->jobs[r->njobs++];
	j->pid = pid;
	j->loc = xstrdup(loc);
	j->path = xstrdup(path);
	j->outpath = outpath;
	j->exc = e;
}

/* ---- crash breadcrumb --------------------------------------------------- */

/* What core/ is working on, so that a crash or a sanitizer report in
 * decode/validate/encode names the spec case instead of just killing the
 * run. Checks run in this process: isolating each in a child would lose
 * LeakSanitizer's end-of-run leak check (a leak check per child costs
 * ~200 ms, minutes for the suite). */
static char breadcrumb[512];

static void set_breadcrumb(const char *loc, const char *name, const char *stage)
{
	snprintf(breadcrumb, sizeof breadcrumb, "%s (%s) %s", loc, name, stage);
}

static void say_breadcrumb(const char *how)
{
	/* Only async-signal-safe calls: this runs in a signal handler. */
	static const char a[] = "spec_validate: ", b[] = " while checking ";
	if (!breadcrumb[0])
		return;
	if (write(2, a, sizeof a - 1) < 0 || write(2, how, strlen(how)) < 0 ||
	    write(2, b, sizeof b - 1) < 0 ||
	    write(2, breadcrumb, strlen(breadcrumb)) < 0 || write(2, "\n", 1) < 0)
		return;
}

static void on_fatal_signal(int sig)
{
	say_breadcrumb(sig == SIGABRT ? "aborted" : "crashed");
	signal(sig, SIG_DFL);
	raise(sig);
}

#if defined(__SANITIZE_ADDRESS__)
static void on_sanitizer_death(void)
{
	say_breadcrumb("sanitizer error");
}

/* UBSan (a separate runtime from ASan in gcc) ignores ASan's death
 * callback, so make it abort, which on_fatal_signal sees, and show where
 * in core/ it happened. UBSAN_OPTIONS still overrides these. */
const char *__ubsan_default_options(void);
const char *__ubsan_default_options(void)
{
	return "print_stacktrace=1:abort_on_error=1";
}
#endif

static void install_breadcrumb_handlers(void)
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
	for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
		signal(sigs[i], on_fatal_signal);
#if defined(__SANITIZE_ADDRESS__)
	__sanitizer_set_death_callback(on_sanitizer_death);
#endif
}

/* ---- one module -------------------------------------------------------- */

/* The round trip of an accepted module m; `name` is its .wasm file. */
static void roundtrip(runner *r, const char *suite, const char *loc,
		      exception *e, const char *name, const wasm_module *m)
{
	uint8_t *enc = NULL, *enc2 = NULL;
	size_t len = 0, len2 = 0;
	wasm_module *m2 = NULL;
	wasm_err err;
	char msg[512], why[300];
	char *path = NULL;
	char *re = xasprintf("re-encoded %s", name);

	set_breadcrumb(loc, name, "round trip");
	wasm_err_clear(&err);
	if (wasm_encode(m, &enc, &len, &err) != WASM_OK) {
		wasm_err_format(&err, name, msg, sizeof msg);
		failed(r, &r->rt, loc, e, "roundtrip encode failed", msg);
		goto done;
	}
	wasm_err_clear(&err);
	if (wasm_decode(enc, len, &m2, &err) != WASM_OK) {
		wasm_err_format(&err, re, msg, sizeof msg);
		failed(r, &r->rt, loc, e, "roundtrip decode failed", msg);
		goto done;
	}
	wasm_err_clear(&err);
	if (wasm_validate(m2, &err) != WASM_OK) {
		wasm_err_format(&err, re, msg, sizeof msg);
		failed(r, &r->rt, loc, e, "roundtrip validate failed", msg);
		goto done;
	}
	why[0] = '\0';
	if (!wasm_module_equal(m, m2, why, sizeof why)) {
		snprintf(msg, sizeof msg, "%s: %s", name,
			 why[0] ? why : "(no reason given)");
		failed(r, &r->rt, loc, e, "roundtrip module differs", msg);
		goto done;
	}
	/* The encoding is canonical, so encoding what it decodes to must
	 * give the same bytes; a difference means encode depends on
	 * something decode does not keep. */
	wasm_err_clear(&err);
	if (wasm_encode(m2, &enc2, &len2, &err) != WASM_OK) {
		wasm_err_format(&err, re, msg, sizeof msg);
		failed(r, &r->rt, loc, e, "roundtrip second encode failed", msg);
		goto done;
	}
	if (len2 != len || memcmp(enc, enc2, len) != 0) {
		size_t at = 0;
		while (at < len && at < len2 && enc[at] == enc2[at])
			at++;
		snprintf(msg, sizeof msg,
			 "%s: second encoding differs at byte 0x%zx (%zu vs %zu bytes)",
			 name, at, len, len2);
		failed(r, &r->rt, loc, e, "roundtrip not a fixpoint", msg);
		goto done;
	}
	if (!r->wasm_validate) {
		pass(r, &r->rt, e);
		goto done;
	}
	path = xasprintf("%s/%s-%s", r->tmpdir, suite, name);
	if (wasm_write_file(path, enc, len, &err)) {
		snprintf(msg, sizeof msg, "cannot write %s: %s", path,
			 err.msg);
		failed(r, &r->rt, loc, e, "roundtrip", msg);
		goto done;
	}
	spawn_validate(r, suite, loc, e, path);
done:
	free(path);
	free(re);
	wasm_free(enc);
	wasm_free(enc2);
	wasm_module_free(m2);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* One command of a file. `file` is "suite/name.wast", `dir` holds the
 * command's .wasm files. */
static void run_command(runner *r, const char *suite, const char *file,
			const char *dir, const json_value *cmd)
{
	const char *type = json_get_str(cmd, "type");
	bool accept;
	wasm_status want = WASM_OK;
	if (!type)
		return;
	if (!strcmp(type, "module") || !strcmp(type, "assert_unlinkable") ||
	    !strcmp(type, "assert_uninstantiable")) {
		accept = true;
	} else if (!strcmp(type, "assert_malformed")) {
		accept = false;
		want = WASM_MALFORMED;
	} else if (!strcmp(type, "assert_invalid")) {
		accept = false;
		want = WASM_INVALID;
	} else {
		return; /* assert_return etc.: for the engine, not here */
	}

	int64_t line = 0;
	json_get_int(cmd, "line", &line);
	char loc[340]; /* file is at most 300 */
	snprintf(loc, sizeof loc, "%s:%lld", file, (long long)line);
	exception *e = find_exception(r, file, (long)line);
	const char *name = json_get_str(cmd, "filename");
	const char *mtype = json_get_str(cmd, "module_type");
	const char *expect = json_get_str(cmd, "text");
	if (!name) {
		failed(r, &r->val, loc, NULL, type, "command has no filename");
		return;
	}
	if ((mtype && strcmp(mtype, "binary") != 0) ||
	    (!mtype && !ends_with(name, ".wasm"))) {
		r->val.skipped++;
		r->skip_text++;
		if (r->verbose)
			printf("SKIP %s %s: text format\n", loc, type);
		return;
	}

	char *path = xasprintf("%s/%s", dir, name);
	char msg[600], what[64];
	uint8_t *bytes = NULL;
	size_t len = 0;
	wasm_module *m = NULL;
	wasm_err err;
	wasm_err_clear(&err);
	if (wasm_read_file(path, &bytes, &len, &err) != WASM_OK) {
		wasm_err_format(&err, NULL, msg, sizeof msg);
		failed(r, &r->val, loc, NULL, type, msg);
		if (accept) {
			r->rt.skipped++;
			r->skip_rejected++;
		}
		goto done;
	}
	const char *stage = "decode";
	/* The core and threads suites predate multi-memory and test its
	 * absence ("multiple memories", "zero byte expected"). */
	const wasm_features feat = {
		.multi_memory = strcmp(suite, "multi-memory") == 0};
	set_breadcrumb(loc, name, "decode/validate");
	wasm_status st = wasm_decode(bytes, len, &m, &err);
	if (st == WASM_OK) {
		stage = "validate";
		st = wasm_validate_with(m, &feat, &err);
	}
	if (accept) {
		if (st != WASM_OK) {
			char f[400];
			wasm_err_format(&err, name, f, sizeof f);
			snprintf(msg, sizeof msg, "%s %s: %s", stage,
				 wasm_status_name(st), f);
			snprintf(what, sizeof what, "%s rejected", type);
			failed(r, &r->val, loc, e, what, msg);
			r->rt.skipped++;
			r->skip_rejected++;
			goto done;
		}
		pass(r, &r->val, e);
		roundtrip(r, suite, loc, e, name, m);
		goto done;
	}
	if (st == WASM_OK) {
		snprintf(what, sizeof what, "%s accepted", type);
		snprintf(msg, sizeof msg, "%s (%s)",
			 expect ? expect : "(no text)", name);
		failed(r, &r->val, loc, e, what, msg);
		goto done;
	}
	if (st == WASM_NOMEM || st == WASM_IO) {
		/* Not a verdict on the module: the host ran out of something. */
		char f[400];
		wasm_err_format(&err, name, f, sizeof f);
		snprintf(what, sizeof what, "%s not judged", type);
		snprintf(msg, sizeof msg, "%s %s: %s (expected: %s)", stage,
			 wasm_status_name(st), f, expect ? expect : "?");
		failed(r, &r->val, loc, e, what, msg);
		goto done;
	}
	pass(r, &r->val, e);
	if (st != want) {
		r->kind_mismatch++;
		if (r->verbose) {
			char f[400];
			wasm_err_format(&err, name, f, sizeof f);
			printf("NOTE %s %s rejected as %s by %s, not %s: %s "
			       "(expected: %s)\n",
			       loc, type, wasm_status_name(st), stage,
			       wasm_status_name(want), f, expect ? expect : "?");
		}
	}
done:
	wasm_module_free(m);
	wasm_free(bytes);
	free(path);
	breadcrumb[0] = '\0';
}

/* The folder name that holds a path's last component ("" if none). */
static void parent_name(const char *path, char *out, size_t cap)
{
	const char *end = strrchr(path, '/');
	out[0] = '\0';
	if (!end)
		return;
	const char *start = end;
	while (start > path && start[-1] != '/')
		start--;
	snprintf(out, cap, "%.*s", (int)(end - start), start);
}

static void run_file(runner *r, const char *json_path)
{
	json_error jerr;
	json_doc *doc = json_parse_file(json_path, &jerr);
	if (!doc) {
		char msg[300];
		if (jerr.line)
			snprintf(msg, sizeof msg, "line %zu col %zu: %s",
				 jerr.line, jerr.col, jerr.msg);
		else
			snprintf(msg, sizeof msg, "%s", jerr.msg);
		failed(r, &r->val, json_path, NULL, "bad JSON", msg);
		return;
	}
	const json_value *root = json_root(doc);
	const json_value *cmds = json_get(root, "commands");
	const char *src = json_get_str(root, "source_filename");
	if (!cmds || cmds->type != JSON_ARRAY || !src) {
		failed(r, &r->val, json_path, NULL, "bad JSON",
		       "no \"commands\" array or \"source_filename\"");
		json_free(doc);
		return;
	}
	/* "suite/name.wast": the .wast's folder names the suite (core,
	 * threads, multi-memory); without one, the folder run.sh writes
	 * the JSON to ("spec-json/SUITE/NAME/NAME.json"). */
	char suite[100], file[300];
	parent_name(src, suite, sizeof suite);
	if (!suite[0]) {
		char *dir = xstrdup(json_path);
		char *slash = strrchr(dir, '/');
		if (slash) {
			*slash = '\0';
			parent_name(dir, suite, sizeof suite);
		}
		free(dir);
	}
	const char *base = strrchr(src, '/') ? strrchr(src, '/') + 1 : src;
	snprintf(file, sizeof file, "%s/%s", suite[0] ? suite : ".", base);
	for (size_t i = 0; i < r->nexcs; i++)
		if (strcmp(r->excs[i].file, file) == 0)
			r->excs[i].file_run = true;

	char *dir = xstrdup(json_path);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	else
		strcpy(dir, ".");
	for (size_t i = 0; i < json_len(cmds); i++)
		run_command(r, suite, file, dir, json_at(cmds, i));
	free(dir);
	json_free(doc);
}

/* ---- exceptions file --------------------------------------------------- */

static void add_exception(void *ctx, const char *file, long line,
			  const char *reason, int src_line)
{
	runner *r = ctx;
	exception *grown = realloc(r->excs, (r->nexcs + 1) * sizeof *r->excs);
	exception *e;

	if (!grown) {
		fprintf(stderr, "spec_validate: out of memory\n");
		exit(2);
	}
	r->excs = grown;
	e = &r->excs[r->nexcs++];
	memset(e, 0, sizeof *e);
	e->file = xstrdup(file);
	e->line = line;
	e->reason = xstrdup(reason);
	e->src_line = src_line;
}

static bool load_exceptions(runner *r, const char *path)
{
	return spec_exceptions_read("spec_validate", path, add_exception, r);
}

/* Listed cases that passed or matched nothing are failures: the list
 * must say exactly what is broken today. */
static void check_stale(runner *r)
{
	for (size_t i = 0; i < r->nexcs; i++) {
		exception *e = &r->excs[i];
		char loc[300];
		if (!e->file_run || e->used)
			continue;
		snprintf(loc, sizeof loc, "%s:%ld", e->file, e->line);
		if (!e->seen) {
			printf("FAIL %s stale exception: no binary command at this line (%s:%d)\n",
			       loc, r->exc_path, e->src_line);
			r->val.failed++;
			continue;
		}
		printf("FAIL %s stale exception: the case passes now; remove it from %s:%d (%s)\n",
		       loc, r->exc_path, e->src_line, e->reason);
		if (e->val_passed)
			r->val.passed--;
		r->val.failed++;
	}
}

/* ---- JSON self-test ---------------------------------------------------- */

static int st_checks, st_failures;

#define CHECK(cond)                                                        \
	do {                                                               \
		st_checks++;                                               \
		if (!(cond)) {                                             \
			st_failures++;                                     \
			printf("FAIL json selftest %s:%d: %s\n", __FILE__, \
			       __LINE__, #cond);                           \
		}                                                          \
	} while (0)

/* Parse exactly n bytes from a fresh heap block of that size, so that
 * ASan catches any read past the end. */
static json_doc *parse_exact(const char *text, size_t n, json_error *err)
{
	char *copy = malloc(n ? n : 1);
	if (!copy)
		return NULL;
	memcpy(copy, text, n);
	json_doc *d = json_parse(copy, n, err);
	free(copy);
	return d;
}

static json_doc *parse_ok(const char *text)
{
	json_error err;
	json_doc *d = parse_exact(text, strlen(text), &err);
	if (!d)
		printf("FAIL json selftest: rejected %s: %zu:%zu: %s\n", text,
		       err.line, err.col, err.msg);
	CHECK(d != NULL);
	return d;
}

/* text (n bytes) must be rejected with a message containing `want`. */
static void bad_n(const char *text, size_t n, const char *want)
{
	json_error err;
	json_doc *d = parse_exact(text, n, &err);
	st_checks++;
	if (d || !strstr(err.msg, want)) {
		st_failures++;
		printf("FAIL json selftest: \"%.*s\": want error \"%s\", got %s\n",
		       (int)n, text, want, d ? "success" : err.msg);
	}
	json_free(d);
}

static void bad(const char *text, const char *want)
{
	bad_n(text, strlen(text), want);
}

static bool str_is(const json_value *v, const char *bytes, size_t n)
{
	return v && v->type == JSON_STRING && v->len == n &&
	       memcmp(v->u.str, bytes, n) == 0 && v->u.str[n] == '\0';
}

static void selftest_values(void)
{
	json_doc *d = parse_ok(" {\"a\": [1, -0, 2.5e-3, 1E+2, true, false, null, "
			       "\"s\", {}, []], \"b\": \"x\"}\n");
	const json_value *root = json_root(d), *a = json_get(root, "a");
	CHECK(root && root->type == JSON_OBJECT && json_len(root) == 2);
	CHECK(a && a->type == JSON_ARRAY && json_len(a) == 10);
	CHECK(json_at(a, 0)->type == JSON_NUMBER &&
	      !strcmp(json_at(a, 0)->u.str, "1"));
	CHECK(!strcmp(json_at(a, 1)->u.str, "-0"));
	CHECK(!strcmp(json_at(a, 2)->u.str, "2.5e-3"));
	CHECK(!strcmp(json_at(a, 3)->u.str, "1E+2"));
	CHECK(json_at(a, 4)->type == JSON_TRUE);
	CHECK(json_at(a, 5)->type == JSON_FALSE);
	CHECK(json_at(a, 6)->type == JSON_NULL);
	CHECK(json_str_eq(json_at(a, 7), "s"));
	CHECK(json_at(a, 8)->type == JSON_OBJECT && json_len(json_at(a, 8)) == 0);
	CHECK(json_at(a, 9)->type == JSON_ARRAY && json_len(json_at(a, 9)) == 0);
	CHECK(json_at(a, 10) == NULL);
	CHECK(json_get(root, "c") == NULL);
	CHECK(json_get(a, "a") == NULL);       /* not an object */
	CHECK(json_at(root, 0) == NULL);       /* not an array */
	CHECK(json_get_str(root, "a") == NULL); /* not a string */
	CHECK(!strcmp(json_get_str(root, "b"), "x"));
	CHECK(json_get(NULL, "a") == NULL && json_at(NULL, 0) == NULL);
	CHECK(json_len(NULL) == 0 && json_str(NULL) == NULL);
	CHECK(root->offset == 1 && json_at(a, 1)->offset == 11);
	double x = 0;
	CHECK(json_double(json_at(a, 2), &x) && x == 2.5e-3);
	CHECK(json_double(json_at(a, 3), &x) && x == 100.0);
	CHECK(!json_double(json_at(a, 7), &x));
	json_free(d);

	/* Scalars at the top level, and whitespace of all four kinds. */
	d = parse_ok("\t\r\n 0 \t\r\n");
	CHECK(d && !strcmp(json_root(d)->u.str, "0"));
	json_free(d);
	d = parse_ok("null");
	CHECK(d && json_root(d)->type == JSON_NULL);
	json_free(d);
	d = parse_ok("\"\"");
	CHECK(d && str_is(json_root(d), "", 0));
	json_free(d);
}

static void selftest_strings(void)
{
	json_doc *d = parse_ok("[\"\\\"\\\\\\/\\b\\f\\n\\r\\t\", \"\\u0000a\", "
			       "\"\\u00e9\\u20AC\", \"\\ud83d\\ude00\", "
			       "\"\\uD83D\\uDE00\", \"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\", "
			       "\"\x7f\", \"\\u005c:\\u0022\"]");
	const json_value *a = json_root(d);
	CHECK(str_is(json_at(a, 0), "\"\\/\b\f\n\r\t", 8));
	CHECK(str_is(json_at(a, 1), "\0a", 2)); /* NUL kept, len exact */
	CHECK(!json_str_eq(json_at(a, 1), ""));
	CHECK(str_is(json_at(a, 2), "\xc3\xa9\xe2\x82\xac", 5));
	CHECK(str_is(json_at(a, 3), "\xf0\x9f\x98\x80", 4));
	CHECK(str_is(json_at(a, 4), "\xf0\x9f\x98\x80", 4));
	CHECK(str_is(json_at(a, 5), "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9));
	CHECK(str_is(json_at(a, 6), "\x7f", 1)); /* DEL is not a control */
	CHECK(str_is(json_at(a, 7), "\\:\"", 3)); /* as names.wast has it */
	json_free(d);

	/* Escaped keys are decoded before lookup. */
	d = parse_ok("{\"a\\u0062\": 1, \"\": 2}");
	CHECK(d && json_get(json_root(d), "ab") && json_get(json_root(d), ""));
	json_free(d);

	bad("\"abc", "unterminated string");
	bad("\"a\\\"", "unterminated string");
	bad("\"a\\", "unterminated string");
	bad("\"\\x\"", "invalid escape");
	bad("\"\\'\"", "invalid escape");
	bad("\"\\u12\"", "four hex digits");
	bad("\"\\u12G4\"", "four hex digits");
	bad("\"\\u", "four hex digits");
	bad("\"\\ud800\"", "high surrogate");
	bad("\"\\ud800x\"", "high surrogate");
	bad("\"\\ud800\\u0041\"", "high surrogate");
	bad("\"\\ud800\\ud800\"", "high surrogate");
	bad("\"\\udc00\"", "unpaired low surrogate");
	bad("\"a\nb\"", "control character 0x0A");
	bad("\"\t\"", "control character 0x09");
	bad_n("\"a\0b\"", 5, "control character 0x00");
	bad("\"\xff\"", "invalid UTF-8");
	bad("\"\x80\"", "invalid UTF-8");
	bad("\"\xc0\xaf\"", "invalid UTF-8");         /* overlong '/' */
	bad("\"\xe0\x80\xaf\"", "invalid UTF-8");     /* overlong, 3 bytes */
	bad("\"\xed\xa0\x80\"", "invalid UTF-8");     /* encoded surrogate */
	bad("\"\xe2\x82\"", "invalid UTF-8");         /* truncated */
	bad("\"\xf4\x90\x80\x80\"", "invalid UTF-8"); /* above U+10FFFF */
	bad_n("\"\xe2\x82", 3, "invalid UTF-8");      /* truncated at end */
	bad("'a'", "expected a value");
}

static void selftest_numbers(void)
{
	json_doc *d = parse_ok("[18446744073709551615, -9223372036854775808, "
			       "9223372036854775807, 9223372036854775808, "
			       "18446744073709551616, 1.0, 1e2, -1, -0]");
	const json_value *a = json_root(d);
	int64_t i = 7;
	uint64_t u = 7;
	CHECK(json_uint(json_at(a, 0), &u) && u == UINT64_MAX);
	CHECK(!json_int(json_at(a, 0), &i) && i == 7);
	CHECK(json_int(json_at(a, 1), &i) && i == INT64_MIN);
	CHECK(!json_uint(json_at(a, 1), &u));
	CHECK(json_int(json_at(a, 2), &i) && i == INT64_MAX);
	CHECK(!json_int(json_at(a, 3), &i));
	CHECK(json_uint(json_at(a, 3), &u) && u == (uint64_t)INT64_MAX + 1);
	CHECK(!json_uint(json_at(a, 4), &u));
	CHECK(!json_int(json_at(a, 5), &i));
	CHECK(!json_int(json_at(a, 6), &i));
	CHECK(json_int(json_at(a, 7), &i) && i == -1);
	CHECK(json_uint(json_at(a, 8), &u) && u == 0);
	CHECK(!json_int(json_get(a, "x"), &i));
	json_free(d);

	bad("01", "leading zero");
	bad("-01", "leading zero");
	bad("-", "expected a digit");
	bad("+1", "expected a value");
	bad("1.", "after '.'");
	bad("1.e5", "after '.'");
	bad(".5", "expected a value");
	bad("1e", "exponent");
	bad("1e+", "exponent");
	bad("0x10", "unexpected 'x'");
	bad("NaN", "expected a value");
	bad("Infinity", "expected a value");
	bad("-Infinity", "expected a digit");
	bad("1 2", "unexpected '2'");
}

static void selftest_structure(void)
{
	bad("", "expected a value, got end of input");
	bad("   ", "expected a value, got end of input");
	bad("[1,]", "trailing comma in array");
	bad("{\"a\":1,}", "trailing comma in object");
	bad("[,1]", "expected a value");
	bad("[1 2]", "expected ',' or ']'");
	bad("[1;2]", "expected ',' or ']'");
	bad("{\"a\" 1}", "expected ':'");
	bad("{a:1}", "expected a string key");
	bad("{1:1}", "expected a string key");
	bad("{\"a\":1 \"b\":2}", "expected ',' or '}'");
	bad("{\"a\":1,\"a\":2}", "duplicate key");
	bad("{\"a\":1,\"\\u0061\":2}", "duplicate key");
	bad("tru", "expected true");
	bad("nul", "expected null");
	bad("True", "expected a value");
	bad("[", "expected a value, got end of input");
	bad("[1", "expected ',' or ']'");
	bad("{", "expected a string key");
	bad("{\"a\":", "expected a value");
	bad("[] []", "unexpected '['");
	bad("[]x", "unexpected 'x'");
	bad_n("[1]\0", 4, "unexpected byte 0x00");
	bad_n("[1,\0 2]", 7, "expected a value, got byte 0x00");
	bad("\xEF\xBB\xBF[]", "byte order mark");
	bad("// x\n[]", "expected a value");
	bad("[/*x*/1]", "expected a value");
	bad("\v[]", "expected a value"); /* not JSON whitespace */

	/* Positions: the trailing comma is at line 2, column 3. */
	json_error err;
	json_doc *d = json_parse("[1,\n  ]", 7, &err);
	CHECK(!d && err.line == 2 && err.col == 3 && err.offset == 6);

	/* Only len bytes are read: the rest of the buffer is not input. */
	d = json_parse("[1,2]xyz", 5, &err);
	CHECK(d && json_len(json_root(d)) == 2);
	json_free(d);
	d = json_parse("123", 2, &err);
	CHECK(d && !strcmp(json_root(d)->u.str, "12"));
	json_free(d);

	/* Nesting: JSON_MAX_DEPTH levels parse, one more is refused. */
	size_t n = JSON_MAX_DEPTH + 1;
	char *deep = malloc(2 * n + 2);
	if (deep) {
		memset(deep, '[', n);
		memset(deep + n, ']', n);
		d = parse_exact(deep + 1, 2 * (n - 1), &err);
		CHECK(d != NULL);
		json_free(d);
		bad_n(deep, 2 * n, "nesting deeper");
		free(deep);
	}

	/* A large array and object grow the scratch stack and the arena. */
	size_t count = 100000;
	char *big = malloc(count * 16 + 16);
	if (big) {
		size_t len = 0;
		big[len++] = '[';
		for (size_t k = 0; k < count; k++)
			len += (size_t)sprintf(big + len, "%s\"v%zu\"",
					       k ? "," : "", k);
		big[len++] = ']';
		d = parse_exact(big, len, &err);
		CHECK(d && json_len(json_root(d)) == count &&
		      json_str_eq(json_at(json_root(d), count - 1), "v99999"));
		json_free(d);
		free(big);
	}
}

/* A wast2json-shaped document; then every strict prefix of it must be
 * rejected cleanly (each from an exact-size copy, for ASan). */
static void selftest_wast2json(void)
{
	static const char doc[] =
		"{\"source_filename\": \"x/core/i64.wast\",\n"
		" \"commands\": [\n"
		"  {\"type\": \"module\", \"line\": 1, \"filename\": \"i64.0.wasm\"}, \n"
		"  {\"type\": \"assert_return\", \"line\": 3, \"action\": "
		"{\"type\": \"invoke\", \"field\": \"f\\u0000\", \"args\": "
		"[{\"type\": \"i64\", \"value\": \"18446744073709551615\"}, "
		"{\"type\": \"v128\", \"lane_type\": \"i32\", \"value\": "
		"[\"645922816\", \"2793406464\", \"0\", \"4294967295\"]}]}, "
		"\"expected\": [{\"type\": \"f32\", \"value\": \"nan:canonical\"}]}, \n"
		"  {\"type\": \"assert_malformed\", \"line\": 9, \"filename\": "
		"\"i64.1.wat\", \"text\": \"unknown operator\", \"module_type\": \"text\"}]\n"
		"}\n";
	json_doc *d = parse_ok(doc);
	const json_value *root = json_root(d);
	const json_value *cmds = json_get(root, "commands");
	CHECK(json_len(cmds) == 3);
	int64_t line = 0;
	CHECK(json_get_int(json_at(cmds, 2), "line", &line) && line == 9);
	const json_value *act = json_get(json_at(cmds, 1), "action");
	CHECK(str_is(json_get(act, "field"), "f\0", 2));
	const json_value *args = json_get(act, "args");
	CHECK(json_str_eq(json_get(json_at(args, 0), "value"),
			  "18446744073709551615"));
	const json_value *lanes = json_get(json_at(args, 1), "value");
	CHECK(json_len(lanes) == 4 && json_str_eq(json_at(lanes, 3), "4294967295"));
	CHECK(json_str_eq(json_get(json_at(json_get(json_at(cmds, 1), "expected"),
					   0), "value"),
			  "nan:canonical"));
	json_free(d);

	size_t len = strlen(doc), rejected = 0;
	/* The document ends in "}\n": every prefix shorter than len - 1 is
	 * cut somewhere inside the object. */
	for (size_t k = 0; k + 1 < len; k++) {
		json_error err;
		json_doc *p = parse_exact(doc, k, &err);
		if (!p && err.msg[0])
			rejected++;
		json_free(p);
	}
	CHECK(rejected == len - 1);
}

static int selftest(void)
{
	selftest_values();
	selftest_strings();
	selftest_numbers();
	selftest_structure();
	selftest_wast2json();
	printf("json selftest: %d checks, %d failed\n", st_checks, st_failures);
	return st_failures ? 1 : 0;
}

/* ---- main -------------------------------------------------------------- */

static void usage(void)
{
	fprintf(stderr,
		"usage: spec_validate [options] FILE.json...\n"
		"       spec_validate --selftest\n"
		"options:\n"
		"  --exceptions FILE   known failures, \"suite/file.wast:LINE reason\"\n"
		"  --tmpdir DIR        where re-encoded modules go (default: a new\n"
		"                      folder in $TMPDIR); ones wasm-validate\n"
		"                      rejects are kept there\n"
		"  --wasm-validate P   the wabt validator (default wasm-validate)\n"
		"  --no-wasm-validate  skip that step of the round trip\n"
		"  -j N                wasm-validate processes at once (default 2)\n"
		"  -v                  also list text-format skips and rejections\n"
		"                      of the wrong kind (malformed vs invalid)\n");
	exit(2);
}

int main(int argc, char **argv)
{
	runner r = { .maxjobs = 2, .wasm_validate = "wasm-validate" };
	const char *exc_path = NULL, *tmpdir = NULL;
	int first = argc;
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--selftest")) {
			return selftest();
		} else if (!strcmp(a, "--exceptions") && i + 1 < argc) {
			exc_path = argv[++i];
		} else if (!strcmp(a, "--tmpdir") && i + 1 < argc) {
			tmpdir = argv[++i];
		} else if (!strcmp(a, "--wasm-validate") && i + 1 < argc) {
			r.wasm_validate = argv[++i];
		} else if (!strcmp(a, "--no-wasm-validate")) {
			r.wasm_validate = NULL;
		} else if (!strcmp(a, "-j") && i + 1 < argc) {
			r.maxjobs = atoi(argv[++i]);
			if (r.maxjobs < 1)
				usage();
		} else if (!strcmp(a, "-v")) {
			r.verbose = true;
		} else if (!strcmp(a, "--")) {
			first = i + 1;
			break;
		} else if (a[0] == '-') {
			usage();
		} else {
			first = i;
			break;
		}
	}
	if (first >= argc)
		usage();
	r.exc_path = exc_path;
	if (exc_path && !load_exceptions(&r, exc_path))
		return 2;
	if (tmpdir) {
		if (mkdir(tmpdir, 0755) != 0 && errno != EEXIST) {
			fprintf(stderr, "spec_validate: %s: %s\n", tmpdir,
				strerror(errno));
			return 2;
		}
		r.tmpdir = xstrdup(tmpdir);
	} else {
		const char *t = getenv("TMPDIR");
		r.tmpdir = xasprintf("%s/spec_validate.XXXXXX", t && *t ? t : "/tmp");
		if (!mkdtemp(r.tmpdir)) {
			fprintf(stderr, "spec_validate: mkdtemp %s: %s\n",
				r.tmpdir, strerror(errno));
			return 2;
		}
		r.own_tmpdir = true;
	}
	r.jobs = calloc((size_t)r.maxjobs, sizeof *r.jobs);
	if (!r.jobs) {
		fprintf(stderr, "spec_validate: out of memory\n");
		return 2;
	}

	install_breadcrumb_handlers();
	for (int i = first; i < argc; i++)
		run_file(&r, argv[i]);
	while (r.njobs)
		reap_one(&r);
	check_stale(&r);
	/* Only an empty folder goes: kept failures stay for a look. */
	if (r.own_tmpdir)
		rmdir(r.tmpdir);

	if (r.kind_mismatch)
		printf("note: %lu rejections were of the other kind (malformed vs invalid); -v lists them\n",
		       r.kind_mismatch);
	const struct {
		unsigned long n;
		const char *what;
	} skips[] = {
		{ r.skip_text, "text-format commands" },
		{ r.skip_known, "known exceptions" },
		{ r.skip_rejected, "round trips of rejected modules" },
	};
	const char *sep = "skipped: ";
	for (size_t i = 0; i < sizeof skips / sizeof *skips; i++) {
		if (skips[i].n) {
			printf("%s%lu %s", sep, skips[i].n, skips[i].what);
			sep = ", ";
		}
	}
	if (sep[0] == ',')
		printf("\n");
	const struct {
		const char *name;
		const tally *t;
	} lines[] = { { "spec-validate", &r.val }, { "spec-roundtrip", &r.rt } };
	for (size_t i = 0; i < 2; i++) {
		printf("%s: %lu passed, %lu failed", lines[i].name,
		       lines[i].t->passed, lines[i].t->failed);
		if (lines[i].t->skipped)
			printf(", %lu skipped", lines[i].t->skipped);
		printf("\n");
	}
	int rc = r.val.failed || r.rt.failed ? 1 : 0;

	for (size_t i = 0; i < r.nexcs; i++) {
		free(r.excs[i].file);
		free(r.excs[i].reason);
	}
	free(r.excs);
	free(r.jobs);
	free(r.tmpdir);
	return rc;
}
