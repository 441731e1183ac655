/*
 * test_mask.c - the mask generator bit for bit (xoshiro256**, splitmix64,
 * Lemire's draw, the partial shuffle), its counts and uniformity, and the
 * mask file reader.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "detector/race.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* First outputs of the reference xoshiro256** (prng.di.unimi.it) from
 * the state {1, 2, 3, 4}, checked against the reference C code. */
static void xoshiro_matches_the_reference(void **state)
{
	det_rng r = {{1, 2, 3, 4}};

	assert_true(det_rng_next(&r) == 11520u);
	assert_true(det_rng_next(&r) == 0u);
	assert_true(det_rng_next(&r) == 1509978240u);
	assert_true(det_rng_next(&r) == 1215971899390074240u);
}

/* splitmix64's published first output from seed 0. */
static void splitmix_seeds_the_state(void **state)
{
	det_rng r;

	assert_true(det_seed_mix(0) == 0xe220a8397b1dcdafu);
	det_rng_seed(&r, 0);
	assert_true(r.s[0] == 0xe220a8397b1dcdafu);
	/* Successive outputs, not the same word four times. */
	assert_true(r.s[1] != r.s[0] && r.s[2] != r.s[1] && r.s[3] != r.s[2]);
	assert_true(det_seed_mix(1) != det_seed_mix(0));
}

static void bounded_draw_stays_below(void **state)
{
	det_rng r;
	static const uint64_t ns[] = {
	    1, 2, 3, 7, 1000, 1u << 31, UINT64_MAX / 3 * 2, UINT64_MAX};
	uint32_t hits[3] = {0};

	det_rng_seed(&r, 7);
	for (size_t k = 0; k < sizeof ns / sizeof *ns; k++)
		for (int i = 0; i < 1000; i++)
			assert_true(det_rng_below(&r, ns[k]) < ns[k]);
	for (int i = 0; i < 3000; i++)
		hits[det_rng_below(&r, 3)]++;
	for (int i = 0; i < 3; i++)
		assert_in_range(hits[i], 800, 1200);
}

static void count_rounds_half_up(void **state)
{
	assert_int_equal(det_mask_count(0, 1000), 0);
	assert_int_equal(det_mask_count(10000, 1000), 1000);
	assert_int_equal(det_mask_count(5000, 1), 1);
	assert_int_equal(det_mask_count(4999, 1), 0);
	assert_int_equal(det_mask_count(500, 3), 0);
	assert_int_equal(det_mask_count(500, 10), 1);
	assert_int_equal(det_mask_count(1, 5000), 1);
	assert_int_equal(det_mask_count(1, 4999), 0);
	assert_int_equal(det_mask_count(3333, 3), 1);
	assert_int_equal(det_mask_count(10000, UINT32_MAX), UINT32_MAX);
	assert_int_equal(det_mask_count(5000, 0), 0);
}

/* Pinned: a change here changes every stored mask, and must bump
 * DET_MASK_VERSION. The list was checked against an independent Python
 * implementation of the same steps. */
static void golden_mask(void **state)
{
	static const uint32_t armed[] = {5, 8, 38, 62, 68, 73, 78, 86, 92, 99};
	uint8_t mask[100], want[100] = {0};
	wasm_err e;

	assert_int_equal(DET_MASK_VERSION, 1);
	for (size_t i = 0; i < sizeof armed / sizeof *armed; i++)
		want[armed[i]] = 1;
	assert_int_equal(det_mask_make(42, 1000, NULL, 0, mask, 100, &e),
			 WASM_OK);
	assert_memory_equal(mask, want, sizeof mask);
}

static uint32_t ones(const uint8_t *m, uint32_t n)
{
	uint32_t k = 0;
	for (uint32_t i = 0; i < n; i++)
		k += m[i] != 0;
	return k;
}

static void exact_count_and_reproducible(void **state)
{
	static const uint32_t dens[] = {0,    1,    250,  500,
					3333, 5000, 9999, 10000};
	static const uint32_t sizes[] = {0, 1, 2, 3, 10, 99, 1000, 4097};
	uint8_t *a = malloc(4097), *b = malloc(4097);
	wasm_err e;

	for (uint64_t seed = 0; seed < 20; seed++)
		for (size_t d = 0; d < sizeof dens / sizeof *dens; d++)
			for (size_t s = 0; s < sizeof sizes / sizeof *sizes;
			     s++) {
				uint32_t n = sizes[s];
				assert_int_equal(det_mask_make(seed, dens[d],
							       NULL, 0, a, n,
							       &e),
						 WASM_OK);
				assert_int_equal(ones(a, n),
						 det_mask_count(dens[d], n));
				assert_int_equal(det_mask_make(seed, dens[d],
							       NULL, 0, b, n,
							       &e),
						 WASM_OK);
				assert_memory_equal(a, b, n ? n : 1);
			}
	/* Different seeds give different masks. */
	det_mask_make(1, 5000, NULL, 0, a, 1000, &e);
	det_mask_make(2, 5000, NULL, 0, b, 1000, &e);
	assert_memory_not_equal(a, b, 1000);
	free(a);
	free(b);
}

static void every_site_equally_likely(void **state)
{
	uint32_t hits[10] = {0};
	uint8_t m[10];
	wasm_err e;

	for (uint64_t seed = 0; seed < 2000; seed++) {
		assert_int_equal(
		    det_mask_make(det_seed_mix(seed), 5000, NULL, 0, m, 10, &e),
		    WASM_OK);
		for (int i = 0; i < 10; i++)
			hits[i] += m[i];
	}
	/* Expected 1000 each, sd ~22: far outside these bounds means a
	 * biased shuffle, not bad luck. */
	for (int i = 0; i < 10; i++)
		assert_in_range(hits[i], 850, 1150);
}

static void pool_is_respected(void **state)
{
	static const uint32_t pool[] = {3, 17, 4, 40, 41, 9};
	uint8_t m[50];
	uint32_t dup[] = {3, 4, 3}, far[] = {3, 50};
	wasm_err e;

	for (uint64_t seed = 0; seed < 200; seed++) {
		assert_int_equal(det_mask_make(seed, 5000, pool, 6, m, 50, &e),
				 WASM_OK);
		assert_int_equal(ones(m, 50), 3);
		for (uint32_t i = 0; i < 50; i++) {
			bool in = false;
			for (int k = 0; k < 6; k++)
				in |= pool[k] == i;
			if (!in)
				assert_int_equal(m[i], 0);
		}
	}
	assert_int_equal(det_mask_make(0, 10000, pool, 6, m, 50, &e), WASM_OK);
	assert_int_equal(ones(m, 50), 6);
	assert_int_equal(det_mask_make(0, 5000, far, 2, m, 50, &e),
			 WASM_INVALID);
	assert_non_null(strstr(e.msg, "site 50 out of range"));
	assert_int_equal(det_mask_make(0, 5000, dup, 3, m, 50, &e),
			 WASM_INVALID);
	assert_non_null(strstr(e.msg, "site 3 listed twice"));
	assert_int_equal(det_mask_make(0, 10001, NULL, 0, m, 50, &e),
			 WASM_INVALID);
	assert_non_null(strstr(e.msg, "above 100%"));
}

/* ---- mask files ------------------------------------------------------ */

static char path[64];

static void put(const char *text)
{
	FILE *f;

	strcpy(path, "/tmp/heisen-mask-XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static wasm_status read_text(const char *text, uint8_t *m, uint32_t n,
			     wasm_err *e)
{
	wasm_status st;

	put(text);
	memset(m, 0, n);
	st = det_mask_read(path, m, n, e);
	unlink(path);
	return st;
}

static void mask_file_ids_ranges_comments(void **state)
{
	uint8_t m[20], want[20] = {0};
	wasm_err e;

	assert_int_equal(read_text("# armed sites\n3 5-7, 9\n\n 0,19 # end\n"
				   "12-12",
				   m, 20, &e),
			 WASM_OK);
	for (int i = 5; i <= 7; i++)
		want[i] = 1;
	want[0] = want[3] = want[9] = want[12] = want[19] = 1;
	assert_memory_equal(m, want, 20);
	assert_int_equal(read_text("", m, 20, &e), WASM_OK);
	assert_int_equal(ones(m, 20), 0);
}

static void mask_file_errors_name_the_line(void **state)
{
	uint8_t m[20];
	char word[80];
	wasm_err e;

	assert_int_equal(read_text("1\n2\n# x\n25\n", m, 20, &e), WASM_INVALID);
	assert_string_equal(e.msg, "line 4: site id 25 out of range (the "
				   "module has 20 sites)");
	assert_int_equal(read_text("1 3-30", m, 20, &e), WASM_INVALID);
	assert_non_null(strstr(e.msg, "line 1: site id 30 out of range"));
	assert_int_equal(read_text("1\nx", m, 20, &e), WASM_INVALID);
	assert_non_null(strstr(e.msg, "line 2: expected a site id"));
	assert_int_equal(read_text("7-3", m, 20, &e), WASM_INVALID);
	assert_non_null(strstr(e.msg, "line 1: expected"));
	assert_int_equal(read_text("\n\n5-", m, 20, &e), WASM_INVALID);
	assert_non_null(strstr(e.msg, "line 3: expected"));
	assert_int_equal(read_text("1-2-3", m, 20, &e), WASM_INVALID);
	assert_int_equal(read_text("99999999999999999999999", m, 20, &e),
			 WASM_INVALID);
	/* A word longer than any id is refused, not split in two. */
	memset(word, '0', sizeof word - 2);
	word[sizeof word - 2] = '1';
	word[sizeof word - 1] = '\0';
	assert_int_equal(read_text(word, m, 20, &e), WASM_INVALID);
	assert_non_null(strstr(e.msg, "line 1: expected"));
	assert_int_equal(det_mask_read("/nonexistent/heisen.mask", m, 20, &e),
			 WASM_IO);
	assert_non_null(strstr(e.msg, "cannot open"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(xoshiro_matches_the_reference),
	    cmocka_unit_test(splitmix_seeds_the_state),
	    cmocka_unit_test(bounded_draw_stays_below),
	    cmocka_unit_test(count_rounds_half_up),
	    cmocka_unit_test(golden_mask),
	    cmocka_unit_test(exact_count_and_reproducible),
	    cmocka_unit_test(every_site_equally_likely),
	    cmocka_unit_test(pool_is_respected),
	    cmocka_unit_test(mask_file_ids_ranges_comments),
	    cmocka_unit_test(mask_file_errors_name_the_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
