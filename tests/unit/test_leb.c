/*
 * test_leb.c - LEB128 writing and reading at the edges: every value the
 * encoder writes must come back unchanged through the instruction reader,
 * and over-long or overflowing encodings must be rejected as malformed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/wasm.h"

/* Encode one instruction, read it back. */
static wasm_instr roundtrip(wasm_instr in)
{
	wasm_buf b = {0};
	wasm_reader r;
	wasm_instr out;
	wasm_err e;

	wasm_encode_instr(&b, &in);
	assert_false(b.oom);
	wasm_reader_init(&r, b.data, 0, b.len);
	assert_int_equal(wasm_reader_next(&r, &out, &e), WASM_OK);
	assert_int_equal(r.pos, b.len);
	wasm_reader_fini(&r);
	wasm_buf_fini(&b);
	return out;
}

static void i32_const_edges(void **state)
{
	static const int32_t vals[] = {0,   1,	 -1,  63,	 64,	   -64,
				       -65, 127, 128, INT32_MAX, INT32_MIN};
	for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
		wasm_instr in = {.op = WASM_OP_I32_CONST};
		in.u.i32 = vals[i];
		assert_int_equal(roundtrip(in).u.i32, vals[i]);
	}
}

static void i64_const_edges(void **state)
{
	static const int64_t vals[] = {
	    0, -1, 1LL << 40, -(1LL << 40), INT64_MAX, INT64_MIN};
	for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
		wasm_instr in = {.op = WASM_OP_I64_CONST};
		in.u.i64 = vals[i];
		assert_true(roundtrip(in).u.i64 == vals[i]);
	}
}

static void memarg_offsets_and_memories(void **state)
{
	wasm_instr in = {.op = WASM_OP_I32_LOAD};
	wasm_instr out;

	in.u.mem.m.align = 2;
	in.u.mem.m.offset = UINT32_MAX;
	in.u.mem.m.mem = 0;
	out = roundtrip(in);
	assert_true(out.u.mem.m.offset == UINT32_MAX);
	in.u.mem.m.mem = 3;
	out = roundtrip(in);
	assert_int_equal(out.u.mem.m.mem, 3);
	assert_int_equal(out.u.mem.m.align, 2);
}

/* Feed raw bytes to the reader and expect a malformed error. */
static void expect_malformed(const uint8_t *bytes, size_t n)
{
	wasm_reader r;
	wasm_instr in;
	wasm_err e;

	wasm_err_clear(&e);
	wasm_reader_init(&r, bytes, 0, n);
	assert_int_equal(wasm_reader_next(&r, &in, &e), WASM_MALFORMED);
	assert_true(e.msg[0] != '\0');
	wasm_reader_fini(&r);
}

static void overlong_and_overflowing(void **state)
{
	/* i32.const with 6 bytes: too long. */
	static const uint8_t too_long[] = {0x41, 0x80, 0x80, 0x80,
					   0x80, 0x80, 0x00};
	/* i32.const whose 5th byte has bits beyond 32 that do not copy
	 * the sign. */
	static const uint8_t too_big[] = {0x41, 0xff, 0xff, 0xff, 0xff, 0x4f};
	/* i64.const with 11 bytes. */
	static const uint8_t too_long64[] = {0x42, 0x80, 0x80, 0x80,
					     0x80, 0x80, 0x80, 0x80,
					     0x80, 0x80, 0x80, 0x00};
	/* local.get whose u32 has bit 35 set. */
	static const uint8_t u32_big[] = {0x20, 0x80, 0x80, 0x80, 0x80, 0x10};
	/* Truncated immediate. */
	static const uint8_t cut[] = {0x41, 0x80};
	/* Unknown opcode. */
	static const uint8_t illegal[] = {0x06};

	expect_malformed(too_long, sizeof too_long);
	expect_malformed(too_big, sizeof too_big);
	expect_malformed(too_long64, sizeof too_long64);
	expect_malformed(u32_big, sizeof u32_big);
	expect_malformed(cut, sizeof cut);
	expect_malformed(illegal, sizeof illegal);
}

static void padded_but_in_range_is_accepted(void **state)
{
	/* -1 as a 5-byte signed LEB: legal padding. */
	static const uint8_t padded[] = {0x41, 0xff, 0xff, 0xff, 0xff, 0x7f};
	wasm_reader r;
	wasm_instr in;
	wasm_err e;

	wasm_reader_init(&r, padded, 0, sizeof padded);
	assert_int_equal(wasm_reader_next(&r, &in, &e), WASM_OK);
	assert_int_equal(in.u.i32, -1);
	wasm_reader_fini(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(i32_const_edges),
	    cmocka_unit_test(i64_const_edges),
	    cmocka_unit_test(memarg_offsets_and_memories),
	    cmocka_unit_test(overlong_and_overflowing),
	    cmocka_unit_test(padded_but_in_range_is_accepted),
	};
	return cmocka_run_group_tests_name("leb", tests, NULL, NULL);
}
