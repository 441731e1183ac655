/*
 * test_sched.c - schedules (replay/sched.h): strategy names, the
 * decisions each strategy records, fixed following them, and the
 * schedule file's reader on good and hostile text.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "replay/sched.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

static void parses_strategies(void **state)
{
	rep_sched_spec s = {.seed = 7};
	char name[64];
	wasm_err e;

	assert_int_equal(rep_sched_parse("random", &s, &e), WASM_OK);
	assert_int_equal(s.strategy, REP_SCHED_RANDOM);
	assert_true(s.p > 0.04 && s.p < 0.06);
	assert_int_equal(s.seed, 7);
	assert_int_equal(rep_sched_parse("random:0.5", &s, &e), WASM_OK);
	rep_sched_name(&s, name, sizeof name);
	assert_string_equal(name, "random:0.5");
	assert_int_equal(rep_sched_parse("pct:3", &s, &e), WASM_OK);
	assert_int_equal(s.depth, 3);
	assert_int_equal(rep_sched_parse("pct:2:500", &s, &e), WASM_OK);
	rep_sched_name(&s, name, sizeof name);
	assert_string_equal(name, "pct:2:500");
	assert_int_equal(rep_sched_parse("fixed", &s, &e), WASM_OK);
	assert_int_equal(s.strategy, REP_SCHED_FIXED);
	assert_int_equal(rep_sched_parse("chaos", &s, &e), WASM_OK);
	assert_int_equal(s.strategy, REP_SCHED_CHAOS);
	rep_sched_name(&s, name, sizeof name);
	assert_string_equal(name, "chaos");
	static const char *const bad[] = {
	    "",		  "rand",    "random:",	 "random:1.5", "random:-1",
	    "random:x",	  "pct",     "pct:",	 "pct:0",      "pct:65",
	    "pct:-2",	  "pct:3:0", "pct:3:-1", "pct:3:x",    "fixed:1",
	    "random:nan", "chaos:2", "Chaos"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		assert_int_equal(rep_sched_parse(bad[i], &s, &e), WASM_INVALID);
}

/* A fake run: three threads, all runnable, 200 points, each point given
 * to the scheduler; returns the threads chosen. */
static void drive(rep_sched *s, uint32_t *chosen, int npoints)
{
	eng_sched h = rep_sched_hook(s);
	uint32_t ids[3] = {0, 1, 2}, cur = 0;

	for (int i = 0; i < npoints; i++) {
		uint32_t k =
		    h.pick(h.ctx, (uint64_t)i, cur, ENG_POINT_HOST, ids, 3);
		assert_true(k < 3);
		cur = chosen[i] = ids[k];
	}
}

static void fixed_follows_what_was_recorded(void **state)
{
	static const char *const strategies[] = {"random:0.3", "pct:3:150",
						 "chaos"};
	for (size_t k = 0; k < 3; k++) {
		rep_sched_spec spec = {.seed = 99};
		uint32_t a[200], b[200];
		const rep_decision *d;
		size_t n;
		wasm_err e;
		assert_int_equal(rep_sched_parse(strategies[k], &spec, &e),
				 WASM_OK);
		rep_sched *rec = rep_sched_new(&spec, NULL, 0);
		drive(rec, a, 200);
		d = rep_sched_decisions(rec, &n);
		assert_true(n > 0);
		for (size_t i = 0; i < n; i++)
			assert_int_equal(a[d[i].event], d[i].thread);
		rep_sched_spec fixed = {.strategy = REP_SCHED_FIXED};
		rep_sched *rep = rep_sched_new(&fixed, d, n);
		drive(rep, b, 200);
		assert_memory_equal(a, b, sizeof a);
		assert_int_equal(rep_sched_diverged(rep), UINT64_MAX);
		rep_sched_free(rep);
		rep_sched_free(rec);
	}
}

static void same_seed_same_choices(void **state)
{
	rep_sched_spec spec = {
	    .strategy = REP_SCHED_RANDOM, .p = 0.2, .seed = 5};
	uint32_t a[200], b[200];
	rep_sched *x = rep_sched_new(&spec, NULL, 0);
	rep_sched *y = rep_sched_new(&spec, NULL, 0);

	drive(x, a, 200);
	drive(y, b, 200);
	assert_memory_equal(a, b, sizeof a);
	spec.seed = 6;
	rep_sched_free(y);
	y = rep_sched_new(&spec, NULL, 0);
	drive(y, b, 200);
	assert_memory_not_equal(a, b, sizeof a);
	rep_sched_free(x);
	rep_sched_free(y);
}

/* chaos starves: over a long run some thread is left out for a span of
 * thousands of points while the others run, and never past half the
 * run in all; the same seed, the same choices. */
static void chaos_starves_for_spans(void **state)
{
	enum { N = 200000 };
	rep_sched_spec spec = {.strategy = REP_SCHED_CHAOS, .seed = 3};
	uint32_t *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
	uint32_t longest = 0, gap[3] = {0};
	rep_sched *x = rep_sched_new(&spec, NULL, 0);
	rep_sched *y = rep_sched_new(&spec, NULL, 0);

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	drive(x, a, N);
	drive(y, b, N);
	assert_memory_equal(a, b, N * sizeof *a);
	for (int i = 0; i < N; i++)
		for (int t = 0; t < 3; t++) {
			gap[t] = a[i] == (uint32_t)t ? 0 : gap[t] + 1;
			if (gap[t] > longest)
				longest = gap[t];
		}
	/* Plain switches (p 0.01) alone leave a thread out for a few
	 * hundred points at most. */
	assert_true(longest > 2000);
	assert_true(longest <= N / 2 + 1000);
	rep_sched_free(x);
	rep_sched_free(y);
	free(a);
	free(b);
}

/* A thread that spins while another could run is moved off after 1 000
 * points in a row, whatever the strategy: PCT's priorities (even once
 * its change points have lowered everyone) and random:0 alike. */
static void no_thread_runs_for_ever(void **state)
{
	static const char *const strategies[] = {"pct:3", "pct:1", "pct:8:10",
						 "random:0"};
	for (size_t k = 0; k < 4; k++) {
		rep_sched_spec spec = {.seed = k + 1};
		wasm_err e;
		assert_int_equal(rep_sched_parse(strategies[k], &spec, &e),
				 WASM_OK);
		rep_sched *s = rep_sched_new(&spec, NULL, 0);
		eng_sched h = rep_sched_hook(s);
		uint32_t ids[2] = {1, 2}, cur = 1;
		uint64_t last = 0;
		for (uint64_t ev = 0; ev < 200000; ev++) {
			uint32_t i =
			    h.pick(h.ctx, ev, cur, ENG_POINT_HOST, ids, 2);
			if (ids[i] != cur)
				last = ev;
			cur = ids[i];
			if (ev - last > 1001)
				fail_msg("%s: thread %u ran from point %llu "
					 "to %llu",
					 strategies[k], cur,
					 (unsigned long long)last,
					 (unsigned long long)ev);
		}
		rep_sched_free(s);
	}
}

static void fixed_reports_a_divergence(void **state)
{
	rep_decision d[] = {{10, 2}};
	rep_sched_spec fixed = {.strategy = REP_SCHED_FIXED};
	rep_sched *s = rep_sched_new(&fixed, d, 1);
	eng_sched h = rep_sched_hook(s);
	uint32_t ids[2] = {0, 1};

	for (uint64_t i = 0; i < 20; i++)
		h.pick(h.ctx, i, 0, ENG_POINT_HOST, ids, 2);
	assert_int_equal(rep_sched_diverged(s), 10);
	rep_sched_free(s);
}

static const char good[] = "heisen-schedule 1\n"
			   "# a comment\n"
			   "strategy = pct:3:100000\n"
			   "seed = 5\n"
			   "points = 1868\n"
			   "switches = 3\n"
			   "digest = 391461c2e70f9125\n"
			   "decisions = 288:2 834:1 1380:0\n";

static void reads_a_schedule(void **state)
{
	rep_sched_file f;
	wasm_err e;

	assert_int_equal(rep_sched_parse_file(good, strlen(good), "g", &f, &e),
			 WASM_OK);
	assert_int_equal(f.spec.strategy, REP_SCHED_PCT);
	assert_int_equal(f.spec.seed, 5);
	assert_int_equal(f.points, 1868);
	assert_int_equal(f.switches, 3);
	assert_true(f.digest == 0x391461c2e70f9125ull);
	assert_int_equal(f.n, 3);
	assert_int_equal(f.d[1].event, 834);
	assert_int_equal(f.d[1].thread, 1);
	rep_sched_file_clear(&f);
}

static void refuses_hostile_schedules(void **state)
{
	static const struct {
		const char *text, *msg;
	} bad[] = {
	    {"", "not a heisen schedule"},
	    {"heisen-schedule 2\n", "newer"},
	    {"heisen-repro 1\n", "not a heisen schedule"},
	    {"heisen-schedule 1\nseed = 1\n", "truncated"},
	    {"heisen-schedule 1\nbogus = 1\n", "not a schedule line"},
	    {"heisen-schedule 1\nseed = -1\n", "not a schedule line"},
	    {"heisen-schedule 1\nseed = 99999999999999999999999\n",
	     "not a schedule line"},
	    {"heisen-schedule 1\ndigest = 12\n", "not a schedule line"},
	    {"heisen-schedule 1\nstrategy = zigzag\n", "unknown schedule"},
	    {"heisen-schedule 1\ndecisions = 5\n", "EVENT:THREAD"},
	    {"heisen-schedule 1\ndecisions = 5:x\n", "EVENT:THREAD"},
	    {"heisen-schedule 1\ndecisions = 5:99999999999\n", "EVENT:THREAD"},
	    {"heisen-schedule 1\ndecisions = 5:1 5:2\n", "must ascend"},
	    {"heisen-schedule 1\nno equals sign\n", "not a schedule line"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		rep_sched_file f;
		wasm_err e;
		assert_int_equal(rep_sched_parse_file(bad[i].text,
						      strlen(bad[i].text), "b",
						      &f, &e),
				 WASM_INVALID);
		if (!strstr(e.msg, bad[i].msg))
			fail_msg("case %zu: '%s' lacks '%s'", i, e.msg,
				 bad[i].msg);
		rep_sched_file_clear(&f);
	}
	/* Every prefix of a good file: refused, never read past its end. */
	for (size_t n = 0; n + 1 < strlen(good); n++) {
		rep_sched_file f;
		wasm_err e;
		char *cut = malloc(n ? n : 1);
		memcpy(cut, good, n);
		(void)rep_sched_parse_file(cut, n, "p", &f, &e);
		rep_sched_file_clear(&f);
		free(cut);
	}
}

static void writes_what_it_reads(void **state)
{
	char path[] = "/tmp/heisen-test-sched-XXXXXX";
	int fd = mkstemp(path);
	rep_sched_file a, b;
	wasm_err e;

	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(rep_sched_parse_file(good, strlen(good), "g", &a, &e),
			 WASM_OK);
	assert_int_equal(rep_sched_write(path, &a, &e), WASM_OK);
	assert_int_equal(rep_sched_read(path, &b, &e), WASM_OK);
	assert_int_equal(b.n, a.n);
	assert_memory_equal(b.d, a.d, a.n * sizeof *a.d);
	assert_true(b.digest == a.digest);
	unlink(path);
	rep_sched_file_clear(&a);
	rep_sched_file_clear(&b);
}

static void decisions_encode_and_decode(void **state)
{
	static const rep_decision d[] = {
	    {0, 1}, {1, 0}, {300, 7}, {UINT64_MAX - 1, UINT32_MAX}};
	wasm_buf b = {0};
	rep_decision *out;
	size_t n;
	wasm_err e;

	(void)state;
	rep_sched_encode(d, 4, &b);
	assert_false(b.oom);
	assert_int_equal(rep_sched_decode(b.data, b.len, &out, &n, &e),
			 WASM_OK);
	assert_int_equal(n, 4);
	for (size_t i = 0; i < n; i++) {
		assert_true(out[i].event == d[i].event);
		assert_int_equal(out[i].thread, d[i].thread);
	}
	wasm_free(out);
	/* Every truncation is refused, never read past. */
	for (size_t cut = 1; cut < b.len; cut++) {
		wasm_status st = rep_sched_decode(b.data, cut, &out, &n, &e);
		if (st == WASM_OK) {
			/* A cut between two decisions is a shorter list. */
			assert_true(n < 4);
			wasm_free(out);
		} else {
			assert_int_equal(st, WASM_INVALID);
			assert_null(out);
		}
	}
	/* Events that do not ascend (a zero distance after the first). */
	{
		static const uint8_t same[] = {5, 1, 0, 2};
		static const uint8_t overlong[] = {0x80, 0x80, 0x80, 0x80,
						   0x80, 0x80, 0x80, 0x80,
						   0x80, 0x80, 0x01, 0};
		static const uint8_t big_thread[] = {1,	   0xff, 0xff,
						     0xff, 0xff, 0x7f};
		assert_int_equal(
		    rep_sched_decode(same, sizeof same, &out, &n, &e),
		    WASM_INVALID);
		assert_int_equal(
		    rep_sched_decode(overlong, sizeof overlong, &out, &n, &e),
		    WASM_INVALID);
		assert_int_equal(rep_sched_decode(big_thread, sizeof big_thread,
						  &out, &n, &e),
				 WASM_INVALID);
	}
	assert_int_equal(rep_sched_decode(NULL, 0, &out, &n, &e), WASM_OK);
	assert_int_equal(n, 0);
	wasm_buf_fini(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(parses_strategies),
	    cmocka_unit_test(fixed_follows_what_was_recorded),
	    cmocka_unit_test(same_seed_same_choices),
	    cmocka_unit_test(no_thread_runs_for_ever),
	    cmocka_unit_test(fixed_reports_a_divergence),
	    cmocka_unit_test(reads_a_schedule),
	    cmocka_unit_test(refuses_hostile_schedules),
	    cmocka_unit_test(writes_what_it_reads),
	    cmocka_unit_test(decisions_encode_and_decode),
	    cmocka_unit_test(chaos_starves_for_spans),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
