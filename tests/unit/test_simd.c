/*
 * test_simd.c - core/simd.h on the cases that are easy to get wrong:
 * NaN and ±0 in min/max/pmin/pmax, rounding ties, saturation at both
 * ends, shift counts of a lane width or more, out-of-range swizzle,
 * widening and pairwise arithmetic, lane memory access; and the lists
 * against opcodes.def, so that an op missing from them fails here rather
 * than as an unhandled opcode in the interpreter.
 *
 * The sweep at the end calls every listed function on edge and random
 * lanes: it asserts nothing itself, it is what the SANITIZE=1 build
 * runs UBSan over.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/simd.h"
#include "core/wasm.h"

#include <stdlib.h>
#include <string.h>

static eng_v128 vi8(const int8_t l[16])
{
	eng_v128 v;
	memcpy(v.i8, l, 16);
	return v;
}

static eng_v128 vi16(const int16_t l[8])
{
	eng_v128 v;
	memcpy(v.i16, l, 16);
	return v;
}

static eng_v128 vi32(int32_t a, int32_t b, int32_t c, int32_t d)
{
	return (eng_v128){.i32 = {a, b, c, d}};
}

static eng_v128 vi64(int64_t a, int64_t b) { return (eng_v128){.i64 = {a, b}}; }

static eng_v128 vu64(uint64_t a, uint64_t b)
{
	return (eng_v128){.u64 = {a, b}};
}

static eng_v128 vu32(uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
	return (eng_v128){.u32 = {a, b, c, d}};
}

static eng_v128 vf32(float a, float b, float c, float d)
{
	return (eng_v128){.f32 = {a, b, c, d}};
}

static eng_v128 vf64(double a, double b) { return (eng_v128){.f64 = {a, b}}; }

static uint32_t bits32(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

static uint64_t bits64(double d)
{
	uint64_t u;
	memcpy(&u, &d, 8);
	return u;
}

#define F32_CANON 0x7fc00000u
#define F32_SNAN  0x7fa00000u
#define F64_CANON 0x7ff8000000000000u
#define F64_SNAN  0x7ff4000000000000u

static bool quiet_nan32(uint32_t u) { return (u & 0x7fc00000u) == 0x7fc00000u; }

static bool quiet_nan64(uint64_t u) { return (u & F64_CANON) == F64_CANON; }

/* A macro, so that cmocka reports the caller's line. */
#define assert_v128_equal(got, want)                                           \
	assert_memory_equal((got).u8, (want).u8, 16)

/* --- the lists against opcodes.def --- */

/* The function type of each list; the arrays of the sweep make the
 * compiler check every entry against it. */
typedef eng_v128 un_fn(eng_v128);
typedef eng_v128 bin_fn(eng_v128, eng_v128);
typedef eng_v128 tern_fn(eng_v128, eng_v128, eng_v128);
typedef eng_v128 shift_fn(eng_v128, uint64_t);
typedef uint64_t test_fn(eng_v128);
typedef eng_v128 splat_fn(uint64_t);
typedef uint64_t extract_fn(eng_v128, unsigned);
typedef eng_v128 replace_fn(eng_v128, uint64_t, unsigned);
typedef eng_v128 load_fn(const uint8_t *);
typedef eng_v128 load_lane_fn(eng_v128, const uint8_t *, unsigned);
typedef void store_lane_fn(uint8_t *, eng_v128, unsigned);

enum list {
	L_UNOPS,
	L_BINOPS,
	L_TERNOPS,
	L_SHIFTS,
	L_TESTS,
	L_SPLATS,
	L_EXTRACTS,
	L_REPLACES,
	L_LOADS,
	L_LOAD_LANES,
	L_STORE_LANES,
};

/* What a list's rows must look like in opcodes.def: SIG with '?' for any
 * scalar type, and IMM. */
static const struct {
	const char *sig;
	wasm_imm imm;
} list_rule[] = {
    [L_UNOPS] = {"v>v", WASM_IMM_NONE},
    [L_BINOPS] = {"vv>v", WASM_IMM_NONE},
    [L_TERNOPS] = {"vvv>v", WASM_IMM_NONE},
    [L_SHIFTS] = {"vi>v", WASM_IMM_NONE},
    [L_TESTS] = {"v>i", WASM_IMM_NONE},
    [L_SPLATS] = {"?>v", WASM_IMM_NONE},
    [L_EXTRACTS] = {"v>?", WASM_IMM_LANE},
    [L_REPLACES] = {"v?>v", WASM_IMM_LANE},
    [L_LOADS] = {"i>v", WASM_IMM_MEMARG},
    [L_LOAD_LANES] = {"iv>v", WASM_IMM_MEMARG_LANE},
    [L_STORE_LANES] = {"iv>", WASM_IMM_MEMARG_LANE},
};

/* One list a line reads best. */
/* clang-format off */
#define UN(id, fn) {WASM_OP_##id, #fn, L_UNOPS},
#define BIN(id, fn) {WASM_OP_##id, #fn, L_BINOPS},
#define TERN(id, fn) {WASM_OP_##id, #fn, L_TERNOPS},
#define SHIFT(id, fn) {WASM_OP_##id, #fn, L_SHIFTS},
#define TEST(id, fn) {WASM_OP_##id, #fn, L_TESTS},
#define SPLAT(id, fn) {WASM_OP_##id, #fn, L_SPLATS},
#define EXTRACT(id, fn) {WASM_OP_##id, #fn, L_EXTRACTS},
#define REPLACE(id, fn) {WASM_OP_##id, #fn, L_REPLACES},
#define LOAD(id, fn) {WASM_OP_##id, #fn, L_LOADS},
#define LOAD_LANE(id, fn) {WASM_OP_##id, #fn, L_LOAD_LANES},
#define STORE_LANE(id, fn) {WASM_OP_##id, #fn, L_STORE_LANES},
static const struct {
	wasm_op op;
	const char *fn;
	enum list list;
} listed[] = {
	ENG_SIMD_UNOPS(UN)
	ENG_SIMD_BINOPS(BIN)
	ENG_SIMD_TERNOPS(TERN)
	ENG_SIMD_SHIFTS(SHIFT)
	ENG_SIMD_TESTS(TEST)
	ENG_SIMD_SPLATS(SPLAT)
	ENG_SIMD_EXTRACTS(EXTRACT)
	ENG_SIMD_REPLACES(REPLACE)
	ENG_SIMD_LOADS(LOAD)
	ENG_SIMD_LOAD_LANES(LOAD_LANE)
	ENG_SIMD_STORE_LANES(STORE_LANE)
};
/* clang-format on */
#undef UN
#undef BIN
#undef TERN
#undef SHIFT
#undef TEST
#undef SPLAT
#undef EXTRACT
#undef REPLACE
#undef LOAD
#undef LOAD_LANE
#undef STORE_LANE

/* The 0xFD rows the interpreter handles itself. */
static bool unlisted(wasm_op op)
{
	return op == WASM_OP_V128_CONST || op == WASM_OP_V128_STORE ||
	       op == WASM_OP_I8X16_SHUFFLE;
}

static bool sig_matches(const char *sig, const char *rule)
{
	if (!sig || strlen(sig) != strlen(rule))
		return false;
	for (; *rule; rule++, sig++)
		if (*rule == '?' ? !strchr("ilfd", *sig) : *rule != *sig)
			return false;
	return true;
}

static void every_simd_row_in_exactly_one_list(void **state)
{
	size_t n = sizeof listed / sizeof listed[0];

	for (int op = 0; op < WASM_OP_COUNT; op++) {
		const wasm_opinfo *oi = wasm_op_info((wasm_op)op);
		int seen = 0;

		if (oi->prefix != 0xFD)
			continue;
		for (size_t i = 0; i < n; i++)
			seen += listed[i].op == (wasm_op)op;
		if (seen != (unlisted((wasm_op)op) ? 0 : 1))
			fail_msg("%s is in %d ENG_SIMD_* lists", oi->name,
				 seen);
	}
}

static void every_listed_row_has_its_name_and_signature(void **state)
{
	for (size_t i = 0; i < sizeof listed / sizeof listed[0]; i++) {
		const wasm_opinfo *oi = wasm_op_info(listed[i].op);
		char name[64];

		assert_int_equal(oi->prefix, 0xFD);
		assert_true(strlen(oi->name) < sizeof name);
		strcpy(name, oi->name);
		for (char *p = name; *p; p++)
			if (*p == '.')
				*p = '_';
		assert_string_equal(listed[i].fn, name);
		if (!sig_matches(oi->sig, list_rule[listed[i].list].sig) ||
		    oi->imm != list_rule[listed[i].list].imm)
			fail_msg("%s (%s) is in the wrong list", oi->name,
				 oi->sig);
	}
}

/* --- floats --- */

static void float_min_max_nan_and_signed_zero(void **state)
{
	eng_v128 a = vf32(-0.0f, 0.0f, NAN, 1.0f);
	eng_v128 b = vf32(0.0f, -0.0f, 1.0f, NAN);
	eng_v128 mn = eng_simd_f32x4_min(a, b);
	eng_v128 mx = eng_simd_f32x4_max(a, b);

	assert_int_equal(mn.u32[0], bits32(-0.0f));
	assert_int_equal(mn.u32[1], bits32(-0.0f));
	assert_int_equal(mx.u32[0], bits32(0.0f));
	assert_int_equal(mx.u32[1], bits32(0.0f));
	for (int i = 2; i < 4; i++) {
		assert_true(quiet_nan32(mn.u32[i]));
		assert_true(quiet_nan32(mx.u32[i]));
	}
	/* A signalling NaN comes out quiet, both operands NaN too. */
	a = vu32(F32_SNAN, F32_SNAN, bits32(-1.0f), bits32(2.0f));
	b = vu32(bits32(1.0f), F32_SNAN, bits32(-2.0f), bits32(3.0f));
	mn = eng_simd_f32x4_min(a, b);
	mx = eng_simd_f32x4_max(a, b);
	assert_true(quiet_nan32(mn.u32[0]) && quiet_nan32(mn.u32[1]));
	assert_true(quiet_nan32(mx.u32[0]) && quiet_nan32(mx.u32[1]));
	assert_int_equal(mn.u32[2], bits32(-2.0f));
	assert_int_equal(mx.u32[3], bits32(3.0f));

	eng_v128 d = eng_simd_f64x2_min(vf64(0.0, NAN), vf64(-0.0, 5.0));
	assert_int_equal(d.u64[0], bits64(-0.0));
	assert_true(quiet_nan64(d.u64[1]));
	d = eng_simd_f64x2_max(vf64(-0.0, -INFINITY), vf64(0.0, -1e308));
	assert_int_equal(d.u64[0], bits64(0.0));
	assert_int_equal(d.u64[1], bits64(-1e308));
}

/* pmin is b < a ? b : a bit for bit: a NaN a passes through unchanged,
 * a NaN b never wins, and of ±0 the first operand stays. */
static void float_pmin_pmax_are_c_compares(void **state)
{
	eng_v128 a = vu32(F32_SNAN, bits32(1.0f), bits32(-0.0f), bits32(0.0f));
	eng_v128 b = vu32(bits32(1.0f), F32_SNAN, bits32(0.0f), bits32(-0.0f));
	eng_v128 mn = eng_simd_f32x4_pmin(a, b);
	eng_v128 mx = eng_simd_f32x4_pmax(a, b);

	assert_v128_equal(mn, a);
	assert_v128_equal(mx, a);
	mn = eng_simd_f32x4_pmin(vf32(2, 1, 3, 4), vf32(1, 2, 3, -4));
	assert_v128_equal(mn, vf32(1, 1, 3, -4));
	mx = eng_simd_f32x4_pmax(vf32(2, 1, 3, 4), vf32(1, 2, 3, -4));
	assert_v128_equal(mx, vf32(2, 2, 3, 4));

	eng_v128 d = eng_simd_f64x2_pmin(vu64(F64_SNAN, 0), vf64(1.0, -0.0));
	assert_int_equal(d.u64[0], F64_SNAN);
	assert_int_equal(d.u64[1], bits64(0.0));
	d = eng_simd_f64x2_pmax(vf64(1.0, -0.0), vf64(NAN, 0.0));
	assert_int_equal(d.u64[0], bits64(1.0));
	assert_int_equal(d.u64[1], bits64(-0.0));
}

static void nearest_rounds_ties_to_even(void **state)
{
	eng_v128 r = eng_simd_f32x4_nearest(vf32(0.5f, 1.5f, 2.5f, -0.5f));
	assert_v128_equal(r, vf32(0.0f, 2.0f, 2.0f, -0.0f));
	r = eng_simd_f32x4_nearest(vf32(-2.5f, 8388609.0f, 0x1p-149f, 3.5f));
	assert_v128_equal(r, vf32(-2.0f, 8388609.0f, 0.0f, 4.0f));
	r = eng_simd_f64x2_nearest(vf64(4.5, -3.5));
	assert_v128_equal(r, vf64(4.0, -4.0));
	r = eng_simd_f64x2_nearest(
	    vf64(4503599627370497.0, -0.49999999999999994));
	assert_v128_equal(r, vf64(4503599627370497.0, -0.0));
}

/* Rounding, sqrt and arithmetic never hand back a signalling NaN; abs
 * and neg keep the payload and change only the sign. */
static void nan_results_are_quiet_and_sign_ops_are_bitwise(void **state)
{
	eng_v128 s = vu32(F32_SNAN, F32_SNAN | 0x80000000u, F32_SNAN, F32_SNAN);
	un_fn *const un32[] = {eng_simd_f32x4_ceil, eng_simd_f32x4_floor,
			       eng_simd_f32x4_trunc, eng_simd_f32x4_nearest,
			       eng_simd_f32x4_sqrt};
	for (size_t k = 0; k < sizeof un32 / sizeof un32[0]; k++) {
		eng_v128 r = un32[k](s);
		for (int i = 0; i < 4; i++)
			assert_true(quiet_nan32(r.u32[i]));
	}
	eng_v128 sd = vu64(F64_SNAN, F64_SNAN);
	un_fn *const un64[] = {eng_simd_f64x2_ceil, eng_simd_f64x2_floor,
			       eng_simd_f64x2_trunc, eng_simd_f64x2_nearest,
			       eng_simd_f64x2_sqrt};
	for (size_t k = 0; k < sizeof un64 / sizeof un64[0]; k++) {
		eng_v128 r = un64[k](sd);
		assert_true(quiet_nan64(r.u64[0]) && quiet_nan64(r.u64[1]));
	}
	eng_v128 r = eng_simd_f32x4_add(s, vf32(1, 1, 1, 1));
	assert_true(quiet_nan32(r.u32[0]));
	r = eng_simd_f32x4_sqrt(vf32(-1.0f, 4.0f, -0.0f, INFINITY));
	assert_true(quiet_nan32(r.u32[0]));
	assert_int_equal(r.u32[1], bits32(2.0f));
	assert_int_equal(r.u32[2], bits32(-0.0f));

	r = eng_simd_f32x4_abs(s);
	assert_v128_equal(r, vu32(F32_SNAN, F32_SNAN, F32_SNAN, F32_SNAN));
	r = eng_simd_f32x4_neg(vu32(F32_SNAN, 0, 0x80000000u, 0xffffffffu));
	assert_v128_equal(
	    r, vu32(F32_SNAN | 0x80000000u, 0x80000000u, 0, 0x7fffffffu));
	r = eng_simd_f64x2_neg(sd);
	assert_int_equal(r.u64[0], F64_SNAN | 0x8000000000000000u);
	r = eng_simd_f64x2_abs(r);
	assert_int_equal(r.u64[1], F64_SNAN);
}

static void float_compares_treat_nan_as_unordered(void **state)
{
	eng_v128 a = vf32(NAN, 1.0f, -0.0f, 2.0f);
	eng_v128 b = vf32(NAN, NAN, 0.0f, 1.0f);

	assert_v128_equal(eng_simd_f32x4_eq(a, b), vi32(0, 0, -1, 0));
	assert_v128_equal(eng_simd_f32x4_ne(a, b), vi32(-1, -1, 0, -1));
	assert_v128_equal(eng_simd_f32x4_lt(a, b), vi32(0, 0, 0, 0));
	assert_v128_equal(eng_simd_f32x4_ge(a, b), vi32(0, 0, -1, -1));
	assert_v128_equal(eng_simd_f64x2_le(vf64(NAN, -1), vf64(0, -1)),
			  vi64(0, -1));
}

/* --- conversions --- */

static void trunc_sat_saturates_and_maps_nan_to_zero(void **state)
{
	eng_v128 r = eng_simd_i32x4_trunc_sat_f32x4_s(
	    vf32(NAN, 2147483648.0f, -2147483904.0f, -2147483648.0f));
	assert_v128_equal(r, vi32(0, INT32_MAX, INT32_MIN, INT32_MIN));
	r = eng_simd_i32x4_trunc_sat_f32x4_s(
	    vf32(2147483520.0f, -1.9f, INFINITY, -INFINITY));
	assert_v128_equal(r, vi32(2147483520, -1, INT32_MAX, INT32_MIN));
	r = eng_simd_i32x4_trunc_sat_f32x4_u(
	    vf32(-0.9f, -1.0f, 4294967040.0f, 4294967296.0f));
	assert_v128_equal(r, vu32(0, 0, 4294967040u, UINT32_MAX));
	r = eng_simd_i32x4_trunc_sat_f32x4_u(
	    vf32(NAN, 1.9f, -INFINITY, INFINITY));
	assert_v128_equal(r, vu32(0, 1, 0, UINT32_MAX));

	/* Lanes 2 and 3 are zero whatever the input's upper half holds. */
	r = eng_simd_i32x4_trunc_sat_f64x2_s_zero(
	    vf64(-2147483648.9, 2147483647.9));
	assert_v128_equal(r, vi32(INT32_MIN, INT32_MAX, 0, 0));
	r = eng_simd_i32x4_trunc_sat_f64x2_s_zero(vf64(-2147483649.0, NAN));
	assert_v128_equal(r, vi32(INT32_MIN, 0, 0, 0));
	r = eng_simd_i32x4_trunc_sat_f64x2_u_zero(vf64(4294967295.9, -0.99));
	assert_v128_equal(r, vu32(UINT32_MAX, 0, 0, 0));
	r = eng_simd_i32x4_trunc_sat_f64x2_u_zero(vf64(1e300, -1e300));
	assert_v128_equal(r, vu32(UINT32_MAX, 0, 0, 0));
}

/* u32 -> f32 rounds once to nearest even: 0x80000080 is a tie between
 * 2^31 and 2^31 + 256 and goes to the even 2^31. */
static void convert_rounds_once_to_nearest_even(void **state)
{
	eng_v128 r = eng_simd_f32x4_convert_i32x4_u(
	    vu32(UINT32_MAX, 0x80000080u, 0x80000081u, 16777217u));
	assert_v128_equal(
	    r, vf32(4294967296.0f, 2147483648.0f, 2147483904.0f, 16777216.0f));
	r = eng_simd_f32x4_convert_i32x4_s(vi32(INT32_MIN, -16777217, 1, -1));
	assert_v128_equal(r, vf32(-2147483648.0f, -16777216.0f, 1.0f, -1.0f));
	r = eng_simd_f64x2_convert_low_i32x4_u(vu32(UINT32_MAX, 1, 5, 6));
	assert_v128_equal(r, vf64(4294967295.0, 1.0));
	r = eng_simd_f64x2_convert_low_i32x4_s(vi32(INT32_MIN, -1, 5, 6));
	assert_v128_equal(r, vf64(-2147483648.0, -1.0));
}

static void demote_and_promote(void **state)
{
	eng_v128 r = eng_simd_f32x4_demote_f64x2_zero(vf64(1e300, 0x1p-150));
	assert_v128_equal(r, vf32(INFINITY, 0.0f, 0.0f, 0.0f));
	r = eng_simd_f32x4_demote_f64x2_zero(vf64(0x1.000001p+0, -0.0));
	assert_v128_equal(r, vf32(1.0f, -0.0f, 0.0f, 0.0f));
	r = eng_simd_f32x4_demote_f64x2_zero(vu64(F64_SNAN, F64_CANON));
	assert_true(quiet_nan32(r.u32[0]));
	assert_int_equal(r.u32[1], F32_CANON);

	r = eng_simd_f64x2_promote_low_f32x4(
	    vu32(F32_SNAN, bits32(0x1p-149f), 0, 0));
	assert_true(quiet_nan64(r.u64[0]));
	assert_int_equal(r.u64[1], bits64(0x1p-149));
}

/* --- integers --- */

static void narrow_saturates_signed_input(void **state)
{
	eng_v128 a =
	    vi16((int16_t[8]){0x7fff, -129, 128, -128, 127, 0, -1, INT16_MIN});
	eng_v128 b = vi16((int16_t[8]){255, 256, 1, 2, 3, 4, 5, 6});
	eng_v128 r = eng_simd_i8x16_narrow_i16x8_s(a, b);
	assert_v128_equal(r,
			  vi8((int8_t[16]){127, -128, 127, -128, 127, 0, -1,
					   -128, 127, 127, 1, 2, 3, 4, 5, 6}));
	r = eng_simd_i8x16_narrow_i16x8_u(a, b);
	assert_v128_equal(r, vi8((int8_t[16]){-1, 0, -128, 0, 127, 0, 0, 0, -1,
					      -1, 1, 2, 3, 4, 5, 6}));

	eng_v128 c = vi32(65536, -32769, 32768, -1);
	eng_v128 d = vi32(65535, 0, INT32_MIN, INT32_MAX);
	r = eng_simd_i16x8_narrow_i32x4_s(c, d);
	assert_v128_equal(r, vi16((int16_t[8]){32767, -32768, 32767, -1, 32767,
					       0, -32768, 32767}));
	r = eng_simd_i16x8_narrow_i32x4_u(c, d);
	assert_v128_equal(r,
			  vi16((int16_t[8]){-1, 0, -32768, 0, -1, 0, 0, -1}));
}

static void q15mulr_rounds_and_saturates(void **state)
{
	eng_v128 a = vi16((int16_t[8]){INT16_MIN, 0x4000, 1, -1, 0x4000,
				       -0x4000, 0x7fff, INT16_MIN});
	eng_v128 b = vi16((int16_t[8]){INT16_MIN, 0x4000, 0x4000, 0x4000, 1, 1,
				       0x7fff, 0x7fff});
	eng_v128 r = eng_simd_i16x8_q15mulr_sat_s(a, b);
	assert_v128_equal(
	    r, vi16((int16_t[8]){0x7fff, 0x2000, 1, 0, 1, 0, 0x7ffe, -0x7fff}));
}

static void shifts_take_the_count_modulo_lane_bits(void **state)
{
	eng_v128 v = vi8((int8_t[16]){-128, 1, 3, -1, 64, 0, 0, 0, 0, 0, 0, 0,
				      0, 0, 0, 0x7f});

	assert_v128_equal(eng_simd_i8x16_shl(v, 8), v);
	assert_v128_equal(eng_simd_i8x16_shl(v, 9), eng_simd_i8x16_shl(v, 1));
	assert_int_equal(eng_simd_i8x16_shl(v, 9).u8[0], 0);
	assert_int_equal(eng_simd_i8x16_shl(v, 9).u8[15], 0xfe);
	assert_int_equal(eng_simd_i8x16_shr_s(v, 7).i8[0], -1);
	assert_int_equal(eng_simd_i8x16_shr_s(v, 15).i8[4], 0);
	assert_int_equal(eng_simd_i8x16_shr_u(v, 7).u8[0], 1);
	assert_int_equal(eng_simd_i8x16_shr_u(v, 0xffffff01u).u8[3], 0x7f);

	eng_v128 w = vi16((int16_t[8]){INT16_MIN, -2, 1, 0, 0, 0, 0, 0});
	assert_int_equal(eng_simd_i16x8_shl(w, 31).u16[2], 0x8000);
	assert_int_equal(eng_simd_i16x8_shr_s(w, 16).i16[0], INT16_MIN);
	assert_int_equal(eng_simd_i16x8_shr_s(w, 17).i16[1], -1);

	eng_v128 x = vi32(INT32_MIN, -8, 1, 0);
	assert_v128_equal(eng_simd_i32x4_shr_s(x, 33),
			  vi32(INT32_MIN / 2, -4, 0, 0));
	assert_v128_equal(eng_simd_i32x4_shl(x, 63), vi32(0, 0, INT32_MIN, 0));
	assert_v128_equal(eng_simd_i32x4_shr_u(x, 32), x);

	eng_v128 y = vi64(INT64_MIN, -1);
	assert_v128_equal(eng_simd_i64x2_shr_s(y, 64), y);
	assert_v128_equal(eng_simd_i64x2_shr_s(y, 127), vi64(-1, -1));
	assert_v128_equal(eng_simd_i64x2_shr_u(y, 65),
			  vi64(0x4000000000000000, INT64_MAX));
	assert_v128_equal(eng_simd_i64x2_shl(y, 0x8000000000000001u),
			  vi64(0, -2));
}

static void swizzle_and_shuffle(void **state)
{
	eng_v128 a, b;
	for (int i = 0; i < 16; i++) {
		a.u8[i] = (uint8_t)(0x10 + i);
		b.u8[i] = (uint8_t)(0x20 + i);
	}
	eng_v128 idx = vi8((int8_t[16]){15, 0, 16, 17, 31, -128, -1, 7, 8, 32,
					1, 1, 2, 100, 3, 4});
	eng_v128 r = eng_simd_i8x16_swizzle(a, idx);
	assert_v128_equal(
	    r, vi8((int8_t[16]){0x1f, 0x10, 0, 0, 0, 0, 0, 0x17, 0x18, 0, 0x11,
				0x11, 0x12, 0, 0x13, 0x14}));

	const uint8_t sel[16] = {0, 16, 1, 17, 15, 31, 31, 0,
				 8, 24, 2, 3,  18, 19, 7,  23};
	r = eng_simd_i8x16_shuffle(a, b, sel);
	for (int i = 0; i < 16; i++)
		assert_int_equal(r.u8[i], sel[i] < 16 ? 0x10 + sel[i]
						      : 0x20 + sel[i] - 16);
}

static void bitmask_all_true_any_true(void **state)
{
	eng_v128 v = vi8((int8_t[16]){-1, 1, -128, 127, 0, -2, 0, 0, 0, 0, 0, 0,
				      0, 0, 0, -1});
	assert_int_equal(eng_simd_i8x16_bitmask(v), 0x8025);
	assert_int_equal(eng_simd_i16x8_bitmask(v), 0x84);
	assert_int_equal(eng_simd_i32x4_bitmask(v), 0x8);
	assert_int_equal(eng_simd_i64x2_bitmask(vi64(-1, 1)), 1);
	assert_int_equal(eng_simd_i64x2_bitmask(vi64(INT64_MIN, INT64_MIN)), 3);

	assert_int_equal(eng_simd_i8x16_all_true(v), 0);
	assert_int_equal(eng_simd_v128_any_true(v), 1);
	assert_int_equal(eng_simd_v128_any_true(vi64(0, 0)), 0);
	assert_int_equal(eng_simd_v128_any_true(vi64(0, INT64_MIN)), 1);
	/* 0x0100 is a true i16 lane but has a zero byte. */
	eng_v128 t = vi16((int16_t[8]){0x100, 1, -1, 2, 3, 4, 5, INT16_MIN});
	assert_int_equal(eng_simd_i16x8_all_true(t), 1);
	assert_int_equal(eng_simd_i8x16_all_true(t), 0);
	assert_int_equal(eng_simd_i32x4_all_true(vi32(1, 1, 1, 0)), 0);
	assert_int_equal(eng_simd_i32x4_all_true(vi32(1, -1, 1 << 16, 8)), 1);
	assert_int_equal(eng_simd_i64x2_all_true(vi64(1LL << 32, -1)), 1);
	assert_int_equal(eng_simd_i64x2_all_true(vi64(1, 0)), 0);
}

static void extmul_and_dot_widen_before_multiplying(void **state)
{
	eng_v128 a = vi16((int16_t[8]){INT16_MIN, INT16_MIN, -1, 2, -1, 3,
				       INT16_MIN, 0x7fff});
	eng_v128 b = vi16(
	    (int16_t[8]){INT16_MIN, INT16_MIN, -1, 5, -1, 7, 0x7fff, 0x7fff});
	/* 2 * 2^30 wraps to INT32_MIN, as the spec's table has it. */
	assert_v128_equal(eng_simd_i32x4_dot_i16x8_s(a, b),
			  vi32(INT32_MIN, 11, 22, -32767));
	assert_v128_equal(eng_simd_i32x4_extmul_low_i16x8_s(a, b),
			  vi32(1 << 30, 1 << 30, 1, 10));
	assert_v128_equal(
	    eng_simd_i32x4_extmul_high_i16x8_u(a, b),
	    vu32(0xfffe0001u, 21, 0x8000u * 0x7fffu, 0x7fffu * 0x7fffu));

	eng_v128 c = vi8((int8_t[16]){-128, -128, -1, 127, 0, 0, 0, 0, -1, 2,
				      -128, 0, 0, 0, 0, 0});
	assert_v128_equal(
	    eng_simd_i16x8_extmul_low_i8x16_s(c, c),
	    vi16((int16_t[8]){16384, 16384, 1, 16129, 0, 0, 0, 0}));
	assert_v128_equal(eng_simd_i16x8_extmul_high_i8x16_u(c, c),
			  vi16((int16_t[8]){-511, 4, 16384, 0, 0, 0, 0, 0}));

	eng_v128 d = vi32(INT32_MIN, -1, INT32_MIN, 2);
	assert_v128_equal(eng_simd_i64x2_extmul_low_i32x4_s(d, d),
			  vi64(INT64_C(1) << 62, 1));
	assert_v128_equal(eng_simd_i64x2_extmul_low_i32x4_u(d, d),
			  vu64(UINT64_C(1) << 62, 0xfffffffe00000001u));
	assert_v128_equal(
	    eng_simd_i64x2_extmul_high_i32x4_s(d, vi32(0, 0, 2, -3)),
	    vi64(-(INT64_C(1) << 32), -6));
}

static void extadd_pairwise_and_extend(void **state)
{
	eng_v128 v = vi8((int8_t[16]){-128, -128, -1, -1, 127, 127, 1, -1, 0, 0,
				      0, 0, 0, 0, 0, 0});
	assert_v128_equal(eng_simd_i16x8_extadd_pairwise_i8x16_s(v),
			  vi16((int16_t[8]){-256, -2, 254, 0, 0, 0, 0, 0}));
	assert_v128_equal(eng_simd_i16x8_extadd_pairwise_i8x16_u(v),
			  vi16((int16_t[8]){256, 510, 254, 256, 0, 0, 0, 0}));
	eng_v128 w =
	    vi16((int16_t[8]){-1, -1, INT16_MIN, INT16_MIN, 1, 2, 3, 4});
	assert_v128_equal(eng_simd_i32x4_extadd_pairwise_i16x8_s(w),
			  vi32(-2, -65536, 3, 7));
	assert_v128_equal(eng_simd_i32x4_extadd_pairwise_i16x8_u(w),
			  vi32(131070, 65536, 3, 7));

	assert_v128_equal(
	    eng_simd_i16x8_extend_high_i8x16_s(vi8((int8_t[16]){
		0, 0, 0, 0, 0, 0, 0, 0, -1, -128, 127, 0, 0, 0, 0, 1})),
	    vi16((int16_t[8]){-1, -128, 127, 0, 0, 0, 0, 1}));
	assert_v128_equal(eng_simd_i32x4_extend_low_i16x8_u(w),
			  vi32(65535, 65535, 32768, 32768));
	assert_v128_equal(
	    eng_simd_i64x2_extend_high_i32x4_s(vi32(0, 0, -1, INT32_MIN)),
	    vi64(-1, INT32_MIN));
	assert_v128_equal(
	    eng_simd_i64x2_extend_high_i32x4_u(vi32(0, 0, -1, INT32_MIN)),
	    vi64(UINT32_MAX, 0x80000000));
}

static void popcnt_avgr_abs_neg(void **state)
{
	eng_v128 v = vi8((int8_t[16]){0, -1, 0x55, -128, 1, 3, 7, 0x0f, 0x10,
				      0x33, -2, 0x7f, 0, 0, 0, 0});
	assert_v128_equal(
	    eng_simd_i8x16_popcnt(v),
	    vi8((int8_t[16]){0, 8, 4, 1, 1, 2, 3, 4, 1, 4, 7, 7, 0, 0, 0, 0}));

	eng_v128 a = vi8(
	    (int8_t[16]){-1, 0, -2, 1, -128, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
	eng_v128 b = vi8(
	    (int8_t[16]){-1, 1, -1, 2, 127, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
	assert_v128_equal(eng_simd_i8x16_avgr_u(a, b),
			  vi8((int8_t[16]){-1, 1, -1, 2, -128, 0, 0, 0, 0, 0, 0,
					   0, 0, 0, 0, 0}));
	eng_v128 h =
	    eng_simd_i16x8_avgr_u(vi16((int16_t[8]){-1, 0, 3, 0, 0, 0, 0, 0}),
				  vi16((int16_t[8]){-1, -1, 4, 0, 0, 0, 0, 0}));
	assert_int_equal(h.u16[0], 0xffff);
	assert_int_equal(h.u16[1], 0x8000);
	assert_int_equal(h.u16[2], 4);

	/* abs of the most negative lane is itself. */
	assert_int_equal(eng_simd_i8x16_abs(a).i8[4], -128);
	assert_int_equal(eng_simd_i8x16_abs(a).i8[0], 1);
	assert_int_equal(
	    eng_simd_i16x8_abs(vi16((int16_t[8]){INT16_MIN})).i16[0],
	    INT16_MIN);
	assert_v128_equal(eng_simd_i32x4_abs(vi32(INT32_MIN, -5, 5, 0)),
			  vi32(INT32_MIN, 5, 5, 0));
	assert_v128_equal(eng_simd_i64x2_abs(vi64(INT64_MIN, -7)),
			  vi64(INT64_MIN, 7));
	assert_v128_equal(eng_simd_i64x2_neg(vi64(INT64_MIN, 1)),
			  vi64(INT64_MIN, -1));
	assert_int_equal(
	    eng_simd_i16x8_neg(vi16((int16_t[8]){INT16_MIN, 1})).i16[1], -1);
}

static void saturating_and_wrapping_arithmetic(void **state)
{
	eng_v128 a = vi8((int8_t[16]){127, -128, -1, 100, 0, 0, 0, 0, 0, 0, 0,
				      0, 0, 0, 0, 0});
	eng_v128 b = vi8(
	    (int8_t[16]){1, -1, 1, 100, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
	eng_v128 r = eng_simd_i8x16_add_sat_s(a, b);
	assert_memory_equal(r.i8, ((int8_t[4]){127, -128, 0, 127}), 4);
	r = eng_simd_i8x16_add_sat_u(a, b);
	assert_memory_equal(r.u8, ((uint8_t[4]){128, 255, 255, 200}), 4);
	r = eng_simd_i8x16_sub_sat_s(b, a);
	assert_memory_equal(r.i8, ((int8_t[4]){-126, 127, 2, 0}), 4);
	r = eng_simd_i8x16_sub_sat_u(b, a);
	assert_memory_equal(r.u8, ((uint8_t[4]){0, 127, 0, 0}), 4);
	r = eng_simd_i8x16_add(a, b);
	assert_memory_equal(r.i8, ((int8_t[4]){-128, 127, 0, -56}), 4);

	eng_v128 h = vi16((int16_t[8]){INT16_MAX, INT16_MIN, -1, 0x100});
	eng_v128 k = vi16((int16_t[8]){1, -1, -1, 0x100});
	assert_memory_equal(eng_simd_i16x8_add_sat_s(h, k).i16,
			    ((int16_t[4]){INT16_MAX, INT16_MIN, -2, 0x200}), 8);
	assert_memory_equal(eng_simd_i16x8_sub_sat_u(k, h).u16,
			    ((uint16_t[4]){0, 0x7fff, 0, 0}), 8);
	assert_memory_equal(eng_simd_i16x8_mul(h, k).i16,
			    ((int16_t[4]){INT16_MAX, INT16_MIN, 1, 0}), 8);
	assert_v128_equal(eng_simd_i32x4_mul(vi32(INT32_MIN, 0x10000, -3, 7),
					     vi32(-1, 0x10000, 3, -7)),
			  vi32(INT32_MIN, 0, -9, -49));
	assert_v128_equal(
	    eng_simd_i64x2_mul(vi64(INT64_MIN, INT64_MAX), vi64(-1, 2)),
	    vi64(INT64_MIN, -2));
	assert_v128_equal(
	    eng_simd_i64x2_sub(vi64(INT64_MIN, 0), vi64(1, INT64_MIN)),
	    vi64(INT64_MAX, INT64_MIN));

	/* Signed and unsigned views of 0x80 order differently. */
	eng_v128 m = vi8((int8_t[16]){-128, 1});
	eng_v128 n = vi8((int8_t[16]){1, -128});
	assert_int_equal(eng_simd_i8x16_lt_s(m, n).i8[0], -1);
	assert_int_equal(eng_simd_i8x16_lt_u(m, n).i8[0], 0);
	assert_int_equal(eng_simd_i8x16_min_u(m, n).u8[1], 1);
	assert_int_equal(eng_simd_i8x16_max_s(m, n).i8[1], 1);
	assert_v128_equal(eng_simd_i64x2_lt_s(vi64(INT64_MIN, -1), vi64(0, -1)),
			  vi64(-1, 0));
	assert_v128_equal(
	    eng_simd_i32x4_ge_u(vi32(-1, 0, 5, 4), vi32(1, 0, 6, 4)),
	    vi32(-1, -1, 0, -1));
}

static void bitwise_ops(void **state)
{
	eng_v128 a = vu32(0xff00ff00u, 0x12345678u, 0, UINT32_MAX);
	eng_v128 b = vu32(0x00ff00ffu, 0xffffffffu, 0, 0x80000001u);
	eng_v128 c = vu32(0xf0f0f0f0u, 0x0000ffffu, UINT32_MAX, 1);

	assert_v128_equal(eng_simd_v128_bitselect(a, b, c),
			  vu32(0xf00ff00fu, 0xffff5678u, 0, 0x80000001u));
	assert_v128_equal(eng_simd_v128_andnot(a, b),
			  vu32(0xff00ff00u, 0, 0, 0x7ffffffeu));
	assert_v128_equal(eng_simd_v128_not(a),
			  vu32(0x00ff00ffu, 0xedcba987u, UINT32_MAX, 0));
}

/* --- lanes and memory --- */

static void splat_extract_replace(void **state)
{
	eng_v128 r = eng_simd_i8x16_splat(0xffffffff00001234u);
	for (int i = 0; i < 16; i++)
		assert_int_equal(r.u8[i], 0x34);
	r = eng_simd_f32x4_splat(bits32(-1.5f));
	assert_v128_equal(r, vf32(-1.5f, -1.5f, -1.5f, -1.5f));
	r = eng_simd_i64x2_splat(0x8000000000000001u);
	assert_v128_equal(r, vi64(INT64_MIN + 1, INT64_MIN + 1));

	eng_v128 v = vi8(
	    (int8_t[16]){0, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x7f});
	assert_int_equal(eng_simd_i8x16_extract_lane_s(v, 1), 0xffffffffu);
	assert_int_equal(eng_simd_i8x16_extract_lane_u(v, 1), 0xffu);
	assert_int_equal(eng_simd_i8x16_extract_lane_s(v, 15), 0x7f);
	assert_int_equal(eng_simd_i16x8_extract_lane_s(v, 0), 0xffffff00u);
	assert_int_equal(eng_simd_i16x8_extract_lane_u(v, 0), 0xff00u);
	assert_int_equal(eng_simd_i32x4_extract_lane(vi32(0, 0, -1, 0), 2),
			 0xffffffffu);
	assert_int_equal(eng_simd_i64x2_extract_lane(vi64(0, -2), 1),
			 0xfffffffffffffffeu);
	assert_int_equal(eng_simd_f32x4_extract_lane(vf32(0, 0, 0, -2.0f), 3),
			 bits32(-2.0f));
	assert_int_equal(eng_simd_f64x2_extract_lane(vf64(0.5, 0), 0),
			 bits64(0.5));

	r = eng_simd_i8x16_replace_lane(v, 0x1ff, 15);
	assert_int_equal(r.u8[15], 0xff);
	assert_memory_equal(r.u8, v.u8, 15);
	r = eng_simd_i16x8_replace_lane(v, 0xabcd, 7);
	assert_int_equal(r.u16[7], 0xabcd);
	r = eng_simd_f32x4_replace_lane(vf32(1, 2, 3, 4), bits32(9.0f), 2);
	assert_v128_equal(r, vf32(1, 2, 9, 4));
	r = eng_simd_f64x2_replace_lane(vf64(1, 2), bits64(-0.0), 1);
	assert_v128_equal(r, vf64(1, -0.0));
	r = eng_simd_i64x2_replace_lane(vi64(1, 2), 7, 0);
	assert_v128_equal(r, vi64(7, 2));
	r = eng_simd_i32x4_replace_lane(vi32(1, 2, 3, 4), 0x1ffffffffu, 3);
	assert_v128_equal(r, vi32(1, 2, 3, -1));
}

/* Memory is read at an odd address, to show nothing assumes alignment. */
static void loads_extend_splat_and_zero(void **state)
{
	uint8_t mem[33];
	const uint8_t *p = mem + 1;
	for (int i = 0; i < 33; i++)
		mem[i] = (uint8_t)(0x80 + i - 1);

	eng_v128 r = eng_simd_v128_load(p);
	assert_memory_equal(r.u8, p, 16);
	r = eng_simd_v128_load8x8_s(p);
	assert_v128_equal(r, vi16((int16_t[8]){-128, -127, -126, -125, -124,
					       -123, -122, -121}));
	r = eng_simd_v128_load8x8_u(p);
	assert_v128_equal(
	    r, vi16((int16_t[8]){128, 129, 130, 131, 132, 133, 134, 135}));
	r = eng_simd_v128_load16x4_s(p);
	assert_v128_equal(r, vi32((int16_t)0x8180, (int16_t)0x8382,
				  (int16_t)0x8584, (int16_t)0x8786));
	r = eng_simd_v128_load16x4_u(p);
	assert_v128_equal(r, vi32(0x8180, 0x8382, 0x8584, 0x8786));
	r = eng_simd_v128_load32x2_s(p);
	assert_v128_equal(r, vi64((int32_t)0x83828180, (int32_t)0x87868584));
	r = eng_simd_v128_load32x2_u(p);
	assert_v128_equal(r, vi64(0x83828180, 0x87868584));

	r = eng_simd_v128_load8_splat(p + 3);
	for (int i = 0; i < 16; i++)
		assert_int_equal(r.u8[i], 0x83);
	r = eng_simd_v128_load16_splat(p);
	for (int i = 0; i < 8; i++)
		assert_int_equal(r.u16[i], 0x8180);
	r = eng_simd_v128_load32_splat(p);
	assert_v128_equal(
	    r, vu32(0x83828180u, 0x83828180u, 0x83828180u, 0x83828180u));
	r = eng_simd_v128_load64_splat(p);
	assert_int_equal(r.u64[0], 0x8786858483828180u);
	assert_int_equal(r.u64[1], 0x8786858483828180u);

	r = eng_simd_v128_load32_zero(p);
	assert_v128_equal(r, vu32(0x83828180u, 0, 0, 0));
	r = eng_simd_v128_load64_zero(p + 8);
	assert_v128_equal(r, vu64(0x8f8e8d8c8b8a8988u, 0));
}

static void lane_loads_and_stores_touch_one_lane(void **state)
{
	uint8_t mem[17] = {0};
	eng_v128 v = vu32(0x03020100u, 0x07060504u, 0x0b0a0908u, 0x0f0e0d0cu);

	memcpy(mem + 1, "\xaa\xbb\xcc\xdd\xee\xff\x11\x22", 8);
	eng_v128 r = eng_simd_v128_load8_lane(v, mem + 1, 15);
	assert_int_equal(r.u8[15], 0xaa);
	assert_memory_equal(r.u8, v.u8, 15);
	r = eng_simd_v128_load16_lane(v, mem + 1, 3);
	assert_int_equal(r.u16[3], 0xbbaa);
	assert_memory_equal(r.u8, v.u8, 6);
	assert_memory_equal(r.u8 + 8, v.u8 + 8, 8);
	r = eng_simd_v128_load32_lane(v, mem + 1, 0);
	assert_v128_equal(
	    r, vu32(0xddccbbaau, 0x07060504u, 0x0b0a0908u, 0x0f0e0d0cu));
	r = eng_simd_v128_load64_lane(v, mem + 1, 1);
	assert_int_equal(r.u64[1], 0x2211ffeeddccbbaau);
	assert_int_equal(r.u64[0], v.u64[0]);

	memset(mem, 0x55, sizeof mem);
	eng_simd_v128_store8_lane(mem + 1, v, 9);
	eng_simd_v128_store16_lane(mem + 3, v, 7);
	eng_simd_v128_store32_lane(mem + 5, v, 1);
	eng_simd_v128_store64_lane(mem + 9, v, 0);
	assert_memory_equal(mem,
			    "\x55\x09\x55\x0e\x0f\x04\x05\x06\x07"
			    "\x00\x01\x02\x03\x04\x05\x06\x07",
			    17);
}

/* --- every listed function on edge and random lanes --- */

#define FN(id, fn) eng_simd_##fn,
static un_fn *const unops[] = {ENG_SIMD_UNOPS(FN)};
static bin_fn *const binops[] = {ENG_SIMD_BINOPS(FN)};
static tern_fn *const ternops[] = {ENG_SIMD_TERNOPS(FN)};
static shift_fn *const shifts[] = {ENG_SIMD_SHIFTS(FN)};
static test_fn *const reductions[] = {ENG_SIMD_TESTS(FN)};
static splat_fn *const splats[] = {ENG_SIMD_SPLATS(FN)};
static extract_fn *const extracts[] = {ENG_SIMD_EXTRACTS(FN)};
static replace_fn *const replaces[] = {ENG_SIMD_REPLACES(FN)};
static load_fn *const loads[] = {ENG_SIMD_LOADS(FN)};
static load_lane_fn *const load_lanes[] = {ENG_SIMD_LOAD_LANES(FN)};
static store_lane_fn *const store_lanes[] = {ENG_SIMD_STORE_LANES(FN)};
#undef FN

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* The ops, for their lane counts: an extract or replace has those of
 * its shape ("i8x16..." 16), a lane load or store 16 over its width. */
#define OP(id, fn) WASM_OP_##id,
static const wasm_op extract_ops[] = {ENG_SIMD_EXTRACTS(OP)};
static const wasm_op replace_ops[] = {ENG_SIMD_REPLACES(OP)};
static const wasm_op load_lane_ops[] = {ENG_SIMD_LOAD_LANES(OP)};
static const wasm_op store_lane_ops[] = {ENG_SIMD_STORE_LANES(OP)};
#undef OP

static unsigned shape_lanes(wasm_op op)
{
	return (unsigned)atoi(strchr(wasm_op_info(op)->name, 'x') + 1);
}

static unsigned width_lanes(wasm_op op) { return 16 / wasm_op_info(op)->width; }

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Edge lanes first (integer extremes, ±0, NaNs, infinities, floats just
 * outside the i32 range), then random bits. */
static eng_v128 sample(unsigned k, uint64_t *s)
{
	static const uint64_t edge[][2] = {
	    {0, 0},
	    {UINT64_MAX, UINT64_MAX},
	    {0x8080808080808080u, 0x7f7f7f7f7f7f7f7fu},
	    {0x8000800080008000u, 0x7fff7fff7fff7fffu},
	    {0x8000000080000000u, 0x7fffffff7fffffffu},
	    {0x8000000000000000u, 0x7fffffffffffffffu},
	    {0x7fc000007fa00000u, 0xff8000007f800000u},
	    {0x4f0000004f800000u, 0xcf000001cf800000u},
	    {F64_CANON, F64_SNAN},
	    {0x41e0000000000000u, 0xc1e0000000200000u},
	    {0x7ff0000000000000u, 0x41f0000000000000u},
	};
	if (k < COUNT(edge))
		return vu64(edge[k][0], edge[k][1]);
	uint64_t lo = xorshift(s);
	return vu64(lo, xorshift(s));
}

static void sweep_every_function(void **state)
{
	uint64_t s = 0x9e3779b97f4a7c15u;
	uint8_t mem[24];

	assert_int_equal(COUNT(unops) + COUNT(binops) + COUNT(ternops) +
			     COUNT(shifts) + COUNT(reductions) + COUNT(splats) +
			     COUNT(extracts) + COUNT(replaces) + COUNT(loads) +
			     COUNT(load_lanes) + COUNT(store_lanes),
			 COUNT(listed));
	for (unsigned k = 0; k < 200; k++) {
		eng_v128 a = sample(k, &s);
		eng_v128 b = sample((k * 7 + 3) % 200, &s);
		eng_v128 c = sample((k * 13 + 5) % 200, &s);
		uint64_t x = a.u64[0] ^ b.u64[1];

		for (size_t i = 0; i < COUNT(unops); i++)
			unops[i](a);
		for (size_t i = 0; i < COUNT(binops); i++)
			binops[i](a, b);
		for (size_t i = 0; i < COUNT(ternops); i++)
			ternops[i](a, b, c);
		for (size_t i = 0; i < COUNT(shifts); i++)
			shifts[i](a, k < 130 ? k : x);
		for (size_t i = 0; i < COUNT(reductions); i++)
			reductions[i](a);
		for (size_t i = 0; i < COUNT(splats); i++)
			splats[i](x);
		for (size_t i = 0; i < COUNT(extracts); i++)
			extracts[i](a, k % shape_lanes(extract_ops[i]));
		for (size_t i = 0; i < COUNT(replaces); i++)
			replaces[i](a, x, k % shape_lanes(replace_ops[i]));

		memcpy(mem, &b, 16);
		memcpy(mem + 16, &x, 8);
		for (size_t i = 0; i < COUNT(loads); i++)
			loads[i](mem + k % 8);
		for (size_t i = 0; i < COUNT(load_lanes); i++)
			load_lanes[i](a, mem + k % 8,
				      k % width_lanes(load_lane_ops[i]));
		for (size_t i = 0; i < COUNT(store_lanes); i++)
			store_lanes[i](mem + k % 8, a,
				       k % width_lanes(store_lane_ops[i]));
	}
}

int main(void)
{
	const struct CMUnitTest t[] = {
	    cmocka_unit_test(every_simd_row_in_exactly_one_list),
	    cmocka_unit_test(every_listed_row_has_its_name_and_signature),
	    cmocka_unit_test(float_min_max_nan_and_signed_zero),
	    cmocka_unit_test(float_pmin_pmax_are_c_compares),
	    cmocka_unit_test(nearest_rounds_ties_to_even),
	    cmocka_unit_test(nan_results_are_quiet_and_sign_ops_are_bitwise),
	    cmocka_unit_test(float_compares_treat_nan_as_unordered),
	    cmocka_unit_test(trunc_sat_saturates_and_maps_nan_to_zero),
	    cmocka_unit_test(convert_rounds_once_to_nearest_even),
	    cmocka_unit_test(demote_and_promote),
	    cmocka_unit_test(narrow_saturates_signed_input),
	    cmocka_unit_test(q15mulr_rounds_and_saturates),
	    cmocka_unit_test(shifts_take_the_count_modulo_lane_bits),
	    cmocka_unit_test(swizzle_and_shuffle),
	    cmocka_unit_test(bitmask_all_true_any_true),
	    cmocka_unit_test(extmul_and_dot_widen_before_multiplying),
	    cmocka_unit_test(extadd_pairwise_and_extend),
	    cmocka_unit_test(popcnt_avgr_abs_neg),
	    cmocka_unit_test(saturating_and_wrapping_arithmetic),
	    cmocka_unit_test(bitwise_ops),
	    cmocka_unit_test(splat_extract_replace),
	    cmocka_unit_test(loads_extend_splat_and_zero),
	    cmocka_unit_test(lane_loads_and_stores_touch_one_lane),
	    cmocka_unit_test(sweep_every_function),
	};
	return cmocka_run_group_tests_name("simd", t, NULL, NULL);
}
