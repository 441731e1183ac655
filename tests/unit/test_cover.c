/*
 * test_cover.c - the reads a happens-before check may leave unprobed
 * (rewriter/cover.h): which loads a later store covers, and which it must
 * not (a narrower store, a call, an atomic, a block, a changed local, a
 * store before the load); the marks survive the site table (version 4)
 * and a broken list of them is refused.
 *
 * cover.wasm is `wat2wasm --enable-threads` of:
 *
 * (module
 *   (memory 1 1 shared)
 *   (func $nop)
 *   (func $same_local (param i32)
 *     local.get 0 local.get 0 i32.load offset=4 i32.const 1 i32.add
 *     i32.store offset=4)
 *   (func $const_addr
 *     i32.const 0 i32.const 0 i32.load offset=1024 i32.const 1 i32.add
 *     i32.store offset=1024)
 *   (func $narrower_store (param i32)
 *     local.get 0 local.get 0 i64.load i32.wrap_i64 i32.store)
 *   (func $wider_store (param i32)
 *     local.get 0 local.get 0 i32.load offset=4 i64.extend_i32_u i64.store)
 *   (func $call_between (param i32)
 *     local.get 0 local.get 0 i32.load call $nop i32.store)
 *   (func $atomic_between (param i32)
 *     local.get 0 local.get 0 i32.load i32.const 0 i32.atomic.load drop
 *     i32.store)
 *   (func $block_between (param i32)
 *     local.get 0 local.get 0 i32.load block end i32.store)
 *   (func $local_moved (param i32) (local i32)
 *     local.get 0 i32.load local.set 1
 *     local.get 0 i32.const 4 i32.add local.set 0
 *     local.get 0 local.get 1 i32.store)
 *   (func $tee (param i32) (local i32)
 *     local.get 0 i32.const 16 i32.add local.tee 1 local.get 1 i32.load
 *     i32.store)
 *   (func $load_after_store (param i32)
 *     local.get 0 i32.const 1 i32.store local.get 0 i32.load drop))
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "modbuild.h"
#include "rewriter/cover.h"

#include <string.h>

static const uint8_t cover_wasm[] = {
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x60,
    0x00, 0x00, 0x60, 0x01, 0x7f, 0x00, 0x03, 0x0c, 0x0b, 0x00, 0x01, 0x00,
    0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x05, 0x04, 0x01, 0x03,
    0x01, 0x01, 0x0a, 0xb3, 0x01, 0x0b, 0x02, 0x00, 0x0b, 0x0f, 0x00, 0x20,
    0x00, 0x20, 0x00, 0x28, 0x02, 0x04, 0x41, 0x01, 0x6a, 0x36, 0x02, 0x04,
    0x0b, 0x11, 0x00, 0x41, 0x00, 0x41, 0x00, 0x28, 0x02, 0x80, 0x08, 0x41,
    0x01, 0x6a, 0x36, 0x02, 0x80, 0x08, 0x0b, 0x0d, 0x00, 0x20, 0x00, 0x20,
    0x00, 0x29, 0x03, 0x00, 0xa7, 0x36, 0x02, 0x00, 0x0b, 0x0d, 0x00, 0x20,
    0x00, 0x20, 0x00, 0x28, 0x02, 0x04, 0xad, 0x37, 0x03, 0x00, 0x0b, 0x0e,
    0x00, 0x20, 0x00, 0x20, 0x00, 0x28, 0x02, 0x00, 0x10, 0x00, 0x36, 0x02,
    0x00, 0x0b, 0x13, 0x00, 0x20, 0x00, 0x20, 0x00, 0x28, 0x02, 0x00, 0x41,
    0x00, 0xfe, 0x10, 0x02, 0x00, 0x1a, 0x36, 0x02, 0x00, 0x0b, 0x0f, 0x00,
    0x20, 0x00, 0x20, 0x00, 0x28, 0x02, 0x00, 0x02, 0x40, 0x0b, 0x36, 0x02,
    0x00, 0x0b, 0x19, 0x01, 0x01, 0x7f, 0x20, 0x00, 0x28, 0x02, 0x00, 0x21,
    0x01, 0x20, 0x00, 0x41, 0x04, 0x6a, 0x21, 0x00, 0x20, 0x00, 0x20, 0x01,
    0x36, 0x02, 0x00, 0x0b, 0x13, 0x01, 0x01, 0x7f, 0x20, 0x00, 0x41, 0x10,
    0x6a, 0x22, 0x01, 0x20, 0x01, 0x28, 0x02, 0x00, 0x36, 0x02, 0x00, 0x0b,
    0x0f, 0x00, 0x20, 0x00, 0x41, 0x01, 0x36, 0x02, 0x00, 0x20, 0x00, 0x28,
    0x02, 0x00, 0x1a, 0x0b};

/* The sites in code order: $same_local's load and store (0, 1),
 * $const_addr's (2, 3), $narrower_store's (4, 5), $wider_store's (6, 7),
 * $call_between's (8, 9), $atomic_between's load, atomic load and store
 * (10-12), $block_between's (13, 14), $local_moved's (15, 16), $tee's
 * (17, 18), $load_after_store's store and load (19, 20). */
#define NSITES 21
static const bool want_covered[NSITES] = {
    [0] = true,	 /* same local, same offset */
    [2] = true,	 /* one constant address */
    [6] = true,	 /* the 4 bytes read within the 8 written */
    [17] = true, /* the tee'd address loaded through the local */
};

static const rw_options cover_opt = {.cover = true};

static void covers_exactly_the_safe_reads(void **state)
{
	wasm_err e;
	wasm_module *m = mb_load(cover_wasm, sizeof cover_wasm, &e), *o;
	uint8_t *out = NULL;
	size_t len = 0;
	rw_sites t, back;
	(void)state;

	assert_non_null(m);
	assert_int_equal(rw_instrument(m, &cover_opt, &out, &len, &t, &e),
			 WASM_OK);
	assert_int_equal(t.nsites, NSITES);
	for (uint32_t i = 0; i < NSITES; i++)
		if (t.sites[i].covered != want_covered[i])
			fail_msg("site %u: covered %d, want %d", i,
				 t.sites[i].covered, want_covered[i]);
	/* Each by the store that follows it; the 4-byte load at offset 4
	 * is the second half of the 8-byte store at offset 0. */
	for (uint32_t i = 0; i < NSITES; i++)
		if (want_covered[i]) {
			assert_int_equal(t.sites[i].covered_by, i + 1);
			assert_int_equal(t.sites[i].cover_at, i == 6 ? 4 : 0);
		}
	/* The marks travel in the instrumented module's table. */
	assert_non_null(o = mb_load(out, len, &e));
	assert_int_equal(rw_sites_read(o, &back, &e), WASM_OK);
	assert_int_equal(back.version, 4);
	assert_int_equal(back.nsites, NSITES);
	for (uint32_t i = 0; i < NSITES; i++) {
		assert_int_equal(back.sites[i].covered, want_covered[i]);
		assert_int_equal(back.sites[i].covered_by,
				 t.sites[i].covered_by);
		assert_int_equal(back.sites[i].cover_at, t.sites[i].cover_at);
	}
	rw_sites_free(&back);
	rw_sites_free(&t);
	wasm_module_free(o);
	wasm_free(out);
	/* Only when asked: a plain rewrite marks nothing. */
	assert_int_equal(rw_instrument(m, NULL, &out, &len, &t, &e), WASM_OK);
	for (uint32_t i = 0; i < NSITES; i++)
		assert_false(t.sites[i].covered);
	rw_sites_free(&t);
	wasm_free(out);
	wasm_module_free(m);
}

/* The covered list is the table's last part: ncovered, then per covered
 * read its id's delta, covered_by - id and cover_at. */
static void a_broken_covered_list_is_malformed(void **state)
{
	wasm_err e;
	wasm_module *m = mb_load(cover_wasm, sizeof cover_wasm, &e), *o;
	uint8_t *out = NULL;
	size_t len = 0;
	rw_sites t, back;
	/* the list as written: reads 0, 2, 6, 17 by writes 1, 3, 7, 18, the
	 * third 4 bytes into its write */
	static const uint8_t good[] = {4, 0, 1, 0, 2, 1, 0, 4, 1, 4, 11, 1, 0};
	static const struct {
		uint8_t list[sizeof good];
		const char *why;
	} bad[] = {
	    {{4, 0, 1, 0, 2, 1, 0, 4, 1, 4, 15, 1, 0}, "site 3 is broken"},
	    {{4, 0, 1, 0, 0, 1, 0, 4, 1, 4, 11, 1, 0}, "site 1 is broken"},
	    {{22, 0, 1, 0, 2, 1, 0, 4, 1, 4, 11, 1, 0},
	     "22 covered sites of 21"},
	    /* one write covering two reads */
	    {{4, 0, 3, 0, 2, 1, 0, 4, 1, 4, 11, 1, 0}, "site 1 is broken"},
	    /* covered by a read */
	    {{4, 0, 2, 0, 2, 1, 0, 4, 1, 4, 11, 1, 0}, "site 0 is broken"},
	    /* 4 bytes at 5 of an 8-byte write */
	    {{4, 0, 1, 0, 2, 1, 0, 4, 1, 5, 11, 1, 0}, "site 2 is broken"},
	};
	(void)state;

	assert_non_null(m);
	assert_int_equal(rw_instrument(m, &cover_opt, &out, &len, &t, &e),
			 WASM_OK);
	rw_sites_free(&t);
	/* The heisen.sites section is the module's last: its payload ends
	 * with the list. */
	assert_memory_equal(out + len - sizeof good, good, sizeof good);
	for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
		memcpy(out + len - sizeof good, bad[k].list, sizeof good);
		assert_non_null(o = mb_load(out, len, &e));
		assert_int_equal(rw_sites_read(o, &back, &e), WASM_MALFORMED);
		if (!strstr(e.msg, bad[k].why))
			fail_msg("case %zu: %s", k, e.msg);
		wasm_module_free(o);
	}
	wasm_free(out);
	wasm_module_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(covers_exactly_the_safe_reads),
	    cmocka_unit_test(a_broken_covered_list_is_malformed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
