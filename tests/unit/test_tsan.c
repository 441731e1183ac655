/*
 * test_tsan.c - race reports as text (replay/tsan.h): gcc's and clang's
 * ThreadSanitizer formats, heisen's own, several blocks, and the
 * refusals (not a report, binary, cut short, no frames, --index past
 * the end).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "replay/tsan.h"

#include <string.h>

static const char gcc_report[] =
    "balance 600, expected 600 (1 odd)\n"
    "==================\n"
    "WARNING: ThreadSanitizer: data race (pid=32632)\n"
    "  Read of size 4 at 0x5594883fe08c by thread T2:\n"
    "    #0 deposit /src/demos/lost-update.c:35 (lu+0x1235)\n"
    "\n"
    "  Previous write of size 4 at 0x5594883fe08c by thread T1:\n"
    "    #0 deposit /src/demos/lost-update.c:36 (lu+0x1247)\n"
    "\n"
    "  Location is global 'balance' of size 4 at 0x5594883fe08c "
    "(lu+0x408c)\n"
    "\n"
    "  Thread T2 (tid=32635, running) created by main thread at:\n"
    "    #0 pthread_create ../../tsan_interceptors_posix.cpp:1001 "
    "(libtsan.so.2+0x5e686)\n"
    "    #1 main /src/demos/lost-update.c:49 (lu+0x12c1)\n"
    "\n"
    "SUMMARY: ThreadSanitizer: data race /src/demos/lost-update.c:35 in "
    "deposit\n"
    "==================\n";

static const char clang_two[] =
    "==================\n"
    "WARNING: ThreadSanitizer: data race (pid=9078)\n"
    "  Write of size 4 at 0x555bde991264 by thread T2:\n"
    "    #0 publish /src/plain-flag.c:51:8 (plain-flag+0xd03b3) "
    "(BuildId: 754db478)\n"
    "    #1 <null> <null> (libc.so.6+0x9ca94)\n"
    "\n"
    "  Previous atomic read of size 4 at 0x555bde991264 by main thread "
    "(mutexes: write M1):\n"
    "    #0 consume /src/plain-flag.c:60:10 (plain-flag+0xd0250) "
    "(BuildId: 754db478)\n"
    "\n"
    "SUMMARY: ThreadSanitizer: data race /src/plain-flag.c:51:8 in "
    "publish\n"
    "==================\n"
    "==================\n"
    "WARNING: ThreadSanitizer: data race (pid=9078)\n"
    "  Read of size 4 at 0x555bde991270 by thread T1:\n"
    "    #0 consume /src/plain-flag.c:63:10 (plain-flag+0xd02a8)\n"
    "  Previous write of size 4 at 0x555bde991270 by thread T2:\n"
    "    #0 publish /src/plain-flag.c:47:12 (plain-flag+0xd036b)\n"
    "SUMMARY: ThreadSanitizer: data race /src/plain-flag.c:63:10 in "
    "consume\n"
    "==================\n";

static const char heisen_report[] =
    "==================\n"
    "WARNING: heisen: data race (bug 1, in 3 of 3 runs)\n"
    "  Write of size 4 at 0x0000374c by thread 1:\n"
    "    #0 deposit /src/lost-update.c:36 (site 165)\n"
    "    #1 __heisen_thread_entry /src/guest/pthread.c:242\n"
    "  Unordered read of size 4 at 0x0000374c by thread 2:\n"
    "    #0 deposit /src/lost-update.c:35 (site 164)\n"
    "    #2 __main_void (offset 0x4124)\n"
    "  Location is global 'balance' (size 4)\n"
    "SUMMARY: heisen: data race /src/lost-update.c:36 in deposit\n"
    "==================\n";

static void reads_gcc(void **state)
{
	rep_tsan_race r;
	wasm_err e;

	assert_int_equal(
	    rep_tsan_parse(gcc_report, strlen(gcc_report), "t", 0, &r, &e),
	    WASM_OK);
	assert_false(r.heisen);
	assert_int_equal(r.nblocks, 1);
	assert_false(r.acc[0].write);
	assert_true(r.acc[1].write);
	assert_int_equal(r.acc[0].size, 4);
	assert_true(r.acc[0].addr == 0x5594883fe08cull);
	assert_string_equal(r.acc[0].thread, "T2");
	assert_int_equal(r.acc[0].nframes, 1);
	assert_string_equal(r.acc[0].frame[0].func, "deposit");
	assert_string_equal(r.acc[0].frame[0].file, "/src/demos/lost-update.c");
	assert_string_equal(rep_tsan_base(r.acc[0].frame[0].file),
			    "lost-update.c");
	assert_int_equal(r.acc[0].frame[0].line, 35);
	assert_int_equal(r.acc[0].frame[0].col, 0);
	assert_int_equal(r.acc[1].frame[0].line, 36);
	/* The creation stack is not an access's. */
	assert_int_equal(r.acc[1].nframes, 1);
	assert_true(strstr(r.location, "global 'balance'") != NULL);
	assert_true(strstr(r.summary, "lost-update.c:35") != NULL);
}

static void reads_clang_and_picks_a_block(void **state)
{
	rep_tsan_race r;
	wasm_err e;

	assert_int_equal(
	    rep_tsan_parse(clang_two, strlen(clang_two), "t", 1, &r, &e),
	    WASM_OK);
	assert_int_equal(r.nblocks, 2);
	assert_int_equal(r.acc[0].nframes, 2);
	assert_string_equal(r.acc[0].frame[0].func, "publish");
	assert_int_equal(r.acc[0].frame[0].line, 51);
	assert_int_equal(r.acc[0].frame[0].col, 8);
	assert_string_equal(r.acc[0].frame[1].func, "");
	assert_string_equal(r.acc[0].frame[1].file, "");
	assert_true(r.acc[1].atomic);
	assert_string_equal(r.acc[1].thread, "main thread");
	assert_int_equal(
	    rep_tsan_parse(clang_two, strlen(clang_two), "t", 2, &r, &e),
	    WASM_OK);
	assert_int_equal(r.index, 2);
	assert_string_equal(r.acc[0].frame[0].func, "consume");
	assert_int_equal(r.acc[0].frame[0].line, 63);
	assert_int_equal(r.acc[1].frame[0].line, 47);
	assert_int_equal(
	    rep_tsan_parse(clang_two, strlen(clang_two), "t", 3, &r, &e),
	    WASM_INVALID);
	assert_true(strstr(e.msg, "holds 2 races") != NULL);
}

static void reads_heisen(void **state)
{
	rep_tsan_race r;
	wasm_err e;

	assert_int_equal(rep_tsan_parse(heisen_report, strlen(heisen_report),
					"t", 1, &r, &e),
			 WASM_OK);
	assert_true(r.heisen);
	assert_true(r.acc[0].write);
	assert_false(r.acc[1].write);
	assert_string_equal(r.acc[0].thread, "1");
	assert_int_equal(r.acc[0].frame[0].line, 36);
	assert_int_equal(r.acc[1].nframes, 2);
	assert_string_equal(r.acc[1].frame[1].func, "__main_void");
	assert_int_equal(r.acc[1].frame[1].line, 0);
}

static void refuses(const char *text, size_t len, const char *want)
{
	rep_tsan_race r;
	wasm_err e;

	assert_int_equal(rep_tsan_parse(text, len, "t", 1, &r, &e),
			 WASM_INVALID);
	if (!strstr(e.msg, want))
		fail_msg("'%s' does not say '%s'", e.msg, want);
}

static void refuses_what_is_not_a_report(void **state)
{
	char cutbuf[sizeof gcc_report];
	const char *nof;
	size_t k;

	refuses("hello\nworld\n", 12, "not a race report");
	refuses("", 0, "not a race report");
	refuses("WARNING: ThreadSanitizer: data race\0x", 37, "binary");
	/* Cut in the middle of the second access. */
	nof = strstr(gcc_report, "Previous");
	k = (size_t)(nof - gcc_report) + 20;
	memcpy(cutbuf, gcc_report, k);
	refuses(cutbuf, k, "cut short");
	/* Cut before the SUMMARY line. */
	nof = strstr(gcc_report, "SUMMARY");
	k = (size_t)(nof - gcc_report);
	refuses(gcc_report, k, "cut short");
	/* No frames for one access. */
	refuses("WARNING: ThreadSanitizer: data race\n"
		"  Read of size 4 at 0x10 by thread T2:\n"
		"  Previous write of size 4 at 0x10 by thread T1:\n"
		"    #0 f /a.c:3\n"
		"SUMMARY: x\n",
		151, "no stack frames");
	refuses("WARNING: ThreadSanitizer: data race\n"
		"  Read of size 4 at 0x10 by thread T2:\n"
		"    #x f /a.c:3\n"
		"SUMMARY: x\n",
		102, "not a stack frame");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(reads_gcc),
	    cmocka_unit_test(reads_clang_and_picks_a_block),
	    cmocka_unit_test(reads_heisen),
	    cmocka_unit_test(refuses_what_is_not_a_report),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
