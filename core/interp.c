/*
 * interp.c - the dispatch loop over the register code of compile.c.
 *
 * How it works:
 *   Computed goto: every instruction starts with its handler's label
 *   address; a handler does its work and jumps straight to the next
 *   handler (`goto *ip->h`), so each instruction has its own indirect
 *   branch. -DENG_SWITCH_DISPATCH builds the same handlers as cases of a
 *   switch on the opcode number kept in the code instead (both must stay
 *   correct; the test build can force the switch).
 *
 *   State in locals (registers): ip, fp (frame base), inst, mem0 (base
 *   of the instance's fast memory, eng_module.fast_mem, which never
 *   moves), the call-frame stack and its depth. Wasm->Wasm calls push an
 *   eng_frame and continue in the same C loop: the C stack does not grow
 *   with guest recursion. The
 *   callee's non-param locals are zeroed by an inline loop (the Makefile
 *   builds this file with -fno-tree-loop-distribute-patterns: as a
 *   memset call, with the spills around it, fib ran ~9 % slower).
 *
 *   Loads and stores compute base + (u64)addr + offset with no bounds
 *   check (the _AK twins: base + (u64)(u32)(addr + k) + offset, the
 *   i32.add that computed the address folded in, wrapping as it would):
 *   memories sit in 8 GiB+ reservations, so a bad address faults
 *   in a PROT_NONE page and runtime.c's signal handler longjmps to the
 *   innermost eng_call with the faulting instruction taken from th->pc,
 *   which every memory access stores first (one store to a hot line).
 *
 *   The stop flag is polled at loop back-edges (BR_POLL, BR_IF_POLL,
 *   backward compare-and-branch, backward br_table) and at calls: one
 *   relaxed load of a shared line that does not change until a stop, and
 *   a predicted-not-taken branch. Measured against a build without the
 *   checks (fib(32), 200x200 matmul, quicksort of 1M, a 30M-iteration
 *   hash loop): -2 % .. +9 %, inside the run-to-run noise of this shared
 *   2-core machine.
 *
 *   SIMD instructions read and write their v128 operands as slot pairs
 *   (engine_int.h); their lane semantics are simd.h's, expanded here
 *   from its lists, so the two dispatch builds share them too.
 *
 * Limitations:
 *   Floating-point NaN payloads follow the host (x86 quiets signalling
 *   NaNs); the spec allows it.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "engine_int.h"
#include "jit.h"
#include "num.h"
#include "simd.h"

#ifndef ENG_SWITCH_DISPATCH
static const void *const *handlers_table;

static void handlers_init(void)
{
	eng_trap tr;
	const eng_cell *pc;
	eng_instance *in;
	(void)eng_interp(NULL, NULL, NULL, false, &tr, &pc, &in);
}
#endif

const void *const *eng_interp_handlers(void)
{
#ifdef ENG_SWITCH_DISPATCH
	return NULL;
#else
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, handlers_init);
	return handlers_table;
#endif
}

#ifdef ENG_SWITCH_DISPATCH
#define DISPATCH() goto dispatch
#define OPCASE(x) case EOP_##x:
#else
#define DISPATCH() goto *ip->h
#define OPCASE(x) L_##x:
#endif
#define NEXT(n)                                                              \
	do {                                                                 \
		ip += (n);                                                   \
		DISPATCH();                                                  \
	} while (0)

/* Base of the fast memory of instance in (NULL if it has no memory). */
#define FAST_BASE(in)                                                        \
	((in)->mem_base ? (in)->mem_base[(in)->cm->fast_mem] : NULL)

/* Operand fields. */
#define D ip[1].u32[0]
#define A ip[1].u32[1]
#define B ip[2].u32[0]
#define KI ip[2].u64
#define I32(s) ((uint32_t)fp[s])
#define S32(s) ((int32_t)(uint32_t)fp[s])
#define I64(s) (fp[s])
#define S64(s) ((int64_t)fp[s])
#define F32(s) f32_of(fp[s])
#define F64(s) f64_of(fp[s])

#define TRAP(k)                                                              \
	do {                                                                 \
		kind = ENG_TRAP_##k;                                         \
		goto trap;                                                   \
	} while (0)

#define POLL()                                                               \
	do {                                                                 \
		if (__builtin_expect(                                        \
			    atomic_load_explicit(stopp,                      \
						 memory_order_relaxed),      \
			    0) &&                                            \
		    eng_rt_poll(th))                                         \
			goto stopped;                                        \
	} while (0)

/* Binary and unary ops: d = f(a, b). */
#define BIN_I32(name, expr)                                                  \
	OPCASE(name)                                                         \
	{                                                                    \
		uint32_t a = I32(A), b = I32(B);                             \
		fp[D] = (uint32_t)(expr);                                    \
		NEXT(3);                                                     \
	}                                                                    \
	OPCASE(name##_RI)                                                    \
	{                                                                    \
		uint32_t a = I32(A), b = (uint32_t)KI;                       \
		fp[D] = (uint32_t)(expr);                                    \
		NEXT(3);                                                     \
	}
#define BIN_I64(name, expr)                                                  \
	OPCASE(name)                                                         \
	{                                                                    \
		uint64_t a = I64(A), b = I64(B);                             \
		fp[D] = (uint64_t)(expr);                                    \
		NEXT(3);                                                     \
	}                                                                    \
	OPCASE(name##_RI)                                                    \
	{                                                                    \
		uint64_t a = I64(A), b = KI;                                 \
		fp[D] = (uint64_t)(expr);                                    \
		NEXT(3);                                                     \
	}
#define BIN_F32(name, expr)                                                  \
	OPCASE(name)                                                         \
	{                                                                    \
		float a = F32(A), b = F32(B);                                \
		fp[D] = of_f32(expr);                                        \
		NEXT(3);                                                     \
	}
#define BIN_F64(name, expr)                                                  \
	OPCASE(name)                                                         \
	{                                                                    \
		double a = F64(A), b = F64(B);                               \
		fp[D] = of_f64(expr);                                        \
		NEXT(3);                                                     \
	}
#define CMP_F32(name, expr)                                                  \
	OPCASE(name)                                                         \
	{                                                                    \
		float a = F32(A), b = F32(B);                                \
		fp[D] = (uint32_t)(expr);                                    \
		NEXT(3);                                                     \
	}
#define CMP_F64(name, expr)                                                  \
	OPCASE(name)                                                         \
	{                                                                    \
		double a = F64(A), b = F64(B);                               \
		fp[D] = (uint32_t)(expr);                                    \
		NEXT(3);                                                     \
	}
#define UN(name, T, get, expr)                                               \
	OPCASE(name)                                                         \
	{                                                                    \
		T a = get(A);                                                \
		fp[D] = (expr);                                              \
		NEXT(2);                                                     \
	}

/* Loads and stores: base is the memory's base, ea(s) the effective
 * address of address slot s (EA: plus the offset; EA_K: the _AK ops,
 * which add their constant first, wrapping at 32 bits as i32.add). */
#define EA(s) ((uint64_t)I32(s) + ip[2].u32[0])
#define EA_K(s) ((uint64_t)(uint32_t)(I32(s) + ip[2].u32[1]) + ip[2].u32[0])
#define LOAD(name, T, R, base, ea)                                           \
	OPCASE(name)                                                         \
	{                                                                    \
		T v;                                                         \
		th->pc = ip;                                                 \
		memcpy(&v, (base) + ea(A), sizeof v);                        \
		fp[D] = (R)v;                                                \
		NEXT(3);                                                     \
	}
#define STORE(name, T, base, ea)                                             \
	OPCASE(name)                                                         \
	{                                                                    \
		T v = (T)fp[ip[1].u32[1]];                                   \
		th->pc = ip;                                                 \
		memcpy((base) + ea(ip[1].u32[0]), &v, sizeof v);             \
		NEXT(3);                                                     \
	}
#define LOADS(X, base, ea, P)                                                \
	X(P##I32_LOAD, uint32_t, uint64_t, base, ea)                         \
	X(P##I64_LOAD, uint64_t, uint64_t, base, ea)                         \
	X(P##F32_LOAD, uint32_t, uint64_t, base, ea)                         \
	X(P##F64_LOAD, uint64_t, uint64_t, base, ea)                         \
	X(P##I32_LOAD8_S, int8_t, uint32_t, base, ea)                        \
	X(P##I32_LOAD8_U, uint8_t, uint64_t, base, ea)                       \
	X(P##I32_LOAD16_S, int16_t, uint32_t, base, ea)                      \
	X(P##I32_LOAD16_U, uint16_t, uint64_t, base, ea)                     \
	X(P##I64_LOAD8_S, int8_t, uint64_t, base, ea)                        \
	X(P##I64_LOAD8_U, uint8_t, uint64_t, base, ea)                       \
	X(P##I64_LOAD16_S, int16_t, uint64_t, base, ea)                      \
	X(P##I64_LOAD16_U, uint16_t, uint64_t, base, ea)                     \
	X(P##I64_LOAD32_S, int32_t, uint64_t, base, ea)                      \
	X(P##I64_LOAD32_U, uint32_t, uint64_t, base, ea)
#define STORES(X, base, ea, P)                                               \
	X(P##I32_STORE, uint32_t, base, ea)                                  \
	X(P##I64_STORE, uint64_t, base, ea)                                  \
	X(P##F32_STORE, uint32_t, base, ea)                                  \
	X(P##F64_STORE, uint64_t, base, ea)                                  \
	X(P##I32_STORE8, uint8_t, base, ea)                                  \
	X(P##I32_STORE16, uint16_t, base, ea)                                \
	X(P##I64_STORE8, uint8_t, base, ea)                                  \
	X(P##I64_STORE16, uint16_t, base, ea)                                \
	X(P##I64_STORE32, uint32_t, base, ea)

/* Atomics: {d,a} {b,c} {offset,mem}. The effective address must be a
 * multiple of the width; a misaligned one traps (out of bounds first if
 * it is also out of bounds). */
#define ATOMIC_ADDR(W)                                                       \
	eng_memory *amem = inst->mems[ip[3].u32[1]];                         \
	uint64_t ea = (uint64_t)I32(A) + ip[3].u32[0];                       \
	uint8_t *p = amem->base + ea;                                        \
	if (__builtin_expect(ea & ((W) - 1), 0)) {                           \
		if (ea + (W) > atomic_load_explicit(&amem->size,             \
						    memory_order_relaxed))   \
			TRAP(MEMORY_OOB);                                    \
		TRAP(UNALIGNED);                                             \
	}                                                                    \
	th->pc = ip;
#define ALOAD(name, T)                                                       \
	OPCASE(name)                                                         \
	{                                                                    \
		ATOMIC_ADDR(sizeof(T));                                      \
		fp[D] = (uint64_t)__atomic_load_n((T *)p, __ATOMIC_SEQ_CST); \
		NEXT(4);                                                     \
	}
#define ASTORE(name, T)                                                      \
	OPCASE(name)                                                         \
	{                                                                    \
		ATOMIC_ADDR(sizeof(T));                                      \
		__atomic_store_n((T *)p, (T)fp[B], __ATOMIC_SEQ_CST);        \
		NEXT(4);                                                     \
	}
#define ARMW(name, T, fn)                                                    \
	OPCASE(name)                                                         \
	{                                                                    \
		ATOMIC_ADDR(sizeof(T));                                      \
		fp[D] = (uint64_t)fn((T *)p, (T)fp[B], __ATOMIC_SEQ_CST);    \
		NEXT(4);                                                     \
	}
#define ACMPXCHG(name, T)                                                    \
	OPCASE(name)                                                         \
	{                                                                    \
		ATOMIC_ADDR(sizeof(T));                                      \
		T ex = (T)fp[B], rep = (T)fp[ip[2].u32[1]];                  \
		__atomic_compare_exchange_n((T *)p, &ex, rep, false,         \
					    __ATOMIC_SEQ_CST,                \
					    __ATOMIC_SEQ_CST);               \
		fp[D] = (uint64_t)ex;                                        \
		NEXT(4);                                                     \
	}
#define RMW_GROUP(X, OPN, fn)                                                \
	X(I32_ATOMIC_RMW_##OPN, uint32_t, fn)                                \
	X(I64_ATOMIC_RMW_##OPN, uint64_t, fn)                                \
	X(I32_ATOMIC_RMW8_##OPN##_U, uint8_t, fn)                            \
	X(I32_ATOMIC_RMW16_##OPN##_U, uint16_t, fn)                          \
	X(I64_ATOMIC_RMW8_##OPN##_U, uint8_t, fn)                            \
	X(I64_ATOMIC_RMW16_##OPN##_U, uint16_t, fn)                          \
	X(I64_ATOMIC_RMW32_##OPN##_U, uint32_t, fn)

#define REG_RMW_GROUP(OPN)                                                   \
	REG(I32_ATOMIC_RMW_##OPN)                                            \
	REG(I64_ATOMIC_RMW_##OPN)                                            \
	REG(I32_ATOMIC_RMW8_##OPN##_U)                                       \
	REG(I32_ATOMIC_RMW16_##OPN##_U)                                      \
	REG(I64_ATOMIC_RMW8_##OPN##_U)                                       \
	REG(I64_ATOMIC_RMW16_##OPN##_U)                                      \
	REG(I64_ATOMIC_RMW32_##OPN##_U)

#define XCHG_FN(p, v, mo) __atomic_exchange_n(p, v, mo)

/* SIMD: a v128 is copied out of its two slots and back (slots are only
 * 8-byte aligned; the copies become unaligned vector moves), and the
 * lane work is simd.h's. */
static inline eng_v128 v128_at(const eng_val *s)
{
	eng_v128 v;
	memcpy(&v, s, sizeof v);
	return v;
}

static inline void v128_put(eng_val *s, eng_v128 v)
{
	memcpy(s, &v, sizeof v);
}

#define V(s) v128_at(fp + (s))
#define VPUT(s, v) v128_put(fp + (s), (v))
#define VOP_BASE (inst->mem_base[ip[2].u32[1]])
#define VOP_UN(id, fn)                                                       \
	OPCASE(id)                                                           \
	{                                                                    \
		VPUT(D, eng_simd_##fn(V(A)));                                \
		NEXT(2);                                                     \
	}
#define VOP_BIN(id, fn)                                                      \
	OPCASE(id)                                                           \
	{                                                                    \
		VPUT(D, eng_simd_##fn(V(A), V(B)));                          \
		NEXT(3);                                                     \
	}
#define VOP_TERN(id, fn)                                                     \
	OPCASE(id)                                                           \
	{                                                                    \
		VPUT(D, eng_simd_##fn(V(A), V(B), V(ip[2].u32[1])));         \
		NEXT(3);                                                     \
	}
#define VOP_SHIFT(id, fn)                                                    \
	OPCASE(id)                                                           \
	{                                                                    \
		VPUT(D, eng_simd_##fn(V(A), fp[B]));                         \
		NEXT(3);                                                     \
	}
#define VOP_TEST(id, fn)                                                     \
	OPCASE(id)                                                           \
	{                                                                    \
		fp[D] = eng_simd_##fn(V(A));                                 \
		NEXT(2);                                                     \
	}
#define VOP_SPLAT(id, fn)                                                    \
	OPCASE(id)                                                           \
	{                                                                    \
		VPUT(D, eng_simd_##fn(fp[A]));                               \
		NEXT(2);                                                     \
	}
#define VOP_EXTRACT(id, fn)                                                  \
	OPCASE(id)                                                           \
	{                                                                    \
		fp[D] = eng_simd_##fn(V(A), B);                              \
		NEXT(3);                                                     \
	}
#define VOP_REPLACE(id, fn)                                                  \
	OPCASE(id)                                                           \
	{                                                                    \
		VPUT(D, eng_simd_##fn(V(A), fp[B], ip[2].u32[1]));           \
		NEXT(3);                                                     \
	}
#define VOP_LOAD(id, fn)                                                     \
	OPCASE(id)                                                           \
	{                                                                    \
		th->pc = ip;                                                 \
		VPUT(D, eng_simd_##fn(VOP_BASE + EA(A)));                    \
		NEXT(3);                                                     \
	}
#define VOP_LOAD_LANE(id, fn)                                                \
	OPCASE(id)                                                           \
	{                                                                    \
		th->pc = ip;                                                 \
		VPUT(D, eng_simd_##fn(V(ip[3].u32[0]), VOP_BASE + EA(A),     \
				      ip[3].u32[1]));                        \
		NEXT(4);                                                     \
	}
#define VOP_STORE_LANE(id, fn)                                               \
	OPCASE(id)                                                           \
	{                                                                    \
		th->pc = ip;                                                 \
		eng_simd_##fn(VOP_BASE + EA(ip[1].u32[0]), V(ip[1].u32[1]),  \
			      ip[3].u32[0]);                                 \
		NEXT(4);                                                     \
	}


/* Every handler label, for the computed-goto table (the compiler checks
 * this list against the labels both ways: unused or missing is an
 * error). */
#define REG_LOAD(name, T, R, base, ea) REG(name)
#define REG_STORE(name, T, base, ea) REG(name)
#define REG_RI(x) REG(x) REG(x##_RI)
#define REG_V(id, fn) REG(id)
#define INTERP_OPS(REG)                                                      \
	REG(MOV) REG(MOV2) REG(CONST) REG(BR) REG(BR_POLL) REG(BR_IF)        \
	REG(BR_IF_POLL) REG(BR_UNLESS) REG(BR_MEM8_Z) REG(MOV_BR_MEM8_Z)     \
	REG(BR_TABLE) REG_RI(BR_I32_EQ) REG_RI(BR_I32_NE)                    \
	REG_RI(BR_I32_LT_S) REG_RI(BR_I32_LT_U) REG_RI(BR_I32_GT_S)          \
	REG_RI(BR_I32_GT_U) REG_RI(BR_I32_LE_S) REG_RI(BR_I32_LE_U)          \
	REG_RI(BR_I32_GE_S) REG_RI(BR_I32_GE_U) REG(RETURN) REG(CALL)        \
	REG(CALL_IMPORT) REG(CALL_INDIRECT) REG(SELECT3) REG(GLOBAL_GET)     \
	REG(GLOBAL_SET) REG(GLOBAL_GET2) REG(GLOBAL_SET2) REG(GLOBAL_SET_SP) \
	REG(TRAP_UNREACHABLE) REG(THROW) REG(RETHROW)                        \
	REG(I32_EQZ) REG_RI(I32_EQ) REG_RI(I32_NE) REG_RI(I32_LT_S)          \
	REG_RI(I32_LT_U) REG_RI(I32_GT_S) REG_RI(I32_GT_U) REG_RI(I32_LE_S)  \
	REG_RI(I32_LE_U) REG_RI(I32_GE_S) REG_RI(I32_GE_U) REG(I32_CLZ)      \
	REG(I32_CTZ) REG(I32_POPCNT) REG_RI(I32_ADD) REG_RI(I32_SUB)         \
	REG_RI(I32_MUL) REG(I32_DIV_S) REG(I32_DIV_U) REG(I32_REM_S)         \
	REG(I32_REM_U) REG_RI(I32_AND) REG_RI(I32_OR) REG_RI(I32_XOR)        \
	REG_RI(I32_SHL) REG_RI(I32_SHR_S) REG_RI(I32_SHR_U) REG_RI(I32_ROTL) \
	REG_RI(I32_ROTR)                                                     \
	REG(I64_EQZ) REG_RI(I64_EQ) REG_RI(I64_NE) REG_RI(I64_LT_S)          \
	REG_RI(I64_LT_U) REG_RI(I64_GT_S) REG_RI(I64_GT_U) REG_RI(I64_LE_S)  \
	REG_RI(I64_LE_U) REG_RI(I64_GE_S) REG_RI(I64_GE_U) REG(I64_CLZ)      \
	REG(I64_CTZ) REG(I64_POPCNT) REG_RI(I64_ADD) REG_RI(I64_SUB)         \
	REG_RI(I64_MUL) REG(I64_DIV_S) REG(I64_DIV_U) REG(I64_REM_S)         \
	REG(I64_REM_U) REG_RI(I64_AND) REG_RI(I64_OR) REG_RI(I64_XOR)        \
	REG_RI(I64_SHL) REG_RI(I64_SHR_S) REG_RI(I64_SHR_U) REG_RI(I64_ROTL) \
	REG_RI(I64_ROTR)                                                     \
	REG(F32_EQ) REG(F32_NE) REG(F32_LT) REG(F32_GT) REG(F32_LE)          \
	REG(F32_GE) REG(F64_EQ) REG(F64_NE) REG(F64_LT) REG(F64_GT)          \
	REG(F64_LE) REG(F64_GE) REG(F32_ABS) REG(F32_NEG) REG(F32_CEIL)      \
	REG(F32_FLOOR) REG(F32_TRUNC) REG(F32_NEAREST) REG(F32_SQRT)         \
	REG(F32_ADD) REG(F32_SUB) REG(F32_MUL) REG(F32_DIV) REG(F32_MIN)     \
	REG(F32_MAX) REG(F32_COPYSIGN) REG(F64_ABS) REG(F64_NEG)             \
	REG(F64_CEIL) REG(F64_FLOOR) REG(F64_TRUNC) REG(F64_NEAREST)         \
	REG(F64_SQRT) REG(F64_ADD) REG(F64_SUB) REG(F64_MUL) REG(F64_DIV)    \
	REG(F64_MIN) REG(F64_MAX) REG(F64_COPYSIGN)                          \
	REG(I32_WRAP_I64) REG(I32_TRUNC_F32_S) REG(I32_TRUNC_F32_U)          \
	REG(I32_TRUNC_F64_S) REG(I32_TRUNC_F64_U) REG(I64_TRUNC_F32_S)       \
	REG(I64_TRUNC_F32_U) REG(I64_TRUNC_F64_S) REG(I64_TRUNC_F64_U)       \
	REG(I64_EXTEND_I32_S) REG(F32_CONVERT_I32_S) REG(F32_CONVERT_I32_U)  \
	REG(F32_CONVERT_I64_S) REG(F32_CONVERT_I64_U) REG(F32_DEMOTE_F64)    \
	REG(F64_CONVERT_I32_S) REG(F64_CONVERT_I32_U) REG(F64_CONVERT_I64_S) \
	REG(F64_CONVERT_I64_U) REG(F64_PROMOTE_F32) REG(I32_EXTEND8_S)       \
	REG(I32_EXTEND16_S) REG(I64_EXTEND8_S) REG(I64_EXTEND16_S)           \
	REG(I64_EXTEND32_S) REG(I32_TRUNC_SAT_F32_S) REG(I32_TRUNC_SAT_F32_U) \
	REG(I32_TRUNC_SAT_F64_S) REG(I32_TRUNC_SAT_F64_U)                    \
	REG(I64_TRUNC_SAT_F32_S) REG(I64_TRUNC_SAT_F32_U)                    \
	REG(I64_TRUNC_SAT_F64_S) REG(I64_TRUNC_SAT_F64_U)                    \
	REG(REF_IS_NULL) REG(REF_FUNC)                                       \
	LOADS(REG_LOAD, _, _, ) STORES(REG_STORE, _, _, )                    \
	LOADS(REG_LOAD, _, _, MN_) STORES(REG_STORE, _, _, MN_)              \
	LOADS(REG_LOAD, _, _, AK_) STORES(REG_STORE, _, _, AK_)              \
	REG(MEMORY_SIZE) REG(MEMORY_GROW) REG(MEMORY_FILL) REG(MEMORY_COPY)  \
	REG(MEMORY_INIT) REG(DATA_DROP) REG(TABLE_GET) REG(TABLE_SET)        \
	REG(TABLE_SIZE) REG(TABLE_GROW) REG(TABLE_FILL) REG(TABLE_COPY)      \
	REG(TABLE_INIT) REG(ELEM_DROP) REG(ATOMIC_FENCE)                     \
	REG(I32_ATOMIC_LOAD) REG(I64_ATOMIC_LOAD) REG(I32_ATOMIC_LOAD8_U)    \
	REG(I32_ATOMIC_LOAD16_U) REG(I64_ATOMIC_LOAD8_U)                     \
	REG(I64_ATOMIC_LOAD16_U) REG(I64_ATOMIC_LOAD32_U)                    \
	REG(I32_ATOMIC_STORE) REG(I64_ATOMIC_STORE) REG(I32_ATOMIC_STORE8)   \
	REG(I32_ATOMIC_STORE16) REG(I64_ATOMIC_STORE8)                       \
	REG(I64_ATOMIC_STORE16) REG(I64_ATOMIC_STORE32)                      \
	REG_RMW_GROUP(ADD) REG_RMW_GROUP(SUB) REG_RMW_GROUP(AND)             \
	REG_RMW_GROUP(OR) REG_RMW_GROUP(XOR) REG_RMW_GROUP(XCHG)             \
	REG(I32_ATOMIC_RMW_CMPXCHG) REG(I64_ATOMIC_RMW_CMPXCHG)              \
	REG(I32_ATOMIC_RMW8_CMPXCHG_U) REG(I32_ATOMIC_RMW16_CMPXCHG_U)       \
	REG(I64_ATOMIC_RMW8_CMPXCHG_U) REG(I64_ATOMIC_RMW16_CMPXCHG_U)       \
	REG(I64_ATOMIC_RMW32_CMPXCHG_U) REG(MEMORY_ATOMIC_NOTIFY)            \
	REG(MEMORY_ATOMIC_WAIT32) REG(MEMORY_ATOMIC_WAIT64)                  \
	REG(V128_CONST) REG(V128_STORE) REG(I8X16_SHUFFLE)                   \
	ENG_SIMD_UNOPS(REG_V) ENG_SIMD_BINOPS(REG_V)                         \
	ENG_SIMD_TERNOPS(REG_V) ENG_SIMD_SHIFTS(REG_V)                       \
	ENG_SIMD_TESTS(REG_V) ENG_SIMD_SPLATS(REG_V)                         \
	ENG_SIMD_EXTRACTS(REG_V) ENG_SIMD_REPLACES(REG_V)                    \
	ENG_SIMD_LOADS(REG_V) ENG_SIMD_LOAD_LANES(REG_V)                     \
	ENG_SIMD_STORE_LANES(REG_V)

eng_trap_kind eng_interp(eng_thread *th, eng_func *f, eng_val *base,
			 bool nested, eng_trap *trap, const eng_cell **trap_pc,
			 eng_instance **trap_inst)
{
#ifndef ENG_SWITCH_DISPATCH
	static const void *tbl[EOP_COUNT];
	if (!th) {
		for (int i = 0; i < EOP_COUNT; i++)
			tbl[i] = &&L_BAD;
#define REG(x) tbl[EOP_##x] = &&L_##x;
INTERP_OPS(REG)
#undef REG
		handlers_table = tbl;
		return ENG_OK;
	}
#else
	if (!th)
		return ENG_OK;
#endif
	const eng_cell *ip;
	eng_val *fp = base;
	eng_instance *inst = f->inst;
	uint8_t *mem0 = FAST_BASE(inst);
	eng_frame *frames = th->frames;
	uint32_t depth = th->depth;
	const uint32_t base_depth = nested ? depth - 1 : depth,
		       max_depth = th->max_depth;
	eng_val *const stack_end = th->stack_end;
	const atomic_int *const stopp = &th->proc->stop;
	eng_trap_kind kind = ENG_OK;
	unsigned wait_op = 0; /* which of notify and the waits runs */
	const eng_fn *cfn;
	eng_instance *cinst;
	eng_func *cf;
	uint32_t argbase;
	const eng_cell *retip;
	const void *jcode;

	*trap_pc = NULL;
	*trap_inst = inst;
	th->cur_inst = inst;
	cfn = f->fn;
	if (!nested) {
		if (depth >= max_depth || base + cfn->nslots > stack_end) {
			kind = ENG_TRAP_STACK;
			eng_trap_at(trap, kind, NULL, NULL, NULL);
			return kind;
		}
		frames[depth++] = (eng_frame){NULL, NULL, NULL};
		if ((jcode = eng_fn_code(inst->cm, cfn))) {
			th->depth = depth;
			eng_jit_run(th, inst, base, jcode);
			th->depth = base_depth;
			return ENG_OK;
		}
	}
	for (uint32_t i = cfn->nparams; i < cfn->nlocals; i++)
		fp[i] = 0;
	ip = cfn->code;

#ifdef ENG_SWITCH_DISPATCH
dispatch:
	switch (ip->op) {
#else
	DISPATCH();
	{
#endif

	/* ---- moves, constants, control ---------------------------------- */
	OPCASE(MOV)
	{
		fp[D] = fp[A];
		NEXT(2);
	}
	OPCASE(MOV2)
	{
		fp[D] = fp[A];
		fp[ip[2].u32[0]] = fp[ip[2].u32[1]];
		NEXT(3);
	}
	OPCASE(CONST)
	{
		fp[D] = KI;
		NEXT(3);
	}
	OPCASE(BR)
	{
		ip += ip[1].i32[0];
		DISPATCH();
	}
	OPCASE(BR_POLL)
	{
		POLL();
		ip += ip[1].i32[0];
		DISPATCH();
	}
	OPCASE(BR_IF)
	{
		if (I32(ip[1].u32[0]))
			ip += ip[1].i32[1];
		else
			ip += 2;
		DISPATCH();
	}
	OPCASE(BR_IF_POLL)
	{
		if (I32(ip[1].u32[0])) {
			POLL();
			ip += ip[1].i32[1];
		} else {
			ip += 2;
		}
		DISPATCH();
	}
	OPCASE(BR_UNLESS)
	{
		if (!I32(ip[1].u32[0]))
			ip += ip[1].i32[1];
		else
			ip += 2;
		DISPATCH();
	}
	OPCASE(BR_MEM8_Z)
	{
		th->pc = ip;
		if (!inst->mem_base[ip[1].u32[1]][ip[2].u64])
			ip += ip[1].i32[0];
		else
			ip += 3;
		DISPATCH();
	}
	OPCASE(MOV_BR_MEM8_Z)
	{
		fp[ip[3].u32[0]] = fp[ip[3].u32[1]];
		th->pc = ip;
		if (!inst->mem_base[ip[1].u32[1]][ip[2].u64])
			ip += ip[1].i32[0];
		else
			ip += 4;
		DISPATCH();
	}
	OPCASE(BR_TABLE)
	{
		uint32_t i = I32(ip[1].u32[0]), n = ip[1].u32[1];
		int32_t off;
		if (i > n)
			i = n;
		off = ip[2 + i / 2].i32[i % 2];
		if (off <= 0)
			POLL();
		ip += off;
		DISPATCH();
	}

#define BRC(name, T, get, op)                                                \
	OPCASE(BR_I32_##name)                                                \
	{                                                                    \
		T a = (T)get(ip[1].u32[0]), b = (T)get(ip[1].u32[1]);        \
		if (a op b) {                                                \
			int32_t off = ip[2].i32[0];                          \
			if (off <= 0)                                        \
				POLL();                                      \
			ip += off;                                           \
		} else {                                                     \
			ip += 3;                                             \
		}                                                            \
		DISPATCH();                                                  \
	}                                                                    \
	OPCASE(BR_I32_##name##_RI)                                           \
	{                                                                    \
		T a = (T)get(ip[1].u32[0]), b = (T)ip[1].u32[1];             \
		if (a op b) {                                                \
			int32_t off = ip[2].i32[0];                          \
			if (off <= 0)                                        \
				POLL();                                      \
			ip += off;                                           \
		} else {                                                     \
			ip += 3;                                             \
		}                                                            \
		DISPATCH();                                                  \
	}
	BRC(EQ, uint32_t, I32, ==)
	BRC(NE, uint32_t, I32, !=)
	BRC(LT_S, int32_t, I32, <)
	BRC(LT_U, uint32_t, I32, <)
	BRC(GT_S, int32_t, I32, >)
	BRC(GT_U, uint32_t, I32, >)
	BRC(LE_S, int32_t, I32, <=)
	BRC(LE_U, uint32_t, I32, <=)
	BRC(GE_S, int32_t, I32, >=)
	BRC(GE_U, uint32_t, I32, >=)
#undef BRC

	OPCASE(RETURN)
	{
		depth--;
		if (depth == base_depth)
			goto done;
		ip = frames[depth].ret_ip;
		fp = frames[depth].fp;
		if (frames[depth].inst != inst) {
			inst = frames[depth].inst;
			mem0 = FAST_BASE(inst);
			th->cur_inst = inst;
		}
		DISPATCH();
	}
	OPCASE(CALL)
	{
		cfn = ip[2].ptr;
		cinst = inst;
		argbase = ip[1].u32[0];
		retip = ip + 3;
		goto do_call;
	}
	OPCASE(CALL_IMPORT)
	{
		cf = inst->funcs[ip[1].u32[1]];
		argbase = ip[1].u32[0];
		retip = ip + 2;
		goto call_func;
	}
	OPCASE(CALL_INDIRECT)
	{
		eng_table *tab = inst->tables[ip[2].u32[1]];
		uint32_t i = I32(ip[1].u32[1]);
		if (i >= tab->size)
			TRAP(UNDEFINED_ELEM);
		cf = (eng_func *)(uintptr_t)tab->elems[i];
		if (!cf)
			TRAP(UNINIT_ELEM);
		if (cf->type_id != ip[2].u32[0])
			goto indirect_mismatch;
		argbase = ip[1].u32[0];
		retip = ip + 3;
		goto call_func;
	}
	OPCASE(SELECT3)
	{
		fp[D] = I32(ip[2].u32[1]) ? fp[A] : fp[B];
		NEXT(3);
	}
	OPCASE(GLOBAL_GET)
	{
		fp[D] = inst->globals[A]->val[0];
		NEXT(2);
	}
	OPCASE(GLOBAL_SET)
	{
		inst->globals[ip[1].u32[1]]->val[0] = fp[ip[1].u32[0]];
		NEXT(2);
	}
	OPCASE(GLOBAL_SET_SP)
	{
		/* Function prologues and epilogues with a frame: one more
		 * compare with a field of th. */
		if (__builtin_expect(I32(ip[1].u32[0]) < th->sp_lo, 0))
			goto c_stack_overflow;
		inst->globals[ip[1].u32[1]]->val[0] = fp[ip[1].u32[0]];
		NEXT(2);
	}
	OPCASE(GLOBAL_GET2)
	{
		memcpy(fp + D, inst->globals[A]->val, 16);
		NEXT(2);
	}
	OPCASE(GLOBAL_SET2)
	{
		memcpy(inst->globals[ip[1].u32[1]]->val, fp + ip[1].u32[0], 16);
		NEXT(2);
	}
	OPCASE(TRAP_UNREACHABLE)
	{
		TRAP(UNREACHABLE);
	}
	OPCASE(THROW)
	{
		if (!eng_exn_set(th, inst->tags[ip[1].u32[1]],
				 fp + ip[1].u32[0]))
			goto exn_nomem;
		goto unwind;
	}
	OPCASE(RETHROW)
	{
		/* What the catch at the label keeps (compile.c). */
		const eng_fn *xfn = eng_fn_of_pc(inst->cm, ip);
		const eng_val *kept = fp + xfn->handlers[ip[1].u32[0]].store;
		if (!eng_exn_set(th, (const eng_tag *)(uintptr_t)kept[0],
				 kept + 1))
			goto exn_nomem;
		goto unwind;
	}

	/* ---- SIMD ------------------------------------------------------- */
	OPCASE(V128_CONST)
	{
		memcpy(fp + D, &ip[2], 16);
		NEXT(4);
	}
	OPCASE(V128_STORE)
	{
		th->pc = ip;
		memcpy(VOP_BASE + EA(ip[1].u32[0]), fp + ip[1].u32[1], 16);
		NEXT(3);
	}
	OPCASE(I8X16_SHUFFLE)
	{
		VPUT(D, eng_simd_i8x16_shuffle(V(A), V(B),
					       (const uint8_t *)&ip[3]));
		NEXT(5);
	}
	ENG_SIMD_UNOPS(VOP_UN)
	ENG_SIMD_BINOPS(VOP_BIN)
	ENG_SIMD_TERNOPS(VOP_TERN)
	ENG_SIMD_SHIFTS(VOP_SHIFT)
	ENG_SIMD_TESTS(VOP_TEST)
	ENG_SIMD_SPLATS(VOP_SPLAT)
	ENG_SIMD_EXTRACTS(VOP_EXTRACT)
	ENG_SIMD_REPLACES(VOP_REPLACE)
	ENG_SIMD_LOADS(VOP_LOAD)
	ENG_SIMD_LOAD_LANES(VOP_LOAD_LANE)
	ENG_SIMD_STORE_LANES(VOP_STORE_LANE)

	/* ---- i32 -------------------------------------------------------- */
	UN(I32_EQZ, uint32_t, I32, (uint64_t)(a == 0))
	BIN_I32(I32_EQ, a == b)
	BIN_I32(I32_NE, a != b)
	BIN_I32(I32_LT_S, (int32_t)a < (int32_t)b)
	BIN_I32(I32_LT_U, a < b)
	BIN_I32(I32_GT_S, (int32_t)a > (int32_t)b)
	BIN_I32(I32_GT_U, a > b)
	BIN_I32(I32_LE_S, (int32_t)a <= (int32_t)b)
	BIN_I32(I32_LE_U, a <= b)
	BIN_I32(I32_GE_S, (int32_t)a >= (int32_t)b)
	BIN_I32(I32_GE_U, a >= b)
	UN(I32_CLZ, uint32_t, I32, (uint64_t)(a ? __builtin_clz(a) : 32))
	UN(I32_CTZ, uint32_t, I32, (uint64_t)(a ? __builtin_ctz(a) : 32))
	UN(I32_POPCNT, uint32_t, I32, (uint64_t)__builtin_popcount(a))
	BIN_I32(I32_ADD, a + b)
	BIN_I32(I32_SUB, a - b)
	BIN_I32(I32_MUL, a * b)
	OPCASE(I32_DIV_S)
	{
		int32_t a = S32(A), b = S32(B);
		if (b == 0)
			TRAP(DIV_ZERO);
		if (a == INT32_MIN && b == -1)
			TRAP(INT_OVERFLOW);
		fp[D] = (uint32_t)(a / b);
		NEXT(3);
	}
	OPCASE(I32_DIV_U)
	{
		uint32_t a = I32(A), b = I32(B);
		if (b == 0)
			TRAP(DIV_ZERO);
		fp[D] = a / b;
		NEXT(3);
	}
	OPCASE(I32_REM_S)
	{
		int32_t a = S32(A), b = S32(B);
		if (b == 0)
			TRAP(DIV_ZERO);
		fp[D] = b == -1 ? 0 : (uint32_t)(a % b);
		NEXT(3);
	}
	OPCASE(I32_REM_U)
	{
		uint32_t a = I32(A), b = I32(B);
		if (b == 0)
			TRAP(DIV_ZERO);
		fp[D] = a % b;
		NEXT(3);
	}
	BIN_I32(I32_AND, a & b)
	BIN_I32(I32_OR, a | b)
	BIN_I32(I32_XOR, a ^ b)
	BIN_I32(I32_SHL, a << (b & 31))
	BIN_I32(I32_SHR_S, (uint32_t)((int32_t)a >> (b & 31)))
	BIN_I32(I32_SHR_U, a >> (b & 31))
	BIN_I32(I32_ROTL, rotl32(a, b))
	BIN_I32(I32_ROTR, rotr32(a, b))

	/* ---- i64 -------------------------------------------------------- */
	UN(I64_EQZ, uint64_t, I64, (uint64_t)(a == 0))
	BIN_I64(I64_EQ, a == b)
	BIN_I64(I64_NE, a != b)
	BIN_I64(I64_LT_S, (int64_t)a < (int64_t)b)
	BIN_I64(I64_LT_U, a < b)
	BIN_I64(I64_GT_S, (int64_t)a > (int64_t)b)
	BIN_I64(I64_GT_U, a > b)
	BIN_I64(I64_LE_S, (int64_t)a <= (int64_t)b)
	BIN_I64(I64_LE_U, a <= b)
	BIN_I64(I64_GE_S, (int64_t)a >= (int64_t)b)
	BIN_I64(I64_GE_U, a >= b)
	UN(I64_CLZ, uint64_t, I64, (uint64_t)(a ? __builtin_clzll(a) : 64))
	UN(I64_CTZ, uint64_t, I64, (uint64_t)(a ? __builtin_ctzll(a) : 64))
	UN(I64_POPCNT, uint64_t, I64, (uint64_t)__builtin_popcountll(a))
	BIN_I64(I64_ADD, a + b)
	BIN_I64(I64_SUB, a - b)
	BIN_I64(I64_MUL, a * b)
	OPCASE(I64_DIV_S)
	{
		int64_t a = S64(A), b = S64(B);
		if (b == 0)
			TRAP(DIV_ZERO);
		if (a == INT64_MIN && b == -1)
			TRAP(INT_OVERFLOW);
		fp[D] = (uint64_t)(a / b);
		NEXT(3);
	}
	OPCASE(I64_DIV_U)
	{
		uint64_t a = I64(A), b = I64(B);
		if (b == 0)
			TRAP(DIV_ZERO);
		fp[D] = a / b;
		NEXT(3);
	}
	OPCASE(I64_REM_S)
	{
		int64_t a = S64(A), b = S64(B);
		if (b == 0)
			TRAP(DIV_ZERO);
		fp[D] = b == -1 ? 0 : (uint64_t)(a % b);
		NEXT(3);
	}
	OPCASE(I64_REM_U)
	{
		uint64_t a = I64(A), b = I64(B);
		if (b == 0)
			TRAP(DIV_ZERO);
		fp[D] = a % b;
		NEXT(3);
	}
	BIN_I64(I64_AND, a & b)
	BIN_I64(I64_OR, a | b)
	BIN_I64(I64_XOR, a ^ b)
	BIN_I64(I64_SHL, a << (b & 63))
	BIN_I64(I64_SHR_S, (uint64_t)((int64_t)a >> (b & 63)))
	BIN_I64(I64_SHR_U, a >> (b & 63))
	BIN_I64(I64_ROTL, rotl64(a, b))
	BIN_I64(I64_ROTR, rotr64(a, b))

	/* ---- f32 / f64 -------------------------------------------------- */
	CMP_F32(F32_EQ, a == b)
	CMP_F32(F32_NE, a != b)
	CMP_F32(F32_LT, a < b)
	CMP_F32(F32_GT, a > b)
	CMP_F32(F32_LE, a <= b)
	CMP_F32(F32_GE, a >= b)
	CMP_F64(F64_EQ, a == b)
	CMP_F64(F64_NE, a != b)
	CMP_F64(F64_LT, a < b)
	CMP_F64(F64_GT, a > b)
	CMP_F64(F64_LE, a <= b)
	CMP_F64(F64_GE, a >= b)
	UN(F32_ABS, uint32_t, I32, (uint64_t)(a & 0x7fffffffu))
	UN(F32_NEG, uint32_t, I32, (uint64_t)(a ^ 0x80000000u))
	UN(F32_CEIL, float, F32, of_f32(q_ceilf(a)))
	UN(F32_FLOOR, float, F32, of_f32(q_floorf(a)))
	UN(F32_TRUNC, float, F32, of_f32(q_truncf(a)))
	UN(F32_NEAREST, float, F32, of_f32(q_rintf(a)))
	UN(F32_SQRT, float, F32, of_f32(sqrtf(a)))
	BIN_F32(F32_ADD, a + b)
	BIN_F32(F32_SUB, a - b)
	BIN_F32(F32_MUL, a * b)
	BIN_F32(F32_DIV, a / b)
	BIN_F32(F32_MIN, fmin32(a, b))
	BIN_F32(F32_MAX, fmax32(a, b))
	OPCASE(F32_COPYSIGN)
	{
		fp[D] = (I32(A) & 0x7fffffffu) | (I32(B) & 0x80000000u);
		NEXT(3);
	}
	UN(F64_ABS, uint64_t, I64, a & 0x7fffffffffffffffull)
	UN(F64_NEG, uint64_t, I64, a ^ 0x8000000000000000ull)
	UN(F64_CEIL, double, F64, of_f64(q_ceil(a)))
	UN(F64_FLOOR, double, F64, of_f64(q_floor(a)))
	UN(F64_TRUNC, double, F64, of_f64(q_trunc(a)))
	UN(F64_NEAREST, double, F64, of_f64(q_rint(a)))
	UN(F64_SQRT, double, F64, of_f64(sqrt(a)))
	BIN_F64(F64_ADD, a + b)
	BIN_F64(F64_SUB, a - b)
	BIN_F64(F64_MUL, a * b)
	BIN_F64(F64_DIV, a / b)
	BIN_F64(F64_MIN, fmin64(a, b))
	BIN_F64(F64_MAX, fmax64(a, b))
	OPCASE(F64_COPYSIGN)
	{
		fp[D] = (I64(A) & 0x7fffffffffffffffull) |
			(I64(B) & 0x8000000000000000ull);
		NEXT(3);
	}

	/* ---- conversions ------------------------------------------------ */
	UN(I32_WRAP_I64, uint64_t, I64, (uint64_t)(uint32_t)a)
#define TRUNC(name, FT, conv, lo_ok, hi_ok, R)                               \
	OPCASE(name)                                                         \
	{                                                                    \
		FT x = conv(fp[A]);                                          \
		if (isnan(x))                                                \
			TRAP(BAD_CONVERSION);                                \
		if (!(lo_ok && hi_ok))                                       \
			TRAP(INT_OVERFLOW);                                  \
		fp[D] = R;                                                   \
		NEXT(2);                                                     \
	}
	NUM_TRUNCS(TRUNC)
#undef TRUNC
	UN(I64_EXTEND_I32_S, uint32_t, I32, (uint64_t)(int64_t)(int32_t)a)
	UN(F32_CONVERT_I32_S, uint32_t, I32, of_f32((float)(int32_t)a))
	UN(F32_CONVERT_I32_U, uint32_t, I32, of_f32((float)a))
	UN(F32_CONVERT_I64_S, uint64_t, I64, of_f32((float)(int64_t)a))
	UN(F32_CONVERT_I64_U, uint64_t, I64, of_f32((float)a))
	UN(F32_DEMOTE_F64, double, F64, of_f32((float)a))
	UN(F64_CONVERT_I32_S, uint32_t, I32, of_f64((double)(int32_t)a))
	UN(F64_CONVERT_I32_U, uint32_t, I32, of_f64((double)a))
	UN(F64_CONVERT_I64_S, uint64_t, I64, of_f64((double)(int64_t)a))
	UN(F64_CONVERT_I64_U, uint64_t, I64, of_f64((double)a))
	UN(F64_PROMOTE_F32, float, F32, of_f64((double)a))
	UN(I32_EXTEND8_S, uint32_t, I32, (uint64_t)(uint32_t)(int32_t)(int8_t)a)
	UN(I32_EXTEND16_S, uint32_t, I32,
	   (uint64_t)(uint32_t)(int32_t)(int16_t)a)
	UN(I64_EXTEND8_S, uint64_t, I64, (uint64_t)(int64_t)(int8_t)a)
	UN(I64_EXTEND16_S, uint64_t, I64, (uint64_t)(int64_t)(int16_t)a)
	UN(I64_EXTEND32_S, uint64_t, I64, (uint64_t)(int64_t)(int32_t)a)
	UN(I32_TRUNC_SAT_F32_S, float, F32, sat_i32_s(a))
	UN(I32_TRUNC_SAT_F32_U, float, F32, sat_i32_u(a))
	UN(I32_TRUNC_SAT_F64_S, double, F64, sat_i32_s(a))
	UN(I32_TRUNC_SAT_F64_U, double, F64, sat_i32_u(a))
	UN(I64_TRUNC_SAT_F32_S, float, F32, sat_i64_s(a))
	UN(I64_TRUNC_SAT_F32_U, float, F32, sat_i64_u(a))
	UN(I64_TRUNC_SAT_F64_S, double, F64, sat_i64_s(a))
	UN(I64_TRUNC_SAT_F64_U, double, F64, sat_i64_u(a))

	/* ---- references ------------------------------------------------- */
	UN(REF_IS_NULL, uint64_t, I64, (uint64_t)(a == 0))
	OPCASE(REF_FUNC)
	{
		fp[D] = (uintptr_t)inst->funcs[A];
		NEXT(2);
	}

	/* ---- memory ----------------------------------------------------- */
	LOADS(LOAD, mem0, EA, )
	STORES(STORE, mem0, EA, )
	LOADS(LOAD, mem0, EA_K, AK_)
	STORES(STORE, mem0, EA_K, AK_)
	LOADS(LOAD, inst->mem_base[ip[2].u32[1]], EA, MN_)
	STORES(STORE, inst->mem_base[ip[2].u32[1]], EA, MN_)
	OPCASE(MEMORY_SIZE)
	{
		eng_memory *m = inst->mems[A];
		fp[D] = (uint32_t)(atomic_load_explicit(&m->size,
							memory_order_relaxed) /
				   ENG_PAGE);
		NEXT(2);
	}
	OPCASE(MEMORY_GROW)
	{
		eng_memory *m = inst->mems[B];
		fp[D] = eng_rt_memory_grow(th->proc, m, I32(A));
		NEXT(3);
	}
	/* Bulk memory and tables: runtime.c's, which compiled code calls
	 * too. */
#define BULK(name, n)                                                        \
	OPCASE(name)                                                         \
	{                                                                    \
		if ((kind = eng_rt_bulk(inst, ip, fp, EOP_##name)))          \
			goto trap;                                           \
		NEXT(n);                                                     \
	}
	BULK(MEMORY_FILL, 4)
	BULK(MEMORY_COPY, 4)
	BULK(MEMORY_INIT, 4)
	BULK(DATA_DROP, 2)
	BULK(TABLE_GET, 3)
	BULK(TABLE_SET, 3)
	BULK(TABLE_SIZE, 2)
	BULK(TABLE_GROW, 3)
	BULK(TABLE_FILL, 4)
	BULK(TABLE_COPY, 4)
	BULK(TABLE_INIT, 4)
	BULK(ELEM_DROP, 2)
#undef BULK

	/* ---- atomics ---------------------------------------------------- */
	OPCASE(ATOMIC_FENCE)
	{
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		NEXT(1);
	}
	ALOAD(I32_ATOMIC_LOAD, uint32_t)
	ALOAD(I64_ATOMIC_LOAD, uint64_t)
	ALOAD(I32_ATOMIC_LOAD8_U, uint8_t)
	ALOAD(I32_ATOMIC_LOAD16_U, uint16_t)
	ALOAD(I64_ATOMIC_LOAD8_U, uint8_t)
	ALOAD(I64_ATOMIC_LOAD16_U, uint16_t)
	ALOAD(I64_ATOMIC_LOAD32_U, uint32_t)
	ASTORE(I32_ATOMIC_STORE, uint32_t)
	ASTORE(I64_ATOMIC_STORE, uint64_t)
	ASTORE(I32_ATOMIC_STORE8, uint8_t)
	ASTORE(I32_ATOMIC_STORE16, uint16_t)
	ASTORE(I64_ATOMIC_STORE8, uint8_t)
	ASTORE(I64_ATOMIC_STORE16, uint16_t)
	ASTORE(I64_ATOMIC_STORE32, uint32_t)
	RMW_GROUP(ARMW, ADD, __atomic_fetch_add)
	RMW_GROUP(ARMW, SUB, __atomic_fetch_sub)
	RMW_GROUP(ARMW, AND, __atomic_fetch_and)
	RMW_GROUP(ARMW, OR, __atomic_fetch_or)
	RMW_GROUP(ARMW, XOR, __atomic_fetch_xor)
	RMW_GROUP(ARMW, XCHG, XCHG_FN)
	ACMPXCHG(I32_ATOMIC_RMW_CMPXCHG, uint32_t)
	ACMPXCHG(I64_ATOMIC_RMW_CMPXCHG, uint64_t)
	ACMPXCHG(I32_ATOMIC_RMW8_CMPXCHG_U, uint8_t)
	ACMPXCHG(I32_ATOMIC_RMW16_CMPXCHG_U, uint16_t)
	ACMPXCHG(I64_ATOMIC_RMW8_CMPXCHG_U, uint8_t)
	ACMPXCHG(I64_ATOMIC_RMW16_CMPXCHG_U, uint16_t)
	ACMPXCHG(I64_ATOMIC_RMW32_CMPXCHG_U, uint32_t)
	/* Separate entries: adjacent labels with no code between them share
	 * one address, so the handler could not tell them apart by ip->h.
	 * The body is runtime.c's, which compiled code calls too. */
	OPCASE(MEMORY_ATOMIC_NOTIFY)
	wait_op = EOP_MEMORY_ATOMIC_NOTIFY;
	goto wait_notify;
	OPCASE(MEMORY_ATOMIC_WAIT32)
	wait_op = EOP_MEMORY_ATOMIC_WAIT32;
	goto wait_notify;
	OPCASE(MEMORY_ATOMIC_WAIT64)
	wait_op = EOP_MEMORY_ATOMIC_WAIT64;
wait_notify:
	th->depth = depth;
	kind = eng_rt_wait_notify(th, inst, ip, fp, wait_op);
	if (kind == ENG_STOPPED)
		goto stopped;
	if (kind != ENG_OK)
		goto trap;
	NEXT(4);

#ifdef ENG_SWITCH_DISPATCH
	default:
		goto bad;
	}
#else
	}
#endif

	/* ---- calls ------------------------------------------------------ */
call_func:
	if (cf->fn) {
		cfn = cf->fn;
		cinst = cf->inst;
		goto do_call;
	}
	{
		/* A host function: arguments in place, results in the
		 * slots after them, then moved down. */
		eng_val *args = fp + argbase;
		eng_val *res = args + cf->nargs;
		bool skip = false;
		if (cf->filter && !th->proc->serial) {
			eng_shadow_answer sa =
			    cf->shadow
				? eng_shadow_test_run(cf->shadow, th->id, args)
				: ENG_SHADOW_NONE;
			skip = sa == ENG_SHADOW_SKIP ||
			       (sa == ENG_SHADOW_NONE &&
				cf->filter(cf->ctx, th->id, args));
		}
		if (skip) {
			POLL();
			ip = retip;
			DISPATCH();
		}
		if (res + cf->nrets + 1 > stack_end)
			TRAP(STACK);
		th->depth = depth;
		th->stack_top = res + cf->nrets;
		th->pc = ip;
		kind = eng_rt_call_host(th, cf, args, res, trap);
		th->cur_inst = inst;
		if (kind != ENG_OK) {
			if (atomic_load_explicit(stopp, memory_order_relaxed))
				eng_note_stop(th, ip, inst, depth);
			*trap_pc = ip;
			*trap_inst = inst;
			th->depth = base_depth;
			return kind;
		}
		memmove(args, res, cf->nrets * sizeof *res);
		POLL();
		ip = retip;
		DISPATCH();
	}

do_call:
	{
		eng_val *nfp = fp + argbase;
		if (__builtin_expect(depth >= max_depth ||
					     nfp + cfn->nslots > stack_end,
				     0))
			TRAP(STACK);
		POLL();
		frames[depth].ret_ip = retip;
		frames[depth].fp = fp;
		frames[depth].inst = inst;
		depth++;
		if ((jcode = eng_fn_code(cinst->cm, cfn))) {
			/* Compiled: a native call, back here when it
			 * returns (a trap leaves through th->trap_jmp). */
			th->depth = depth;
			eng_jit_run(th, cinst, nfp, jcode);
			th->cur_inst = inst;
			depth--;
			th->depth = depth;
			ip = retip;
			DISPATCH();
		}
		for (uint32_t i = cfn->nparams; i < cfn->nlocals; i++)
			nfp[i] = 0;
		fp = nfp;
		ip = cfn->code;
		if (cinst != inst) {
			inst = cinst;
			mem0 = FAST_BASE(inst);
			th->cur_inst = inst;
		}
		DISPATCH();
	}

	/* ---- exceptions --------------------------------------------------
	 * Off the normal path: a throw searches the handler table of each
	 * function from the throwing one outwards (compile.c), popping the
	 * frames it leaves as RETURN does. Finding a frame's function is a
	 * scan of the module's functions (eng_fn_of_pc), paid per frame
	 * unwound and only by a throw. */
unwind:
	{
		const eng_cell *at = ip, *throw_ip = ip;
		eng_instance *throw_inst = inst;
		for (;;) {
			const eng_fn *xfn = eng_fn_of_pc(inst->cm, at);
			const eng_cell *land = NULL;
			bool too_big = false;
			if (xfn && xfn->nhandlers)
				land = eng_exn_land(th, inst, xfn, at, fp,
						    &too_big);
			if (land) {
				ip = land;
				mem0 = FAST_BASE(inst);
				th->cur_inst = inst;
				DISPATCH();
			}
			if (too_big) {
				kind = ENG_LIMIT;
				eng_trap_at(trap, kind, inst->cm, at,
					    "engine limit: a catch_all that "
					    "rethrows caught an exception of "
					    "another module with more values "
					    "than any tag of its own");
				ip = at;
				goto trap_filled;
			}
			depth--;
			if (depth == base_depth) {
				kind = ENG_TRAP_EXCEPTION;
				ip = throw_ip;
				inst = throw_inst;
				goto trap;
			}
			/* The call instruction the frame is in. */
			at = frames[depth].ret_ip - 1;
			fp = frames[depth].fp;
			inst = frames[depth].inst;
		}
	}
c_stack_overflow:
	kind = ENG_TRAP_STACK;
	eng_trap_c_stack(trap, th, inst->cm, ip);
	goto trap_filled;

indirect_mismatch:
	/* C declared without a prototype (`void *work()`) lands here: in a
	 * module heisen cc built, the call runs as natively when the types
	 * allow it, with the parameters the caller did not pass zeroed;
	 * otherwise the trap names the function and both types. */
	{
		char detail[200];
		uint32_t passed;
		if (inst->cm->c_calls &&
		    eng_indirect_adapt(inst, cf, ip[2].u32[0], &passed)) {
			eng_val *args = fp + ip[1].u32[0];
			if (args + cf->nargs > stack_end)
				TRAP(STACK);
			for (uint32_t k = passed; k < cf->nargs; k++)
				args[k] = 0;
			argbase = ip[1].u32[0];
			retip = ip + 3;
			goto call_func;
		}
		kind = ENG_TRAP_INDIRECT_TYPE;
		eng_indirect_detail(inst, cf, ip[2].u32[0], detail,
				    sizeof detail);
		eng_trap_at(trap, kind, inst->cm, ip, detail);
	}
	goto trap_filled;

exn_nomem:
	kind = ENG_LIMIT;
	eng_trap_at(trap, kind, inst->cm, ip,
		    "out of memory for an exception's values");
	goto trap_filled;

#ifndef ENG_SWITCH_DISPATCH
L_BAD:
#else
bad:
#endif
	kind = ENG_TRAP_HOST;
	eng_trap_at(trap, kind, inst->cm, ip, "engine: bad internal opcode");
	goto trap_filled;

trap:
	eng_trap_at(trap, kind, inst->cm, ip, NULL);
trap_filled:
	*trap_pc = ip;
	*trap_inst = inst;
	th->depth = base_depth;
	return kind;

stopped:
	eng_note_stop(th, ip, inst, depth);
	*trap_pc = ip;
	*trap_inst = inst;
	th->depth = base_depth;
	return ENG_STOPPED;

done:
	th->depth = base_depth;
	return ENG_OK;
}
