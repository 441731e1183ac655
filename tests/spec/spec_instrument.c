/*
 * spec_instrument.c - the rewriter's output must be a valid module, for
 * every valid module of the spec suite (see run.sh).
 *
 *   spec_instrument [options] FILE.json|FILE.wasm...
 *
 * For every module that the suite says is valid (the binary module,
 * assert_unlinkable and assert_uninstantiable commands of wast2json's
 * JSON; or a .wasm given directly, such as a demo):
 *   decode + validate the original (as spec_validate: multi-memory only in
 *   the multi-memory suite), rw_instrument it with all_memories, decode +
 *   validate the output with our own code, read its site table back
 *   (rw_sites_read must give what rw_instrument returned), then write it
 *   to --tmpdir and have wabt's wasm-validate check it with
 *   --enable-threads --enable-multi-memory: the instrumented module
 *   always imports a shared mask memory next to the module's own, so it
 *   needs both proposals whatever the suite. An independent validator
 *   proves the output is a module other tools read, not one our
 *   validator happens to tolerate.
 *
 * wasm-validate runs as child processes, -j at a time, while this process
 * goes on instrumenting: one process per module, but not one heisen
 * process per module. Rejected files are kept in --tmpdir to look at.
 *
 * A module with no memory at all has no site. The rewriter instruments
 * it anyway (with all_memories: the imports, no site), and the output is
 * checked like any other; should it refuse one with "nothing to
 * instrument", that is counted apart ("without a memory"), not failed.
 *
 * Output: FAIL lines (the first --max-lines), then
 *   spec-instrument: N passed, M failed
 * Exit status 0 only if nothing failed (2: bad usage or setup).
 */
#include "core/wasm.h"
#include "rewriter/instrument.h"
#include "tests/spec/json.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

typedef struct job {
	pid_t pid;
	char *loc, *path, *outpath;
} job;

typedef struct runner {
	unsigned long passed, failed, nomem, sites;
	unsigned long shown, hidden;
	int max_lines;
	job *jobs;
	int njobs, maxjobs;
	const char *tmpdir;
	const char *wasm_validate; /* NULL: skip that step */
	unsigned long seq;	   /* unique output names */
} runner;

static void oom(void)
{
	fprintf(stderr, "spec_instrument: out of memory\n");
	exit(2);
}

__attribute__((format(printf, 1, 2))) static char *xasprintf(const char *fmt,
							      ...)
{
	va_list ap;
	char *s;
	va_start(ap, fmt);
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		oom();
	return s;
}

__attribute__((format(printf, 3, 4))) static void
fail(runner *r, const char *loc, const char *fmt, ...)
{
	r->failed++;
	if (r->shown >= (unsigned long)r->max_lines) {
		r->hidden++;
		return;
	}
	r->shown++;
	va_list ap;
	va_start(ap, fmt);
	printf("FAIL %s ", loc);
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
}

/* ---- wasm-validate children ------------------------------------------- */

static void reap_one(runner *r)
{
	int status;
	pid_t pid;
	do
		pid = waitpid(-1, &status, 0);
	while (pid < 0 && errno == EINTR);
	if (pid < 0) {
		fprintf(stderr, "spec_instrument: waitpid: %s\n",
			strerror(errno));
		exit(2);
	}
	int k;
	for (k = 0; k < r->njobs && r->jobs[k].pid != pid; k++)
		;
	if (k == r->njobs)
		return;
	job j = r->jobs[k];
	r->jobs[k] = r->jobs[--r->njobs];
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		r->passed++;
		unlink(j.path);
	} else {
		/* The validator's first lines, folded onto the FAIL line. */
		char out[400] = "";
		FILE *f = fopen(j.outpath, "r");
		if (f) {
			size_t n = fread(out, 1, sizeof out - 1, f);
			fclose(f);
			out[n] = '\0';
			while (n && (out[n - 1] == '\n' || out[n - 1] == ' '))
				out[--n] = '\0';
			for (size_t i = 0; i < n; i++)
				if (out[i] == '\n')
					out[i] = ';';
		}
		if (WIFSIGNALED(status))
			snprintf(out, sizeof out, "killed by signal %d",
				 WTERMSIG(status));
		fail(r, j.loc, "instrumented module rejected by wasm-validate: "
			       "%s (kept %s)",
		     out[0] ? out : "no output", j.path);
	}
	unlink(j.outpath);
	free(j.loc);
	free(j.path);
	free(j.outpath);
}

static void spawn_validate(runner *r, const char *loc, const char *path)
{
	while (r->njobs >= r->maxjobs)
		reap_one(r);
	char *outpath = xasprintf("%s.out", path);
	char *argv[] = {(char *)r->wasm_validate,
			"--enable-threads",
			"--enable-multi-memory",
			"--enable-exceptions",
			(char *)path,
			NULL};
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, outpath,
					 O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_adddup2(&fa, 1, 2);
	pid_t pid;
	int rc = posix_spawnp(&pid, r->wasm_validate, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0) {
		fail(r, loc, "cannot run %s: %s", r->wasm_validate,
		     strerror(rc));
		free(outpath);
		return;
	}
	job *j = &r->jobs[r->njobs++];
	j->pid = pid;
	j->loc = xasprintf("%s", loc);
	j->path = xasprintf("%s", path);
	j->outpath = outpath;
}

/* ---- one module -------------------------------------------------------- */

/* Whether the offset map of t leads every instruction of m's defined
 * functions to where it sits in the instrumented im, with the same
 * opcode: some instruction of im must map back to it. On a mismatch,
 * *bad is the original offset. */
static bool map_holds(const wasm_module *m, const wasm_module *im,
		      const rw_sites *t, size_t *bad)
{
	for (uint32_t i = 0; i < m->nfuncs; i++) {
		const wasm_func *f = &m->funcs[i], *g = &im->funcs[i];
		wasm_reader ro, ri;
		wasm_instr a, b;
		wasm_err e;
		bool ok = true;
		wasm_reader_init(&ro, m->bytes, f->code_start, f->code_end);
		wasm_reader_init(&ri, im->bytes, g->code_start, g->code_end);
		while (ok && ro.pos < ro.end) {
			size_t at = ro.pos;
			uint32_t orig = 0;
			if (wasm_reader_next(&ro, &a, &e)) {
				ok = false;
				break;
			}
			*bad = at;
			/* Instructions of im in order; the inserted ones map
			 * nowhere or past `at` and are stepped over. */
			ok = false;
			while (ri.pos < ri.end) {
				size_t ip = ri.pos;
				if (wasm_reader_next(&ri, &b, &e))
					break;
				if (rw_sites_orig(t, i,
						  (uint32_t)(ip - g->code_start),
						  &orig) &&
				    orig == at && b.op == a.op) {
					ok = true;
					break;
				}
			}
		}
		wasm_reader_fini(&ro);
		wasm_reader_fini(&ri);
		if (!ok)
			return false;
	}
	return true;
}

/* Instrument the module in `path`; loc names it in messages, `base` is
 * the name its output gets in the tmpdir. */
static void check_module(runner *r, const char *loc, const char *path,
			 const char *base, bool multi_memory)
{
	uint8_t *bytes = NULL, *out = NULL;
	size_t len = 0, olen = 0;
	wasm_module *m = NULL, *im = NULL;
	rw_sites sites, back;
	wasm_err err;
	char msg[600];
	char *opath = NULL;
	memset(&sites, 0, sizeof sites);
	memset(&back, 0, sizeof back);
	wasm_err_clear(&err);

	if (wasm_read_file(path, &bytes, &len, &err) != WASM_OK ||
	    wasm_decode(bytes, len, &m, &err) != WASM_OK) {
		wasm_err_format(&err, path, msg, sizeof msg);
		fail(r, loc, "original does not load: %s", msg);
		goto done;
	}
	const wasm_features feat = {.multi_memory = multi_memory};
	if (wasm_validate_with(m, &feat, &err) != WASM_OK) {
		wasm_err_format(&err, path, msg, sizeof msg);
		fail(r, loc, "original does not validate: %s", msg);
		goto done;
	}
	const rw_options o = {.all_memories = true};
	wasm_status st = rw_instrument(m, &o, &out, &olen, &sites, &err);
	if (st == WASM_INVALID && m->nmem_imports + m->nmems == 0 &&
	    strstr(err.msg, "nothing to instrument")) {
		r->nomem++;
		goto done;
	}
	if (st != WASM_OK) {
		wasm_err_format(&err, path, msg, sizeof msg);
		fail(r, loc, "rw_instrument refused a valid module: %s", msg);
		goto done;
	}
	r->sites += sites.nsites;
	if (wasm_decode(out, olen, &im, &err) != WASM_OK ||
	    wasm_validate(im, &err) != WASM_OK) {
		char *what = xasprintf("instrumented %s", path);
		wasm_err_format(&err, what, msg, sizeof msg);
		free(what);
		fail(r, loc, "instrumented module rejected by heisen: %s", msg);
		goto done;
	}
	if (rw_sites_read(im, &back, &err) != WASM_OK) {
		wasm_err_format(&err, path, msg, sizeof msg);
		fail(r, loc, "rw_sites_read on the output: %s", msg);
		goto done;
	}
	if (back.version != RW_SITES_VERSION || back.nsites != sites.nsites ||
	    back.hash != sites.hash || back.hash != rw_hash(bytes, len) ||
	    back.probe_func != sites.probe_func ||
	    back.mask_mem != sites.mask_mem || !rw_sites_same(&back, &sites)) {
		fail(r, loc,
		     "site table read back differs from rw_instrument's: "
		     "version %u, %u sites, probe %u, mask %u; returned %u "
		     "sites, probe %u, mask %u",
		     back.version, back.nsites, back.probe_func, back.mask_mem,
		     sites.nsites, sites.probe_func, sites.mask_mem);
		goto done;
	}
	size_t bad = 0;
	if (!map_holds(m, im, &back, &bad)) {
		fail(r, loc,
		     "offset map: no instrumented instruction maps to the "
		     "original's at offset 0x%zx",
		     bad);
		goto done;
	}
	if (!r->wasm_validate) {
		r->passed++;
		goto done;
	}
	opath = xasprintf("%s/%lu-%s", r->tmpdir, r->seq++, base);
	if (wasm_write_file(opath, out, olen, &err)) {
		fail(r, loc, "cannot write %s: %s", opath, err.msg);
		goto done;
	}
	spawn_validate(r, loc, opath);
done:
	free(opath);
	rw_sites_free(&sites);
	rw_sites_free(&back);
	wasm_module_free(im);
	wasm_module_free(m);
	wasm_free(out);
	wasm_free(bytes);
}

/* ---- JSON files ------------------------------------------------------ */

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The valid binary modules of one wast2json file. run.sh writes
 * spec-json/SUITE/NAME/NAME.json: the suite is two folders up. */
static void check_json(runner *r, const char *json_path)
{
	json_error jerr;
	json_doc *doc = json_parse_file(json_path, &jerr);
	const json_value *cmds = doc ? json_get(json_root(doc), "commands") : NULL;
	if (!doc || !cmds || cmds->type != JSON_ARRAY) {
		fail(r, json_path, "bad JSON (no \"commands\" array)");
		json_free(doc);
		return;
	}
	char *dir = xasprintf("%s", json_path);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	else
		strcpy(dir, ".");
	char suite[100] = "", name[200];
	const char *s2 = strrchr(dir, '/');
	snprintf(name, sizeof name, "%s", s2 ? s2 + 1 : dir);
	if (s2) {
		const char *s1 = s2;
		while (s1 > dir && s1[-1] != '/')
			s1--;
		snprintf(suite, sizeof suite, "%.*s", (int)(s2 - s1), s1);
	}
	bool multi = !strcmp(suite, "multi-memory");
	for (size_t i = 0; i < json_len(cmds); i++) {
		const json_value *cmd = json_at(cmds, i);
		const char *type = json_get_str(cmd, "type");
		const char *file = json_get_str(cmd, "filename");
		const char *mtype = json_get_str(cmd, "module_type");
		int64_t line = 0;
		json_get_int(cmd, "line", &line);
		if (!type || !file || !ends_with(file, ".wasm") ||
		    (mtype && strcmp(mtype, "binary") != 0))
			continue;
		if (strcmp(type, "module") != 0 &&
		    strcmp(type, "assert_unlinkable") != 0 &&
		    strcmp(type, "assert_uninstantiable") != 0)
			continue;
		char *loc = xasprintf("%s/%s.wast:%ld (%s)", suite, name,
				      (long)line, file);
		char *path = xasprintf("%s/%s", dir, file);
		char *base = xasprintf("%s-%s", suite, file);
		check_module(r, loc, path, base, multi);
		free(loc);
		free(path);
		free(base);
	}
	free(dir);
	json_free(doc);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: spec_instrument [options] FILE.json|FILE.wasm...\n"
		"options:\n"
		"  --tmpdir DIR        where instrumented modules go (made if "
		"missing;\n"
		"                      the ones wasm-validate rejects stay)\n"
		"  --wasm-validate P   the wabt validator (default "
		"wasm-validate)\n"
		"  --no-wasm-validate  only heisen's own checks\n"
		"  -j N                wasm-validate processes at once "
		"(default 2)\n"
		"  --max-lines N       FAIL lines shown (default 50)\n");
	exit(2);
}

int main(int argc, char **argv)
{
	runner r = {.maxjobs = 2, .max_lines = 50,
		    .wasm_validate = "wasm-validate"};
	const char *tmpdir = NULL;
	int first = argc;
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--tmpdir") && i + 1 < argc)
			tmpdir = argv[++i];
		else if (!strcmp(a, "--wasm-validate") && i + 1 < argc)
			r.wasm_validate = argv[++i];
		else if (!strcmp(a, "--no-wasm-validate"))
			r.wasm_validate = NULL;
		else if (!strcmp(a, "-j") && i + 1 < argc)
			r.maxjobs = atoi(argv[++i]);
		else if (!strcmp(a, "--max-lines") && i + 1 < argc)
			r.max_lines = atoi(argv[++i]);
		else if (a[0] == '-')
			usage();
		else {
			first = i;
			break;
		}
	}
	if (first >= argc || r.maxjobs < 1)
		usage();
	char *own = NULL;
	if (!tmpdir) {
		const char *t = getenv("TMPDIR");
		own = xasprintf("%s/spec_instrument.XXXXXX",
				t && *t ? t : "/tmp");
		if (!mkdtemp(own)) {
			fprintf(stderr, "spec_instrument: %s: %s\n", own,
				strerror(errno));
			return 2;
		}
		tmpdir = own;
	} else if (mkdir(tmpdir, 0755) != 0 && errno != EEXIST) {
		fprintf(stderr, "spec_instrument: %s: %s\n", tmpdir,
			strerror(errno));
		return 2;
	}
	r.tmpdir = tmpdir;
	r.jobs = calloc((size_t)r.maxjobs, sizeof *r.jobs);
	if (!r.jobs)
		oom();

	for (int i = first; i < argc; i++) {
		if (ends_with(argv[i], ".json")) {
			check_json(&r, argv[i]);
		} else {
			const char *b = strrchr(argv[i], '/');
			check_module(&r, argv[i], argv[i], b ? b + 1 : argv[i],
				     true);
		}
	}
	while (r.njobs)
		reap_one(&r);
	if (own)
		rmdir(own); /* fails, and keeps them, if some were rejected */

	if (r.hidden)
		printf("... %lu more FAIL lines\n", r.hidden);
	printf("instrumented %lu sites; %lu modules without a memory "
	       "not instrumented\n",
	       r.sites, r.nomem);
	printf("spec-instrument: %lu passed, %lu failed\n", r.passed,
	       r.failed);
	free(r.jobs);
	free(own);
	return r.failed ? 1 : 0;
}
