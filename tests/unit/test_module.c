/*
 * test_module.c - decoding, validating and encoding whole modules: the
 * malformed cases a hostile file can present, the name section, custom
 * section placement, and allocation failure at every step.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "modbuild.h"

/* A small but complete module: (type (func (param i32) (result i32)))
 * imports a shared memory, defines one function that loads, stores,
 * does an atomic add and returns, exports it, has an active data segment,
 * a name section naming the function, and a custom section at the end. */
static void build_sample(wasm_buf *b)
{
	static const uint8_t type[] = {1, 0x60, 1, 0x7f, 1, 0x7f};
	static const uint8_t import[] = {1,   3,   'e', 'n', 'v', 6, 'm', 'e',
					 'm', 'o', 'r', 'y', 2,	  3, 1,	  4};
	static const uint8_t func[] = {1, 0};
	static const uint8_t export[] = {1, 3, 'r', 'u', 'n', 0, 0};
	static const uint8_t code[] = {
	    1,	  26,	1,    1, 0x7f, /* one local i32 */
	    0x20, 0,		       /* local.get 0 */
	    0x28, 2,	0,	       /* i32.load align=2 */
	    0x21, 1,		       /* local.set 1 */
	    0x20, 0,	0x20, 1,       /* local.get 0, local.get 1 */
	    0x36, 2,	4,	       /* i32.store offset=4 */
	    0x20, 0,	0x41, 1,       /* local.get 0, i32.const 1 */
	    0xfe, 0x1e, 2,    0,       /* i32.atomic.rmw.add */
	    0x0b};
	static const uint8_t data[] = {1, 0, 0x41, 16, 0x0b, 2, 'h', 'i'};
	static const uint8_t names[] = {4, 'n', 'a', 'm', 'e', 1,  6,
					1, 0,	3,   'r', 'u', 'n'};
	static const uint8_t custom[] = {3, 'x', 'y', 'z', 42};

	mb_begin(b);
	mb_section(b, 1, type, sizeof type);
	mb_section(b, 2, import, sizeof import);
	mb_section(b, 3, func, sizeof func);
	mb_section(b, 7, export, sizeof export);
	mb_section(b, 10, code, sizeof code);
	mb_section(b, 11, data, sizeof data);
	mb_section(b, 0, names, sizeof names);
	mb_section(b, 0, custom, sizeof custom);
}

static void sample_is_valid_and_described(void **state)
{
	wasm_buf b;
	wasm_module *m;
	wasm_summary s;
	wasm_err e;
	const wasm_str *name;

	build_sample(&b);
	assert_int_equal(wasm_decode(b.data, b.len, &m, &e), WASM_OK);
	assert_int_equal(wasm_validate(m, &e), WASM_OK);
	assert_int_equal(wasm_func_count(m), 1);
	assert_int_equal(wasm_mem_count(m), 1);
	assert_true(wasm_mem_limits(m, 0)->shared);
	name = wasm_func_name(m, 0);
	assert_non_null(name);
	assert_int_equal(name->len, 3);
	assert_memory_equal(name->p, "run", 3);
	assert_int_equal(wasm_summarize(m, &s, &e), WASM_OK);
	assert_int_equal(s.accesses, 3);
	assert_int_equal(s.atomics, 1);
	assert_int_equal(s.per_mem[0], 3);
	assert_false(s.has_dwarf);
	wasm_summary_fini(&s);
	wasm_module_free(m);
	wasm_buf_fini(&b);
}

static void encode_roundtrip_keeps_everything(void **state)
{
	wasm_buf b;
	wasm_module *m, *m2;
	wasm_err e;
	uint8_t *out;
	size_t len;
	char why[256];

	build_sample(&b);
	assert_int_equal(wasm_decode(b.data, b.len, &m, &e), WASM_OK);
	assert_int_equal(wasm_encode(m, &out, &len, &e), WASM_OK);
	/* The sample is canonical, so the bytes come back identical. */
	assert_int_equal(len, b.len);
	assert_memory_equal(out, b.data, len);
	assert_int_equal(wasm_decode(out, len, &m2, &e), WASM_OK);
	assert_true(wasm_module_equal(m, m2, why, sizeof why));
	assert_int_equal(m2->ncustoms, 2);
	assert_int_equal(m2->customs[1].after, 11);
	wasm_free(out);
	wasm_module_free(m);
	wasm_module_free(m2);
	wasm_buf_fini(&b);
}

static void equality_notices_a_changed_immediate(void **state)
{
	wasm_buf b;
	wasm_module *m, *m2;
	wasm_err e;
	char why[256];

	build_sample(&b);
	assert_int_equal(wasm_decode(b.data, b.len, &m, &e), WASM_OK);
	/* Change the i32.store offset 4 -> 5 (the byte after 0x36 0x02). */
	for (size_t i = 0; i + 2 < b.len; i++)
		if (b.data[i] == 0x36 && b.data[i + 1] == 2 &&
		    b.data[i + 2] == 4) {
			b.data[i + 2] = 5;
			break;
		}
	assert_int_equal(wasm_decode(b.data, b.len, &m2, &e), WASM_OK);
	assert_false(wasm_module_equal(m, m2, why, sizeof why));
	assert_non_null(strstr(why, "i32.store"));
	wasm_module_free(m);
	wasm_module_free(m2);
	wasm_buf_fini(&b);
}

/* Decode bytes and expect WASM_MALFORMED at a given offset (or any offset
 * when want_off is SIZE_MAX) with a reason containing `needle`. */
static void expect_malformed(const uint8_t *p, size_t n, size_t want_off,
			     const char *needle)
{
	wasm_module *m = NULL;
	wasm_err e;
	wasm_status st = wasm_decode(p, n, &m, &e);

	if (st == WASM_OK) {
		st = wasm_validate(m, &e);
		wasm_module_free(m);
	}
	assert_int_equal(st, WASM_MALFORMED);
	if (want_off != SIZE_MAX)
		assert_int_equal(e.offset, want_off);
	if (!strstr(e.msg, needle))
		fail_msg("message '%s' lacks '%s'", e.msg, needle);
}

/* Decode and validate bytes; the status and the message. */
static wasm_status check_bytes(const uint8_t *p, size_t n, wasm_err *e)
{
	wasm_module *m = NULL;
	wasm_status st = wasm_decode(p, n, &m, e);

	if (st == WASM_OK) {
		st = wasm_validate(m, e);
		wasm_module_free(m);
	}
	return st;
}

/* The tag section (13) of exception handling: decoded, kept in order
 * between memory and global, its attribute and type checked. */
static void tag_section(void **state)
{
#define HDR 0, 'a', 's', 'm', 1, 0, 0, 0
	static const uint8_t ok[] = {HDR, 1,  5, 1, 0x60, 1, 0x7f,
				     0,	  13, 3, 1, 0,	  0};
	static const uint8_t attr[] = {HDR, 1,	5, 1, 0x60, 1, 0x7f,
				       0,   13, 3, 1, 1,    0};
	static const uint8_t type[] = {HDR, 1,	5, 1, 0x60, 1, 0x7f,
				       0,   13, 3, 1, 0,    5};
	static const uint8_t result[] = {HDR,  1,  5, 1, 0x60, 0, 1,
					 0x7f, 13, 3, 1, 0,    0};
	static const uint8_t order[] = {HDR, 1, 5, 1,  0x60, 1, 0x7f, 0,
					6,   1, 0, 13, 3,    1, 0,    0};
#undef HDR
	wasm_module *m;
	wasm_err e;
	uint8_t *out;
	size_t len;

	assert_int_equal(wasm_decode(ok, sizeof ok, &m, &e), WASM_OK);
	assert_int_equal(wasm_validate(m, &e), WASM_OK);
	assert_int_equal(wasm_tag_count(m), 1);
	assert_int_equal(wasm_tag_type(m, 0)->nparams, 1);
	assert_null(wasm_tag_type(m, 1));
	assert_int_equal(wasm_encode(m, &out, &len, &e), WASM_OK);
	assert_memory_equal(out, ok, sizeof ok);
	assert_int_equal(len, sizeof ok);
	wasm_free(out);
	wasm_module_free(m);
	expect_malformed(attr, sizeof attr, 18, "tag attribute");
	assert_int_equal(check_bytes(type, sizeof type, &e), WASM_INVALID);
	assert_non_null(strstr(e.msg, "unknown type 5"));
	assert_int_equal(check_bytes(result, sizeof result, &e), WASM_INVALID);
	assert_non_null(strstr(e.msg, "non-empty tag result type"));
	expect_malformed(order, sizeof order, 18, "tag section after global");
}

static void hostile_headers(void **state)
{
	static const uint8_t bad_magic[] = {0, 'a', 's', 'n', 1, 0, 0, 0};
	static const uint8_t bad_version[] = {0, 'a', 's', 'm', 2, 0, 0, 0};
	static const uint8_t short_file[] = {0, 'a', 's'};

	expect_malformed((const uint8_t *)"", 0, 0, "unexpected end");
	expect_malformed(short_file, sizeof short_file, 0, "unexpected end");
	expect_malformed(bad_magic, sizeof bad_magic, 0, "magic header");
	expect_malformed(bad_version, sizeof bad_version, 4, "version");
}

static void hostile_sections(void **state)
{
	/* Function section before type section. */
	static const uint8_t order[] = {0, 'a', 's', 'm', 1, 0,	   0, 0, 3,
					1, 0,	1,   4,	  1, 0x60, 0, 0};
	/* Type count 2^32-1 in a 5-byte section. */
	static const uint8_t count[] = {0, 'a', 's',  'm',  1,	  0,	0,   0,
					1, 5,	0xff, 0xff, 0xff, 0xff, 0x0f};
	/* Section size larger than the file. */
	static const uint8_t size[] = {0, 'a', 's', 'm', 1, 0, 0, 0, 1, 100};
	/* Type count as a 6-byte LEB. */
	static const uint8_t leb[] = {0,    'a',  's',	'm', 1,	   0,
				      0,    0,	  1,	6,   0x80, 0x80,
				      0x80, 0x80, 0x80, 0x00};
	/* Unknown section id 14 (13 is exception handling's tags). */
	static const uint8_t id[] = {0, 'a', 's', 'm', 1, 0, 0, 0, 14, 0};
	/* Duplicate type section. */
	static const uint8_t dup[] = {0, 'a', 's', 'm', 1, 0, 0,
				      0, 1,   1,   0,	1, 1, 0};
	/* Function declared, code section missing. */
	static const uint8_t nocode[] = {0, 'a', 's',  'm', 1, 0, 0, 0, 1,
					 4, 1,	 0x60, 0,   0, 3, 2, 1, 0};
	/* Custom section name with invalid UTF-8. */
	static const uint8_t utf8[] = {0, 'a', 's', 'm', 1,    0,   0,
				       0, 0,   3,   2,	 0xc0, 0x80};
	/* Section content shorter than declared. */
	static const uint8_t slack[] = {0, 'a', 's', 'm',  1, 0, 0, 0,
					1, 5,	1,   0x60, 0, 0, 0};

	expect_malformed(order, sizeof order, 11, "after");
	expect_malformed(count, sizeof count, 10, "count");
	expect_malformed(size, sizeof size, SIZE_MAX, "unexpected end");
	expect_malformed(leb, sizeof leb, 10, "too long");
	expect_malformed(id, sizeof id, 8, "section id");
	expect_malformed(dup, sizeof dup, 11, "duplicate");
	expect_malformed(nocode, sizeof nocode, SIZE_MAX, "inconsistent");
	expect_malformed(utf8, sizeof utf8, SIZE_MAX, "UTF-8");
	expect_malformed(slack, sizeof slack, SIZE_MAX, "size mismatch");
}

static void invalid_body_names_function_and_offset(void **state)
{
	/* (func (result i32) f64.const 0 i32.eqz ... ) -> type mismatch. */
	static const uint8_t type[] = {1, 0x60, 0, 1, 0x7f};
	static const uint8_t func[] = {1, 0};
	static const uint8_t code[] = {1, 12, 0, 0x44, 0, 0,	0,
				       0, 0,  0, 0,    0, 0x45, 0x0b};
	wasm_buf b;
	wasm_err e;
	char line[512];

	mb_begin(&b);
	mb_section(&b, 1, type, sizeof type);
	mb_section(&b, 3, func, sizeof func);
	mb_section(&b, 10, code, sizeof code);
	assert_int_equal(mb_check(&b, &e), WASM_INVALID);
	wasm_err_format(&e, "t.wasm", line, sizeof line);
	assert_non_null(strstr(line, "t.wasm: offset 0x"));
	assert_non_null(strstr(line, "(code, func 0)"));
	assert_non_null(strstr(line, "i32.eqz"));
	wasm_buf_fini(&b);
}

static void broken_name_section_is_ignored(void **state)
{
	/* A name section whose function-names subsection claims 200 bytes. */
	static const uint8_t names[] = {4, 'n', 'a', 'm', 'e', 1, 200, 1};
	wasm_buf b;
	wasm_module *m;
	wasm_err e;

	mb_begin(&b);
	mb_section(&b, 0, names, sizeof names);
	assert_int_equal(wasm_decode(b.data, b.len, &m, &e), WASM_OK);
	assert_false(m->names.present);
	assert_null(wasm_func_name(m, 0));
	wasm_module_free(m);
	wasm_buf_fini(&b);
}

/* Regression (found by the fuzzer): an empty local group in the first
 * body, and a br_table with only a default target, made validate and
 * module_equal pass NULL to memset/memcmp. Under UBSan this aborts. */
static void empty_local_group_and_bare_br_table(void **state)
{
	static const uint8_t type[] = {1, 0x60, 0, 0};
	static const uint8_t func[] = {1, 0};
	/* locals: one group of 0 i32; body: block, i32.const 0,
	 * br_table [] 0, end, end. */
	static const uint8_t code[] = {1,    10,   1, 0,    0x7f, 0x02,
				       0x40, 0x41, 0, 0x0e, 0,	  0};
	static const uint8_t tail[] = {0x0b, 0x0b};
	wasm_buf b, c = {0};
	wasm_module *m, *m2;
	wasm_err e;
	uint8_t *out;
	size_t len;
	char why[256];

	wasm_buf_put(&c, code, sizeof code);
	wasm_buf_put(&c, tail, sizeof tail);
	c.data[1] = (uint8_t)(c.len - 2);
	mb_begin(&b);
	mb_section(&b, 1, type, sizeof type);
	mb_section(&b, 3, func, sizeof func);
	mb_section(&b, 10, c.data, c.len);
	assert_int_equal(wasm_decode(b.data, b.len, &m, &e), WASM_OK);
	assert_int_equal(wasm_validate(m, &e), WASM_OK);
	assert_int_equal(wasm_encode(m, &out, &len, &e), WASM_OK);
	assert_int_equal(wasm_decode(out, len, &m2, &e), WASM_OK);
	assert_true(wasm_module_equal(m, m2, why, sizeof why));
	wasm_free(out);
	wasm_module_free(m);
	wasm_module_free(m2);
	wasm_buf_fini(&b);
	wasm_buf_fini(&c);
}

/* Fail the Nth allocation for every N until decode, validate, summarize
 * and encode all succeed: each step must fail cleanly (ASan checks for
 * leaks and bad frees). */
static void allocation_failure_at_every_step(void **state)
{
	wasm_buf b;
	long n;
	bool done = false;

	build_sample(&b);
	for (n = 0; !done && n < 10000; n++) {
		wasm_module *m = NULL;
		wasm_summary s = {0};
		wasm_err e;
		uint8_t *out = NULL;
		size_t len;
		wasm_status st;

		wasm_alloc_fail_after(n);
		st = wasm_decode(b.data, b.len, &m, &e);
		if (!st)
			st = wasm_validate(m, &e);
		if (!st && !(st = wasm_summarize(m, &s, &e)))
			wasm_summary_fini(&s);
		if (!st)
			st = wasm_encode(m, &out, &len, &e);
		wasm_alloc_fail_after(-1);
		assert_true(st == WASM_OK || st == WASM_NOMEM);
		done = st == WASM_OK;
		wasm_free(out);
		wasm_module_free(m);
	}
	assert_true(done);
	assert_true(n > 3);
	wasm_buf_fini(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(sample_is_valid_and_described),
	    cmocka_unit_test(encode_roundtrip_keeps_everything),
	    cmocka_unit_test(equality_notices_a_changed_immediate),
	    cmocka_unit_test(hostile_headers),
	    cmocka_unit_test(hostile_sections),
	    cmocka_unit_test(tag_section),
	    cmocka_unit_test(invalid_body_names_function_and_offset),
	    cmocka_unit_test(broken_name_section_is_ignored),
	    cmocka_unit_test(empty_local_group_and_bare_br_table),
	    cmocka_unit_test(allocation_failure_at_every_step),
	};
	return cmocka_run_group_tests_name("module", tests, NULL, NULL);
}
