/*
 * test_campaign.c - the sweep options' parsers: density lists in basis
 * points and profile lists.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "detector/campaign.h"

static void density_ranges_and_lists(void **state)
{
	uint32_t *v, n;
	wasm_err e;

	assert_int_equal(det_parse_densities("5:100:5", &v, &n, &e), WASM_OK);
	assert_int_equal(n, 20);
	assert_int_equal(v[0], 500);
	assert_int_equal(v[19], 10000);
	wasm_free(v);

	assert_int_equal(det_parse_densities("100,12.5,0.01,12.50", &v, &n,
					     &e),
			 WASM_OK);
	assert_int_equal(n, 3);
	assert_int_equal(v[0], 1);
	assert_int_equal(v[1], 1250);
	assert_int_equal(v[2], 10000);
	wasm_free(v);

	/* 2.5:10:2.5 keeps the step exact in basis points. */
	assert_int_equal(det_parse_densities("2.5:10:2.5", &v, &n, &e),
			 WASM_OK);
	assert_int_equal(n, 4);
	assert_int_equal(v[3], 1000);
	wasm_free(v);

	assert_int_equal(det_parse_densities("50", &v, &n, &e), WASM_OK);
	assert_int_equal(n, 1);
	assert_int_equal(v[0], 5000);
	wasm_free(v);
}

static void density_errors(void **state)
{
	static const char *const bad[] = {
	    "0:0:0", "0",	"", "101",    "50:10:5", "5:100:0", "1.234",
	    "5:100", "5:100:5:5", "a", "10,,20", "-5", "5.",	  "1e2",
	};
	uint32_t *v = NULL, n;
	wasm_err e;

	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		wasm_err_clear(&e);
		assert_int_equal(det_parse_densities(bad[i], &v, &n, &e),
				 WASM_INVALID);
		assert_non_null(strstr(e.msg, "density"));
	}
}

static void profiles(void **state)
{
	const det_profile **v;
	uint32_t n;
	wasm_err e;

	assert_int_equal(det_parse_profiles("default,one-core,default", &v,
					    &n, &e),
			 WASM_OK);
	assert_int_equal(n, 2);
	assert_string_equal(v[0]->name, "default");
	assert_true(v[1]->one_core);
	wasm_free(v);
	assert_int_equal(det_parse_profiles("throttled,noisy", &v, &n, &e),
			 WASM_OK);
	assert_true(v[0]->throttle > 0);
	assert_true(v[1]->noisy);
	wasm_free(v);
	assert_int_equal(det_parse_profiles("default,warp", &v, &n, &e),
			 WASM_INVALID);
	assert_non_null(strstr(e.msg, "'warp'"));
	assert_non_null(strstr(e.msg, "one-core"));
	assert_int_equal(det_parse_profiles("", &v, &n, &e), WASM_INVALID);
}

/* The list sweep defaults to: every profile, and one that parses. */
static void profile_names(void **state)
{
	char all[64];
	const det_profile **v;
	uint32_t n;
	wasm_err e;

	det_profile_names(all, sizeof all, ",");
	assert_string_equal(all, "default,one-core,throttled,noisy");
	assert_int_equal(det_parse_profiles(all, &v, &n, &e), WASM_OK);
	assert_int_equal(n, 4);
	wasm_free(v);
	det_profile_names(all, 10, ", ");
	assert_string_equal(all, "default, ");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(density_ranges_and_lists),
	    cmocka_unit_test(density_errors),
	    cmocka_unit_test(profiles),
	    cmocka_unit_test(profile_names),
	};
	return cmocka_run_group_tests_name("campaign", tests, NULL, NULL);
}
