/*
 * test_replay.c - the reproduction module's pure parts: the 95 % Wilson
 * score interval against known values, the repro file (every field of a
 * rep_spec round trips through rep_write and rep_read; future, foreign,
 * truncated, edited, binary and empty files are refused with a message
 * naming the problem and a zeroed spec), the mode names, mask files read
 * back by det_mask_read, and the default breakpoint hold.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "replay/replay.h"
#include "detector/race.h"
#include "rewriter/instrument.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct fixture {
	char dir[64];
	char path[96]; /* a repro or mask file in dir */
} fixture;

static int setup(void **state)
{
	fixture *fx = calloc(1, sizeof *fx);

	assert_non_null(fx);
	strcpy(fx->dir, "/tmp/heisen-replay-XXXXXX");
	assert_non_null(mkdtemp(fx->dir));
	snprintf(fx->path, sizeof fx->path, "%s/race.repro", fx->dir);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	fixture *fx = *state;
	char cmd[128];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", fx->dir);
	assert_int_equal(system(cmd), 0);
	free(fx);
	return 0;
}

/* ---- helpers ------------------------------------------------------------ */

/* A copy of n bytes the spec can own (rep_spec_clear frees with
 * wasm_free). */
static char *own(const char *s, size_t n)
{
	char *d = wasm_malloc(n);

	assert_non_null(d);
	memcpy(d, s, n);
	return d;
}

static char *own_str(const char *s) { return own(s, strlen(s) + 1); }

static void write_bytes(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/* The whole file, NUL-terminated (free). */
static char *read_text(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *t;
	long n;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n >= 0);
	rewind(f);
	t = malloc((size_t)n + 1);
	assert_non_null(t);
	assert_int_equal(fread(t, 1, (size_t)n, f), (size_t)n);
	t[n] = '\0';
	fclose(f);
	if (len)
		*len = (size_t)n;
	return t;
}

/* The line number (from 1) of the line of text starting with prefix. */
static unsigned line_of(const char *text, const char *prefix)
{
	unsigned n = 1;

	for (const char *p = text; *p; p = strchr(p, '\n') + 1, n++) {
		if (!strncmp(p, prefix, strlen(prefix)))
			return n;
		if (!strchr(p, '\n'))
			break;
	}
	fail_msg("no line starting with '%s'", prefix);
	return 0;
}

/* text with the line starting with prefix replaced by repl (which
 * carries its own newlines), and that line's number in *lineno (free). */
static char *edit(const char *text, const char *prefix, const char *repl,
		  unsigned *lineno)
{
	unsigned n = line_of(text, prefix);
	const char *at = text, *end;
	char *out;

	for (unsigned i = 1; i < n; i++)
		at = strchr(at, '\n') + 1;
	end = strchr(at, '\n');
	end = end ? end + 1 : at + strlen(at);
	out = malloc(strlen(text) + strlen(repl) + 1);
	assert_non_null(out);
	memcpy(out, text, (size_t)(at - text));
	strcpy(out + (at - text), repl);
	strcat(out, end);
	if (lineno)
		*lineno = n;
	return out;
}

/* Every byte of the spec zero: no pointer left to free twice. */
static void assert_zeroed(const rep_spec *s)
{
	static const rep_spec zero;

	assert_null(s->program);
	assert_null(s->program_path);
	assert_null(s->site[0].func);
	assert_null(s->site[0].file);
	assert_null(s->site[1].func);
	assert_null(s->site[1].file);
	assert_null(s->pool);
	assert_null(s->profile);
	assert_null(s->args);
	assert_memory_equal(s, &zero, sizeof zero);
}

/* rep_read of the file must fail with want and a message holding every
 * one of the NULL-terminated substrings, leaving the spec zeroed. */
static void refused(const char *path, wasm_status want, ...)
{
	rep_spec s;
	wasm_err e;
	va_list ap;
	const char *sub;

	memset(&s, 0xa5, sizeof s); /* rep_read must not trust its output */
	wasm_err_clear(&e);
	assert_int_equal(rep_read(path, &s, &e), want);
	va_start(ap, want);
	while ((sub = va_arg(ap, const char *)))
		if (!strstr(e.msg, sub))
			fail_msg("'%s' not in the message '%s'", sub, e.msg);
	va_end(ap);
	assert_zeroed(&s);
	rep_spec_clear(&s);
	assert_zeroed(&s);
}

/* Write text as the repro file and expect rep_read to refuse it. */
#define REFUSED(fx, text, len, ...)                                            \
	do {                                                                   \
		write_bytes((fx)->path, (text), (len));                        \
		refused((fx)->path, WASM_INVALID, __VA_ARGS__, (char *)NULL);  \
	} while (0)

static const char full_args[] = "a b\0line\nbreak\0back\\slash\0";

/* A spec with every field set, its pool given unsorted. */
static void full_spec(rep_spec *s)
{
	static const uint32_t pool[] = {100, 9, 4, 101, 3, 5};

	memset(s, 0, sizeof *s);
	s->program = own_str("racy.wasm");
	s->program_hash = 0x0123456789abcdefull;
	s->program_size = 123456;
	s->nsites = 1000;
	s->site[0] = (rep_site){10, RW_WRITE, own_str("worker"),
				own_str("C:\\src\\racy.c"), 42, 4};
	s->site[1] = (rep_site){20, RW_ATOMIC_RMW, own_str("main\nloop"),
				own_str("src/main.c"), 7, 1};
	s->mode = REP_TRIGGER;
	s->seed = 0xfedcba9876543210ull;
	s->density_bp = 6500;
	s->mask_version = DET_MASK_VERSION;
	s->pool = (uint32_t *)own((const char *)pool, sizeof pool);
	s->npool = 6;
	s->profile = own_str("one-core");
	s->args = own(full_args, sizeof full_args - 1);
	s->nargs = 3;
	s->delay = 50;
	s->hold_ns = 2500000;
	s->has_addr = true;
	s->addr[0] = 0x1a2c;
	s->addr[1] = 0xffffffff;
	s->timeout_s = 10;
	s->bug_id = 4;
	s->run_id = 17;
	s->runs = 100;
	s->reproduced = 97;
}

/* A valid repro file at fx->path, and its text (free). */
static char *valid_file(fixture *fx, size_t *len)
{
	rep_spec s;
	wasm_err e;

	full_spec(&s);
	wasm_err_clear(&e);
	assert_int_equal(rep_write(fx->path, &s, &e), WASM_OK);
	rep_spec_clear(&s);
	return read_text(fx->path, len);
}

/* |a - b| <= eps, saying which values differ (this cmocka has no
 * assert_double_equal). */
#define assert_near(a, b, eps)                                                 \
	do {                                                                   \
		double a_ = (a), b_ = (b);                                     \
		if (!(a_ - b_ <= (eps) && b_ - a_ <= (eps)))                   \
			fail_msg("%s = %.9f, expected %.9f", #a, a_, b_);      \
	} while (0)

static void assert_site_equal(const rep_site *a, const rep_site *b)
{
	assert_int_equal(a->id, b->id);
	assert_int_equal(a->kind, b->kind);
	if (a->func && b->func)
		assert_string_equal(a->func, b->func);
	else
		assert_ptr_equal(a->func, b->func);
	if (a->file && b->file)
		assert_string_equal(a->file, b->file);
	else
		assert_ptr_equal(a->file, b->file);
	assert_int_equal(a->line, b->line);
}

/* ---- tests -------------------------------------------------------------- */

/*
 * Wilson: with p = k/n and z = 1.959964,
 *   centre = (p + z^2/(2n)) / (1 + z^2/n)
 *   half   = z / (1 + z^2/n) * sqrt(p(1-p)/n + z^2/(4n^2))
 *   lo, hi = centre -+ half (lo 0 for k = 0, hi 1 for k = n).
 * k=0,n=10:   z^2/n = 0.384146, centre = 0.138766, half = 0.138766
 *             -> 0, 0.277533
 * k=10,n=10:  mirror image -> 0.722467, 1
 * k=5,n=10:   centre 0.5, half = 1.959964/1.384146 * sqrt(0.025 +
 *             0.009604) = 0.263407 -> 0.236593, 0.763407
 * k=73,n=100: z^2/n = 0.038415, centre = (0.73 + 0.019207)/1.038415
 *             = 0.721504, half = 1.959964/1.038415 * sqrt(0.001971 +
 *             0.000096) = 0.085813 -> 0.635679, 0.807304
 */
static void wilson_known_intervals(void **state)
{
	static const struct {
		uint32_t k, n;
		double lo, hi;
	} cases[] = {
	    {0, 10, 0.0, 0.277533},
	    {10, 10, 0.722467, 1.0},
	    {5, 10, 0.236593, 0.763407},
	    {73, 100, 0.635679, 0.807304},
	};
	double lo, hi;

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		rep_wilson(cases[i].k, cases[i].n, &lo, &hi);
		assert_near(lo, cases[i].lo, 1e-3);
		assert_near(hi, cases[i].hi, 1e-3);
	}
	/* The ends are exact. */
	rep_wilson(0, 10, &lo, &hi);
	assert_true(lo == 0.0);
	rep_wilson(10, 10, &lo, &hi);
	assert_true(hi == 1.0);
}

/* The interval holds the observed rate, stays in [0, 1], and the
 * interval of n-k is the mirror image of that of k. */
static void wilson_contains_the_rate(void **state)
{
	(void)state;
	for (uint32_t n = 1; n <= 50; n++)
		for (uint32_t k = 0; k <= n; k++) {
			double lo, hi, mlo, mhi, p = (double)k / n;
			rep_wilson(k, n, &lo, &hi);
			rep_wilson(n - k, n, &mlo, &mhi);
			if (!(0 <= lo && lo <= p && p <= hi && hi <= 1))
				fail_msg("k=%u n=%u: [%f, %f] misses %f", k, n,
					 lo, hi, p);
			if (k > 0 && k < n && !(lo < p && p < hi))
				fail_msg("k=%u n=%u: [%f, %f] is degenerate", k,
					 n, lo, hi);
			assert_near(lo, 1 - mhi, 1e-9);
			assert_near(hi, 1 - mlo, 1e-9);
		}
}

/* A spec's stdin: written as its hash and its bytes in hex, any byte
 * value; read back whole; a file whose bytes no longer match the hash,
 * or that has one of the two keys without the other, is refused. */
static void stdin_round_trips_and_is_checked(void **state)
{
	fixture *fx = *state;
	static const uint8_t in[] = {0x00, 0xff, '1', '\n'};
	rep_spec w, r;
	wasm_err e;
	char *text, *at;
	size_t len;

	full_spec(&w);
	w.input = wasm_malloc(sizeof in);
	assert_non_null(w.input);
	memcpy(w.input, in, sizeof in);
	w.ninput = sizeof in;
	wasm_err_clear(&e);
	assert_int_equal(rep_write(fx->path, &w, &e), WASM_OK);
	rep_spec_clear(&w);
	text = read_text(fx->path, &len);
	assert_non_null(strstr(text, "\nstdin = 00ff310a\n"));
	assert_non_null(strstr(text, "\nstdin_hash = "));

	memset(&r, 0xa5, sizeof r);
	assert_int_equal(rep_read(fx->path, &r, &e), WASM_OK);
	assert_int_equal(r.ninput, sizeof in);
	assert_memory_equal(r.input, in, sizeof in);
	rep_spec_clear(&r);

	at = strstr(text, "\nstdin = 00ff");
	at[9] = '1'; /* 01ff310a */
	REFUSED(fx, text, len, "does not match its 'stdin_hash'");
	at[9] = '0';
	at = strstr(text, "\nstdin_hash = ");
	at[1] = '#'; /* the hash line becomes a comment */
	REFUSED(fx, text, len, "does not match its 'stdin_hash'");
	free(text);
}

static void full_spec_round_trips(void **state)
{
	fixture *fx = *state;
	rep_spec w, r;
	wasm_err e;
	char *text;
	static const uint32_t sorted[] = {3, 4, 5, 9, 100, 101};

	full_spec(&w);
	wasm_err_clear(&e);
	assert_int_equal(rep_write(fx->path, &w, &e), WASM_OK);

	/* The file: sorted pool as ranges, the hold in microseconds. */
	text = read_text(fx->path, NULL);
	assert_true(!strncmp(text, "heisen-repro 2\n", 15));
	assert_non_null(strstr(text, "\nmask_pool = 3-5 9 100-101\n"));
	assert_non_null(strstr(text, "\nhold_us = 2500\n"));
	assert_non_null(strstr(text, "\nprogram_hash = 0123456789abcdef\n"));
	free(text);

	memset(&r, 0xa5, sizeof r);
	assert_int_equal(rep_read(fx->path, &r, &e), WASM_OK);
	assert_string_equal(r.program, w.program);
	assert_null(r.program_path); /* not in the file; w has none */
	assert_true(r.program_hash == 0x0123456789abcdefull);
	assert_true(r.program_size == w.program_size);
	assert_int_equal(r.nsites, 1000);
	assert_site_equal(&r.site[0], &w.site[0]);
	assert_site_equal(&r.site[1], &w.site[1]);
	assert_int_equal(r.mode, REP_TRIGGER);
	assert_true(r.seed == 0xfedcba9876543210ull);
	assert_int_equal(r.density_bp, 6500);
	assert_int_equal(r.mask_version, DET_MASK_VERSION);
	assert_non_null(r.pool);
	assert_int_equal(r.npool, 6);
	assert_memory_equal(r.pool, sorted, sizeof sorted);
	assert_string_equal(r.profile, "one-core");
	assert_int_equal(r.nargs, 3);
	assert_non_null(r.args);
	assert_memory_equal(r.args, full_args, sizeof full_args - 1);
	assert_int_equal(r.delay, 50);
	assert_true(r.hold_ns == 2500000);
	assert_true(r.timeout_s == 10.0);
	assert_true(r.has_addr);
	assert_int_equal(r.addr[0], 0x1a2c);
	assert_int_equal(r.addr[1], 0xffffffff);
	assert_true(r.bug_id == 4);
	assert_true(r.run_id == 17);
	assert_int_equal(r.runs, 100);
	assert_int_equal(r.reproduced, 97);
	rep_spec_clear(&r);
	assert_zeroed(&r);
	rep_spec_clear(&w);
}

/* A pinned spec over every site, without arguments, site names, origin
 * or measured rate; written over an existing file. */
static void bare_spec_round_trips(void **state)
{
	fixture *fx = *state;
	rep_spec w, r;
	wasm_err e;
	char *text;

	full_spec(&w);
	wasm_err_clear(&e);
	assert_int_equal(rep_write(fx->path, &w, &e), WASM_OK);
	rep_spec_clear(&w);

	w.program = own_str("plain.wasm");
	w.program_hash = 42;
	w.nsites = 5;
	w.site[0] = (rep_site){0, RW_READ, NULL, NULL, 0, 1};
	w.site[1] = (rep_site){4, RW_RANGE_WRITE, NULL, NULL, 0, 0};
	w.mode = REP_PINNED;
	w.seed = 7;
	w.density_bp = DET_DENSITY_FULL;
	w.mask_version = DET_MASK_VERSION;
	w.profile = own_str("default");
	w.hold_ns = 1000000;
	w.timeout_s = 2.5;
	assert_int_equal(rep_write(fx->path, &w, &e), WASM_OK);
	text = read_text(fx->path, NULL);
	assert_non_null(strstr(text, "\nmask_pool = all\n"));
	assert_null(strstr(text, "\narg"));
	assert_null(strstr(text, "one-core"));
	free(text);

	memset(&r, 0xa5, sizeof r);
	assert_int_equal(rep_read(fx->path, &r, &e), WASM_OK);
	assert_string_equal(r.program, "plain.wasm");
	assert_true(r.program_hash == 42);
	assert_true(r.program_size == 0);
	assert_int_equal(r.nsites, 5);
	assert_site_equal(&r.site[0], &w.site[0]);
	assert_site_equal(&r.site[1], &w.site[1]);
	assert_int_equal(r.mode, REP_PINNED);
	assert_true(r.seed == 7);
	assert_int_equal(r.density_bp, DET_DENSITY_FULL);
	assert_null(r.pool);
	assert_int_equal(r.npool, 0);
	assert_string_equal(r.profile, "default");
	assert_int_equal(r.nargs, 0);
	assert_true(!r.args || !r.args[0]);
	assert_int_equal(r.delay, 0);
	assert_true(r.hold_ns == 1000000);
	assert_true(r.timeout_s == 2.5);
	assert_true(r.bug_id == 0 && r.run_id == 0);
	assert_int_equal(r.runs, 0);
	assert_int_equal(r.reproduced, 0);
	rep_spec_clear(&r);
	rep_spec_clear(&w);
}

static void future_and_foreign_files_are_refused(void **state)
{
	fixture *fx = *state;
	char *text = valid_file(fx, NULL), *bad;

	bad = edit(text, "heisen-repro 2", "heisen-repro 3\n", NULL);
	REFUSED(fx, bad, strlen(bad), "line 1", "version 3", "newer");
	free(bad);

	bad = edit(text, "heisen-repro 2", "hello\n", NULL);
	REFUSED(fx, bad, strlen(bad), "line 1", "not a heisen repro file");
	free(bad);
	free(text);
}

/* A schedule spec: the race of full_spec found by a serial run. */
static void schedule_spec(rep_spec *s)
{
	static const rep_decision dec[] = {{0, 1}, {7, 2}, {1000000, 0}};

	full_spec(s);
	s->mode = REP_SCHEDULE;
	s->has_sched = s->has_dec = true;
	s->sched = (rep_sched_spec){.strategy = REP_SCHED_PCT,
				    .depth = 3,
				    .k = 1908,
				    .seed = 0x8000000000000001ull};
	s->dec = (rep_decision *)own((const char *)dec, sizeof dec);
	s->ndec = 3;
	s->points = 1000001;
	s->switches = 3;
	s->digest = 0xfedcba9876543210ull;
	s->status = DET_EXIT;
	s->exit_code = 1;
}

static void schedule_spec_round_trips(void **state)
{
	fixture *fx = *state;
	rep_spec w, r;
	wasm_err e;
	char *text;

	schedule_spec(&w);
	wasm_err_clear(&e);
	assert_int_equal(rep_write(fx->path, &w, &e), WASM_OK);
	text = read_text(fx->path, NULL);
	assert_non_null(
	    strstr(text, "\nsched_decisions = 0:1 7:2 1000000:0\n"));
	assert_non_null(strstr(text, "\nsched_strategy = pct:3:1908\n"));
	free(text);
	assert_int_equal(rep_read(fx->path, &r, &e), WASM_OK);
	assert_int_equal(r.mode, REP_SCHEDULE);
	assert_true(r.has_sched && r.has_dec && !r.whole_run);
	assert_int_equal(r.sched.strategy, REP_SCHED_PCT);
	assert_int_equal(r.sched.depth, 3);
	assert_true(r.sched.k == 1908);
	assert_true(r.sched.seed == w.sched.seed);
	assert_int_equal(r.ndec, 3);
	for (int i = 0; i < 3; i++) {
		assert_true(r.dec[i].event == w.dec[i].event);
		assert_int_equal(r.dec[i].thread, w.dec[i].thread);
	}
	assert_true(r.points == w.points && r.digest == w.digest);
	assert_int_equal(r.switches, 3);
	assert_int_equal(r.status, DET_EXIT);
	assert_int_equal(r.exit_code, 1);
	assert_site_equal(&r.site[0], &w.site[0]);
	rep_spec_clear(&r);

	/* A run as a whole: no sites, judged by its failure. */
	for (int i = 0; i < 2; i++) {
		wasm_free(w.site[i].func);
		wasm_free(w.site[i].file);
		w.site[i] = (rep_site){0};
	}
	w.whole_run = true;
	w.failure = own_str("exit:1");
	assert_int_equal(rep_write(fx->path, &w, &e), WASM_OK);
	assert_int_equal(rep_read(fx->path, &r, &e), WASM_OK);
	assert_true(r.whole_run);
	assert_string_equal(r.failure, "exit:1");
	rep_spec_clear(&r);
	rep_spec_clear(&w);
}

static void bad_schedules_are_refused(void **state)
{
	fixture *fx = *state;
	rep_spec w;
	wasm_err e;
	char *text, *bad;

	schedule_spec(&w);
	wasm_err_clear(&e);
	assert_int_equal(rep_write(fx->path, &w, &e), WASM_OK);
	rep_spec_clear(&w);
	text = read_text(fx->path, NULL);
	{
		static const struct {
			const char *line, *repl;
		} cases[] = {
		    {"sched_decisions", "sched_decisions = 7:2 3:1\n"},
		    {"sched_decisions", "sched_decisions = 7:x\n"},
		    {"sched_decisions", "sched_decisions = 7:99999999999\n"},
		    {"sched_strategy", "sched_strategy = fixd\n"},
		    {"sched_strategy", "sched_strategy = pct:0\n"},
		    {"sched_digest", "sched_digest = 12\n"},
		    {"run_status", "run_status = fine\n"},
		    {"run_exit", "run_exit = 300\n"},
		};
		for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
			unsigned line;
			char where[32];
			bad = edit(text, cases[i].line, cases[i].repl, &line);
			snprintf(where, sizeof where, "line %u", line);
			REFUSED(fx, bad, strlen(bad), where, cases[i].line);
			free(bad);
		}
	}
	/* Truncated: the decisions gone. */
	bad = edit(text, "sched_decisions", "", NULL);
	REFUSED(fx, bad, strlen(bad), "no 'sched_decisions'");
	free(bad);
	/* Version 1 knew no schedules. */
	bad = edit(text, "heisen-repro 2", "heisen-repro 1\n", NULL);
	REFUSED(fx, bad, strlen(bad), "unknown key 'sched_");
	free(bad);
	free(text);
}

/* A failure found by serial runs (minimize --schedule): the strategy and
 * seed round-trip and make it serial under the collision detector; a
 * file without the seed, with fixed or with happens-before is refused;
 * without the strategy it is a sampled failure as before. */
static void serial_failure_round_trips(void **state)
{
	static const uint32_t sites[] = {3, 9};
	fixture *fx = *state;
	rep_spec w, r;
	wasm_err e;
	char *text, *bad;

	full_spec(&w);
	for (int i = 0; i < 2; i++) {
		wasm_free(w.site[i].func);
		wasm_free(w.site[i].file);
		w.site[i] = (rep_site){0};
	}
	w.mode = REP_FAILURE;
	w.failure = own_str("exit:1");
	w.delay_sites = (uint32_t *)own((const char *)sites, sizeof sites);
	w.ndelay = 2;
	w.has_sched = w.sched_collide = true;
	w.sched = (rep_sched_spec){.strategy = REP_SCHED_RANDOM,
				   .p = 0.25,
				   .seed = 0x8000000000000003ull};
	wasm_err_clear(&e);
	assert_int_equal(rep_write(fx->path, &w, &e), WASM_OK);
	text = read_text(fx->path, NULL);
	assert_non_null(strstr(text, "\nsched_strategy = random:0.25\n"));
	assert_non_null(strstr(text, "\nsched_seed = 0x8000000000000003\n"));
	assert_non_null(strstr(text, "\nsched_detector = collision\n"));
	assert_null(strstr(text, "sched_decisions"));
	assert_int_equal(rep_read(fx->path, &r, &e), WASM_OK);
	assert_int_equal(r.mode, REP_FAILURE);
	assert_true(r.has_sched && r.sched_collide && !r.has_dec);
	assert_int_equal(r.sched.strategy, REP_SCHED_RANDOM);
	assert_true(r.sched.p == 0.25 && r.sched.seed == w.sched.seed);
	assert_int_equal(r.ndelay, 2);
	assert_int_equal(r.delay_sites[1], 9);
	rep_spec_clear(&r);

	bad = edit(text, "sched_seed", "", NULL);
	REFUSED(fx, bad, strlen(bad), "sched_seed");
	free(bad);
	bad = edit(text, "sched_strategy", "sched_strategy = fixed\n", NULL);
	REFUSED(fx, bad, strlen(bad), "random, pct or chaos");
	free(bad);
	bad = edit(text, "sched_detector", "sched_detector = happens-before\n",
		   NULL);
	REFUSED(fx, bad, strlen(bad), "collision detector");
	free(bad);
	{
		char *a = edit(text, "sched_strategy", "", NULL);
		char *b = edit(a, "sched_seed", "", NULL);
		bad = edit(b, "sched_detector", "", NULL);
		free(a);
		free(b);
	}
	write_bytes(fx->path, bad, strlen(bad));
	assert_int_equal(rep_read(fx->path, &r, &e), WASM_OK);
	assert_true(!r.has_sched && !r.sched_collide);
	rep_spec_clear(&r);
	free(bad);
	free(text);
	rep_spec_clear(&w);
}

static void version_1_files_are_read(void **state)
{
	fixture *fx = *state;
	char *text = valid_file(fx, NULL), *old;
	rep_spec r;
	wasm_err e;

	old = edit(text, "heisen-repro 2", "heisen-repro 1\n", NULL);
	write_bytes(fx->path, old, strlen(old));
	assert_int_equal(rep_read(fx->path, &r, &e), WASM_OK);
	assert_int_equal(r.mode, REP_TRIGGER);
	rep_spec_clear(&r);
	free(old);
	free(text);
}

static void truncated_file_is_refused(void **state)
{
	fixture *fx = *state;
	char *text = valid_file(fx, NULL), *cut;

	cut = strstr(text, "\nprofile = ");
	assert_non_null(cut);
	cut[1] = '\0';
	REFUSED(fx, text, strlen(text), "no 'profile'", "truncated");

	/* Cut in the middle of the profile's line. */
	strcat(text, "profile = one-");
	REFUSED(fx, text, strlen(text), "bad value for profile");
	free(text);
}

static void unknown_and_repeated_keys_are_refused(void **state)
{
	fixture *fx = *state;
	char *text = valid_file(fx, NULL), *bad, want[32];
	unsigned line;

	bad = edit(text, "mode = ", "colour = red\nmode = trigger\n", &line);
	snprintf(want, sizeof want, "line %u:", line);
	REFUSED(fx, bad, strlen(bad), "unknown key", "colour", want);
	free(bad);

	bad = edit(text, "delay = ", "delay = 50\ndelay = 60\n", &line);
	snprintf(want, sizeof want, "line %u:", line + 1);
	REFUSED(fx, bad, strlen(bad), "'delay' given twice", want);
	free(bad);

	bad = edit(text, "mode = ", "mode trigger\n", &line);
	snprintf(want, sizeof want, "line %u:", line);
	REFUSED(fx, bad, strlen(bad), "key = value", want);
	free(bad);
	free(text);
}

static void bad_values_are_refused(void **state)
{
	static const struct {
		const char *prefix, *repl, *key;
	} cases[] = {
	    {"mode = ", "mode = sideways\n", "mode"},
	    {"mode = ", "mode = Trigger\n", "mode"},
	    {"mask_density_bp = ", "mask_density_bp = 20000\n",
	     "mask_density_bp"},
	    {"mask_density_bp = ", "mask_density_bp = 0\n", "mask_density_bp"},
	    {"site_a = ", "site_a = -1\n", "site_a"},
	    {"site_a = ", "site_a = 4294967296\n", "site_a"},
	    {"site_b = ", "site_b = twenty\n", "site_b"},
	    {"site_a_kind = ", "site_a_kind = scribble\n", "site_a_kind"},
	    {"program_hash = ", "program_hash = 0123\n", "program_hash"},
	    {"mask_pool = ", "mask_pool = 3-5 9 1000\n", "mask_pool"},
	    {"mask_pool = ", "mask_pool = 5-3\n", "mask_pool"},
	    {"profile = ", "profile = no-such-profile\n", "profile"},
	    {"timeout_s = ", "timeout_s = -1\n", "timeout_s"},
	    {"delay = ", "delay = 5x\n", "delay"},
	    {"arg = a b", "arg = stray \\q backslash\n", "arg"},
	};
	fixture *fx = *state;
	char *text = valid_file(fx, NULL), *bad, want[2][64];
	unsigned line;

	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		bad = edit(text, cases[i].prefix, cases[i].repl, &line);
		snprintf(want[0], sizeof want[0], "line %u:", line);
		snprintf(want[1], sizeof want[1],
			 "bad value for %s:", cases[i].key);
		REFUSED(fx, bad, strlen(bad), want[0], want[1]);
		free(bad);
	}
	free(text);
}

static void inconsistent_sites_are_refused(void **state)
{
	fixture *fx = *state;
	char *text = valid_file(fx, NULL), *bad;

	/* site_a 30 > site_b 20. */
	bad = edit(text, "site_a = ", "site_a = 30\n", NULL);
	REFUSED(fx, bad, strlen(bad), "inconsistent", "sites 30 and 20");
	free(bad);

	/* site_b 1000 of 1000 sites. */
	bad = edit(text, "site_b = ", "site_b = 1000\n", NULL);
	REFUSED(fx, bad, strlen(bad), "inconsistent", "of 1000");
	free(bad);

	/* More runs reproduced than run. */
	bad = edit(text, "reproduced = ", "reproduced = 101\n", NULL);
	REFUSED(fx, bad, strlen(bad), "inconsistent", "101 of 100 runs");
	free(bad);
	free(text);
}

static void binary_empty_and_missing_files_are_refused(void **state)
{
	fixture *fx = *state;
	size_t len;
	char *text = valid_file(fx, &len), missing[128];

	text[len / 2] = '\0';
	REFUSED(fx, text, len, "binary");
	REFUSED(fx, "", 0, "empty file");
	free(text);

	snprintf(missing, sizeof missing, "%s/no-such.repro", fx->dir);
	refused(missing, WASM_IO, (char *)NULL);
}

/* Strings the line format could trip on: an empty argument, one that is
 * only a line break, values holding " = " or starting with '#', an empty
 * file name. */
static void odd_strings_round_trip(void **state)
{
	static const char args[] = "\0-x\0\r\n\0 = \0";
	fixture *fx = *state;
	rep_spec w, r;
	wasm_err e;

	full_spec(&w);
	wasm_free(w.program);
	wasm_free(w.site[0].func);
	wasm_free(w.site[0].file);
	wasm_free(w.args);
	w.program = own_str("a = b.wasm");
	w.site[0].func = own_str("# not a comment");
	w.site[0].file = own_str("");
	w.args = own(args, sizeof args - 1);
	w.nargs = 4;
	wasm_err_clear(&e);
	assert_int_equal(rep_write(fx->path, &w, &e), WASM_OK);
	assert_int_equal(rep_read(fx->path, &r, &e), WASM_OK);
	assert_string_equal(r.program, "a = b.wasm");
	assert_site_equal(&r.site[0], &w.site[0]);
	assert_int_equal(r.nargs, 4);
	assert_memory_equal(r.args, args, sizeof args - 1);
	rep_spec_clear(&r);
	rep_spec_clear(&w);
}

/* Any timeout a sweep accepts comes back exactly: a day and more (sweep
 * has no upper limit) and a fraction of a millisecond (0 would mean no
 * timeout at all). */
static void timeouts_round_trip(void **state)
{
	fixture *fx = *state;
	const double t[] = {90000.5, 0.0004, 1e-9, 10};
	rep_spec w, r;
	wasm_err e;

	for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
		full_spec(&w);
		w.timeout_s = t[i];
		assert_int_equal(rep_write(fx->path, &w, &e), WASM_OK);
		assert_int_equal(rep_read(fx->path, &r, &e), WASM_OK);
		assert_true(r.timeout_s == t[i]);
		rep_spec_clear(&r);
		rep_spec_clear(&w);
	}
}

/* Every allocation of rep_write and rep_read failing in turn: never a
 * success with a partial spec, a zeroed spec after every failure, no
 * leak (under SANITIZE=1), and in the end a full round trip. rep_write
 * and rep_read must report WASM_NOMEM, not a bad value. */
static void allocation_failures_are_clean(void **state)
{
	fixture *fx = *state;
	rep_spec w, r;
	wasm_err e;
	wasm_status st;
	bool wrote = false, read = false;
	long n;

	full_spec(&w);
	for (n = 0; !wrote && n < 1000; n++) {
		wasm_err_clear(&e);
		wasm_alloc_fail_after(n);
		st = rep_write(fx->path, &w, &e);
		wasm_alloc_fail_after(-1);
		assert_true(st == WASM_OK || st == WASM_NOMEM);
		wrote = st == WASM_OK;
	}
	assert_true(wrote);
	for (n = 0; !read && n < 1000; n++) {
		memset(&r, 0xa5, sizeof r);
		wasm_err_clear(&e);
		wasm_alloc_fail_after(n);
		st = rep_read(fx->path, &r, &e);
		wasm_alloc_fail_after(-1);
		if (st) {
			assert_int_equal(st, WASM_NOMEM);
			assert_zeroed(&r);
			continue;
		}
		read = true;
		assert_string_equal(r.program, w.program);
		assert_site_equal(&r.site[0], &w.site[0]);
		assert_site_equal(&r.site[1], &w.site[1]);
		assert_int_equal(r.npool, 6);
		assert_string_equal(r.profile, w.profile);
		assert_int_equal(r.nargs, 3);
		assert_memory_equal(r.args, full_args, sizeof full_args - 1);
		rep_spec_clear(&r);
	}
	assert_true(read);
	assert_true(n > 5); /* the sweep did fail some allocations */
	rep_spec_clear(&w);
}

static void mode_names_round_trip(void **state)
{
	static const rep_mode modes[] = {REP_PINNED, REP_MINIMAL, REP_TRIGGER,
					 REP_FAILURE, REP_SCHEDULE};
	static const char *const names[] = {"pinned", "minimal", "trigger",
					    "failure", "schedule"};
	rep_mode m;

	(void)state;
	for (int i = 0; i < 5; i++) {
		assert_string_equal(rep_mode_name(modes[i]), names[i]);
		m = (rep_mode)-1;
		assert_true(rep_mode_parse(names[i], &m));
		assert_int_equal(m, modes[i]);
	}
	assert_false(rep_mode_parse("Pinned", &m));
	assert_false(rep_mode_parse("", &m));
	assert_false(rep_mode_parse("pinned ", &m));
}

/* Write mask as a mask file and read it back with det_mask_read. */
static void mask_round_trip(fixture *fx, const uint8_t *mask, uint32_t n,
			    const char *comment)
{
	uint8_t *back = calloc(n, 1);
	wasm_err e;

	assert_non_null(back);
	wasm_err_clear(&e);
	assert_int_equal(rep_write_mask(fx->path, mask, n, comment, &e),
			 WASM_OK);
	assert_int_equal(det_mask_read(fx->path, back, n, &e), WASM_OK);
	assert_memory_equal(back, mask, n);
	free(back);
}

static void mask_files_round_trip(void **state)
{
	fixture *fx = *state;
	uint8_t mask[300];
	char *text;

	for (uint32_t i = 0; i < 300; i++)
		mask[i] = i % 3 == 0 || (i >= 100 && i <= 150);
	mask[299] = 1;
	mask_round_trip(fx, mask, 300, "pinned mask of bug 4\nrun 17");
	text = read_text(fx->path, NULL);
	assert_true(
	    !strncmp(text, "# pinned mask of bug 4\n# run 17\n0 3 ", 36));
	assert_non_null(strstr(text, " 99-150 153 "));
	assert_non_null(strstr(text, " 297 299\n"));
	free(text);

	memset(mask, 0, sizeof mask);
	mask_round_trip(fx, mask, 300, NULL);
	memset(mask, 1, sizeof mask);
	mask_round_trip(fx, mask, 300, "all");
	text = read_text(fx->path, NULL);
	assert_string_equal(text, "# all\n0-299\n");
	free(text);
}

static void default_hold_is_a_tenth_within_bounds(void **state)
{
	(void)state;
	assert_true(rep_default_hold(0) == 1000000);
	assert_true(rep_default_hold(5000000) == 1000000);
	assert_true(rep_default_hold(50000000) == 5000000);
	assert_true(rep_default_hold(10000000000ull) == 1000000000);
	assert_true(rep_default_hold(100000000000ull) == 1000000000);
	assert_true(rep_default_hold(UINT64_MAX) == 1000000000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(wilson_known_intervals),
	    cmocka_unit_test(wilson_contains_the_rate),
	    cmocka_unit_test(mode_names_round_trip),
	    cmocka_unit_test(default_hold_is_a_tenth_within_bounds),
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	    T(full_spec_round_trips),
	    T(bare_spec_round_trips),
	    T(stdin_round_trips_and_is_checked),
	    T(odd_strings_round_trip),
	    T(future_and_foreign_files_are_refused),
	    T(schedule_spec_round_trips),
	    T(bad_schedules_are_refused),
	    T(serial_failure_round_trips),
	    T(version_1_files_are_read),
	    T(truncated_file_is_refused),
	    T(unknown_and_repeated_keys_are_refused),
	    T(bad_values_are_refused),
	    T(inconsistent_sites_are_refused),
	    T(binary_empty_and_missing_files_are_refused),
	    T(mask_files_round_trip),
	    T(timeouts_round_trip),
	    T(allocation_failures_are_clean),
#undef T
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
