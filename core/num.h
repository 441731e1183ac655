/*
 * num.h - the numeric semantics the interpreter (interp.c) and the
 * compiler's helpers (jit.c) share: bit casts, Wasm's min/max, rounding
 * that quiets NaNs, rotates, saturating truncations. Static inline, no
 * state.
 */
#ifndef HEISEN_CORE_NUM_H
#define HEISEN_CORE_NUM_H

#include <math.h>
#include <stdint.h>
#include <string.h>

static inline float f32_of(uint64_t v)
{
	float f;
	uint32_t u = (uint32_t)v;
	memcpy(&f, &u, 4);
	return f;
}

static inline uint64_t of_f32(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

static inline double f64_of(uint64_t v)
{
	double d;
	memcpy(&d, &v, 8);
	return d;
}

static inline uint64_t of_f64(double d)
{
	uint64_t u;
	memcpy(&u, &d, 8);
	return u;
}

static inline float fmin32(float a, float b)
{
	if (isnan(a) || isnan(b))
		return a + b;
	if (a == b)
		return signbit(a) ? a : b;
	return a < b ? a : b;
}

static inline float fmax32(float a, float b)
{
	if (isnan(a) || isnan(b))
		return a + b;
	if (a == b)
		return signbit(a) ? b : a;
	return a > b ? a : b;
}

static inline double fmin64(double a, double b)
{
	if (isnan(a) || isnan(b))
		return a + b;
	if (a == b)
		return signbit(a) ? a : b;
	return a < b ? a : b;
}

static inline double fmax64(double a, double b)
{
	if (isnan(a) || isnan(b))
		return a + b;
	if (a == b)
		return signbit(a) ? b : a;
	return a > b ? a : b;
}

/* Rounding functions of libm may return a signalling NaN unchanged; Wasm
 * wants an arithmetic (quiet) NaN. */
#define QROUND(name, T, fn)                                                    \
	static inline T name(T a) { return isnan(a) ? a + a : fn(a); }
QROUND(q_ceilf, float, ceilf)
QROUND(q_floorf, float, floorf)
QROUND(q_truncf, float, truncf)
QROUND(q_rintf, float, rintf)
QROUND(q_ceil, double, ceil)
QROUND(q_floor, double, floor)
QROUND(q_trunc, double, trunc)
QROUND(q_rint, double, rint)

static inline uint32_t rotl32(uint32_t a, uint32_t b)
{
	b &= 31;
	return (a << b) | (a >> ((32 - b) & 31));
}

static inline uint32_t rotr32(uint32_t a, uint32_t b)
{
	b &= 31;
	return (a >> b) | (a << ((32 - b) & 31));
}

static inline uint64_t rotl64(uint64_t a, uint64_t b)
{
	b &= 63;
	return (a << b) | (a >> ((64 - b) & 63));
}

static inline uint64_t rotr64(uint64_t a, uint64_t b)
{
	b &= 63;
	return (a >> b) | (a << ((64 - b) & 63));
}

/* Saturating truncations. */
static inline uint32_t sat_i32_s(double x)
{
	if (isnan(x))
		return 0;
	if (x <= -2147483649.0)
		return (uint32_t)INT32_MIN;
	if (x >= 2147483648.0)
		return (uint32_t)INT32_MAX;
	return (uint32_t)(int32_t)x;
}

static inline uint32_t sat_i32_u(double x)
{
	if (isnan(x) || x <= -1.0)
		return 0;
	if (x >= 4294967296.0)
		return UINT32_MAX;
	return (uint32_t)x;
}

static inline uint64_t sat_i64_s(double x)
{
	if (isnan(x))
		return 0;
	if (x < -9223372036854775808.0)
		return (uint64_t)INT64_MIN;
	if (x >= 9223372036854775808.0)
		return (uint64_t)INT64_MAX;
	return (uint64_t)(int64_t)x;
}

static inline uint64_t sat_i64_u(double x)
{
	if (isnan(x) || x <= -1.0)
		return 0;
	if (x >= 18446744073709551616.0)
		return UINT64_MAX;
	return (uint64_t)x;
}

/* Float to u64 when converting f32 to f64 loses nothing: the f32 helpers
 * go through double. */

/* The trapping truncations: X(id, float type, bits -> float, lower bound
 * holds, upper bound holds, result); NaN is an invalid conversion, a
 * bound that fails an integer overflow. */
#define NUM_TRUNCS(X)                                                          \
	X(I32_TRUNC_F32_S, float, f32_of, x >= -2147483648.0f,                 \
	  x < 2147483648.0f, (uint32_t)(int32_t)x)                             \
	X(I32_TRUNC_F32_U, float, f32_of, x > -1.0f, x < 4294967296.0f,        \
	  (uint32_t)x)                                                         \
	X(I32_TRUNC_F64_S, double, f64_of, x > -2147483649.0,                  \
	  x < 2147483648.0, (uint32_t)(int32_t)x)                              \
	X(I32_TRUNC_F64_U, double, f64_of, x > -1.0, x < 4294967296.0,         \
	  (uint32_t)x)                                                         \
	X(I64_TRUNC_F32_S, float, f32_of, x >= -9223372036854775808.0f,        \
	  x < 9223372036854775808.0f, (uint64_t)(int64_t)x)                    \
	X(I64_TRUNC_F32_U, float, f32_of, x > -1.0f,                           \
	  x < 18446744073709551616.0f, (uint64_t)x)                            \
	X(I64_TRUNC_F64_S, double, f64_of, x >= -9223372036854775808.0,        \
	  x < 9223372036854775808.0, (uint64_t)(int64_t)x)                     \
	X(I64_TRUNC_F64_U, double, f64_of, x > -1.0,                           \
	  x < 18446744073709551616.0, (uint64_t)x)

#endif
