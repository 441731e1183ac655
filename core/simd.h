/*
 * simd.h - what each instruction of WebAssembly's fixed-width SIMD
 * computes (the 128-bit vectors of Wasm 2.0, not relaxed SIMD): one static
 * inline function per instruction, and the lists that core/interp.c
 * expands into its dispatch handlers.
 *
 * Contract:
 *   Every 0xFD row of opcodes.def is in exactly one ENG_SIMD_* list below,
 *   except three the interpreter does itself: v128.const, v128.store and
 *   i8x16.shuffle (eng_simd_i8x16_shuffle, for its 16 immediate bytes).
 *   tests/unit/test_simd.c fails when a row is missing, doubled or in a
 *   list whose signature does not match its SIG column.
 *
 *   An entry is X(ID, fn): ID is the opcodes.def ID, fn the mnemonic with
 *   dots as underscores, and eng_simd_##fn the function, typed by its list:
 *
 *     ENG_SIMD_UNOPS       eng_v128 f(eng_v128 a)                    v>v
 *     ENG_SIMD_BINOPS      eng_v128 f(eng_v128 a, eng_v128 b)        vv>v
 *     ENG_SIMD_TERNOPS     eng_v128 f(eng_v128 a, eng_v128 b, eng_v128 c)
 *     ENG_SIMD_SHIFTS      eng_v128 f(eng_v128 a, uint64_t count)    vi>v
 *     ENG_SIMD_TESTS       uint64_t f(eng_v128 a)                    v>i
 *     ENG_SIMD_SPLATS      eng_v128 f(uint64_t x)                    x>v
 *     ENG_SIMD_EXTRACTS    uint64_t f(eng_v128 a, unsigned lane)     v>x
 *     ENG_SIMD_REPLACES    eng_v128 f(eng_v128 a, uint64_t x, unsigned lane)
 *     ENG_SIMD_LOADS       eng_v128 f(const uint8_t *p)
 *     ENG_SIMD_LOAD_LANES  eng_v128 f(eng_v128 v, const uint8_t *p,
 *                                     unsigned lane)
 *     ENG_SIMD_STORE_LANES void f(uint8_t *p, eng_v128 v, unsigned lane)
 *
 *   Operands are in stack order (a pushed first). Scalars cross as the
 *   raw bits of a 64-bit slot: an i32 or f32 in the low 32 bits (an i32
 *   result zero-extended), an i64 or f64 in all 64; floats as their bit
 *   patterns. Lane indices and shuffle indices arrive validated; memory
 *   pointers arrive in bounds but may be unaligned. Shift counts are taken
 *   modulo the lane width, as Wasm says.
 *
 * How it works:
 *   Portable C17 loops over the lanes of the eng_v128 union, no
 *   intrinsics: at -O2 GCC's vectoriser turns most of them into SSE or
 *   NEON instructions, which is the whole speed strategy (the 2-lane f64
 *   and i64 loops mostly stay scalar). The interpreter copies values in
 *   and out of its 64-bit slots with memcpy, which the compiler turns
 *   into plain moves. Lane arithmetic that can overflow runs in unsigned
 *   types: C promotes uint16_t to int, where a wrap is undefined, so
 *   `0u +` first lifts a lane to at least unsigned int.
 *
 * Limitations:
 *   A little-endian host only (Wasm lanes are little-endian in memory and
 *   the union must match), with floats evaluated in their own precision
 *   (not x87). NaN results are quiet; their payloads follow the host,
 *   except that min and max give the canonical NaN, so a lane may differ
 *   from interp.c's scalar f32.min on the same NaN (the spec allows
 *   both). Right shifts of negative signed lanes rely on GCC's and
 *   Clang's arithmetic shift, as interp.c does. The internal names are
 *   simd_* and SIMD_*: the includer must not define them.
 */
#ifndef HEISEN_CORE_SIMD_H
#define HEISEN_CORE_SIMD_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "core/simd.h: Wasm lanes are little-endian, the host must be too"
#endif
#if FLT_EVAL_METHOD != 0
#error "core/simd.h: floats must be evaluated in their own precision"
#endif

typedef union eng_v128 {
	uint8_t u8[16];
	int8_t i8[16];
	uint16_t u16[8];
	int16_t i16[8];
	uint32_t u32[4];
	int32_t i32[4];
	uint64_t u64[2];
	int64_t i64[2];
	float f32[4];
	double f64[2];
} eng_v128;

/* r.F[i] = expr for each of the N lanes, a (and b) the operands. */
#define SIMD_MAP1(fn, F, N, expr)                                              \
	static inline eng_v128 eng_simd_##fn(eng_v128 a)                       \
	{                                                                      \
		eng_v128 r;                                                    \
		for (unsigned i = 0; i < (N); i++)                             \
			r.F[i] = (expr);                                       \
		return r;                                                      \
	}
#define SIMD_MAP2(fn, F, N, expr)                                              \
	static inline eng_v128 eng_simd_##fn(eng_v128 a, eng_v128 b)           \
	{                                                                      \
		eng_v128 r;                                                    \
		for (unsigned i = 0; i < (N); i++)                             \
			r.F[i] = (expr);                                       \
		return r;                                                      \
	}
/* The same over the first N lanes; the others are zero. */
#define SIMD_MAP1_ZERO(fn, F, N, expr)                                         \
	static inline eng_v128 eng_simd_##fn(eng_v128 a)                       \
	{                                                                      \
		eng_v128 r = {0};                                              \
		for (unsigned i = 0; i < (N); i++)                             \
			r.F[i] = (expr);                                       \
		return r;                                                      \
	}

static inline int32_t simd_clamp(int32_t v, int32_t lo, int32_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static inline uint8_t simd_popcnt8(uint8_t x)
{
	x = (uint8_t)(x - ((x >> 1) & 0x55));
	x = (uint8_t)((x & 0x33) + ((x >> 2) & 0x33));
	return (uint8_t)((x + (x >> 4)) & 0x0f);
}

/* f32 lanes go through double, which holds every f32 exactly; the bounds
 * are the first values out of range, so what passes truncates in range. */
static inline int32_t simd_trunc_sat_s(double x)
{
	if (isnan(x))
		return 0;
	if (x <= -2147483649.0)
		return INT32_MIN;
	if (x >= 2147483648.0)
		return INT32_MAX;
	return (int32_t)x;
}

static inline uint32_t simd_trunc_sat_u(double x)
{
	if (!(x > -1.0))
		return 0;
	if (x >= 4294967296.0)
		return UINT32_MAX;
	return (uint32_t)x;
}

/* Ops every integer shape has; B is the lane width in bits. */
#define SIMD_INT(sh, B)                                                        \
	SIMD_MAP2(sh##_add, u##B, 128 / B, 0u + a.u##B[i] + b.u##B[i])         \
	SIMD_MAP2(sh##_sub, u##B, 128 / B, 0u + a.u##B[i] - b.u##B[i])         \
	SIMD_MAP1(sh##_neg, u##B, 128 / B, 0u - a.u##B[i])                     \
	SIMD_MAP1(sh##_abs, u##B, 128 / B,                                     \
		  a.i##B[i] < 0 ? 0u - a.u##B[i] : a.u##B[i])                  \
	SIMD_MAP2(sh##_eq, i##B, 128 / B, -(a.u##B[i] == b.u##B[i]))           \
	SIMD_MAP2(sh##_ne, i##B, 128 / B, -(a.u##B[i] != b.u##B[i]))           \
	SIMD_MAP2(sh##_lt_s, i##B, 128 / B, -(a.i##B[i] < b.i##B[i]))          \
	SIMD_MAP2(sh##_gt_s, i##B, 128 / B, -(a.i##B[i] > b.i##B[i]))          \
	SIMD_MAP2(sh##_le_s, i##B, 128 / B, -(a.i##B[i] <= b.i##B[i]))         \
	SIMD_MAP2(sh##_ge_s, i##B, 128 / B, -(a.i##B[i] >= b.i##B[i]))         \
	SIMD_SHIFT(sh##_shl, u##B, B, (0u + a.u##B[i]) << n)                   \
	SIMD_SHIFT(sh##_shr_s, i##B, B, a.i##B[i] >> n)                        \
	SIMD_SHIFT(sh##_shr_u, u##B, B, a.u##B[i] >> n)                        \
	static inline uint64_t eng_simd_##sh##_all_true(eng_v128 a)            \
	{                                                                      \
		unsigned ok = 1;                                               \
		for (unsigned i = 0; i < 128 / B; i++)                         \
			ok &= a.u##B[i] != 0;                                  \
		return ok;                                                     \
	}                                                                      \
	static inline uint64_t eng_simd_##sh##_bitmask(eng_v128 a)             \
	{                                                                      \
		uint64_t m = 0;                                                \
		for (unsigned i = 0; i < 128 / B; i++)                         \
			m |= (uint64_t)(a.u##B[i] >> (B - 1)) << i;            \
		return m;                                                      \
	}
#define SIMD_SHIFT(fn, F, B, expr)                                             \
	static inline eng_v128 eng_simd_##fn(eng_v128 a, uint64_t count)       \
	{                                                                      \
		unsigned n = (unsigned)(count & (B - 1));                      \
		eng_v128 r;                                                    \
		for (unsigned i = 0; i < 128 / B; i++)                         \
			r.F[i] = (expr);                                       \
		return r;                                                      \
	}

/* Unsigned compares and min/max: all but i64x2. */
#define SIMD_INT_ORD(sh, B)                                                    \
	SIMD_MAP2(sh##_lt_u, i##B, 128 / B, -(a.u##B[i] < b.u##B[i]))          \
	SIMD_MAP2(sh##_gt_u, i##B, 128 / B, -(a.u##B[i] > b.u##B[i]))          \
	SIMD_MAP2(sh##_le_u, i##B, 128 / B, -(a.u##B[i] <= b.u##B[i]))         \
	SIMD_MAP2(sh##_ge_u, i##B, 128 / B, -(a.u##B[i] >= b.u##B[i]))         \
	SIMD_MAP2(sh##_min_s, i##B, 128 / B,                                   \
		  a.i##B[i] < b.i##B[i] ? a.i##B[i] : b.i##B[i])               \
	SIMD_MAP2(sh##_min_u, u##B, 128 / B,                                   \
		  a.u##B[i] < b.u##B[i] ? a.u##B[i] : b.u##B[i])               \
	SIMD_MAP2(sh##_max_s, i##B, 128 / B,                                   \
		  a.i##B[i] > b.i##B[i] ? a.i##B[i] : b.i##B[i])               \
	SIMD_MAP2(sh##_max_u, u##B, 128 / B,                                   \
		  a.u##B[i] > b.u##B[i] ? a.u##B[i] : b.u##B[i])

/* Saturating add/sub and the rounding average: i8x16 and i16x8, whose
 * lanes promote to int, where the exact result fits before clamping. */
#define SIMD_INT_SAT(sh, B)                                                    \
	SIMD_MAP2(                                                             \
	    sh##_add_sat_s, i##B, 128 / B,                                     \
	    simd_clamp(a.i##B[i] + b.i##B[i], INT##B##_MIN, INT##B##_MAX))     \
	SIMD_MAP2(sh##_add_sat_u, u##B, 128 / B,                               \
		  simd_clamp(a.u##B[i] + b.u##B[i], 0, UINT##B##_MAX))         \
	SIMD_MAP2(                                                             \
	    sh##_sub_sat_s, i##B, 128 / B,                                     \
	    simd_clamp(a.i##B[i] - b.i##B[i], INT##B##_MIN, INT##B##_MAX))     \
	SIMD_MAP2(sh##_sub_sat_u, u##B, 128 / B,                               \
		  simd_clamp(a.u##B[i] - b.u##B[i], 0, UINT##B##_MAX))         \
	SIMD_MAP2(sh##_avgr_u, u##B, 128 / B, (a.u##B[i] + b.u##B[i] + 1) >> 1)

/* W-bit lanes from the low or high half of B-bit ones (W = 2B). The
 * products fit: the operands are cast to the wide type first. */
#define SIMD_WIDEN(sh, from, W, B)                                             \
	SIMD_MAP1(sh##_extend_low_##from##_s, i##W, 128 / W, a.i##B[i])        \
	SIMD_MAP1(sh##_extend_high_##from##_s, i##W, 128 / W,                  \
		  a.i##B[i + 128 / W])                                         \
	SIMD_MAP1(sh##_extend_low_##from##_u, u##W, 128 / W, a.u##B[i])        \
	SIMD_MAP1(sh##_extend_high_##from##_u, u##W, 128 / W,                  \
		  a.u##B[i + 128 / W])                                         \
	SIMD_MAP2(sh##_extmul_low_##from##_s, i##W, 128 / W,                   \
		  (int##W##_t)a.i##B[i] * b.i##B[i])                           \
	SIMD_MAP2(sh##_extmul_high_##from##_s, i##W, 128 / W,                  \
		  (int##W##_t)a.i##B[i + 128 / W] * b.i##B[i + 128 / W])       \
	SIMD_MAP2(sh##_extmul_low_##from##_u, u##W, 128 / W,                   \
		  (uint##W##_t)a.u##B[i] * b.u##B[i])                          \
	SIMD_MAP2(sh##_extmul_high_##from##_u, u##W, 128 / W,                  \
		  (uint##W##_t)a.u##B[i + 128 / W] * b.u##B[i + 128 / W])

/* Sums of adjacent pairs of B-bit lanes, in W bits, which cannot wrap. */
#define SIMD_EXTADD(sh, from, W, B)                                            \
	SIMD_MAP1(sh##_extadd_pairwise_##from##_s, i##W, 128 / W,              \
		  a.i##B[2 * i] + a.i##B[2 * i + 1])                           \
	SIMD_MAP1(sh##_extadd_pairwise_##from##_u, u##W, 128 / W,              \
		  a.u##B[2 * i] + a.u##B[2 * i + 1])

/* B-bit lanes from the signed W-bit lanes of a, then of b, saturated to
 * [lo, hi]. The halves are filled side by side: a loop that chose between
 * a and b per lane would not vectorise. */
#define SIMD_NARROW(fn, B, W, lo, hi)                                          \
	static inline eng_v128 eng_simd_##fn(eng_v128 a, eng_v128 b)           \
	{                                                                      \
		eng_v128 r;                                                    \
		for (unsigned i = 0; i < 128 / W; i++) {                       \
			r.u##B[i] = simd_clamp(a.i##W[i], lo, hi);             \
			r.u##B[i + 128 / W] = simd_clamp(b.i##W[i], lo, hi);   \
		}                                                              \
		return r;                                                      \
	}

/* libm's rounding functions may return a signalling NaN unchanged; Wasm
 * wants it quiet, and adding it to itself quiets it. */
#define SIMD_QROUND(T, fn)                                                     \
	static inline T simd_##fn(T x) { return isnan(x) ? x + x : fn(x); }

/* A float shape: T the C type, SFX libm's suffix for it ("f" or none),
 * CNAN the bits of its canonical NaN.
 * abs and neg touch only the sign bit, so that NaN payloads survive.
 * min and max are branch-free so that they vectorise: equal lanes are
 * either ±0 or the same bits, so OR (AND) of the bits picks -0 (+0); an
 * unordered pair gives the canonical NaN, which every NaN rule of the
 * spec accepts. pmin and pmax are C's `<` and keep a's bits when it is
 * false (a NaN, or equal lanes). */
#define SIMD_FLOAT(sh, B, T, SFX, CNAN)                                        \
	SIMD_QROUND(T, ceil##SFX)                                              \
	SIMD_QROUND(T, floor##SFX)                                             \
	SIMD_QROUND(T, trunc##SFX)                                             \
	SIMD_QROUND(T, rint##SFX)                                              \
	SIMD_MAP2(sh##_eq, i##B, 128 / B, -(a.f##B[i] == b.f##B[i]))           \
	SIMD_MAP2(sh##_ne, i##B, 128 / B, -(a.f##B[i] != b.f##B[i]))           \
	SIMD_MAP2(sh##_lt, i##B, 128 / B, -(a.f##B[i] < b.f##B[i]))            \
	SIMD_MAP2(sh##_gt, i##B, 128 / B, -(a.f##B[i] > b.f##B[i]))            \
	SIMD_MAP2(sh##_le, i##B, 128 / B, -(a.f##B[i] <= b.f##B[i]))           \
	SIMD_MAP2(sh##_ge, i##B, 128 / B, -(a.f##B[i] >= b.f##B[i]))           \
	SIMD_MAP1(sh##_abs, u##B, 128 / B,                                     \
		  a.u##B[i] & ~((uint##B##_t)1 << (B - 1)))                    \
	SIMD_MAP1(sh##_neg, u##B, 128 / B,                                     \
		  a.u##B[i] ^ ((uint##B##_t)1 << (B - 1)))                     \
	SIMD_MAP1(sh##_sqrt, f##B, 128 / B, sqrt##SFX(a.f##B[i]))              \
	SIMD_MAP1(sh##_ceil, f##B, 128 / B, simd_ceil##SFX(a.f##B[i]))         \
	SIMD_MAP1(sh##_floor, f##B, 128 / B, simd_floor##SFX(a.f##B[i]))       \
	SIMD_MAP1(sh##_trunc, f##B, 128 / B, simd_trunc##SFX(a.f##B[i]))       \
	SIMD_MAP1(sh##_nearest, f##B, 128 / B, simd_rint##SFX(a.f##B[i]))      \
	SIMD_MAP2(sh##_add, f##B, 128 / B, a.f##B[i] + b.f##B[i])              \
	SIMD_MAP2(sh##_sub, f##B, 128 / B, a.f##B[i] - b.f##B[i])              \
	SIMD_MAP2(sh##_mul, f##B, 128 / B, a.f##B[i] * b.f##B[i])              \
	SIMD_MAP2(sh##_div, f##B, 128 / B, a.f##B[i] / b.f##B[i])              \
	SIMD_MAP2(sh##_min, u##B, 128 / B,                                     \
		  a.f##B[i] < b.f##B[i]	   ? a.u##B[i]                         \
		  : b.f##B[i] < a.f##B[i]  ? b.u##B[i]                         \
		  : a.f##B[i] == b.f##B[i] ? a.u##B[i] | b.u##B[i]             \
					   : CNAN)                             \
	SIMD_MAP2(sh##_max, u##B, 128 / B,                                     \
		  a.f##B[i] > b.f##B[i]	   ? a.u##B[i]                         \
		  : b.f##B[i] > a.f##B[i]  ? b.u##B[i]                         \
		  : a.f##B[i] == b.f##B[i] ? a.u##B[i] & b.u##B[i]             \
					   : CNAN)                             \
	SIMD_MAP2(sh##_pmin, u##B, 128 / B,                                    \
		  b.f##B[i] < a.f##B[i] ? b.u##B[i] : a.u##B[i])               \
	SIMD_MAP2(sh##_pmax, u##B, 128 / B,                                    \
		  a.f##B[i] < b.f##B[i] ? b.u##B[i] : a.u##B[i])

/* splat and replace_lane move bits, so the float shapes share them. */
#define SIMD_LANES(sh, B)                                                      \
	static inline eng_v128 eng_simd_##sh##_splat(uint64_t x)               \
	{                                                                      \
		eng_v128 r;                                                    \
		for (unsigned i = 0; i < 128 / B; i++)                         \
			r.u##B[i] = (uint##B##_t)x;                            \
		return r;                                                      \
	}                                                                      \
	static inline eng_v128 eng_simd_##sh##_replace_lane(                   \
	    eng_v128 a, uint64_t x, unsigned lane)                             \
	{                                                                      \
		a.u##B[lane] = (uint##B##_t)x;                                 \
		return a;                                                      \
	}
#define SIMD_EXTRACT(sh, B)                                                    \
	static inline uint64_t eng_simd_##sh##_extract_lane(eng_v128 a,        \
							    unsigned lane)     \
	{                                                                      \
		return a.u##B[lane];                                           \
	}
/* The narrow lanes extract to an i32, sign- or zero-extended. */
#define SIMD_EXTRACT_SU(sh, B)                                                 \
	static inline uint64_t eng_simd_##sh##_extract_lane_s(eng_v128 a,      \
							      unsigned lane)   \
	{                                                                      \
		return (uint32_t)(int32_t)a.i##B[lane];                        \
	}                                                                      \
	static inline uint64_t eng_simd_##sh##_extract_lane_u(eng_v128 a,      \
							      unsigned lane)   \
	{                                                                      \
		return a.u##B[lane];                                           \
	}

SIMD_LANES(i8x16, 8)
SIMD_LANES(i16x8, 16)
SIMD_LANES(i32x4, 32)
SIMD_LANES(i64x2, 64)
SIMD_LANES(f32x4, 32)
SIMD_LANES(f64x2, 64)
SIMD_EXTRACT_SU(i8x16, 8)
SIMD_EXTRACT_SU(i16x8, 16)
SIMD_EXTRACT(i32x4, 32)
SIMD_EXTRACT(i64x2, 64)
SIMD_EXTRACT(f32x4, 32)
SIMD_EXTRACT(f64x2, 64)

SIMD_INT(i8x16, 8)
SIMD_INT(i16x8, 16)
SIMD_INT(i32x4, 32)
SIMD_INT(i64x2, 64)
SIMD_INT_ORD(i8x16, 8)
SIMD_INT_ORD(i16x8, 16)
SIMD_INT_ORD(i32x4, 32)
SIMD_INT_SAT(i8x16, 8)
SIMD_INT_SAT(i16x8, 16)
SIMD_WIDEN(i16x8, i8x16, 16, 8)
SIMD_WIDEN(i32x4, i16x8, 32, 16)
SIMD_WIDEN(i64x2, i32x4, 64, 32)
SIMD_EXTADD(i16x8, i8x16, 16, 8)
SIMD_EXTADD(i32x4, i16x8, 32, 16)
SIMD_NARROW(i8x16_narrow_i16x8_s, 8, 16, INT8_MIN, INT8_MAX)
SIMD_NARROW(i8x16_narrow_i16x8_u, 8, 16, 0, UINT8_MAX)
SIMD_NARROW(i16x8_narrow_i32x4_s, 16, 32, INT16_MIN, INT16_MAX)
SIMD_NARROW(i16x8_narrow_i32x4_u, 16, 32, 0, UINT16_MAX)
SIMD_FLOAT(f32x4, 32, float, f, 0x7fc00000u)
SIMD_FLOAT(f64x2, 64, double, , 0x7ff8000000000000u)

SIMD_MAP2(i16x8_mul, u16, 8, (0u + a.u16[i]) * b.u16[i])
SIMD_MAP2(i32x4_mul, u32, 4, (0u + a.u32[i]) * b.u32[i])
SIMD_MAP2(i64x2_mul, u64, 2, (0u + a.u64[i]) * b.u64[i])
SIMD_MAP1(i8x16_popcnt, u8, 16, simd_popcnt8(a.u8[i]))
/* The product is at most 2^30 in magnitude; only -32768 * -32768 rounds
 * to 2^15, which saturates. */
SIMD_MAP2(i16x8_q15mulr_sat_s, i16, 8,
	  simd_clamp((a.i16[i] * b.i16[i] + 0x4000) >> 15, INT16_MIN,
		     INT16_MAX))
/* Two products of -32768 * -32768 sum to 2^31, which Wasm wraps: the
 * sum is taken in uint32_t. */
SIMD_MAP2(i32x4_dot_i16x8_s, u32, 4,
	  (uint32_t)(a.i16[2 * i] * b.i16[2 * i]) +
	      (uint32_t)(a.i16[2 * i + 1] * b.i16[2 * i + 1]))

SIMD_MAP1(v128_not, u64, 2, ~a.u64[i])
SIMD_MAP2(v128_and, u64, 2, a.u64[i] & b.u64[i])
SIMD_MAP2(v128_andnot, u64, 2, a.u64[i] & ~b.u64[i])
SIMD_MAP2(v128_or, u64, 2, a.u64[i] | b.u64[i])
SIMD_MAP2(v128_xor, u64, 2, a.u64[i] ^ b.u64[i])

/* Bits of a where c is 1, of b where it is 0. */
static inline eng_v128 eng_simd_v128_bitselect(eng_v128 a, eng_v128 b,
					       eng_v128 c)
{
	eng_v128 r;
	for (unsigned i = 0; i < 2; i++)
		r.u64[i] = (a.u64[i] & c.u64[i]) | (b.u64[i] & ~c.u64[i]);
	return r;
}

static inline uint64_t eng_simd_v128_any_true(eng_v128 a)
{
	return (a.u64[0] | a.u64[1]) != 0;
}

SIMD_MAP2(i8x16_swizzle, u8, 16, b.u8[i] < 16 ? a.u8[b.u8[i]] : 0)

/* idx[i] < 32 picks byte idx[i] of a then b, as one 32-byte array. */
static inline eng_v128 eng_simd_i8x16_shuffle(eng_v128 a, eng_v128 b,
					      const uint8_t idx[16])
{
	uint8_t ab[32];
	eng_v128 r;

	memcpy(ab, a.u8, 16);
	memcpy(ab + 16, b.u8, 16);
	for (unsigned i = 0; i < 16; i++)
		r.u8[i] = ab[idx[i]];
	return r;
}

SIMD_MAP1(i32x4_trunc_sat_f32x4_s, i32, 4, simd_trunc_sat_s(a.f32[i]))
SIMD_MAP1(i32x4_trunc_sat_f32x4_u, u32, 4, simd_trunc_sat_u(a.f32[i]))
SIMD_MAP1_ZERO(i32x4_trunc_sat_f64x2_s_zero, i32, 2, simd_trunc_sat_s(a.f64[i]))
SIMD_MAP1_ZERO(i32x4_trunc_sat_f64x2_u_zero, u32, 2, simd_trunc_sat_u(a.f64[i]))
/* C rounds an integer to float once, to nearest even, in either case. */
SIMD_MAP1(f32x4_convert_i32x4_s, f32, 4, (float)a.i32[i])
SIMD_MAP1(f32x4_convert_i32x4_u, f32, 4, (float)a.u32[i])
SIMD_MAP1(f64x2_convert_low_i32x4_s, f64, 2, a.i32[i])
SIMD_MAP1(f64x2_convert_low_i32x4_u, f64, 2, a.u32[i])
SIMD_MAP1_ZERO(f32x4_demote_f64x2_zero, f32, 2, (float)a.f64[i])
SIMD_MAP1(f64x2_promote_low_f32x4, f64, 2, a.f32[i])

static inline eng_v128 eng_simd_v128_load(const uint8_t *p)
{
	eng_v128 r;
	memcpy(&r, p, 16);
	return r;
}

/* The low B bits of a vector from memory, the rest zero. */
#define SIMD_LOAD_ZERO(B)                                                      \
	static inline eng_v128 eng_simd_v128_load##B##_zero(const uint8_t *p)  \
	{                                                                      \
		eng_v128 r = {0};                                              \
		memcpy(&r, p, B / 8);                                          \
		return r;                                                      \
	}
#define SIMD_LOAD_SPLAT(sh, B)                                                 \
	static inline eng_v128 eng_simd_v128_load##B##_splat(const uint8_t *p) \
	{                                                                      \
		uint##B##_t x;                                                 \
		memcpy(&x, p, sizeof x);                                       \
		return eng_simd_##sh##_splat(x);                               \
	}
/* load8x8_s and the like: 8 bytes, then widened like extend_low. */
#define SIMD_LOAD_EXT(name, sh, from)                                          \
	static inline eng_v128 eng_simd_v128_##name##_s(const uint8_t *p)      \
	{                                                                      \
		return eng_simd_##sh##_extend_low_##from##_s(                  \
		    eng_simd_v128_load64_zero(p));                             \
	}                                                                      \
	static inline eng_v128 eng_simd_v128_##name##_u(const uint8_t *p)      \
	{                                                                      \
		return eng_simd_##sh##_extend_low_##from##_u(                  \
		    eng_simd_v128_load64_zero(p));                             \
	}
#define SIMD_MEM_LANE(B)                                                       \
	static inline eng_v128 eng_simd_v128_load##B##_lane(                   \
	    eng_v128 v, const uint8_t *p, unsigned lane)                       \
	{                                                                      \
		memcpy(&v.u##B[lane], p, B / 8);                               \
		return v;                                                      \
	}                                                                      \
	static inline void eng_simd_v128_store##B##_lane(                      \
	    uint8_t *p, eng_v128 v, unsigned lane)                             \
	{                                                                      \
		memcpy(p, &v.u##B[lane], B / 8);                               \
	}

SIMD_LOAD_ZERO(32)
SIMD_LOAD_ZERO(64)
SIMD_LOAD_SPLAT(i8x16, 8)
SIMD_LOAD_SPLAT(i16x8, 16)
SIMD_LOAD_SPLAT(i32x4, 32)
SIMD_LOAD_SPLAT(i64x2, 64)
SIMD_LOAD_EXT(load8x8, i16x8, i8x16)
SIMD_LOAD_EXT(load16x4, i32x4, i16x8)
SIMD_LOAD_EXT(load32x2, i64x2, i32x4)
SIMD_MEM_LANE(8)
SIMD_MEM_LANE(16)
SIMD_MEM_LANE(32)
SIMD_MEM_LANE(64)

#undef SIMD_MAP1
#undef SIMD_MAP2
#undef SIMD_MAP1_ZERO
#undef SIMD_INT
#undef SIMD_SHIFT
#undef SIMD_INT_ORD
#undef SIMD_INT_SAT
#undef SIMD_WIDEN
#undef SIMD_EXTADD
#undef SIMD_NARROW
#undef SIMD_FLOAT
#undef SIMD_QROUND
#undef SIMD_LANES
#undef SIMD_EXTRACT
#undef SIMD_EXTRACT_SU
#undef SIMD_LOAD_ZERO
#undef SIMD_LOAD_SPLAT
#undef SIMD_LOAD_EXT
#undef SIMD_MEM_LANE

/* The lists, in opcodes.def order. */
#define ENG_SIMD_UNOPS(X)                                                      \
	X(V128_NOT, v128_not)                                                  \
	X(F32X4_DEMOTE_F64X2_ZERO, f32x4_demote_f64x2_zero)                    \
	X(F64X2_PROMOTE_LOW_F32X4, f64x2_promote_low_f32x4)                    \
	X(I8X16_ABS, i8x16_abs)                                                \
	X(I8X16_NEG, i8x16_neg)                                                \
	X(I8X16_POPCNT, i8x16_popcnt)                                          \
	X(F32X4_CEIL, f32x4_ceil)                                              \
	X(F32X4_FLOOR, f32x4_floor)                                            \
	X(F32X4_TRUNC, f32x4_trunc)                                            \
	X(F32X4_NEAREST, f32x4_nearest)                                        \
	X(F64X2_CEIL, f64x2_ceil)                                              \
	X(F64X2_FLOOR, f64x2_floor)                                            \
	X(F64X2_TRUNC, f64x2_trunc)                                            \
	X(I16X8_EXTADD_PAIRWISE_I8X16_S, i16x8_extadd_pairwise_i8x16_s)        \
	X(I16X8_EXTADD_PAIRWISE_I8X16_U, i16x8_extadd_pairwise_i8x16_u)        \
	X(I32X4_EXTADD_PAIRWISE_I16X8_S, i32x4_extadd_pairwise_i16x8_s)        \
	X(I32X4_EXTADD_PAIRWISE_I16X8_U, i32x4_extadd_pairwise_i16x8_u)        \
	X(I16X8_ABS, i16x8_abs)                                                \
	X(I16X8_NEG, i16x8_neg)                                                \
	X(I16X8_EXTEND_LOW_I8X16_S, i16x8_extend_low_i8x16_s)                  \
	X(I16X8_EXTEND_HIGH_I8X16_S, i16x8_extend_high_i8x16_s)                \
	X(I16X8_EXTEND_LOW_I8X16_U, i16x8_extend_low_i8x16_u)                  \
	X(I16X8_EXTEND_HIGH_I8X16_U, i16x8_extend_high_i8x16_u)                \
	X(F64X2_NEAREST, f64x2_nearest)                                        \
	X(I32X4_ABS, i32x4_abs)                                                \
	X(I32X4_NEG, i32x4_neg)                                                \
	X(I32X4_EXTEND_LOW_I16X8_S, i32x4_extend_low_i16x8_s)                  \
	X(I32X4_EXTEND_HIGH_I16X8_S, i32x4_extend_high_i16x8_s)                \
	X(I32X4_EXTEND_LOW_I16X8_U, i32x4_extend_low_i16x8_u)                  \
	X(I32X4_EXTEND_HIGH_I16X8_U, i32x4_extend_high_i16x8_u)                \
	X(I64X2_ABS, i64x2_abs)                                                \
	X(I64X2_NEG, i64x2_neg)                                                \
	X(I64X2_EXTEND_LOW_I32X4_S, i64x2_extend_low_i32x4_s)                  \
	X(I64X2_EXTEND_HIGH_I32X4_S, i64x2_extend_high_i32x4_s)                \
	X(I64X2_EXTEND_LOW_I32X4_U, i64x2_extend_low_i32x4_u)                  \
	X(I64X2_EXTEND_HIGH_I32X4_U, i64x2_extend_high_i32x4_u)                \
	X(F32X4_ABS, f32x4_abs)                                                \
	X(F32X4_NEG, f32x4_neg)                                                \
	X(F32X4_SQRT, f32x4_sqrt)                                              \
	X(F64X2_ABS, f64x2_abs)                                                \
	X(F64X2_NEG, f64x2_neg)                                                \
	X(F64X2_SQRT, f64x2_sqrt)                                              \
	X(I32X4_TRUNC_SAT_F32X4_S, i32x4_trunc_sat_f32x4_s)                    \
	X(I32X4_TRUNC_SAT_F32X4_U, i32x4_trunc_sat_f32x4_u)                    \
	X(F32X4_CONVERT_I32X4_S, f32x4_convert_i32x4_s)                        \
	X(F32X4_CONVERT_I32X4_U, f32x4_convert_i32x4_u)                        \
	X(I32X4_TRUNC_SAT_F64X2_S_ZERO, i32x4_trunc_sat_f64x2_s_zero)          \
	X(I32X4_TRUNC_SAT_F64X2_U_ZERO, i32x4_trunc_sat_f64x2_u_zero)          \
	X(F64X2_CONVERT_LOW_I32X4_S, f64x2_convert_low_i32x4_s)                \
	X(F64X2_CONVERT_LOW_I32X4_U, f64x2_convert_low_i32x4_u)

#define ENG_SIMD_BINOPS(X)                                                     \
	X(I8X16_SWIZZLE, i8x16_swizzle)                                        \
	X(I8X16_EQ, i8x16_eq)                                                  \
	X(I8X16_NE, i8x16_ne)                                                  \
	X(I8X16_LT_S, i8x16_lt_s)                                              \
	X(I8X16_LT_U, i8x16_lt_u)                                              \
	X(I8X16_GT_S, i8x16_gt_s)                                              \
	X(I8X16_GT_U, i8x16_gt_u)                                              \
	X(I8X16_LE_S, i8x16_le_s)                                              \
	X(I8X16_LE_U, i8x16_le_u)                                              \
	X(I8X16_GE_S, i8x16_ge_s)                                              \
	X(I8X16_GE_U, i8x16_ge_u)                                              \
	X(I16X8_EQ, i16x8_eq)                                                  \
	X(I16X8_NE, i16x8_ne)                                                  \
	X(I16X8_LT_S, i16x8_lt_s)                                              \
	X(I16X8_LT_U, i16x8_lt_u)                                              \
	X(I16X8_GT_S, i16x8_gt_s)                                              \
	X(I16X8_GT_U, i16x8_gt_u)                                              \
	X(I16X8_LE_S, i16x8_le_s)                                              \
	X(I16X8_LE_U, i16x8_le_u)                                              \
	X(I16X8_GE_S, i16x8_ge_s)                                              \
	X(I16X8_GE_U, i16x8_ge_u)                                              \
	X(I32X4_EQ, i32x4_eq)                                                  \
	X(I32X4_NE, i32x4_ne)                                                  \
	X(I32X4_LT_S, i32x4_lt_s)                                              \
	X(I32X4_LT_U, i32x4_lt_u)                                              \
	X(I32X4_GT_S, i32x4_gt_s)                                              \
	X(I32X4_GT_U, i32x4_gt_u)                                              \
	X(I32X4_LE_S, i32x4_le_s)                                              \
	X(I32X4_LE_U, i32x4_le_u)                                              \
	X(I32X4_GE_S, i32x4_ge_s)                                              \
	X(I32X4_GE_U, i32x4_ge_u)                                              \
	X(F32X4_EQ, f32x4_eq)                                                  \
	X(F32X4_NE, f32x4_ne)                                                  \
	X(F32X4_LT, f32x4_lt)                                                  \
	X(F32X4_GT, f32x4_gt)                                                  \
	X(F32X4_LE, f32x4_le)                                                  \
	X(F32X4_GE, f32x4_ge)                                                  \
	X(F64X2_EQ, f64x2_eq)                                                  \
	X(F64X2_NE, f64x2_ne)                                                  \
	X(F64X2_LT, f64x2_lt)                                                  \
	X(F64X2_GT, f64x2_gt)                                                  \
	X(F64X2_LE, f64x2_le)                                                  \
	X(F64X2_GE, f64x2_ge)                                                  \
	X(V128_AND, v128_and)                                                  \
	X(V128_ANDNOT, v128_andnot)                                            \
	X(V128_OR, v128_or)                                                    \
	X(V128_XOR, v128_xor)                                                  \
	X(I8X16_NARROW_I16X8_S, i8x16_narrow_i16x8_s)                          \
	X(I8X16_NARROW_I16X8_U, i8x16_narrow_i16x8_u)                          \
	X(I8X16_ADD, i8x16_add)                                                \
	X(I8X16_ADD_SAT_S, i8x16_add_sat_s)                                    \
	X(I8X16_ADD_SAT_U, i8x16_add_sat_u)                                    \
	X(I8X16_SUB, i8x16_sub)                                                \
	X(I8X16_SUB_SAT_S, i8x16_sub_sat_s)                                    \
	X(I8X16_SUB_SAT_U, i8x16_sub_sat_u)                                    \
	X(I8X16_MIN_S, i8x16_min_s)                                            \
	X(I8X16_MIN_U, i8x16_min_u)                                            \
	X(I8X16_MAX_S, i8x16_max_s)                                            \
	X(I8X16_MAX_U, i8x16_max_u)                                            \
	X(I8X16_AVGR_U, i8x16_avgr_u)                                          \
	X(I16X8_Q15MULR_SAT_S, i16x8_q15mulr_sat_s)                            \
	X(I16X8_NARROW_I32X4_S, i16x8_narrow_i32x4_s)                          \
	X(I16X8_NARROW_I32X4_U, i16x8_narrow_i32x4_u)                          \
	X(I16X8_ADD, i16x8_add)                                                \
	X(I16X8_ADD_SAT_S, i16x8_add_sat_s)                                    \
	X(I16X8_ADD_SAT_U, i16x8_add_sat_u)                                    \
	X(I16X8_SUB, i16x8_sub)                                                \
	X(I16X8_SUB_SAT_S, i16x8_sub_sat_s)                                    \
	X(I16X8_SUB_SAT_U, i16x8_sub_sat_u)                                    \
	X(I16X8_MUL, i16x8_mul)                                                \
	X(I16X8_MIN_S, i16x8_min_s)                                            \
	X(I16X8_MIN_U, i16x8_min_u)                                            \
	X(I16X8_MAX_S, i16x8_max_s)                                            \
	X(I16X8_MAX_U, i16x8_max_u)                                            \
	X(I16X8_AVGR_U, i16x8_avgr_u)                                          \
	X(I16X8_EXTMUL_LOW_I8X16_S, i16x8_extmul_low_i8x16_s)                  \
	X(I16X8_EXTMUL_HIGH_I8X16_S, i16x8_extmul_high_i8x16_s)                \
	X(I16X8_EXTMUL_LOW_I8X16_U, i16x8_extmul_low_i8x16_u)                  \
	X(I16X8_EXTMUL_HIGH_I8X16_U, i16x8_extmul_high_i8x16_u)                \
	X(I32X4_ADD, i32x4_add)                                                \
	X(I32X4_SUB, i32x4_sub)                                                \
	X(I32X4_MUL, i32x4_mul)                                                \
	X(I32X4_MIN_S, i32x4_min_s)                                            \
	X(I32X4_MIN_U, i32x4_min_u)                                            \
	X(I32X4_MAX_S, i32x4_max_s)                                            \
	X(I32X4_MAX_U, i32x4_max_u)                                            \
	X(I32X4_DOT_I16X8_S, i32x4_dot_i16x8_s)                                \
	X(I32X4_EXTMUL_LOW_I16X8_S, i32x4_extmul_low_i16x8_s)                  \
	X(I32X4_EXTMUL_HIGH_I16X8_S, i32x4_extmul_high_i16x8_s)                \
	X(I32X4_EXTMUL_LOW_I16X8_U, i32x4_extmul_low_i16x8_u)                  \
	X(I32X4_EXTMUL_HIGH_I16X8_U, i32x4_extmul_high_i16x8_u)                \
	X(I64X2_ADD, i64x2_add)                                                \
	X(I64X2_SUB, i64x2_sub)                                                \
	X(I64X2_MUL, i64x2_mul)                                                \
	X(I64X2_EQ, i64x2_eq)                                                  \
	X(I64X2_NE, i64x2_ne)                                                  \
	X(I64X2_LT_S, i64x2_lt_s)                                              \
	X(I64X2_GT_S, i64x2_gt_s)                                              \
	X(I64X2_LE_S, i64x2_le_s)                                              \
	X(I64X2_GE_S, i64x2_ge_s)                                              \
	X(I64X2_EXTMUL_LOW_I32X4_S, i64x2_extmul_low_i32x4_s)                  \
	X(I64X2_EXTMUL_HIGH_I32X4_S, i64x2_extmul_high_i32x4_s)                \
	X(I64X2_EXTMUL_LOW_I32X4_U, i64x2_extmul_low_i32x4_u)                  \
	X(I64X2_EXTMUL_HIGH_I32X4_U, i64x2_extmul_high_i32x4_u)                \
	X(F32X4_ADD, f32x4_add)                                                \
	X(F32X4_SUB, f32x4_sub)                                                \
	X(F32X4_MUL, f32x4_mul)                                                \
	X(F32X4_DIV, f32x4_div)                                                \
	X(F32X4_MIN, f32x4_min)                                                \
	X(F32X4_MAX, f32x4_max)                                                \
	X(F32X4_PMIN, f32x4_pmin)                                              \
	X(F32X4_PMAX, f32x4_pmax)                                              \
	X(F64X2_ADD, f64x2_add)                                                \
	X(F64X2_SUB, f64x2_sub)                                                \
	X(F64X2_MUL, f64x2_mul)                                                \
	X(F64X2_DIV, f64x2_div)                                                \
	X(F64X2_MIN, f64x2_min)                                                \
	X(F64X2_MAX, f64x2_max)                                                \
	X(F64X2_PMIN, f64x2_pmin)                                              \
	X(F64X2_PMAX, f64x2_pmax)

#define ENG_SIMD_TERNOPS(X) X(V128_BITSELECT, v128_bitselect)

#define ENG_SIMD_SHIFTS(X)                                                     \
	X(I8X16_SHL, i8x16_shl)                                                \
	X(I8X16_SHR_S, i8x16_shr_s)                                            \
	X(I8X16_SHR_U, i8x16_shr_u)                                            \
	X(I16X8_SHL, i16x8_shl)                                                \
	X(I16X8_SHR_S, i16x8_shr_s)                                            \
	X(I16X8_SHR_U, i16x8_shr_u)                                            \
	X(I32X4_SHL, i32x4_shl)                                                \
	X(I32X4_SHR_S, i32x4_shr_s)                                            \
	X(I32X4_SHR_U, i32x4_shr_u)                                            \
	X(I64X2_SHL, i64x2_shl)                                                \
	X(I64X2_SHR_S, i64x2_shr_s)                                            \
	X(I64X2_SHR_U, i64x2_shr_u)

#define ENG_SIMD_TESTS(X)                                                      \
	X(V128_ANY_TRUE, v128_any_true)                                        \
	X(I8X16_ALL_TRUE, i8x16_all_true)                                      \
	X(I8X16_BITMASK, i8x16_bitmask)                                        \
	X(I16X8_ALL_TRUE, i16x8_all_true)                                      \
	X(I16X8_BITMASK, i16x8_bitmask)                                        \
	X(I32X4_ALL_TRUE, i32x4_all_true)                                      \
	X(I32X4_BITMASK, i32x4_bitmask)                                        \
	X(I64X2_ALL_TRUE, i64x2_all_true)                                      \
	X(I64X2_BITMASK, i64x2_bitmask)

#define ENG_SIMD_SPLATS(X)                                                     \
	X(I8X16_SPLAT, i8x16_splat)                                            \
	X(I16X8_SPLAT, i16x8_splat)                                            \
	X(I32X4_SPLAT, i32x4_splat)                                            \
	X(I64X2_SPLAT, i64x2_splat)                                            \
	X(F32X4_SPLAT, f32x4_splat)                                            \
	X(F64X2_SPLAT, f64x2_splat)

#define ENG_SIMD_EXTRACTS(X)                                                   \
	X(I8X16_EXTRACT_LANE_S, i8x16_extract_lane_s)                          \
	X(I8X16_EXTRACT_LANE_U, i8x16_extract_lane_u)                          \
	X(I16X8_EXTRACT_LANE_S, i16x8_extract_lane_s)                          \
	X(I16X8_EXTRACT_LANE_U, i16x8_extract_lane_u)                          \
	X(I32X4_EXTRACT_LANE, i32x4_extract_lane)                              \
	X(I64X2_EXTRACT_LANE, i64x2_extract_lane)                              \
	X(F32X4_EXTRACT_LANE, f32x4_extract_lane)                              \
	X(F64X2_EXTRACT_LANE, f64x2_extract_lane)

#define ENG_SIMD_REPLACES(X)                                                   \
	X(I8X16_REPLACE_LANE, i8x16_replace_lane)                              \
	X(I16X8_REPLACE_LANE, i16x8_replace_lane)                              \
	X(I32X4_REPLACE_LANE, i32x4_replace_lane)                              \
	X(I64X2_REPLACE_LANE, i64x2_replace_lane)                              \
	X(F32X4_REPLACE_LANE, f32x4_replace_lane)                              \
	X(F64X2_REPLACE_LANE, f64x2_replace_lane)

#define ENG_SIMD_LOADS(X)                                                      \
	X(V128_LOAD, v128_load)                                                \
	X(V128_LOAD8X8_S, v128_load8x8_s)                                      \
	X(V128_LOAD8X8_U, v128_load8x8_u)                                      \
	X(V128_LOAD16X4_S, v128_load16x4_s)                                    \
	X(V128_LOAD16X4_U, v128_load16x4_u)                                    \
	X(V128_LOAD32X2_S, v128_load32x2_s)                                    \
	X(V128_LOAD32X2_U, v128_load32x2_u)                                    \
	X(V128_LOAD8_SPLAT, v128_load8_splat)                                  \
	X(V128_LOAD16_SPLAT, v128_load16_splat)                                \
	X(V128_LOAD32_SPLAT, v128_load32_splat)                                \
	X(V128_LOAD64_SPLAT, v128_load64_splat)                                \
	X(V128_LOAD32_ZERO, v128_load32_zero)                                  \
	X(V128_LOAD64_ZERO, v128_load64_zero)

#define ENG_SIMD_LOAD_LANES(X)                                                 \
	X(V128_LOAD8_LANE, v128_load8_lane)                                    \
	X(V128_LOAD16_LANE, v128_load16_lane)                                  \
	X(V128_LOAD32_LANE, v128_load32_lane)                                  \
	X(V128_LOAD64_LANE, v128_load64_lane)

#define ENG_SIMD_STORE_LANES(X)                                                \
	X(V128_STORE8_LANE, v128_store8_lane)                                  \
	X(V128_STORE16_LANE, v128_store16_lane)                                \
	X(V128_STORE32_LANE, v128_store32_lane)                                \
	X(V128_STORE64_LANE, v128_store64_lane)

#endif
