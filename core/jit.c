/*
 * jit.c - the baseline compiler (jit.h says what it is and keeps).
 *
 * How it works:
 *   One pass per function over its register code, decoded with the ops
 *   compile.c left (the opcode of each instruction's first cell). Each
 *   instruction becomes a fixed sequence over the frame's slots
 *   ([rbx + 8*slot]); nothing stays in a register between instructions,
 *   so any instruction can be a branch target and every slow path sees
 *   the frame as the interpreter would. Branches to cells not yet
 *   emitted are patched at the end of the function; the paths that
 *   leave the straight line (traps, polls that find the stop word set,
 *   backward branches, which poll) are stubs after the body, reached by
 *   a conditional jump that is not taken. A call reads the callee's
 *   eng_fn.jit when it runs: compiled, a native call with the eng_frame
 *   pushed as the interpreter pushes it; otherwise, and for imports and
 *   indirect calls, jit_call in C does what the interpreter's call does.
 *
 *   A function is compiled on its first call (eng_fn_code): emitted
 *   into a buffer, copied into a fresh read-write mapping that is then
 *   made read-execute, its entry published last.
 *
 * Limitations: see jit.h for what stays interpreted. Compiled code's
 * native calls take 16 bytes of the thread's stack each, within
 * ENG_JIT_STACK (engine_int.h) below the outermost eng_call.
 */
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine_int.h"
#include "jit.h"
#include "num.h"
#include "simd.h"

#if defined(__x86_64__) && defined(__linux__)

#include <cpuid.h>
#include <sys/mman.h>
#include <ucontext.h>

/* ---- entry ---------------------------------------------------------------
 * jit_enter(r): the registers compiled code keeps, set from r, then a
 * native call of r->entry; the callee-saved registers of the C caller
 * are kept around it and the stack left 16-byte aligned at the call. */
typedef struct jit_regs {
	void *fp;
	eng_thread *th;
	eng_instance *in;
	uint8_t *mem0;
	const atomic_int *stop;
	const void *entry;
} jit_regs;

void heisen_jit_enter(const jit_regs *r);
__asm__(".text\n"
	".globl heisen_jit_enter\n"
	".hidden heisen_jit_enter\n"
	".type heisen_jit_enter,@function\n"
	"heisen_jit_enter:\n"
	"\tpush %rbx\n"
	"\tpush %rbp\n"
	"\tpush %r12\n"
	"\tpush %r13\n"
	"\tpush %r14\n"
	"\tpush %r15\n"
	"\tsub $8, %rsp\n"
	"\tmov 0(%rdi), %rbx\n"
	"\tmov 8(%rdi), %r13\n"
	"\tmov 16(%rdi), %r14\n"
	"\tmov 24(%rdi), %r12\n"
	"\tmov 32(%rdi), %r15\n"
	"\tcall *40(%rdi)\n"
	"\tadd $8, %rsp\n"
	"\tpop %r15\n"
	"\tpop %r14\n"
	"\tpop %r13\n"
	"\tpop %r12\n"
	"\tpop %rbp\n"
	"\tpop %rbx\n"
	"\tret\n"
	".size heisen_jit_enter, .-heisen_jit_enter\n");

void eng_jit_run(eng_thread *t, eng_instance *in, void *fp, const void *entry)
{
	jit_regs r = {fp,
		      t,
		      in,
		      in->mem_base ? in->mem_base[in->cm->fast_mem] : NULL,
		      &t->proc->stop,
		      entry};

	t->cur_inst = in;
	heisen_jit_enter(&r);
}

/* ---- the helpers compiled code calls ---------------------------------- */

static _Noreturn void leave(eng_thread *t, eng_trap_kind k)
{
	t->jit_kind = k;
	siglongjmp(*t->trap_jmp, 2);
}

static _Noreturn void jit_trap(eng_thread *t, uint32_t kind, const eng_cell *ip)
{
	eng_trap_at(t->trap_out, (eng_trap_kind)kind, t->cur_inst->cm, ip,
		    NULL);
	leave(t, (eng_trap_kind)kind);
}

static void jit_poll(eng_thread *t, const eng_cell *ip, eng_instance *in)
{
	if (eng_rt_poll(t)) {
		eng_note_stop(t, ip, in, t->depth);
		leave(t, ENG_STOPPED);
	}
}

static _Noreturn void jit_c_stack(eng_thread *t, const eng_cell *ip)
{
	eng_trap_c_stack(t->trap_out, t, t->cur_inst->cm, ip);
	leave(t, ENG_TRAP_STACK);
}

/* An atomic access at effective address ea of width w that is not a
 * multiple of w: out of bounds first if it is also out of bounds, as the
 * interpreter checks (atomic {d,a} {b,c} {offset,mem}). */
static _Noreturn void jit_misaligned(eng_thread *t, const eng_cell *ip,
				     uint64_t ea, uint32_t w)
{
	eng_memory *m = t->cur_inst->mems[ip[3].u32[1]];

	jit_trap(t,
		 ea + w > atomic_load_explicit(&m->size, memory_order_relaxed)
		     ? ENG_TRAP_MEMORY_OOB
		     : ENG_TRAP_UNALIGNED,
		 ip);
}

/* Wait/notify, bulk memory and tables: the runtime's bodies, which the
 * interpreter runs too; a trap or a stop from there. */
static void jit_runtime(eng_thread *th, eng_val *fp, const eng_cell *ip,
			eng_instance *inst, uint32_t op)
{
	bool wait = op == EOP_MEMORY_ATOMIC_NOTIFY ||
		    op == EOP_MEMORY_ATOMIC_WAIT32 ||
		    op == EOP_MEMORY_ATOMIC_WAIT64;
	eng_trap_kind kind = wait ? eng_rt_wait_notify(th, inst, ip, fp, op)
				  : eng_rt_bulk(inst, ip, fp, op);

	if (kind == ENG_STOPPED) {
		eng_note_stop(th, ip, inst, th->depth);
		leave(th, kind);
	}
	if (kind != ENG_OK)
		jit_trap(th, kind, ip);
}

static uint64_t jit_grow(eng_thread *t, eng_instance *in, uint32_t mem,
			 uint64_t delta)
{
	return eng_rt_memory_grow(t->proc, in->mems[mem], (uint32_t)delta);
}

/* A call the compiled code does not make itself: an import, an indirect
 * call, a callee that is interpreted. As the interpreter's call_func,
 * do_call and indirect_mismatch do. */
static void jit_call(eng_thread *th, eng_val *fp, const eng_cell *ip,
		     eng_instance *inst, uint32_t op)
{
	const eng_fn *cfn = NULL;
	eng_instance *cinst = inst;
	eng_func *cf = NULL;
	uint32_t argbase = ip[1].u32[0];
	const eng_cell *retip = ip + 3;
	eng_trap_kind kind;

	if (op == EOP_CALL) {
		cfn = ip[2].ptr;
		cf = inst->funcs[cfn->index];
	} else if (op == EOP_CALL_IMPORT) {
		cf = inst->funcs[ip[1].u32[1]];
		retip = ip + 2;
	} else {
		eng_table *tab = inst->tables[ip[2].u32[1]];
		uint32_t i = (uint32_t)fp[ip[1].u32[1]], passed;
		if (i >= tab->size)
			jit_trap(th, ENG_TRAP_UNDEFINED_ELEM, ip);
		cf = (eng_func *)(uintptr_t)tab->elems[i];
		if (!cf)
			jit_trap(th, ENG_TRAP_UNINIT_ELEM, ip);
		if (cf->type_id != ip[2].u32[0]) {
			char detail[200];
			if (!inst->cm->c_calls ||
			    !eng_indirect_adapt(inst, cf, ip[2].u32[0],
						&passed)) {
				eng_indirect_detail(inst, cf, ip[2].u32[0],
						    detail, sizeof detail);
				eng_trap_at(th->trap_out,
					    ENG_TRAP_INDIRECT_TYPE, inst->cm,
					    ip, detail);
				leave(th, ENG_TRAP_INDIRECT_TYPE);
			}
			if (fp + argbase + cf->nargs > th->stack_end)
				jit_trap(th, ENG_TRAP_STACK, ip);
			for (uint32_t k = passed; k < cf->nargs; k++)
				fp[argbase + k] = 0;
		}
	}
	if (cf->fn) {
		cfn = cf->fn;
		cinst = cf->inst;
	}
	if (!cfn) {
		eng_val *args = fp + argbase, *res = args + cf->nargs;
		if (res + cf->nrets + 1 > th->stack_end)
			jit_trap(th, ENG_TRAP_STACK, ip);
		th->stack_top = res + cf->nrets;
		th->pc = ip;
		kind = eng_rt_call_host(th, cf, args, res, th->trap_out);
		th->cur_inst = inst;
		if (kind != ENG_OK) {
			if (atomic_load_explicit(&th->proc->stop,
						 memory_order_relaxed))
				eng_note_stop(th, ip, inst, th->depth);
			leave(th, kind);
		}
		memmove(args, res, cf->nrets * sizeof *res);
		if (atomic_load_explicit(&th->proc->stop, memory_order_relaxed))
			jit_poll(th, ip, inst);
		return;
	}
	{
		eng_val *nfp = fp + argbase;
		const eng_cell *tpc;
		eng_instance *tinst;
		const void *code;

		if (th->depth >= th->max_depth ||
		    nfp + cfn->nslots > th->stack_end ||
		    (uintptr_t)__builtin_frame_address(0) < th->jit_sp_lo)
			jit_trap(th, ENG_TRAP_STACK, ip);
		if (atomic_load_explicit(&th->proc->stop, memory_order_relaxed))
			jit_poll(th, ip, inst);
		th->frames[th->depth++] = (eng_frame){retip, fp, inst};
		if ((code = eng_fn_code(cinst->cm, cfn))) {
			eng_jit_run(th, cinst, nfp, code);
			th->depth--;
		} else {
			kind = eng_interp(th, cinst->funcs[cfn->index], nfp,
					  true, th->trap_out, &tpc, &tinst);
			if (kind != ENG_OK)
				leave(th, kind);
		}
		th->cur_inst = inst;
	}
}

/* Conversions and float operations with a C body (num.h's, as the
 * interpreter's). */
static uint64_t h_f32_min(uint64_t a, uint64_t b)
{
	return of_f32(fmin32(f32_of(a), f32_of(b)));
}
static uint64_t h_f32_max(uint64_t a, uint64_t b)
{
	return of_f32(fmax32(f32_of(a), f32_of(b)));
}
static uint64_t h_f64_min(uint64_t a, uint64_t b)
{
	return of_f64(fmin64(f64_of(a), f64_of(b)));
}
static uint64_t h_f64_max(uint64_t a, uint64_t b)
{
	return of_f64(fmax64(f64_of(a), f64_of(b)));
}
static uint64_t h_f32_convert_i64_u(uint64_t a) { return of_f32((float)a); }
static uint64_t h_f64_convert_i64_u(uint64_t a) { return of_f64((double)a); }
static uint64_t h_i32_sat_f32_s(uint64_t a) { return sat_i32_s(f32_of(a)); }
static uint64_t h_i32_sat_f32_u(uint64_t a) { return sat_i32_u(f32_of(a)); }
static uint64_t h_i32_sat_f64_s(uint64_t a) { return sat_i32_s(f64_of(a)); }
static uint64_t h_i32_sat_f64_u(uint64_t a) { return sat_i32_u(f64_of(a)); }
static uint64_t h_i64_sat_f32_s(uint64_t a) { return sat_i64_s(f32_of(a)); }
static uint64_t h_i64_sat_f32_u(uint64_t a) { return sat_i64_u(f32_of(a)); }
static uint64_t h_i64_sat_f64_s(uint64_t a) { return sat_i64_s(f64_of(a)); }
static uint64_t h_i64_sat_f64_u(uint64_t a) { return sat_i64_u(f64_of(a)); }

/* The trapping truncations: (thread, instruction, bits). */
#define H_TRUNC(name, FT, conv, lo_ok, hi_ok, R)                               \
	static uint64_t h_##name(eng_thread *t, const eng_cell *ip,            \
				 uint64_t bits)                                \
	{                                                                      \
		FT x = conv(bits);                                             \
		if (isnan(x))                                                  \
			jit_trap(t, ENG_TRAP_BAD_CONVERSION, ip);              \
		if (!(lo_ok && hi_ok))                                         \
			jit_trap(t, ENG_TRAP_INT_OVERFLOW, ip);                \
		return R;                                                      \
	}
NUM_TRUNCS(H_TRUNC)
#undef H_TRUNC

/* ---- the encoder ---------------------------------------------------------*/

enum {
	RAX,
	RCX,
	RDX,
	RBX,
	RSP,
	RBP,
	RSI,
	RDI,
	R8,
	R9,
	R10,
	R11,
	R12,
	R13,
	R14,
	R15
};
#define FP    RBX
#define MEM   R12
#define TH    R13
#define IN    R14
#define STOP  R15
#define NOIDX (-1)

/* x86 condition codes */
enum {
	CC_B = 2,
	CC_AE = 3,
	CC_E = 4,
	CC_NE = 5,
	CC_BE = 6,
	CC_A = 7,
	CC_P = 0xa,
	CC_NP = 0xb,
	CC_L = 0xc,
	CC_GE = 0xd,
	CC_LE = 0xe,
	CC_G = 0xf
};

/* A branch or table entry to patch once the function's cells have their
 * addresses: rel32 at `at` (relative to `from`) to cell `cell`. */
typedef struct jfix {
	uint32_t at, from, cell;
} jfix;

/* A path out of line, after the body: `at` is the rel32 of the jump to
 * it. */
enum { COLD_TRAP, COLD_POLL, COLD_POLL_JMP, COLD_CSTACK, COLD_MISALIGNED };
typedef struct jcold {
	uint8_t kind;
	uint32_t at, trap, resume, cell;
	const eng_cell *ip;
} jcold;

typedef struct jit {
	uint8_t *p;
	size_t n, cap;
	bool bad; /* out of memory, or an instruction without a template */
	uint32_t *label; /* cell -> code offset, UINT32_MAX: not a start */
	jfix *fix;
	uint32_t nfix, capfix;
	jcold *cold;
	uint32_t ncold, capcold;
	eng_jit_site *sites; /* the module's memory accesses, in order */
	uint32_t nsites, capsites;
	/* The slots kept in registers (cache_regs[i] holds slot cslot[i])
	 * and, in the first pass over a function, the uses of each slot
	 * that choose them. */
	uint32_t cslot[5], nc;
	uint32_t *uses;
	const eng_fn *fn;
	const eng_module *cm;
} jit;

/* What the CPU has (want_init): without them, the instructions that need
 * them have no template. */
static bool has_lzcnt, has_popcnt, has_sse41, has_sse42;

static bool grow_code(jit *j, size_t k);

/* Room for k more bytes: the common case inline, a byte at a time being
 * most of what the compiler does. */
static inline bool room(jit *j, size_t k)
{
	return __builtin_expect(j->n + k <= j->cap, 1) || grow_code(j, k);
}

static bool grow_code(jit *j, size_t k)
{
	size_t cap = j->cap ? j->cap * 2 : 65536;
	while (cap < j->n + k)
		cap *= 2;
	uint8_t *p = wasm_realloc(j->p, cap);
	if (!p) {
		j->bad = true;
		return false;
	}
	j->p = p;
	j->cap = cap;
	return true;
}

static void b1(jit *j, unsigned v)
{
	if (room(j, 1))
		j->p[j->n++] = (uint8_t)v;
}

static void b4(jit *j, uint32_t v)
{
	if (room(j, 4)) {
		memcpy(j->p + j->n, &v, 4);
		j->n += 4;
	}
}

static void b8(jit *j, uint64_t v)
{
	if (room(j, 8)) {
		memcpy(j->p + j->n, &v, 8);
		j->n += 8;
	}
}

static void patch4(jit *j, uint32_t at, uint32_t v)
{
	if (!j->bad)
		memcpy(j->p + at, &v, 4);
}

/* An opcode of 1 to 3 bytes, written high byte first (0x0FAF: 0F AF). */
static void opc(jit *j, uint32_t op)
{
	if (op > 0xffff)
		b1(j, op >> 16);
	if (op > 0xff)
		b1(j, (op >> 8) & 0xff);
	b1(j, op & 0xff);
}

/* [pfx] [REX] op modrm: reg with the memory operand
 * [base + index + disp]. */
static void op_m(jit *j, unsigned pfx, bool w, uint32_t op, int reg, int base,
		 int index, int32_t disp)
{
	unsigned rex = (w ? 8 : 0) | (reg & 8 ? 4 : 0) |
		       (index != NOIDX && (index & 8) ? 2 : 0) |
		       (base & 8 ? 1 : 0);
	unsigned mod = disp == 0 && (base & 7) != RBP ? 0
		       : disp >= -128 && disp <= 127  ? 1
						      : 2;

	if (pfx > 0xff)
		b1(j, pfx >> 8);
	if (pfx)
		b1(j, pfx & 0xff);
	if (rex)
		b1(j, 0x40 | rex);
	opc(j, op);
	if (index == NOIDX && (base & 7) != RSP) {
		b1(j, mod << 6 | (reg & 7) << 3 | (base & 7));
	} else {
		b1(j, mod << 6 | (reg & 7) << 3 | 4);
		b1(j, (index == NOIDX ? 4 : index & 7) << 3 | (base & 7));
	}
	if (mod == 1)
		b1(j, (uint8_t)(int8_t)disp);
	else if (mod == 2)
		b4(j, (uint32_t)disp);
}

/* [pfx] [REX] op modrm: reg with register rm. */
static void op_r(jit *j, unsigned pfx, bool w, uint32_t op, int reg, int rm)
{
	unsigned rex = (w ? 8 : 0) | (reg & 8 ? 4 : 0) | (rm & 8 ? 1 : 0);

	if (pfx)
		b1(j, pfx);
	if (rex)
		b1(j, 0x40 | rex);
	opc(j, op);
	b1(j, 0xc0 | (reg & 7) << 3 | (rm & 7));
}

/* The displacement of slot s. */
static int32_t sd(jit *j, uint32_t s)
{
	if (s > (uint32_t)INT32_MAX / 8) {
		j->bad = true;
		return 0;
	}
	return (int32_t)(s * 8);
}

/* The registers that hold the function's most used slots: none of them
 * is kept by a C helper, so they are written back to their slots before
 * any call (spill) and read again after it (reload). */
static const int cache_regs[5] = {RSI, RDI, R8, R9, R10};

/* The register holding slot s, or -1. */
static int reg_of(const jit *j, uint32_t s)
{
	for (uint32_t i = 0; i < j->nc; i++)
		if (j->cslot[i] == s)
			return cache_regs[i];
	return -1;
}

/* The same, counting the use in the first pass: scalar uses choose the
 * cached slots, v128 halves do not (they would go through movq). */
static int cached(jit *j, uint32_t s)
{
	if (j->uses && s < j->fn->nslots)
		j->uses[s]++;
	return reg_of(j, s);
}

static void ld32(jit *j, int r, uint32_t s)
{
	int c = cached(j, s);
	if (c >= 0)
		op_r(j, 0, false, 0x89, c, r);
	else
		op_m(j, 0, false, 0x8b, r, FP, NOIDX, sd(j, s));
}

static void ld64(jit *j, int r, uint32_t s)
{
	int c = cached(j, s);
	if (c >= 0)
		op_r(j, 0, true, 0x89, c, r);
	else
		op_m(j, 0, true, 0x8b, r, FP, NOIDX, sd(j, s));
}

static void st64(jit *j, uint32_t s, int r)
{
	int c = cached(j, s);
	if (c >= 0)
		op_r(j, 0, true, 0x89, r, c);
	else
		op_m(j, 0, true, 0x89, r, FP, NOIDX, sd(j, s));
}

/* op reg, r/m with slot s as r/m: its register or its memory. */
static void slot_m(jit *j, unsigned pfx, bool w, uint32_t op, int reg,
		   uint32_t s)
{
	int c = cached(j, s);
	if (c >= 0)
		op_r(j, pfx, w, op, reg, c);
	else
		op_m(j, pfx, w, op, reg, FP, NOIDX, sd(j, s));
}

/* An SSE op whose source is a float in slot s (movq'd from its register
 * through xmm15 when it has one). */
static void slot_x(jit *j, unsigned pfx, uint32_t op, int xreg, uint32_t s)
{
	int c = cached(j, s);
	if (c >= 0) {
		op_r(j, 0x66, true, 0x0f6e, 15, c); /* movq xmm15, c */
		op_r(j, pfx, false, op, xreg, 15);
	} else {
		op_m(j, pfx, false, op, xreg, FP, NOIDX, sd(j, s));
	}
}

/* The cached slots written back, or read again. */
static void spill(jit *j)
{
	for (uint32_t i = 0; i < j->nc; i++)
		op_m(j, 0, true, 0x89, cache_regs[i], FP, NOIDX,
		     sd(j, j->cslot[i]));
}

static void reload(jit *j)
{
	for (uint32_t i = 0; i < j->nc; i++)
		op_m(j, 0, true, 0x8b, cache_regs[i], FP, NOIDX,
		     sd(j, j->cslot[i]));
}

/* Slot s straight from memory, after a spill. */
static void ld64_mem(jit *j, int r, uint32_t s)
{
	op_m(j, 0, true, 0x8b, r, FP, NOIDX, sd(j, s));
}

/* Flags of slot s (32 or 64 bits) tested against 0. */
static void test_slot(jit *j, bool w, uint32_t s)
{
	int c = cached(j, s);
	if (c >= 0) {
		op_r(j, 0, w, 0x85, c, c);
	} else {
		op_m(j, 0, w, 0x83, 7, FP, NOIDX, sd(j, s));
		b1(j, 0);
	}
}

static void mov_imm(jit *j, int r, uint64_t v)
{
	if (v <= UINT32_MAX) {
		if (r & 8)
			b1(j, 0x41);
		b1(j, 0xb8 + (r & 7));
		b4(j, (uint32_t)v);
	} else {
		b1(j, 0x48 | (r & 8 ? 1 : 0));
		b1(j, 0xb8 + (r & 7));
		b8(j, v);
	}
}

static void mov_rr(jit *j, bool w, int dst, int src)
{
	op_r(j, 0, w, 0x89, src, dst);
}

/* A C function of the compiled code's own: its arguments already in
 * rdi, rsi, rdx, rcx, r8. */
static void call_c(jit *j, const void *fn)
{
	mov_imm(j, RAX, (uintptr_t)fn);
	op_r(j, 0, false, 0xff, 2, RAX);
}

/* jmp/jcc rel32 with the offset to fill; returns its position. */
static uint32_t jmp32(jit *j)
{
	b1(j, 0xe9);
	b4(j, 0);
	return (uint32_t)j->n - 4;
}

static uint32_t jcc32(jit *j, int cc)
{
	b1(j, 0x0f);
	b1(j, 0x80 + cc);
	b4(j, 0);
	return (uint32_t)j->n - 4;
}

static void here(jit *j, uint32_t at)
{
	patch4(j, at, (uint32_t)(j->n - (at + 4)));
}

static void add_fix(jit *j, uint32_t at, uint32_t from, uint32_t cell)
{
	if (j->nfix == j->capfix) {
		uint32_t cap = j->capfix ? j->capfix * 2 : 64;
		jfix *f = wasm_realloc(j->fix, cap * sizeof *f);
		if (!f) {
			j->bad = true;
			return;
		}
		j->fix = f;
		j->capfix = cap;
	}
	j->fix[j->nfix++] = (jfix){at, from, cell};
}

static jcold *add_cold(jit *j, uint8_t kind, uint32_t at, const eng_cell *ip)
{
	if (j->ncold == j->capcold) {
		uint32_t cap = j->capcold ? j->capcold * 2 : 64;
		jcold *c = wasm_realloc(j->cold, cap * sizeof *c);
		if (!c) {
			j->bad = true;
			return NULL;
		}
		j->cold = c;
		j->capcold = cap;
	}
	jcold *c = &j->cold[j->ncold++];
	memset(c, 0, sizeof *c);
	c->kind = kind;
	c->at = at;
	c->ip = ip;
	return c;
}

/* A jump (cc < 0: unconditional) to cell `target`; through a stub that
 * polls first when it goes backwards, as the interpreter polls. */
static void branch(jit *j, int cc, uint32_t cur, uint32_t target,
		   const eng_cell *ip)
{
	uint32_t at = cc < 0 ? jmp32(j) : jcc32(j, cc);
	if (target <= cur) {
		jcold *c = add_cold(j, COLD_POLL_JMP, at, ip);
		if (c)
			c->cell = target;
	} else {
		add_fix(j, at, at + 4, target);
	}
}

static void trap_if(jit *j, int cc, uint32_t kind, const eng_cell *ip)
{
	jcold *c = add_cold(j, COLD_TRAP, jcc32(j, cc), ip);
	if (c)
		c->trap = kind;
}

/* The stop word polled: the slow path when it is not 0. */
static void poll(jit *j, const eng_cell *ip)
{
	/* cmp dword [r15], 0 */
	op_m(j, 0, false, 0x83, 7, STOP, NOIDX, 0);
	b1(j, 0);
	jcold *c = add_cold(j, COLD_POLL, jcc32(j, CC_NE), ip);
	if (c)
		c->resume = (uint32_t)j->n;
}

/* The next instruction accesses memory: a fault there is reported at
 * ip (eng_jit_fault finds it by the faulting address), so compiled code
 * stores nothing before an access. */
static void fault_site(jit *j, const eng_cell *ip)
{
	if (j->nsites == j->capsites) {
		uint32_t cap = j->capsites ? j->capsites * 2 : 256;
		eng_jit_site *v = wasm_realloc(j->sites, cap * sizeof *v);
		if (!v) {
			j->bad = true;
			return;
		}
		j->sites = v;
		j->capsites = cap;
	}
	j->sites[j->nsites++] = (eng_jit_site){(uint32_t)j->n, ip};
}

/* ---- instruction templates --------------------------------------------- */

#define D  ip[1].u32[0]
#define A  ip[1].u32[1]
#define B  ip[2].u32[0]
#define KI ip[2].u64

/* ALU opcodes: op r, r/m and the /digit of op r/m, imm32. */
typedef struct alu {
	uint8_t rm, digit;
} alu;
static const alu alu_add = {0x03, 0}, alu_or = {0x0b, 1}, alu_and = {0x23, 4},
		 alu_sub = {0x2b, 5}, alu_xor = {0x33, 6}, alu_cmp = {0x3b, 7};

/* rax = rax OP imm (64: sign-extended imm32 when it fits). */
static void alu_imm(jit *j, bool w, alu a, uint64_t k)
{
	if (!w || (int64_t)k == (int32_t)k) {
		op_r(j, 0, w, 0x81, a.digit, RAX);
		b4(j, (uint32_t)k);
	} else {
		mov_imm(j, RCX, k);
		op_r(j, 0, w, a.rm, RAX, RCX);
	}
}

/* d = a OP b, or a OP k for the _RI form. */
static void bin(jit *j, const eng_cell *ip, bool w, alu a, bool ri)
{
	(w ? ld64 : ld32)(j, RAX, A);
	if (ri)
		alu_imm(j, w, a, w ? KI : (uint32_t)KI);
	else
		slot_m(j, 0, w, a.rm, RAX, B);
	st64(j, D, RAX);
}

static void mul(jit *j, const eng_cell *ip, bool w, bool ri)
{
	(w ? ld64 : ld32)(j, RAX, A);
	if (ri)
		mov_imm(j, RCX, w ? KI : (uint32_t)KI);
	else
		(w ? ld64 : ld32)(j, RCX, B);
	op_r(j, 0, w, 0x0faf, RAX, RCX);
	st64(j, D, RAX);
}

/* Shifts and rotates: the /digit of D3 (by cl) and C1 (by imm8); x86
 * masks the count as Wasm does. */
static void shift(jit *j, const eng_cell *ip, bool w, int digit, bool ri)
{
	(w ? ld64 : ld32)(j, RAX, A);
	if (ri) {
		op_r(j, 0, w, 0xc1, digit, RAX);
		b1(j, (uint8_t)(KI & (w ? 63 : 31)));
	} else {
		ld32(j, RCX, B);
		op_r(j, 0, w, 0xd3, digit, RAX);
	}
	st64(j, D, RAX);
}

/* setcc into a 0/1 slot. */
static void set_cc(jit *j, uint32_t d, int cc)
{
	op_r(j, 0, false, 0x0f90 + (uint32_t)cc, 0, RCX);
	op_r(j, 0, false, 0x0fb6, RCX, RCX);
	st64(j, d, RCX);
}

static void cmp(jit *j, const eng_cell *ip, bool w, int cc, bool ri)
{
	(w ? ld64 : ld32)(j, RAX, A);
	if (ri)
		alu_imm(j, w, alu_cmp, w ? KI : (uint32_t)KI);
	else
		slot_m(j, 0, w, alu_cmp.rm, RAX, B);
	set_cc(j, D, cc);
}

/* div_s, div_u, rem_s, rem_u with the interpreter's traps. */
static void divide(jit *j, const eng_cell *ip, bool w, bool sign, bool rem)
{
	uint32_t skip = 0, done = 0;

	(w ? ld64 : ld32)(j, RAX, A);
	(w ? ld64 : ld32)(j, RCX, B);
	op_r(j, 0, w, 0x85, RCX, RCX);
	trap_if(j, CC_E, ENG_TRAP_DIV_ZERO, ip);
	if (sign) {
		/* cmp rcx, -1 */
		op_r(j, 0, w, 0x83, 7, RCX);
		b1(j, 0xff);
		skip = jcc32(j, CC_NE);
		if (rem) {
			op_r(j, 0, false, 0x31, RAX, RAX);
			done = jmp32(j);
		} else {
			/* INT_MIN / -1 */
			mov_imm(j, RDX,
				w ? 0x8000000000000000ull : 0x80000000u);
			op_r(j, 0, w, 0x39, RDX, RAX);
			trap_if(j, CC_E, ENG_TRAP_INT_OVERFLOW, ip);
		}
		here(j, skip);
		if (w)
			b1(j, 0x48);
		b1(j, 0x99); /* cdq / cqo */
		op_r(j, 0, w, 0xf7, 7, RCX);
	} else {
		op_r(j, 0, false, 0x31, RDX, RDX);
		op_r(j, 0, w, 0xf7, 6, RCX);
	}
	if (rem)
		mov_rr(j, w, RAX, RDX);
	if (done)
		here(j, done);
	st64(j, D, RAX);
}

/* Loads and stores: the effective address's register (rax) and the base
 * (the fast memory or another's), the offset folded in when it fits. */
static int mem_base(jit *j, unsigned mn, uint32_t mem)
{
	if (!mn)
		return MEM;
	op_m(j, 0, true, 0x8b, RDX, IN, NOIDX,
	     (int32_t)offsetof(eng_instance, mem_base));
	op_m(j, 0, true, 0x8b, RDX, RDX, NOIDX, sd(j, mem));
	return RDX;
}

/* rax = the address (zero-extended i32, plus the _AK constant wrapping
 * at 32 bits); returns the displacement left to add. */
static int32_t ea(jit *j, uint32_t slot, bool ak, uint32_t k, uint32_t off)
{
	ld32(j, RAX, slot);
	if (ak) {
		op_r(j, 0, false, 0x81, 0, RAX);
		b4(j, k);
	}
	if (off <= (uint32_t)INT32_MAX)
		return (int32_t)off;
	mov_imm(j, RCX, off);
	op_r(j, 0, true, 0x03, RAX, RCX);
	return 0;
}

/* The load ops in interp.c's LOADS order: opcode, 64-bit operand. */
static const struct {
	uint32_t op;
	bool w;
} loads[14] = {
    {0x8b, false},   {0x8b, true},    {0x8b, false},   {0x8b, true},
    {0x0fbe, false}, {0x0fb6, false}, {0x0fbf, false}, {0x0fb7, false},
    {0x0fbe, true},  {0x0fb6, false}, {0x0fbf, true},  {0x0fb7, false},
    {0x63, true},    {0x8b, false},
};

/* The store ops in STORES order: width in bytes. */
static const uint8_t stores[9] = {4, 8, 4, 8, 1, 2, 1, 2, 4};

static void load(jit *j, const eng_cell *ip, unsigned k, unsigned variant)
{
	bool ak = variant == 2;
	int base;
	int32_t disp;

	disp = ea(j, A, ak, ak ? ip[2].u32[1] : 0, ip[2].u32[0]);
	base = mem_base(j, variant == 1, ip[2].u32[1]);
	fault_site(j, ip);
	op_m(j, 0, loads[k].w, loads[k].op, RCX, base, RAX, disp);
	st64(j, D, RCX);
}

static void store(jit *j, const eng_cell *ip, unsigned k, unsigned variant)
{
	bool ak = variant == 2;
	int base;
	int32_t disp;

	disp = ea(j, ip[1].u32[0], ak, ak ? ip[2].u32[1] : 0, ip[2].u32[0]);
	base = mem_base(j, variant == 1, ip[2].u32[1]);
	ld64(j, RCX, ip[1].u32[1]);
	fault_site(j, ip);
	switch (stores[k]) {
	case 1: op_m(j, 0, false, 0x88, RCX, base, RAX, disp); break;
	case 2: op_m(j, 0x66, false, 0x89, RCX, base, RAX, disp); break;
	case 4: op_m(j, 0, false, 0x89, RCX, base, RAX, disp); break;
	default: op_m(j, 0, true, 0x89, RCX, base, RAX, disp); break;
	}
}

/* ---- SIMD: a v128 in slots s and s+1, into and out of xmm registers
 * (a half a cache register holds moved with movq/pinsrq/pextrq). ---- */

static void vld(jit *j, int x, uint32_t s)
{
	int lo = reg_of(j, s), hi = reg_of(j, s + 1);

	if (lo < 0 && hi < 0) {
		op_m(j, 0xf3, false, 0x0f6f, x, FP, NOIDX, sd(j, s));
		return;
	}
	if (lo >= 0)
		op_r(j, 0x66, true, 0x0f6e, x, lo);
	else
		op_m(j, 0xf3, false, 0x0f7e, x, FP, NOIDX, sd(j, s));
	if (hi >= 0)
		op_r(j, 0x66, true, 0x0f3a22, x, hi);
	else
		op_m(j, 0x66, true, 0x0f3a22, x, FP, NOIDX, sd(j, s + 1));
	b1(j, 1);
}

static void vst(jit *j, uint32_t s, int x)
{
	int lo = reg_of(j, s), hi = reg_of(j, s + 1);

	if (lo < 0 && hi < 0) {
		op_m(j, 0xf3, false, 0x0f7f, x, FP, NOIDX, sd(j, s));
		return;
	}
	if (lo >= 0)
		op_r(j, 0x66, true, 0x0f7e, x, lo);
	else
		op_m(j, 0x66, false, 0x0fd6, x, FP, NOIDX, sd(j, s));
	if (hi >= 0)
		op_r(j, 0x66, true, 0x0f3a16, x, hi);
	else
		op_m(j, 0x66, true, 0x0f3a16, x, FP, NOIDX, sd(j, s + 1));
	b1(j, 1);
}

/* xmm x = the 16 bytes lo, hi. */
static void vconst(jit *j, int x, uint64_t lo, uint64_t hi)
{
	mov_imm(j, RAX, lo);
	op_r(j, 0x66, true, 0x0f6e, x, RAX);
	mov_imm(j, RAX, hi);
	op_r(j, 0x66, true, 0x0f3a22, x, RAX);
	b1(j, 1);
}

/* The SIMD instructions that are one SSE instruction on two vectors
 * (xmm0 = a, xmm1 = b, the result in xmm0; swapped: xmm0 = b, xmm1 = a),
 * the same lane by lane as simd.h's loops; cmp: the instruction takes
 * that predicate as an immediate (cmpps/cmppd: 0 equal and ordered, 1
 * less, 2 less or equal, both false on a NaN as Wasm's are; 4 not equal
 * or unordered, true on a NaN as Wasm's ne). */
#define NOCMP 0xff
static const struct {
	uint16_t op;
	uint16_t pfx;
	uint32_t sse;
	bool swapped;
	uint8_t cmp;
} vbins[] = {
    /* pmin/pmax: minps/maxps give (x < y ? x : y) / (x > y ? x : y) for
     * xmm0 = x, xmm1 = y, NaNs and zeros included, which is Wasm's
     * b < a ? b : a / a < b ? b : a with x = b */
    {EOP_F32X4_PMIN, 0, 0x0f5d, true, NOCMP},
    {EOP_F32X4_PMAX, 0, 0x0f5f, true, NOCMP},
    {EOP_F64X2_PMIN, 0x66, 0x0f5d, true, NOCMP},
    {EOP_F64X2_PMAX, 0x66, 0x0f5f, true, NOCMP},
    /* pmaddwd: the pairs' products summed, wrapping as Wasm's do */
    {EOP_I32X4_DOT_I16X8_S, 0x66, 0x0ff5, false, NOCMP},
    {EOP_F32X4_ADD, 0, 0x0f58, false, NOCMP},
    {EOP_F32X4_SUB, 0, 0x0f5c, false, NOCMP},
    {EOP_F32X4_MUL, 0, 0x0f59, false, NOCMP},
    {EOP_F32X4_DIV, 0, 0x0f5e, false, NOCMP},
    {EOP_F64X2_ADD, 0x66, 0x0f58, false, NOCMP},
    {EOP_F64X2_SUB, 0x66, 0x0f5c, false, NOCMP},
    {EOP_F64X2_MUL, 0x66, 0x0f59, false, NOCMP},
    {EOP_F64X2_DIV, 0x66, 0x0f5e, false, NOCMP},
    {EOP_I8X16_ADD, 0x66, 0x0ffc, false, NOCMP},
    {EOP_I16X8_ADD, 0x66, 0x0ffd, false, NOCMP},
    {EOP_I32X4_ADD, 0x66, 0x0ffe, false, NOCMP},
    {EOP_I64X2_ADD, 0x66, 0x0fd4, false, NOCMP},
    {EOP_I8X16_SUB, 0x66, 0x0ff8, false, NOCMP},
    {EOP_I16X8_SUB, 0x66, 0x0ff9, false, NOCMP},
    {EOP_I32X4_SUB, 0x66, 0x0ffa, false, NOCMP},
    {EOP_I64X2_SUB, 0x66, 0x0ffb, false, NOCMP},
    {EOP_I16X8_MUL, 0x66, 0x0fd5, false, NOCMP},
    {EOP_I32X4_MUL, 0x66, 0x0f3840, false, NOCMP},
    {EOP_V128_AND, 0x66, 0x0fdb, false, NOCMP},
    {EOP_V128_OR, 0x66, 0x0feb, false, NOCMP},
    {EOP_V128_XOR, 0x66, 0x0fef, false, NOCMP},
    {EOP_V128_ANDNOT, 0x66, 0x0fdf, true, NOCMP}, /* pandn: ~b & a */
    {EOP_I8X16_EQ, 0x66, 0x0f74, false, NOCMP},
    {EOP_I16X8_EQ, 0x66, 0x0f75, false, NOCMP},
    {EOP_I32X4_EQ, 0x66, 0x0f76, false, NOCMP},
    {EOP_I64X2_EQ, 0x66, 0x0f3829, false, NOCMP},
    {EOP_I8X16_GT_S, 0x66, 0x0f64, false, NOCMP},
    {EOP_I16X8_GT_S, 0x66, 0x0f65, false, NOCMP},
    {EOP_I32X4_GT_S, 0x66, 0x0f66, false, NOCMP},
    {EOP_I8X16_LT_S, 0x66, 0x0f64, true, NOCMP},
    {EOP_I16X8_LT_S, 0x66, 0x0f65, true, NOCMP},
    {EOP_I32X4_LT_S, 0x66, 0x0f66, true, NOCMP},
    {EOP_I8X16_ADD_SAT_S, 0x66, 0x0fec, false, NOCMP},
    {EOP_I8X16_ADD_SAT_U, 0x66, 0x0fdc, false, NOCMP},
    {EOP_I8X16_SUB_SAT_S, 0x66, 0x0fe8, false, NOCMP},
    {EOP_I8X16_SUB_SAT_U, 0x66, 0x0fd8, false, NOCMP},
    {EOP_I16X8_ADD_SAT_S, 0x66, 0x0fed, false, NOCMP},
    {EOP_I16X8_ADD_SAT_U, 0x66, 0x0fdd, false, NOCMP},
    {EOP_I16X8_SUB_SAT_S, 0x66, 0x0fe9, false, NOCMP},
    {EOP_I16X8_SUB_SAT_U, 0x66, 0x0fd9, false, NOCMP},
    {EOP_I8X16_MIN_S, 0x66, 0x0f3838, false, NOCMP},
    {EOP_I8X16_MIN_U, 0x66, 0x0fda, false, NOCMP},
    {EOP_I8X16_MAX_S, 0x66, 0x0f383c, false, NOCMP},
    {EOP_I8X16_MAX_U, 0x66, 0x0fde, false, NOCMP},
    {EOP_I16X8_MIN_S, 0x66, 0x0fea, false, NOCMP},
    {EOP_I16X8_MIN_U, 0x66, 0x0f383a, false, NOCMP},
    {EOP_I16X8_MAX_S, 0x66, 0x0fee, false, NOCMP},
    {EOP_I16X8_MAX_U, 0x66, 0x0f383e, false, NOCMP},
    {EOP_I32X4_MIN_S, 0x66, 0x0f3839, false, NOCMP},
    {EOP_I32X4_MIN_U, 0x66, 0x0f383b, false, NOCMP},
    {EOP_I32X4_MAX_S, 0x66, 0x0f383d, false, NOCMP},
    {EOP_I32X4_MAX_U, 0x66, 0x0f383f, false, NOCMP},
    {EOP_I8X16_AVGR_U, 0x66, 0x0fe0, false, NOCMP},
    {EOP_I16X8_AVGR_U, 0x66, 0x0fe3, false, NOCMP},
    {EOP_I8X16_NARROW_I16X8_S, 0x66, 0x0f63, false, NOCMP},
    {EOP_I8X16_NARROW_I16X8_U, 0x66, 0x0f67, false, NOCMP},
    {EOP_I16X8_NARROW_I32X4_S, 0x66, 0x0f6b, false, NOCMP},
    {EOP_I16X8_NARROW_I32X4_U, 0x66, 0x0f382b, false, NOCMP},
    {EOP_F32X4_EQ, 0, 0x0fc2, false, 0},
    {EOP_F32X4_NE, 0, 0x0fc2, false, 4},
    {EOP_F32X4_LT, 0, 0x0fc2, false, 1},
    {EOP_F32X4_GT, 0, 0x0fc2, true, 1},
    {EOP_F32X4_LE, 0, 0x0fc2, false, 2},
    {EOP_F32X4_GE, 0, 0x0fc2, true, 2},
    {EOP_F64X2_EQ, 0x66, 0x0fc2, false, 0},
    {EOP_F64X2_NE, 0x66, 0x0fc2, false, 4},
    {EOP_F64X2_LT, 0x66, 0x0fc2, false, 1},
    {EOP_F64X2_GT, 0x66, 0x0fc2, true, 1},
    {EOP_F64X2_LE, 0x66, 0x0fc2, false, 2},
    {EOP_F64X2_GE, 0x66, 0x0fc2, true, 2},
};

/* The SIMD instructions that are one SSE instruction on one vector
 * (xmm0 = a, the result in xmm0); high: the upper half moved down first
 * (psrldq 8), for the extends of the high lanes. */
static const struct {
	uint16_t op;
	uint32_t sse;
	bool high;
} vuns[] = {
    {EOP_I8X16_ABS, 0x0f381c, false},
    {EOP_I16X8_ABS, 0x0f381d, false},
    {EOP_I32X4_ABS, 0x0f381e, false},
    {EOP_I16X8_EXTEND_LOW_I8X16_S, 0x0f3820, false},
    {EOP_I16X8_EXTEND_HIGH_I8X16_S, 0x0f3820, true},
    {EOP_I16X8_EXTEND_LOW_I8X16_U, 0x0f3830, false},
    {EOP_I16X8_EXTEND_HIGH_I8X16_U, 0x0f3830, true},
    {EOP_I32X4_EXTEND_LOW_I16X8_S, 0x0f3823, false},
    {EOP_I32X4_EXTEND_HIGH_I16X8_S, 0x0f3823, true},
    {EOP_I32X4_EXTEND_LOW_I16X8_U, 0x0f3833, false},
    {EOP_I32X4_EXTEND_HIGH_I16X8_U, 0x0f3833, true},
    {EOP_I64X2_EXTEND_LOW_I32X4_S, 0x0f3825, false},
    {EOP_I64X2_EXTEND_HIGH_I32X4_S, 0x0f3825, true},
    {EOP_I64X2_EXTEND_LOW_I32X4_U, 0x0f3835, false},
    {EOP_I64X2_EXTEND_HIGH_I32X4_U, 0x0f3835, true},
};

/* Shifts by a scalar (slot B), its count taken modulo the lane's bits as
 * Wasm's are; x86 has none for 8-bit lanes nor an arithmetic one for
 * 64-bit lanes. */
static const struct {
	uint16_t op;
	uint32_t sse;
	uint8_t mask;
} vshifts[] = {
    {EOP_I16X8_SHL, 0x0ff1, 15},   {EOP_I16X8_SHR_S, 0x0fe1, 15},
    {EOP_I16X8_SHR_U, 0x0fd1, 15}, {EOP_I32X4_SHL, 0x0ff2, 31},
    {EOP_I32X4_SHR_S, 0x0fe2, 31}, {EOP_I32X4_SHR_U, 0x0fd2, 31},
    {EOP_I64X2_SHL, 0x0ff3, 63},   {EOP_I64X2_SHR_U, 0x0fd3, 63},
};

/* all_true: the lanes compared with zero (pcmpeqb/w/d/q) */
static const struct {
	uint16_t op;
	uint32_t sse;
} valltrue[] = {
    {EOP_I8X16_ALL_TRUE, 0x0f74},
    {EOP_I16X8_ALL_TRUE, 0x0f75},
    {EOP_I32X4_ALL_TRUE, 0x0f76},
    {EOP_I64X2_ALL_TRUE, 0x0f3829},
};

/* xmm0's low byte (size 1) or word (size 2), 32-bit lane (4) or 64-bit
 * lane (8) in every lane of xmm0. */
static void splat_low(jit *j, unsigned size)
{
	if (size == 1) {
		op_r(j, 0x66, false, 0x0fef, 1, 1);   /* pxor xmm1: lanes 0 */
		op_r(j, 0x66, false, 0x0f3800, 0, 1); /* pshufb xmm0, xmm1 */
		return;
	}
	if (size == 2) {
		op_r(j, 0xf2, false, 0x0f70, 0, 0); /* pshuflw xmm0, xmm0, 0 */
		b1(j, 0);
		op_r(j, 0x66, false, 0x0f6c, 0, 0); /* punpcklqdq */
		return;
	}
	if (size == 4) {
		op_r(j, 0x66, false, 0x0f70, 0, 0); /* pshufd xmm0, xmm0, 0 */
		b1(j, 0);
		return;
	}
	op_r(j, 0x66, false, 0x0f6c, 0, 0); /* punpcklqdq */
}

/* The loads of part of a vector (V128_LOAD's cells: D, the address slot
 * A, the offset and the memory in cell 2): the bytes read by one
 * instruction at the fault site, as v128.load's, so that one past the
 * memory faults in its guard region. */
static bool vload(jit *j, const eng_cell *ip, unsigned op)
{
	static const struct {
		uint16_t op;
		uint16_t pfx;
		uint32_t sse;
		uint8_t splat; /* 0: none; else the lane size to splat */
	} parts[] = {
	    {EOP_V128_LOAD8X8_S, 0x66, 0x0f3820, 0},  /* pmovsxbw */
	    {EOP_V128_LOAD8X8_U, 0x66, 0x0f3830, 0},  /* pmovzxbw */
	    {EOP_V128_LOAD16X4_S, 0x66, 0x0f3823, 0}, /* pmovsxwd */
	    {EOP_V128_LOAD16X4_U, 0x66, 0x0f3833, 0}, /* pmovzxwd */
	    {EOP_V128_LOAD32X2_S, 0x66, 0x0f3825, 0}, /* pmovsxdq */
	    {EOP_V128_LOAD32X2_U, 0x66, 0x0f3835, 0}, /* pmovzxdq */
	    {EOP_V128_LOAD32_ZERO, 0x66, 0x0f6e, 0},  /* movd */
	    {EOP_V128_LOAD64_ZERO, 0xf3, 0x0f7e, 0},  /* movq */
	    {EOP_V128_LOAD32_SPLAT, 0x66, 0x0f6e, 4},
	    {EOP_V128_LOAD64_SPLAT, 0xf3, 0x0f7e, 8},
	    {EOP_V128_LOAD8_SPLAT, 0, 0x0fb6, 1},  /* movzx eax, byte */
	    {EOP_V128_LOAD16_SPLAT, 0, 0x0fb7, 2}, /* movzx eax, word */
	};
	int32_t disp;
	int base;

	for (size_t k = 0; k < sizeof parts / sizeof *parts; k++) {
		if (parts[k].op != op)
			continue;
		disp = ea(j, A, false, 0, ip[2].u32[0]);
		base = mem_base(j, true, ip[2].u32[1]);
		fault_site(j, ip);
		if (parts[k].splat == 1 || parts[k].splat == 2) {
			op_m(j, 0, false, parts[k].sse, RAX, base, RAX, disp);
			op_r(j, 0x66, false, 0x0f6e, 0, RAX); /* movd xmm0 */
		} else {
			op_m(j, parts[k].pfx, false, parts[k].sse, 0, base, RAX,
			     disp);
		}
		if (parts[k].splat)
			splat_low(j, parts[k].splat);
		vst(j, D, 0);
		return true;
	}
	return false;
}

/* The lane instructions, by lane size (1, 2, 4, 8 bytes): splat,
 * extract_lane (pextrb/w/d/q; the _s ones of 8- and 16-bit lanes sign-
 * extended by movsx) and replace_lane (pinsrb/w/d/q). */
enum { LANE_SPLAT, LANE_EXTRACT, LANE_EXTRACT_S, LANE_REPLACE };
static const struct {
	uint16_t op;
	uint8_t size, kind;
} vlanes[] = {
    {EOP_I8X16_SPLAT, 1, LANE_SPLAT},
    {EOP_I16X8_SPLAT, 2, LANE_SPLAT},
    {EOP_I32X4_SPLAT, 4, LANE_SPLAT},
    {EOP_F32X4_SPLAT, 4, LANE_SPLAT},
    {EOP_I64X2_SPLAT, 8, LANE_SPLAT},
    {EOP_F64X2_SPLAT, 8, LANE_SPLAT},
    {EOP_I8X16_EXTRACT_LANE_S, 1, LANE_EXTRACT_S},
    {EOP_I8X16_EXTRACT_LANE_U, 1, LANE_EXTRACT},
    {EOP_I16X8_EXTRACT_LANE_S, 2, LANE_EXTRACT_S},
    {EOP_I16X8_EXTRACT_LANE_U, 2, LANE_EXTRACT},
    {EOP_I32X4_EXTRACT_LANE, 4, LANE_EXTRACT},
    {EOP_F32X4_EXTRACT_LANE, 4, LANE_EXTRACT},
    {EOP_I64X2_EXTRACT_LANE, 8, LANE_EXTRACT},
    {EOP_F64X2_EXTRACT_LANE, 8, LANE_EXTRACT},
    {EOP_I8X16_REPLACE_LANE, 1, LANE_REPLACE},
    {EOP_I16X8_REPLACE_LANE, 2, LANE_REPLACE},
    {EOP_I32X4_REPLACE_LANE, 4, LANE_REPLACE},
    {EOP_F32X4_REPLACE_LANE, 4, LANE_REPLACE},
    {EOP_I64X2_REPLACE_LANE, 8, LANE_REPLACE},
    {EOP_F64X2_REPLACE_LANE, 8, LANE_REPLACE},
};

static bool vlane(jit *j, const eng_cell *ip, unsigned op)
{
	for (size_t k = 0; k < sizeof vlanes / sizeof *vlanes; k++) {
		unsigned size = vlanes[k].size;
		bool w = size == 8;
		if (vlanes[k].op != op)
			continue;
		switch (vlanes[k].kind) {
		case LANE_SPLAT:
			(w ? ld64 : ld32)(j, RAX, A);
			op_r(j, 0x66, w, 0x0f6e, 0, RAX); /* movd/q xmm0 */
			splat_low(j, size);
			vst(j, D, 0);
			break;
		case LANE_EXTRACT:
		case LANE_EXTRACT_S:
			vld(j, 0, A);
			op_r(j, 0x66, w,
			     size == 1	 ? 0x0f3a14
			     : size == 2 ? 0x0f3a15
					 : 0x0f3a16,
			     0, RAX);
			b1(j, B);
			if (vlanes[k].kind == LANE_EXTRACT_S)
				op_r(j, 0, false, size == 1 ? 0x0fbe : 0x0fbf,
				     RAX, RAX);
			st64(j, D, RAX);
			break;
		default:
			vld(j, 0, A);
			(w ? ld64 : ld32)(j, RAX, B);
			op_r(j, 0x66, w,
			     size == 1	 ? 0x0f3a20
			     : size == 2 ? 0x0fc4
					 : 0x0f3a22,
			     0, RAX);
			b1(j, ip[2].u32[1]);
			vst(j, D, 0);
			break;
		}
		return true;
	}
	return false;
}

/* The unary, shift and test templates; false for another op. */
static bool simd1(jit *j, const eng_cell *ip, unsigned op)
{
	for (size_t k = 0; k < sizeof vuns / sizeof *vuns; k++)
		if (vuns[k].op == op) {
			vld(j, 0, A);
			if (vuns[k].high) {
				op_r(j, 0x66, false, 0x0f73, 3, 0); /* psrldq */
				b1(j, 8);
			}
			op_r(j, 0x66, false, vuns[k].sse, 0, 0);
			vst(j, D, 0);
			return true;
		}
	for (size_t k = 0; k < sizeof vshifts / sizeof *vshifts; k++)
		if (vshifts[k].op == op) {
			vld(j, 0, A);
			ld32(j, RAX, B);
			alu_imm(j, false, alu_and, vshifts[k].mask);
			op_r(j, 0x66, false, 0x0f6e, 1, RAX); /* movd xmm1 */
			op_r(j, 0x66, false, vshifts[k].sse, 0, 1);
			vst(j, D, 0);
			return true;
		}
	for (size_t k = 0; k < sizeof valltrue / sizeof *valltrue; k++)
		if (valltrue[k].op == op) {
			/* No zero lane: the compare with zero is all zero. */
			vld(j, 0, A);
			op_r(j, 0x66, false, 0x0fef, 1, 1); /* pxor xmm1 */
			op_r(j, 0x66, false, valltrue[k].sse, 1, 0);
			op_r(j, 0x66, false, 0x0f3817, 1, 1); /* ptest */
			set_cc(j, D, CC_E);
			return true;
		}
	switch (op) {
	case EOP_V128_NOT:
		vld(j, 0, A);
		op_r(j, 0x66, false, 0x0f76, 1, 1); /* pcmpeqd: all ones */
		op_r(j, 0x66, false, 0x0fef, 0, 1); /* pxor */
		vst(j, D, 0);
		return true;
	case EOP_I8X16_NEG:
	case EOP_I16X8_NEG:
	case EOP_I32X4_NEG:
	case EOP_I64X2_NEG: {
		static const uint32_t psub[] = {0x0ff8, 0x0ff9, 0x0ffa, 0x0ffb};
		vld(j, 0, A);
		op_r(j, 0x66, false, 0x0fef, 1, 1); /* pxor xmm1: 0 */
		op_r(j, 0x66, false,
		     psub[op == EOP_I8X16_NEG	? 0
			  : op == EOP_I16X8_NEG ? 1
			  : op == EOP_I32X4_NEG ? 2
						: 3],
		     1, 0);
		vst(j, D, 1);
		return true;
	}
	case EOP_V128_BITSELECT: /* (a & c) | (b & ~c) */
		vld(j, 0, A);
		vld(j, 1, B);
		vld(j, 2, ip[2].u32[1]);
		op_r(j, 0x66, false, 0x0fdb, 0, 2); /* pand xmm0, xmm2 */
		op_r(j, 0x66, false, 0x0fdf, 2, 1); /* pandn xmm2, xmm1 */
		op_r(j, 0x66, false, 0x0feb, 0, 2); /* por */
		vst(j, D, 0);
		return true;
	case EOP_I8X16_SWIZZLE:
		/* pshufb zeroes a lane whose index has bit 7 set: + 0x70 with
		 * unsigned saturation keeps 0-15 below it and puts 16 and up
		 * above. */
		vconst(j, 2, 0x7070707070707070ull, 0x7070707070707070ull);
		vld(j, 0, A);
		vld(j, 1, B);
		op_r(j, 0x66, false, 0x0fdc, 1, 2);   /* paddusb xmm1, xmm2 */
		op_r(j, 0x66, false, 0x0f3800, 0, 1); /* pshufb xmm0, xmm1 */
		vst(j, D, 0);
		return true;
	case EOP_F32X4_ABS:
	case EOP_F32X4_NEG:
	case EOP_F64X2_ABS:
	case EOP_F64X2_NEG: {
		/* The sign bits, cleared (andps/pd) or flipped (xorps/pd):
		 * bitwise, NaNs included, as Wasm's are. */
		bool dbl = op == EOP_F64X2_ABS || op == EOP_F64X2_NEG,
		     abs = op == EOP_F32X4_ABS || op == EOP_F64X2_ABS;
		uint64_t sign = dbl ? 0x8000000000000000ull
				    : 0x8000000080000000ull,
			 k = abs ? ~sign : sign;
		vconst(j, 1, k, k);
		vld(j, 0, A);
		op_r(j, dbl ? 0x66 : 0, false, abs ? 0x0f54 : 0x0f57, 0, 1);
		vst(j, D, 0);
		return true;
	}
	case EOP_F32X4_SQRT:
	case EOP_F64X2_SQRT: /* sqrtps/pd: sqrtf's and sqrt's own instruction */
		vld(j, 0, A);
		op_r(j, op == EOP_F64X2_SQRT ? 0x66 : 0, false, 0x0f51, 0, 0);
		vst(j, D, 0);
		return true;
	case EOP_V128_LOAD8X8_S:
	case EOP_V128_LOAD8X8_U:
	case EOP_V128_LOAD16X4_S:
	case EOP_V128_LOAD16X4_U:
	case EOP_V128_LOAD32X2_S:
	case EOP_V128_LOAD32X2_U:
	case EOP_V128_LOAD32_ZERO:
	case EOP_V128_LOAD64_ZERO:
	case EOP_V128_LOAD8_SPLAT:
	case EOP_V128_LOAD16_SPLAT:
	case EOP_V128_LOAD32_SPLAT:
	case EOP_V128_LOAD64_SPLAT: return vload(j, ip, op);
	case EOP_V128_ANY_TRUE:
		vld(j, 0, A);
		op_r(j, 0x66, false, 0x0f3817, 0, 0); /* ptest */
		set_cc(j, D, CC_NE);
		return true;
	case EOP_I8X16_BITMASK:
	case EOP_I16X8_BITMASK:
		vld(j, 0, A);
		if (op == EOP_I16X8_BITMASK) /* packsswb: a word's sign */
			op_r(j, 0x66, false, 0x0f63, 0, 0);
		op_r(j, 0x66, false, 0x0fd7, RAX, 0); /* pmovmskb eax */
		if (op == EOP_I16X8_BITMASK)
			alu_imm(j, false, alu_and, 0xff);
		st64(j, D, RAX);
		return true;
	case EOP_I32X4_BITMASK:
	case EOP_I64X2_BITMASK:
		vld(j, 0, A);
		/* movmskps / movmskpd eax */
		op_r(j, op == EOP_I64X2_BITMASK ? 0x66 : 0, false, 0x0f50, RAX,
		     0);
		st64(j, D, RAX);
		return true;
	default: return vlane(j, ip, op);
	}
}

/* The integer compares that are not one SSE instruction: ne, the
 * unsigned orders, le_s and ge_s. Signed orders are pcmpgt (a > b, or
 * b > a swapped); unsigned ones compare a with min_u(a, b) (a <= b) or
 * max_u(a, b) (a >= b), pminu/pmaxu being SSE4.1 for 16- and 32-bit
 * lanes; ne and the other half of each are the same compare negated.
 * i64x2 has no unsigned orders in Wasm, and pcmpgtq is SSE4.2. */
enum { VC_EQ, VC_GT, VC_MIN, VC_MAX };
static const struct {
	uint16_t op;
	uint8_t kind, size; /* size: 0 to 3 for 8- to 64-bit lanes */
	bool swapped, negated;
} vcmps[] = {
    {EOP_I8X16_NE, VC_EQ, 0, false, true},
    {EOP_I16X8_NE, VC_EQ, 1, false, true},
    {EOP_I32X4_NE, VC_EQ, 2, false, true},
    {EOP_I64X2_NE, VC_EQ, 3, false, true},
    {EOP_I8X16_LE_S, VC_GT, 0, false, true},
    {EOP_I16X8_LE_S, VC_GT, 1, false, true},
    {EOP_I32X4_LE_S, VC_GT, 2, false, true},
    {EOP_I64X2_LE_S, VC_GT, 3, false, true},
    {EOP_I8X16_GE_S, VC_GT, 0, true, true},
    {EOP_I16X8_GE_S, VC_GT, 1, true, true},
    {EOP_I32X4_GE_S, VC_GT, 2, true, true},
    {EOP_I64X2_GE_S, VC_GT, 3, true, true},
    {EOP_I64X2_GT_S, VC_GT, 3, false, false},
    {EOP_I64X2_LT_S, VC_GT, 3, true, false},
    {EOP_I8X16_LE_U, VC_MIN, 0, false, false},
    {EOP_I16X8_LE_U, VC_MIN, 1, false, false},
    {EOP_I32X4_LE_U, VC_MIN, 2, false, false},
    {EOP_I8X16_GT_U, VC_MIN, 0, false, true},
    {EOP_I16X8_GT_U, VC_MIN, 1, false, true},
    {EOP_I32X4_GT_U, VC_MIN, 2, false, true},
    {EOP_I8X16_GE_U, VC_MAX, 0, false, false},
    {EOP_I16X8_GE_U, VC_MAX, 1, false, false},
    {EOP_I32X4_GE_U, VC_MAX, 2, false, false},
    {EOP_I8X16_LT_U, VC_MAX, 0, false, true},
    {EOP_I16X8_LT_U, VC_MAX, 1, false, true},
    {EOP_I32X4_LT_U, VC_MAX, 2, false, true},
};

static bool vcmp(jit *j, const eng_cell *ip, unsigned op)
{
	static const uint32_t eq[] = {0x0f74, 0x0f75, 0x0f76, 0x0f3829},
			      gt[] = {0x0f64, 0x0f65, 0x0f66, 0x0f3837},
			      minu[] = {0x0fda, 0x0f383a, 0x0f383b},
			      maxu[] = {0x0fde, 0x0f383e, 0x0f383f};

	for (size_t k = 0; k < sizeof vcmps / sizeof *vcmps; k++) {
		unsigned size = vcmps[k].size;
		if (vcmps[k].op != op)
			continue;
		if (vcmps[k].kind == VC_GT && size == 3 && !has_sse42)
			return false;
		vld(j, 0, vcmps[k].swapped ? B : A);
		vld(j, 1, vcmps[k].swapped ? A : B);
		switch (vcmps[k].kind) {
		case VC_EQ: op_r(j, 0x66, false, eq[size], 0, 1); break;
		case VC_GT: op_r(j, 0x66, false, gt[size], 0, 1); break;
		default:
			/* xmm1 = min_u or max_u(b, a); xmm0 = a == xmm1 */
			op_r(j, 0x66, false,
			     (vcmps[k].kind == VC_MIN ? minu : maxu)[size], 1,
			     0);
			op_r(j, 0x66, false, eq[size], 0, 1);
		}
		if (vcmps[k].negated) {
			op_r(j, 0x66, false, 0x0f76, 1, 1); /* all ones */
			op_r(j, 0x66, false, 0x0fef, 0, 1); /* pxor */
		}
		vst(j, D, 0);
		return true;
	}
	return false;
}

/* Extended multiplies: both halves widened as extend does (the high
 * half moved down first), then multiplied at the wide lane size, which
 * loses nothing: pmullw for 16-bit products, pmulld for 32-bit ones,
 * pmuldq/pmuludq for 64-bit ones (they multiply each quadword's low
 * doubleword). */
static const struct {
	uint16_t op;
	uint32_t ext, mul;
	bool high;
} vextmuls[] = {
    {EOP_I16X8_EXTMUL_LOW_I8X16_S, 0x0f3820, 0x0fd5, false},
    {EOP_I16X8_EXTMUL_HIGH_I8X16_S, 0x0f3820, 0x0fd5, true},
    {EOP_I16X8_EXTMUL_LOW_I8X16_U, 0x0f3830, 0x0fd5, false},
    {EOP_I16X8_EXTMUL_HIGH_I8X16_U, 0x0f3830, 0x0fd5, true},
    {EOP_I32X4_EXTMUL_LOW_I16X8_S, 0x0f3823, 0x0f3840, false},
    {EOP_I32X4_EXTMUL_HIGH_I16X8_S, 0x0f3823, 0x0f3840, true},
    {EOP_I32X4_EXTMUL_LOW_I16X8_U, 0x0f3833, 0x0f3840, false},
    {EOP_I32X4_EXTMUL_HIGH_I16X8_U, 0x0f3833, 0x0f3840, true},
    {EOP_I64X2_EXTMUL_LOW_I32X4_S, 0x0f3825, 0x0f3828, false},
    {EOP_I64X2_EXTMUL_HIGH_I32X4_S, 0x0f3825, 0x0f3828, true},
    {EOP_I64X2_EXTMUL_LOW_I32X4_U, 0x0f3835, 0x0ff4, false},
    {EOP_I64X2_EXTMUL_HIGH_I32X4_U, 0x0f3835, 0x0ff4, true},
};

/* extmul, and the pairwise adds: pmaddubsw multiplies unsigned bytes of
 * its first operand by signed bytes of its second and adds each pair
 * (a byte of ones on the other side: the pair's sum, which cannot
 * saturate); pmaddwd does the same for signed words, and an unsigned
 * word pair is summed biased by -32768 each, then given 65536 back. */
static bool vwide(jit *j, const eng_cell *ip, unsigned op)
{
	for (size_t k = 0; k < sizeof vextmuls / sizeof *vextmuls; k++) {
		if (vextmuls[k].op != op)
			continue;
		vld(j, 0, A);
		vld(j, 1, B);
		for (int x = 0; x < 2; x++) {
			if (vextmuls[k].high) {
				op_r(j, 0x66, false, 0x0f73, 3, x); /* psrldq */
				b1(j, 8);
			}
			op_r(j, 0x66, false, vextmuls[k].ext, x, x);
		}
		op_r(j, 0x66, false, vextmuls[k].mul, 0, 1);
		vst(j, D, 0);
		return true;
	}
	switch (op) {
	case EOP_I16X8_EXTADD_PAIRWISE_I8X16_S:
	case EOP_I16X8_EXTADD_PAIRWISE_I8X16_U: {
		bool u = op == EOP_I16X8_EXTADD_PAIRWISE_I8X16_U;
		vld(j, u ? 0 : 1, A);
		vconst(j, u ? 1 : 0, 0x0101010101010101ull,
		       0x0101010101010101ull);
		op_r(j, 0x66, false, 0x0f3804, 0, 1); /* pmaddubsw */
		vst(j, D, 0);
		return true;
	}
	case EOP_I32X4_EXTADD_PAIRWISE_I16X8_S:
	case EOP_I32X4_EXTADD_PAIRWISE_I16X8_U: {
		bool u = op == EOP_I32X4_EXTADD_PAIRWISE_I16X8_U;
		vld(j, 0, A);
		if (u) {
			vconst(j, 1, 0x8000800080008000ull,
			       0x8000800080008000ull);
			op_r(j, 0x66, false, 0x0fef, 0, 1); /* pxor */
		}
		vconst(j, 1, 0x0001000100010001ull, 0x0001000100010001ull);
		op_r(j, 0x66, false, 0x0ff5, 0, 1); /* pmaddwd */
		if (u) {
			vconst(j, 1, 0x0001000000010000ull,
			       0x0001000000010000ull);
			op_r(j, 0x66, false, 0x0ffe, 0, 1); /* paddd */
		}
		vst(j, D, 0);
		return true;
	}
	default: return false;
	}
}

/* Float min and max as Wasm has them (a NaN in either lane gives a NaN,
 * -0 is below +0), which minps/maxps alone are not: each is run both
 * ways round (xmm2 and xmm3) and the two merged, V8's sequence. min: the
 * or keeps a -0 and a NaN of either; max: the xor marks where the two
 * differ, the or and the subtraction turn that into a NaN or the +0.
 * Then the lanes that are NaN become a quiet NaN with its payload
 * cleared (the unordered mask shifted right, and-not). */
static bool vminmax(jit *j, const eng_cell *ip, unsigned op)
{
	bool dbl = op == EOP_F64X2_MIN || op == EOP_F64X2_MAX,
	     max = op == EOP_F32X4_MAX || op == EOP_F64X2_MAX;
	unsigned pfx = dbl ? 0x66 : 0;
	uint32_t mm = max ? 0x0f5f : 0x0f5d;

	if (op != EOP_F32X4_MIN && op != EOP_F32X4_MAX && !dbl)
		return false;
	vld(j, 0, A);
	vld(j, 1, B);
	op_r(j, pfx, false, 0x0f28, 2, max ? 1 : 0); /* movaps */
	op_r(j, pfx, false, mm, 2, max ? 0 : 1);
	op_r(j, pfx, false, 0x0f28, 3, max ? 0 : 1);
	op_r(j, pfx, false, mm, 3, max ? 1 : 0);
	if (max) {
		op_r(j, pfx, false, 0x0f57, 3, 2); /* xorps xmm3, xmm2 */
		op_r(j, pfx, false, 0x0f56, 2, 3); /* orps xmm2, xmm3 */
		op_r(j, pfx, false, 0x0f5c, 2, 3); /* subps xmm2, xmm3 */
	} else {
		op_r(j, pfx, false, 0x0f56, 2, 3); /* orps xmm2, xmm3 */
	}
	op_r(j, pfx, false, 0x0fc2, 3, 2); /* cmpunordps xmm3, xmm2 */
	b1(j, 3);
	if (!max)
		op_r(j, pfx, false, 0x0f56, 2, 3);	   /* orps xmm2, xmm3 */
	op_r(j, 0x66, false, dbl ? 0x0f73 : 0x0f72, 2, 3); /* psrlq/d */
	b1(j, dbl ? 13 : 10);
	op_r(j, pfx, false, 0x0f55, 3, 2); /* andnps xmm3, xmm2 */
	vst(j, D, 3);
	return true;
}

/* i32x4.trunc_sat_f32x4_s: NaN lanes zeroed (and with the ordered
 * mask), cvttps2dq, then the lanes that were >= 0 but came out negative
 * (0x80000000, too large) flipped to 0x7fffffff. f32x4.convert_i32x4_u:
 * the low 16 bits and the rest converted apart, the rest halved first
 * so that it is a signed int (both exact), then doubled and added: one
 * rounding, as the whole value's. V8's sequences. */
static bool vconv(jit *j, const eng_cell *ip, unsigned op)
{
	if (op == EOP_I32X4_TRUNC_SAT_F32X4_S) {
		vld(j, 0, A);
		op_r(j, 0, false, 0x0f28, 1, 0); /* movaps xmm1, xmm0 */
		op_r(j, 0, false, 0x0fc2, 1, 0); /* cmpeqps xmm1, xmm0 */
		b1(j, 0);
		op_r(j, 0x66, false, 0x0fdb, 0, 1); /* pand xmm0, xmm1 */
		op_r(j, 0x66, false, 0x0fef, 1, 0); /* pxor xmm1, xmm0 */
		op_r(j, 0xf3, false, 0x0f5b, 0, 0); /* cvttps2dq */
		op_r(j, 0x66, false, 0x0fdb, 1, 0); /* pand xmm1, xmm0 */
		op_r(j, 0x66, false, 0x0f72, 4, 1); /* psrad xmm1, 31 */
		b1(j, 31);
		op_r(j, 0x66, false, 0x0fef, 0, 1); /* pxor xmm0, xmm1 */
		vst(j, D, 0);
		return true;
	}
	if (op == EOP_F32X4_CONVERT_I32X4_U) {
		vld(j, 0, A);
		op_r(j, 0x66, false, 0x0fef, 1, 1);   /* pxor xmm1, xmm1 */
		op_r(j, 0x66, false, 0x0f3a0e, 1, 0); /* pblendw xmm1, xmm0 */
		b1(j, 0x55);
		op_r(j, 0x66, false, 0x0ffa, 0, 1); /* psubd xmm0, xmm1 */
		op_r(j, 0, false, 0x0f5b, 1, 1);    /* cvtdq2ps xmm1 */
		op_r(j, 0x66, false, 0x0f72, 2, 0); /* psrld xmm0, 1 */
		b1(j, 1);
		op_r(j, 0, false, 0x0f5b, 0, 0); /* cvtdq2ps xmm0 */
		op_r(j, 0, false, 0x0f58, 0, 0); /* addps xmm0, xmm0 */
		op_r(j, 0, false, 0x0f58, 0, 1); /* addps xmm0, xmm1 */
		vst(j, D, 0);
		return true;
	}
	return false;
}

/* The pure SIMD instructions without a template of their own (simd.h's
 * unary, binary, ternary, shift and test lists) call simd.h's function,
 * as the interpreter does, through a wrapper on the frame: the cached
 * slots written back before and read again after. A call costs a few
 * nanoseconds where a template costs one instruction or a few, but the
 * function stays compiled. The memory forms (lane loads and stores) have
 * none: a fault inside C is not a trap. */
static eng_v128 vget(const eng_val *fp, uint32_t s)
{
	eng_v128 v;
	memcpy(&v, fp + s, 16);
	return v;
}

static void vput(eng_val *fp, uint32_t s, eng_v128 v)
{
	memcpy(fp + s, &v, 16);
}

#define VH_UN(id, fn)                                                          \
	static void vh_##fn(eng_val *fp, const eng_cell *ip)                   \
	{                                                                      \
		vput(fp, D, eng_simd_##fn(vget(fp, A)));                       \
	}
#define VH_BIN(id, fn)                                                         \
	static void vh_##fn(eng_val *fp, const eng_cell *ip)                   \
	{                                                                      \
		vput(fp, D, eng_simd_##fn(vget(fp, A), vget(fp, B)));          \
	}
#define VH_TERN(id, fn)                                                        \
	static void vh_##fn(eng_val *fp, const eng_cell *ip)                   \
	{                                                                      \
		vput(fp, D,                                                    \
		     eng_simd_##fn(vget(fp, A), vget(fp, B),                   \
				   vget(fp, ip[2].u32[1])));                   \
	}
#define VH_SHIFT(id, fn)                                                       \
	static void vh_##fn(eng_val *fp, const eng_cell *ip)                   \
	{                                                                      \
		vput(fp, D, eng_simd_##fn(vget(fp, A), fp[B]));                \
	}
#define VH_TEST(id, fn)                                                        \
	static void vh_##fn(eng_val *fp, const eng_cell *ip)                   \
	{                                                                      \
		fp[D] = eng_simd_##fn(vget(fp, A));                            \
	}
ENG_SIMD_UNOPS(VH_UN)
ENG_SIMD_BINOPS(VH_BIN)
ENG_SIMD_TERNOPS(VH_TERN)
ENG_SIMD_SHIFTS(VH_SHIFT)
ENG_SIMD_TESTS(VH_TEST)
#undef VH_UN
#undef VH_BIN
#undef VH_TERN
#undef VH_SHIFT
#undef VH_TEST

#define VH_ENTRY(id, fn) {EOP_##id, vh_##fn},
static const struct {
	uint16_t op;
	void (*fn)(eng_val *fp, const eng_cell *ip);
} vhelpers[] = {ENG_SIMD_UNOPS(VH_ENTRY) ENG_SIMD_BINOPS(VH_ENTRY)
		    ENG_SIMD_TERNOPS(VH_ENTRY) ENG_SIMD_SHIFTS(VH_ENTRY)
			ENG_SIMD_TESTS(VH_ENTRY)};
#undef VH_ENTRY

static bool simd_c(jit *j, const eng_cell *ip, unsigned op)
{
	for (size_t k = 0; k < sizeof vhelpers / sizeof *vhelpers; k++)
		if (vhelpers[k].op == op) {
			spill(j);
			mov_rr(j, true, RDI, FP);
			mov_imm(j, RSI, (uintptr_t)ip);
			call_c(j, (const void *)vhelpers[k].fn);
			reload(j);
			return true;
		}
	return false;
}

/* A SIMD instruction's template, or its call of simd.h (simd_c); false
 * for those with neither (the function stays interpreted). */
static bool simd(jit *j, const eng_cell *ip, unsigned op)
{
	if (!has_sse41)
		return false;
	for (size_t k = 0; k < sizeof vbins / sizeof *vbins; k++)
		if (vbins[k].op == op) {
			vld(j, 0, vbins[k].swapped ? B : A);
			vld(j, 1, vbins[k].swapped ? A : B);
			op_r(j, vbins[k].pfx, false, vbins[k].sse, 0, 1);
			if (vbins[k].cmp != NOCMP)
				b1(j, vbins[k].cmp);
			vst(j, D, 0);
			return true;
		}
	switch (op) {
	case EOP_V128_LOAD:
	case EOP_V128_STORE: {
		bool ld = op == EOP_V128_LOAD;
		int32_t disp =
		    ea(j, ld ? A : ip[1].u32[0], false, 0, ip[2].u32[0]);
		int base = mem_base(j, true, ip[2].u32[1]);
		if (!ld)
			vld(j, 0, ip[1].u32[1]);
		fault_site(j, ip);
		op_m(j, 0xf3, false, ld ? 0x0f6f : 0x0f7f, 0, base, RAX, disp);
		if (ld)
			vst(j, D, 0);
		return true;
	}
	case EOP_V128_CONST:
		vconst(j, 0, ip[2].u64, ip[3].u64);
		vst(j, D, 0);
		return true;
	case EOP_V128_LOAD8_LANE:
	case EOP_V128_LOAD16_LANE:
	case EOP_V128_LOAD32_LANE:
	case EOP_V128_LOAD64_LANE:
	case EOP_V128_STORE8_LANE:
	case EOP_V128_STORE16_LANE:
	case EOP_V128_STORE32_LANE:
	case EOP_V128_STORE64_LANE: {
		/* pinsrb/w/d/q xmm0, [mem], lane; pextrb/w/d/q [mem], xmm0,
		 * lane: {d, addr} {offset, mem} {vector, lane} for a load,
		 * {addr, vector} {offset, mem} {lane} for a store. */
		static const uint32_t ins[] = {0x0f3a20, 0x0fc4, 0x0f3a22,
					       0x0f3a22},
				      ext[] = {0x0f3a14, 0x0f3a15, 0x0f3a16,
					       0x0f3a16};
		bool ld = op <= EOP_V128_LOAD64_LANE;
		unsigned size =
		    ld ? op - EOP_V128_LOAD8_LANE : op - EOP_V128_STORE8_LANE;
		int32_t disp =
		    ea(j, ld ? A : ip[1].u32[0], false, 0, ip[2].u32[0]);
		int base = mem_base(j, true, ip[2].u32[1]);
		vld(j, 0, ld ? ip[3].u32[0] : ip[1].u32[1]);
		fault_site(j, ip);
		op_m(j, 0x66, size == 3, ld ? ins[size] : ext[size], 0, base,
		     RAX, disp);
		b1(j, ld ? ip[3].u32[1] : ip[3].u32[0]);
		if (ld)
			vst(j, D, 0);
		return true;
	}
	case EOP_F32X4_CEIL:
	case EOP_F32X4_FLOOR:
	case EOP_F32X4_TRUNC:
	case EOP_F32X4_NEAREST:
	case EOP_F64X2_CEIL:
	case EOP_F64X2_FLOOR:
	case EOP_F64X2_TRUNC:
	case EOP_F64X2_NEAREST: {
		/* roundps/pd with the mode as its immediate (0 to even, 1
		 * down, 2 up, 3 toward zero) and inexact not signalled (8):
		 * ties, -0 and NaNs as Wasm rounds them */
		bool dbl = op == EOP_F64X2_CEIL || op == EOP_F64X2_FLOOR ||
			   op == EOP_F64X2_TRUNC || op == EOP_F64X2_NEAREST;
		unsigned mode =
		    op == EOP_F32X4_CEIL || op == EOP_F64X2_CEIL     ? 2
		    : op == EOP_F32X4_FLOOR || op == EOP_F64X2_FLOOR ? 1
		    : op == EOP_F32X4_TRUNC || op == EOP_F64X2_TRUNC ? 3
								     : 0;
		vld(j, 0, A);
		op_r(j, 0x66, false, dbl ? 0x0f3a09 : 0x0f3a08, 0, 0);
		b1(j, 8 | mode);
		vst(j, D, 0);
		return true;
	}
	case EOP_F64X2_PROMOTE_LOW_F32X4:   /* cvtps2pd */
	case EOP_F32X4_DEMOTE_F64X2_ZERO:   /* cvtpd2ps: high half zero */
	case EOP_F64X2_CONVERT_LOW_I32X4_S: /* cvtdq2pd */
		vld(j, 0, A);
		op_r(j,
		     op == EOP_F64X2_PROMOTE_LOW_F32X4	 ? 0
		     : op == EOP_F32X4_DEMOTE_F64X2_ZERO ? 0x66
							 : 0xf3,
		     false,
		     op == EOP_F64X2_CONVERT_LOW_I32X4_S ? 0x0fe6 : 0x0f5a, 0,
		     0);
		vst(j, D, 0);
		return true;
	case EOP_F32X4_CONVERT_I32X4_S:
		vld(j, 0, A);
		op_r(j, 0, false, 0x0f5b, 0, 0); /* cvtdq2ps */
		vst(j, D, 0);
		return true;
	case EOP_I8X16_SHUFFLE: {
		/* Lanes 0-15 from a, 16-31 from b: a pshufb of each with the
		 * other's lanes zeroed (0x80), or'ed. */
		uint8_t lanes[16], ma[16], mb[16];
		uint64_t v[4];
		memcpy(lanes, &ip[3], 16);
		for (int i = 0; i < 16; i++) {
			ma[i] = lanes[i] < 16 ? lanes[i] : 0x80;
			mb[i] =
			    lanes[i] >= 16 ? (uint8_t)(lanes[i] - 16) : 0x80;
		}
		memcpy(v, ma, 16);
		memcpy(v + 2, mb, 16);
		vld(j, 0, A);
		vld(j, 1, B);
		vconst(j, 2, v[0], v[1]);
		vconst(j, 3, v[2], v[3]);
		op_r(j, 0x66, false, 0x0f3800, 0, 2); /* pshufb xmm0, xmm2 */
		op_r(j, 0x66, false, 0x0f3800, 1, 3); /* pshufb xmm1, xmm3 */
		op_r(j, 0x66, false, 0x0feb, 0, 1);   /* por xmm0, xmm1 */
		vst(j, D, 0);
		return true;
	}
	default:
		return simd1(j, ip, op) || vcmp(j, ip, op) ||
		       vwide(j, ip, op) || vminmax(j, ip, op) ||
		       vconv(j, ip, op) || simd_c(j, ip, op);
	}
}

/* Atomics: {d,a} {b,c} {offset,mem}. r11 = the host address of the
 * access (a width that does not divide the effective address traps
 * first, through a stub), rcx the operand; the old value ends in rax
 * (narrow widths zero-extended). */
enum { A_LOAD, A_STORE, A_ADD, A_SUB, A_AND, A_OR, A_XOR, A_XCHG, A_CMPXCHG };

static void atomic_addr(jit *j, const eng_cell *ip, unsigned w)
{
	int base;

	ld32(j, R11, A);
	if (ip[3].u32[0]) {
		mov_imm(j, RCX, ip[3].u32[0]);
		op_r(j, 0, true, 0x03, R11, RCX); /* add r11, rcx */
	}
	if (w > 1) {
		op_r(j, 0, true, 0xf7, 0, R11); /* test r11, w-1 */
		b4(j, w - 1);
		jcold *c = add_cold(j, COLD_MISALIGNED, jcc32(j, CC_NE), ip);
		if (c)
			c->trap = w;
	}
	base = mem_base(j, true, ip[3].u32[1]);
	op_m(j, 0, true, 0x8d, R11, base, R11, 0); /* lea r11,[base+r11] */
}

/* op r/m(w), reg with [r11] and the width's prefix and REX.W; a fault
 * there is ip's. */
static void atomic_op(jit *j, const eng_cell *ip, unsigned w, unsigned lock,
		      uint32_t op8, uint32_t op, int reg)
{
	unsigned pfx =
	    (lock ? 0xf0 : 0) << (w == 2 ? 8 : 0) | (w == 2 ? 0x66 : 0);
	fault_site(j, ip);
	op_m(j, pfx, w == 8, w == 1 ? op8 : op, reg, R11, NOIDX, 0);
}

/* rax = rax zero-extended from width w. */
static void zext(jit *j, int r, unsigned w)
{
	if (w == 1)
		op_r(j, 0, false, 0x0fb6, r, r);
	else if (w == 2)
		op_r(j, 0, false, 0x0fb7, r, r);
	else if (w == 4)
		op_r(j, 0, false, 0x89, r, r);
}

static void atomic(jit *j, const eng_cell *ip, unsigned kind, unsigned w)
{
	/* movzx or mov: a plain load is sequentially consistent on x86,
	 * the stores being xchg. */
	uint32_t ld = w == 1 ? 0x0fb6 : w == 2 ? 0x0fb7 : 0x8b, loop;

	atomic_addr(j, ip, w);
	if (kind == A_CMPXCHG) {
		ld64(j, RAX, B);
		ld64(j, RCX, ip[2].u32[1]);
	} else if (kind != A_LOAD) {
		ld64(j, RCX, B);
	}
	switch (kind) {
	case A_LOAD: atomic_op(j, ip, w == 8 ? 8 : 4, 0, 0, ld, RAX); break;
	case A_STORE:
	case A_XCHG:
		atomic_op(j, ip, w, 0, 0x86, 0x87, RCX);
		mov_rr(j, true, RAX, RCX);
		break;
	case A_SUB:
		op_r(j, 0, true, 0xf7, 3, RCX); /* neg rcx */
						/* fall through */
	case A_ADD:
		atomic_op(j, ip, w, 1, 0x0fc0, 0x0fc1, RCX);
		mov_rr(j, true, RAX, RCX);
		break;
	case A_AND:
	case A_OR:
	case A_XOR:
		atomic_op(j, ip, w == 8 ? 8 : 4, 0, 0, ld, RAX);
		loop = (uint32_t)j->n;
		mov_rr(j, true, RDX, RAX);
		op_r(j, 0, true,
		     kind == A_AND  ? 0x23
		     : kind == A_OR ? 0x0b
				    : 0x33,
		     RDX, RCX);
		atomic_op(j, ip, w, 1, 0x0fb0, 0x0fb1, RDX);
		b1(j, 0x0f);
		b1(j, 0x80 + CC_NE);
		b4(j, loop - ((uint32_t)j->n + 4));
		break;
	case A_CMPXCHG: atomic_op(j, ip, w, 1, 0x0fb0, 0x0fb1, RCX); break;
	}
	if (kind != A_STORE) {
		zext(j, RAX, w);
		st64(j, D, RAX);
	}
}

/* Float binary: xmm0 = a OP b (pfx F3 single, F2 double). */
static void fbin(jit *j, const eng_cell *ip, bool dbl, uint32_t op)
{
	unsigned pfx = dbl ? 0xf2 : 0xf3;
	slot_x(j, pfx, 0x0f10, 0, A);
	slot_x(j, pfx, op, 0, B);
}

/* The result in xmm0 into slot d (a single zero-extended). */
static void fput(jit *j, uint32_t d, bool dbl)
{
	op_r(j, 0x66, dbl, 0x0f7e, 0, RAX);
	st64(j, d, RAX);
}

/* Float compares: ucomis a, b (swap: b, a) then setcc; eq and ne test
 * parity for NaN. */
static void fcmp(jit *j, const eng_cell *ip, bool dbl, int cc, bool swap)
{
	unsigned pfx = dbl ? 0xf2 : 0xf3;
	uint32_t x = swap ? B : A, y = swap ? A : B;

	slot_x(j, pfx, 0x0f10, 0, x);
	slot_x(j, dbl ? 0x66 : 0, 0x0f2e, 0, y);
	if (cc == CC_E || cc == CC_NE) {
		op_r(j, 0, false, 0x0f90 + (uint32_t)cc, 0, RCX);
		op_r(j, 0, false,
		     0x0f90 + (uint32_t)(cc == CC_E ? CC_NP : CC_P), 0, RDX);
		op_r(j, 0, false, cc == CC_E ? 0x20 : 0x08, RDX, RCX);
		op_r(j, 0, false, 0x0fb6, RCX, RCX);
		st64(j, D, RCX);
	} else {
		set_cc(j, D, cc);
	}
}

/* d = fn(a) or fn(a, b), fn a C function on slot bits. */
static void helper1(jit *j, const eng_cell *ip, const void *fn)
{
	spill(j);
	ld64_mem(j, RDI, A);
	call_c(j, fn);
	reload(j);
	st64(j, D, RAX);
}

static void helper2(jit *j, const eng_cell *ip, const void *fn)
{
	spill(j);
	ld64_mem(j, RDI, A);
	ld64_mem(j, RSI, B);
	call_c(j, fn);
	reload(j);
	st64(j, D, RAX);
}

/* d = fn(thread, ip, a): a conversion that may trap. */
static void helper_trap(jit *j, const eng_cell *ip, const void *fn)
{
	spill(j);
	mov_rr(j, true, RDI, TH);
	mov_imm(j, RSI, (uintptr_t)ip);
	ld64_mem(j, RDX, A);
	call_c(j, fn);
	reload(j);
	st64(j, D, RAX);
}

/* The slow call: jit_call(th, fp, ip, inst, op), the cached slots
 * spilled by the caller (and reloaded after). */
static void slow_call(jit *j, const eng_cell *ip, unsigned op)
{
	mov_rr(j, true, RDI, TH);
	mov_rr(j, true, RSI, FP);
	mov_imm(j, RDX, (uintptr_t)ip);
	mov_rr(j, true, RCX, IN);
	mov_imm(j, R8, op);
	call_c(j, (const void *)jit_call);
}

/* The import's function in rax. */
static void import_func(jit *j, uint32_t idx)
{
	op_m(j, 0, true, 0x8b, RAX, IN, NOIDX,
	     (int32_t)offsetof(eng_instance, funcs));
	op_m(j, 0, true, 0x8b, RAX, RAX, NOIDX, (int32_t)(idx * 8));
}

/* Whether type t is (i32, i32) -> (), the only one a shadow test may
 * come with (eng_host_func_set_shadow_test). */
static bool shadow_type(const wasm_functype *t)
{
	return t && t->nparams == 2 && !t->nresults &&
	       t->types[0] == WASM_I32 && t->types[1] == WASM_I32;
}

/* The shadow test of a host function (eng_host_func_set_shadow_test),
 * inline before the call's spill: when it holds the call is skipped with
 * the cached slots untouched. It uses rax, rcx, rdx, r11 and rbp (which
 * nothing else in compiled code uses), and the red zone below rsp for
 * the five values it needs again (no call or push happens in between,
 * and signals leave the red zone alone). A failed condition on the
 * thread, the site or the address jumps to the end of the list `miss`
 * collects (the filter, then the call); a word that differs to
 * one of the *ndiffer jumps in differ (the call, without the filter).
 * Registers: r11 the test, rcx the thread's record, rdx the wanted record, rax
 * the site's entry, rbp the width, then the cell. */
static void shadow_test(jit *j, const eng_cell *ip, uint32_t idx,
			uint32_t *miss, uint32_t *nmiss, uint32_t *differ,
			uint32_t *ndiffer, uint32_t *done)
{
	uint32_t argbase = ip[1].u32[0], one, cached, have;

#define ST(f) ((int32_t)offsetof(eng_shadow_test, f))
#define SS(f) ((int32_t)offsetof(eng_shadow_site, f))
	/* The test and the thread's record: cached in the thread at its
	 * first test of this table (eng_thread.shadow_test), looked up
	 * there, as the filter would be, when the import's differs. */
	op_m(j, 0, true, 0x8b, R11, TH, NOIDX,
	     (int32_t)offsetof(eng_thread, shadow_test));
	import_func(j, idx);
	op_m(j, 0, true, 0x3b, R11, RAX, NOIDX,
	     (int32_t)offsetof(eng_func, shadow));
	cached = jcc32(j, CC_E);
	op_m(j, 0, true, 0x8b, R11, RAX, NOIDX,
	     (int32_t)offsetof(eng_func, shadow));
	op_r(j, 0, true, 0x85, R11, R11);
	miss[(*nmiss)++] = jcc32(j, CC_E);
	op_m(j, 0, true, 0x8b, RDX, TH, NOIDX,
	     (int32_t)offsetof(eng_thread, proc));
	op_m(j, 0, false, 0x80, 7, RDX, NOIDX,
	     (int32_t)offsetof(eng_proc, serial)); /* cmp byte, 0 */
	b1(j, 0);
	miss[(*nmiss)++] = jcc32(j, CC_NE);
	/* rcx = threads + tid * stride */
	op_m(j, 0, false, 0x8b, RCX, TH, NOIDX,
	     (int32_t)offsetof(eng_thread, id));
	op_m(j, 0, false, 0x3b, RCX, R11, NOIDX, ST(nthreads));
	miss[(*nmiss)++] = jcc32(j, CC_AE);
	op_m(j, 0, false, 0x0faf, RCX, R11, NOIDX, ST(stride));
	op_m(j, 0, true, 0x03, RCX, R11, NOIDX, ST(threads));
	op_m(j, 0, true, 0x89, R11, TH, NOIDX,
	     (int32_t)offsetof(eng_thread, shadow_test));
	op_m(j, 0, true, 0x89, RCX, TH, NOIDX,
	     (int32_t)offsetof(eng_thread, shadow_rec));
	have = jmp32(j);
	here(j, cached);
	op_r(j, 0, true, 0x85, R11, R11);
	miss[(*nmiss)++] = jcc32(j, CC_E);
	op_m(j, 0, true, 0x8b, RCX, TH, NOIDX,
	     (int32_t)offsetof(eng_thread, shadow_rec));
	here(j, have);
	/* its word */
	op_m(j, 0, true, 0x8b, RDX, RCX, NOIDX,
	     (int32_t)offsetof(eng_shadow_thread, word));
	op_r(j, 0, true, 0x85, RDX, RDX);
	miss[(*nmiss)++] = jcc32(j, CC_E);
	op_m(j, 0, true, 0x89, RCX, RSP, NOIDX, -8);
	op_m(j, 0, true, 0x89, R11, RSP, NOIDX, -16);
	/* the site's entry: rax = sites + site * 32, its width */
	ld32(j, RAX, argbase + 1);
	op_m(j, 0, false, 0x3b, RAX, R11, NOIDX, ST(nsites));
	miss[(*nmiss)++] = jcc32(j, CC_AE);
	op_r(j, 0, false, 0xc1, 4, RAX); /* shl eax, 5 */
	b1(j, 5);
	op_m(j, 0, true, 0x03, RAX, R11, NOIDX, ST(sites));
	op_m(j, 0, false, 0x0fb6, RBP, RAX, NOIDX, SS(width));
	op_r(j, 0, false, 0x85, RBP, RBP);
	miss[(*nmiss)++] = jcc32(j, CC_E);
	/* the address: aligned, and addr + width within the limit */
	ld32(j, RCX, argbase);
	op_m(j, 0, false, 0x84, RCX, RAX, NOIDX, SS(align)); /* test cl */
	miss[(*nmiss)++] = jcc32(j, CC_NE);
	op_r(j, 0, true, 0x01, RCX, RBP); /* add rbp, rcx */
	op_m(j, 0, true, 0x3b, RBP, R11, NOIDX, ST(limit));
	miss[(*nmiss)++] = jcc32(j, CC_A);
	/* rbp = shadow + (addr & ~3) * 4 + off */
	mov_rr(j, false, RBP, RCX);
	op_r(j, 0, false, 0x83, 4, RBP); /* and ebp, -4 */
	b1(j, 0xfc);
	op_r(j, 0, true, 0xc1, 4, RBP); /* shl rbp, 2 */
	b1(j, 2);
	op_m(j, 0, true, 0x03, RBP, R11, NOIDX, ST(shadow));
	op_m(j, 0, false, 0x8b, R11, RAX, NOIDX, SS(off));
	op_r(j, 0, true, 0x01, R11, RBP);
	/* m = mask << (addr & 3); rdx = word | bits | m; r11 = care | m */
	op_m(j, 0, true, 0x0b, RDX, RAX, NOIDX, SS(bits));
	op_r(j, 0, false, 0x83, 4, RCX); /* and ecx, 3 */
	b1(j, 3);
	op_m(j, 0, true, 0x8b, R11, RAX, NOIDX, SS(mask));
	op_r(j, 0, true, 0xd3, 4, R11); /* shl r11, cl */
	op_m(j, 0, true, 0x89, R11, RSP, NOIDX, -24);
	op_r(j, 0, true, 0x09, R11, RDX);
	op_m(j, 0, true, 0x89, RAX, RSP, NOIDX, -32);
	op_m(j, 0, false, 0x8b, RCX, RAX, NOIDX, SS(next));
	op_m(j, 0, true, 0x89, RCX, RSP, NOIDX, -40);
	op_m(j, 0, true, 0x8b, RAX, RSP, NOIDX, -16);
	op_m(j, 0, true, 0x0b, R11, RAX, NOIDX, ST(care));
	/* Both words, rbp moved to the second (red zone: -24 m, -32 the
	 * site's entry, -40 next). A word that differs is the filter's
	 * answer too. */
	*ndiffer = 0;
	one = 0;
	for (int w = 0; w < 2; w++) {
		uint32_t ok, no_other;
		/* this very access again */
		op_m(j, 0, true, 0x8b, RAX, RBP, NOIDX, 0);
		op_r(j, 0, true, 0x21, R11, RAX); /* and rax, r11 */
		op_r(j, 0, true, 0x39, RDX, RAX); /* cmp rax, rdx */
		ok = jcc32(j, CC_E);
		/* another access of the thread's: e->other set, the word
		 * within same | m, the other word's owner none or the
		 * thread (engine.h) */
		op_m(j, 0, true, 0x8b, RCX, RSP, NOIDX, -32);
		op_m(j, 0, true, 0x63, RAX, RCX, NOIDX, SS(other));
		op_r(j, 0, true, 0x85, RAX, RAX);
		differ[(*ndiffer)++] = jcc32(j, CC_E);
		op_m(j, 0, true, 0x8b, RAX, RBP, RAX, 0);
		op_m(j, 0, true, 0x8b, RCX, RSP, NOIDX, -16);
		op_m(j, 0, true, 0x23, RAX, RCX, NOIDX, ST(ocare));
		no_other = jcc32(j, CC_E);
		op_m(j, 0, true, 0x8b, RCX, RSP, NOIDX, -8);
		op_m(j, 0, true, 0x3b, RAX, RCX, NOIDX,
		     (int32_t)offsetof(eng_shadow_thread, own));
		differ[(*ndiffer)++] = jcc32(j, CC_NE);
		here(j, no_other);
		op_m(j, 0, true, 0x8b, RCX, RSP, NOIDX, -16);
		op_m(j, 0, true, 0x8b, RAX, RCX, NOIDX, ST(same));
		op_m(j, 0, true, 0x0b, RAX, RSP, NOIDX, -24);
		op_m(j, 0, true, 0x23, RAX, RBP, NOIDX, 0);
		op_m(j, 0, true, 0x8b, RCX, RSP, NOIDX, -8);
		op_m(j, 0, true, 0x8b, RCX, RCX, NOIDX,
		     (int32_t)offsetof(eng_shadow_thread, word));
		op_m(j, 0, true, 0x0b, RCX, RSP, NOIDX, -24);
		op_r(j, 0, true, 0x39, RCX, RAX); /* cmp rax, rcx */
		differ[(*ndiffer)++] = jcc32(j, CC_NE);
		here(j, ok);
		if (!w) {
			/* no second cell: done (most accesses) */
			op_m(j, 0, true, 0x8b, RCX, RSP, NOIDX, -40);
			op_r(j, 0, true, 0x85, RCX, RCX);
			one = jcc32(j, CC_E);
			op_r(j, 0, true, 0x01, RCX, RBP); /* add rbp, rcx */
		}
	}
	here(j, one);
	/* skipped++ in the thread's record */
	op_m(j, 0, true, 0x8b, RCX, RSP, NOIDX, -8);
	op_m(j, 0, true, 0x83, 0, RCX, NOIDX,
	     (int32_t)offsetof(eng_shadow_thread, skipped));
	b1(j, 1);
	*done = jmp32(j);
#undef ST
#undef SS
}

/* A call of an import: when it is a host function with a filter and the
 * run is not serial, its shadow test inline (shadow_test), then, when
 * the test did not answer, the filter, straight from here
 * (filter(ctx, th->id, fp + argbase)), and jit_call only when neither
 * says the call does not matter (eng_host_func_set_filter). The
 * function is read when the call runs: an import is bound per
 * instance. */
static void import_call(jit *j, const eng_cell *ip)
{
	uint32_t idx = ip[1].u32[1], argbase = ip[1].u32[0];
	uint32_t no_filter, serial, done, tested, miss[16], nmiss = 0;
	uint32_t differ[6], ndiffer, call;

	if (idx > (uint32_t)INT32_MAX / 8) {
		j->bad = true;
		return;
	}
	/* Only a function of the test's type can have one: no other import
	 * call pays for its code. */
	if (shadow_type(wasm_func_type(j->cm->m, idx))) {
		shadow_test(j, ip, idx, miss, &nmiss, differ, &ndiffer,
			    &tested);
		for (uint32_t i = 0; i < ndiffer; i++)
			here(j, differ[i]);
		op_m(j, 0, true, 0x8b, RCX, RSP, NOIDX, -8);
		op_m(j, 0, true, 0xc7, 0, RCX, NOIDX,
		     (int32_t)offsetof(eng_shadow_thread, tested));
		b4(j, 1); /* mov qword [rcx + tested], 1 */
		spill(j);
		call = jmp32(j);
		for (uint32_t i = 0; i < nmiss; i++)
			here(j, miss[i]);
	} else {
		tested = call = UINT32_MAX;
	}
	spill(j);
	import_func(j, idx);
	op_m(j, 0, true, 0x8b, R11, RAX, NOIDX,
	     (int32_t)offsetof(eng_func, filter));
	op_r(j, 0, true, 0x85, R11, R11); /* test r11, r11 */
	no_filter = jcc32(j, CC_E);
	op_m(j, 0, true, 0x8b, RDX, TH, NOIDX,
	     (int32_t)offsetof(eng_thread, proc));
	op_m(j, 0, false, 0x80, 7, RDX, NOIDX,
	     (int32_t)offsetof(eng_proc, serial)); /* cmp byte, 0 */
	b1(j, 0);
	serial = jcc32(j, CC_NE);
	op_m(j, 0, true, 0x8b, RDI, RAX, NOIDX,
	     (int32_t)offsetof(eng_func, ctx));
	op_m(j, 0, false, 0x8b, RSI, TH, NOIDX,
	     (int32_t)offsetof(eng_thread, id));
	/* lea rdx, [rbx + 8*argbase]; call r11; test al, al */
	op_m(j, 0, true, 0x8d, RDX, FP, NOIDX, sd(j, argbase));
	op_r(j, 0, false, 0xff, 2, R11);
	op_r(j, 0, false, 0x84, RAX, RAX);
	done = jcc32(j, CC_NE);
	here(j, no_filter);
	here(j, serial);
	if (call != UINT32_MAX)
		here(j, call);
	slow_call(j, ip, EOP_CALL_IMPORT);
	here(j, done);
	reload(j);
	if (tested != UINT32_MAX)
		here(j, tested);
}

/* The native call of a compiled callee, its code in rax, once the call
 * depth and the value stack are checked: the native stack's budget, the
 * poll, the eng_frame pushed and counted as the interpreter does, rbx
 * moved to the callee's frame (at argbase) and back. */
static void native_call(jit *j, const eng_cell *ip, uint32_t argbase)
{
	/* the native stack within its budget */
	op_m(j, 0, true, 0x3b, RSP, TH, NOIDX,
	     (int32_t)offsetof(eng_thread, jit_sp_lo));
	trap_if(j, CC_B, ENG_TRAP_STACK, ip);
	/* The checks, then the poll, as the interpreter does them. */
	poll(j, ip);
	/* frames[depth] = {retip, fp, inst}; depth++ */
	op_m(j, 0, false, 0x8b, RCX, TH, NOIDX,
	     (int32_t)offsetof(eng_thread, depth));
	op_r(j, 0, false, 0x6b, RCX, RCX); /* imul ecx, ecx, 24 */
	b1(j, sizeof(eng_frame));
	op_m(j, 0, true, 0x03, RCX, TH, NOIDX,
	     (int32_t)offsetof(eng_thread, frames));
	mov_imm(j, R11, (uintptr_t)(ip + 3));
	op_m(j, 0, true, 0x89, R11, RCX, NOIDX,
	     (int32_t)offsetof(eng_frame, ret_ip));
	op_m(j, 0, true, 0x89, FP, RCX, NOIDX,
	     (int32_t)offsetof(eng_frame, fp));
	op_m(j, 0, true, 0x89, IN, RCX, NOIDX,
	     (int32_t)offsetof(eng_frame, inst));
	op_m(j, 0, false, 0xff, 0, TH, NOIDX,
	     (int32_t)offsetof(eng_thread, depth));
	if (argbase)
		op_m(j, 0, true, 0x8d, FP, FP, NOIDX, sd(j, argbase));
	op_r(j, 0, false, 0xff, 2, RAX);
	if (argbase)
		op_m(j, 0, true, 0x8d, FP, FP, NOIDX, -sd(j, argbase));
	op_m(j, 0, false, 0xff, 1, TH, NOIDX,
	     (int32_t)offsetof(eng_thread, depth));
}

/* depth < max_depth, or the stack trap. */
static void depth_check(jit *j, const eng_cell *ip)
{
	op_m(j, 0, false, 0x8b, RCX, TH, NOIDX,
	     (int32_t)offsetof(eng_thread, depth));
	op_m(j, 0, false, 0x3b, RCX, TH, NOIDX,
	     (int32_t)offsetof(eng_thread, max_depth));
	trap_if(j, CC_AE, ENG_TRAP_STACK, ip);
}

/* CALL {argbase,-} {eng_fn*}: a native call when the callee is compiled
 * (read when the call runs), the slow call otherwise. */
static void call(jit *j, const eng_cell *ip)
{
	const eng_fn *cfn = ip[2].ptr;
	uint32_t argbase = ip[1].u32[0], slow, done;

	/* The arguments, and whatever the callee may read or clobber, in
	 * their slots. */
	spill(j);
	mov_imm(j, RAX, (uintptr_t)&cfn->jit);
	op_m(j, 0, true, 0x8b, RAX, RAX, NOIDX, 0);
	op_r(j, 0, true, 0x85, RAX, RAX);
	slow = jcc32(j, CC_E);
	depth_check(j, ip);
	/* the callee's slots within the value stack */
	op_m(j, 0, true, 0x8d, RDX, FP, NOIDX, sd(j, argbase + cfn->nslots));
	op_m(j, 0, true, 0x3b, RDX, TH, NOIDX,
	     (int32_t)offsetof(eng_thread, stack_end));
	trap_if(j, CC_A, ENG_TRAP_STACK, ip);
	native_call(j, ip, argbase);
	done = jmp32(j);
	here(j, slow);
	slow_call(j, ip, EOP_CALL);
	here(j, done);
	reload(j);
}

/* CALL_INDIRECT {argbase,i} {type,table}: a native call when element i
 * of the table is a compiled function of this instance of the call's
 * type, read when the call runs; jit_call otherwise (a host function,
 * another instance's, one interpreted or not compiled yet, a C call
 * adapted, and every trap of the lookup, which it reports as the
 * interpreter does). A native call takes 16 bytes of the native stack,
 * as a direct call does, where jit_call's C frames take hundreds:
 * recursion through function pointers then meets the depth limit, as
 * interpreted, and not the native stack's budget long before. */
static void call_indirect(jit *j, const eng_cell *ip)
{
	uint32_t argbase = ip[1].u32[0], slow[5], done;

	spill(j);
	/* rax = the table; ecx = i, below its size */
	op_m(j, 0, true, 0x8b, RAX, IN, NOIDX,
	     (int32_t)offsetof(eng_instance, tables));
	op_m(j, 0, true, 0x8b, RAX, RAX, NOIDX, sd(j, ip[2].u32[1]));
	op_m(j, 0, false, 0x8b, RCX, FP, NOIDX, sd(j, ip[1].u32[1]));
	op_m(j, 0, false, 0x3b, RCX, RAX, NOIDX,
	     (int32_t)offsetof(eng_table, size));
	slow[0] = jcc32(j, CC_AE);
	/* rax = the element: a function, of the call's type, of this
	 * instance (a host function has none) */
	op_m(j, 0, true, 0x8b, RAX, RAX, NOIDX,
	     (int32_t)offsetof(eng_table, elems));
	op_r(j, 0, true, 0xc1, 4, RCX); /* shl rcx, 3 */
	b1(j, 3);
	op_m(j, 0, true, 0x8b, RAX, RAX, RCX, 0);
	op_r(j, 0, true, 0x85, RAX, RAX);
	slow[1] = jcc32(j, CC_E);
	op_m(j, 0, false, 0x81, 7, RAX, NOIDX,
	     (int32_t)offsetof(eng_func, type_id));
	b4(j, ip[2].u32[0]);
	slow[2] = jcc32(j, CC_NE);
	op_m(j, 0, true, 0x3b, IN, RAX, NOIDX,
	     (int32_t)offsetof(eng_func, inst));
	slow[3] = jcc32(j, CC_NE);
	/* rdx = its body; rax = its code */
	op_m(j, 0, true, 0x8b, RDX, RAX, NOIDX,
	     (int32_t)offsetof(eng_func, fn));
	op_m(j, 0, true, 0x8b, RAX, RDX, NOIDX, (int32_t)offsetof(eng_fn, jit));
	op_r(j, 0, true, 0x85, RAX, RAX);
	slow[4] = jcc32(j, CC_E);
	depth_check(j, ip);
	/* the callee's slots within the value stack: rdx = fp + 8 *
	 * (argbase + nslots) */
	op_m(j, 0, false, 0x8b, RCX, RDX, NOIDX,
	     (int32_t)offsetof(eng_fn, nslots));
	op_r(j, 0, true, 0xc1, 4, RCX); /* shl rcx, 3 */
	b1(j, 3);
	op_m(j, 0, true, 0x8d, RDX, FP, RCX, sd(j, argbase));
	op_m(j, 0, true, 0x3b, RDX, TH, NOIDX,
	     (int32_t)offsetof(eng_thread, stack_end));
	trap_if(j, CC_A, ENG_TRAP_STACK, ip);
	native_call(j, ip, argbase);
	done = jmp32(j);
	for (int k = 0; k < 5; k++)
		here(j, slow[k]);
	slow_call(j, ip, EOP_CALL_INDIRECT);
	here(j, done);
	reload(j);
}

/* BR_TABLE {i,n} {off0,off1}...: the index clamped to n, a table of
 * 32-bit offsets after the jump (backward targets through a polling
 * stub). */
static void br_table(jit *j, const eng_cell *ip, uint32_t cur)
{
	uint32_t n = ip[1].u32[1], skip, lea, table;

	ld32(j, RAX, ip[1].u32[0]);
	op_r(j, 0, false, 0x81, 7, RAX);
	b4(j, n);
	skip = jcc32(j, CC_BE);
	mov_imm(j, RAX, n);
	here(j, skip);
	/* lea rcx, [rip + table] */
	b1(j, 0x48);
	b1(j, 0x8d);
	b1(j, 0x0d);
	b4(j, 0);
	lea = (uint32_t)j->n - 4;
	/* movsxd rax, dword [rcx + rax*4] */
	b1(j, 0x48);
	b1(j, 0x63);
	b1(j, 0x04);
	b1(j, 0x81);
	op_r(j, 0, true, 0x03, RAX, RCX);
	op_r(j, 0, false, 0xff, 4, RAX); /* jmp rax */
	table = (uint32_t)j->n;
	patch4(j, lea, table - (lea + 4));
	for (uint32_t k = 0; k <= n; k++) {
		int32_t off = ip[2 + k / 2].i32[k % 2];
		uint32_t target = cur + (uint32_t)off;
		b4(j, 0);
		if (off <= 0) {
			/* A stub that polls, then jumps; the entry is
			 * relative to the table like the others. */
			jcold *c =
			    add_cold(j, COLD_POLL_JMP, (uint32_t)j->n - 4, ip);
			if (c) {
				c->cell = target;
				c->resume = table; /* entry, not rel32 */
			}
		} else {
			add_fix(j, (uint32_t)j->n - 4, table, target);
		}
	}
}

/* The frame's non-param locals zeroed, as a call's prologue. */
static void prologue(jit *j, const eng_fn *fn)
{
	uint32_t n = fn->nlocals - fn->nparams;

	op_r(j, 0, true, 0x83, 5, RSP); /* sub rsp, 8 */
	b1(j, 8);
	if (n) {
		op_r(j, 0, false, 0x31, RAX, RAX);
		if (n <= 16) {
			for (uint32_t i = fn->nparams; i < fn->nlocals; i++)
				op_m(j, 0, true, 0x89, RAX, FP, NOIDX,
				     sd(j, i));
		} else {
			op_m(j, 0, true, 0x8d, RDI, FP, NOIDX,
			     sd(j, fn->nparams));
			mov_imm(j, RCX, n);
			b1(j, 0xf3); /* rep stosq */
			b1(j, 0x48);
			b1(j, 0xab);
		}
	}
	reload(j);
}

static void epilogue(jit *j)
{
	op_r(j, 0, true, 0x83, 0, RSP); /* add rsp, 8 */
	b1(j, 8);
	b1(j, 0xc3);
}

/* An atomic access: its kind << 4 | its width in bytes, or -1. */
static int atomic_of(unsigned op)
{
	/* Each group as opcodes.def lists it: the full-width i32 and i64
	 * forms, then the narrow ones. */
	static const struct {
		unsigned first, kind;
	} groups[] = {
	    {EOP_I32_ATOMIC_LOAD, A_LOAD},
	    {EOP_I32_ATOMIC_STORE, A_STORE},
	    {EOP_I32_ATOMIC_RMW_ADD, A_ADD},
	    {EOP_I32_ATOMIC_RMW_SUB, A_SUB},
	    {EOP_I32_ATOMIC_RMW_AND, A_AND},
	    {EOP_I32_ATOMIC_RMW_OR, A_OR},
	    {EOP_I32_ATOMIC_RMW_XOR, A_XOR},
	    {EOP_I32_ATOMIC_RMW_XCHG, A_XCHG},
	    {EOP_I32_ATOMIC_RMW_CMPXCHG, A_CMPXCHG},
	};
	static const uint8_t w[7] = {4, 8, 1, 2, 1, 2, 4};
	for (size_t g = 0; g < sizeof groups / sizeof *groups; g++)
		if (op >= groups[g].first && op < groups[g].first + 7)
			return (int)(groups[g].kind << 4 |
				     w[op - groups[g].first]);
	return -1;
}

/* Index of op within a LOADS/STORES group, or -1. */
static int in_group(unsigned op, unsigned first, unsigned n)
{
	return op >= first && op < first + n ? (int)(op - first) : -1;
}

/* The template of the instruction at cell `cur`; false when there is
 * none (the function stays interpreted). */
static bool emit_op(jit *j, unsigned op, uint32_t cur)
{
	const eng_cell *ip = j->fn->code + cur;
	int k;

#define BRC(X, cc)                                                             \
	case EOP_BR_I32_##X:                                                   \
	case EOP_BR_I32_##X##_RI:                                              \
		ld32(j, RAX, ip[1].u32[0]);                                    \
		if (op == EOP_BR_I32_##X##_RI) {                               \
			op_r(j, 0, false, 0x81, 7, RAX);                       \
			b4(j, ip[1].u32[1]);                                   \
		} else {                                                       \
			slot_m(j, 0, false, 0x3b, RAX, ip[1].u32[1]);          \
		}                                                              \
		branch(j, cc, cur, cur + (uint32_t)ip[2].i32[0], ip);          \
		return true;
#define CMP2(X, cc)                                                            \
	case EOP_I32_##X: cmp(j, ip, false, cc, false); return true;           \
	case EOP_I32_##X##_RI: cmp(j, ip, false, cc, true); return true;       \
	case EOP_I64_##X: cmp(j, ip, true, cc, false); return true;            \
	case EOP_I64_##X##_RI:                                                 \
		cmp(j, ip, true, cc, true);                                    \
		return true;
#define ALU2(X, a)                                                             \
	case EOP_I32_##X: bin(j, ip, false, a, false); return true;            \
	case EOP_I32_##X##_RI: bin(j, ip, false, a, true); return true;        \
	case EOP_I64_##X: bin(j, ip, true, a, false); return true;             \
	case EOP_I64_##X##_RI:                                                 \
		bin(j, ip, true, a, true);                                     \
		return true;
#define SHIFT2(X, digit)                                                       \
	case EOP_I32_##X: shift(j, ip, false, digit, false); return true;      \
	case EOP_I32_##X##_RI: shift(j, ip, false, digit, true); return true;  \
	case EOP_I64_##X: shift(j, ip, true, digit, false); return true;       \
	case EOP_I64_##X##_RI: shift(j, ip, true, digit, true); return true;

	switch (op) {
	case EOP_MOV:
		ld64(j, RAX, A);
		st64(j, D, RAX);
		return true;
	case EOP_MOV2:
		ld64(j, RAX, A);
		st64(j, D, RAX);
		ld64(j, RAX, ip[2].u32[1]);
		st64(j, ip[2].u32[0], RAX);
		return true;
	case EOP_CONST:
		mov_imm(j, RAX, KI);
		st64(j, D, RAX);
		return true;
	case EOP_BR:
		branch(j, -1, cur, cur + (uint32_t)ip[1].i32[0], ip);
		return true;
	case EOP_BR_POLL: {
		jcold *c = add_cold(j, COLD_POLL_JMP, jmp32(j), ip);
		if (c)
			c->cell = cur + (uint32_t)ip[1].i32[0];
		return true;
	}
	case EOP_BR_IF:
	case EOP_BR_UNLESS:
		test_slot(j, false, ip[1].u32[0]);
		branch(j, op == EOP_BR_IF ? CC_NE : CC_E, cur,
		       cur + (uint32_t)ip[1].i32[1], ip);
		return true;
	case EOP_BR_IF_POLL: {
		test_slot(j, false, ip[1].u32[0]);
		jcold *c = add_cold(j, COLD_POLL_JMP, jcc32(j, CC_NE), ip);
		if (c)
			c->cell = cur + (uint32_t)ip[1].i32[1];
		return true;
	}
	case EOP_MOV_BR_MEM8_Z:
		ld64(j, RAX, ip[3].u32[1]);
		st64(j, ip[3].u32[0], RAX);
		/* fall through */
	case EOP_BR_MEM8_Z:
		op_m(j, 0, true, 0x8b, RAX, IN, NOIDX,
		     (int32_t)offsetof(eng_instance, mem_base));
		op_m(j, 0, true, 0x8b, RAX, RAX, NOIDX, sd(j, ip[1].u32[1]));
		if (ip[2].u64 <= (uint64_t)INT32_MAX) {
			fault_site(j, ip);
			op_m(j, 0, false, 0x80, 7, RAX, NOIDX,
			     (int32_t)ip[2].u64);
		} else {
			mov_imm(j, RCX, ip[2].u64);
			fault_site(j, ip);
			op_m(j, 0, false, 0x80, 7, RAX, RCX, 0);
		}
		b1(j, 0);
		branch(j, CC_E, cur, cur + (uint32_t)ip[1].i32[0], ip);
		return true;
	case EOP_BR_TABLE:
		br_table(j, ip, cur);
		return true;
		BRC(EQ, CC_E)
		BRC(NE, CC_NE)
		BRC(LT_S, CC_L)
		BRC(LT_U, CC_B)
		BRC(GT_S, CC_G)
		BRC(GT_U, CC_A)
		BRC(LE_S, CC_LE)
		BRC(LE_U, CC_BE)
		BRC(GE_S, CC_GE)
		BRC(GE_U, CC_AE)
	case EOP_RETURN:
		/* The caller reads the results from slots 0..n-1. */
		for (uint32_t i = 0; i < j->nc; i++)
			if (j->cslot[i] < j->fn->nresults)
				op_m(j, 0, true, 0x89, cache_regs[i], FP, NOIDX,
				     sd(j, j->cslot[i]));
		epilogue(j);
		return true;
	case EOP_CALL: call(j, ip); return true;
	case EOP_CALL_INDIRECT: call_indirect(j, ip); return true;
	case EOP_CALL_IMPORT: import_call(j, ip); return true;
	case EOP_SELECT3:
		ld64(j, RAX, A);
		ld64(j, RCX, B);
		test_slot(j, false, ip[2].u32[1]);
		op_r(j, 0, true, 0x0f44, RAX, RCX); /* cmove rax, rcx */
		st64(j, D, RAX);
		return true;
	case EOP_GLOBAL_GET:
	case EOP_GLOBAL_SET:
	case EOP_GLOBAL_SET_SP: {
		uint32_t g = op == EOP_GLOBAL_GET ? A : ip[1].u32[1];
		if (op == EOP_GLOBAL_SET_SP) {
			ld32(j, RAX, ip[1].u32[0]);
			op_m(j, 0, false, 0x3b, RAX, TH, NOIDX,
			     (int32_t)offsetof(eng_thread, sp_lo));
			add_cold(j, COLD_CSTACK, jcc32(j, CC_B), ip);
		}
		op_m(j, 0, true, 0x8b, RCX, IN, NOIDX,
		     (int32_t)offsetof(eng_instance, globals));
		op_m(j, 0, true, 0x8b, RCX, RCX, NOIDX, sd(j, g));
		if (op == EOP_GLOBAL_GET) {
			op_m(j, 0, true, 0x8b, RAX, RCX, NOIDX,
			     (int32_t)offsetof(eng_global, val));
			st64(j, D, RAX);
		} else {
			ld64(j, RAX, ip[1].u32[0]);
			op_m(j, 0, true, 0x89, RAX, RCX, NOIDX,
			     (int32_t)offsetof(eng_global, val));
		}
		return true;
	}
	case EOP_TRAP_UNREACHABLE: {
		jcold *c = add_cold(j, COLD_TRAP, jmp32(j), ip);
		if (c)
			c->trap = ENG_TRAP_UNREACHABLE;
		return true;
	}

	case EOP_I32_EQZ:
	case EOP_I64_EQZ:
		test_slot(j, op == EOP_I64_EQZ, A);
		set_cc(j, D, CC_E);
		return true;
		CMP2(EQ, CC_E)
		CMP2(NE, CC_NE)
		CMP2(LT_S, CC_L)
		CMP2(LT_U, CC_B)
		CMP2(GT_S, CC_G)
		CMP2(GT_U, CC_A)
		CMP2(LE_S, CC_LE)
		CMP2(LE_U, CC_BE)
		CMP2(GE_S, CC_GE)
		CMP2(GE_U, CC_AE)
		ALU2(ADD, alu_add)
		ALU2(SUB, alu_sub)
		ALU2(AND, alu_and)
		ALU2(OR, alu_or)
		ALU2(XOR, alu_xor)
		SHIFT2(SHL, 4)
		SHIFT2(SHR_S, 7)
		SHIFT2(SHR_U, 5)
		SHIFT2(ROTL, 0)
		SHIFT2(ROTR, 1)
	case EOP_I32_MUL: mul(j, ip, false, false); return true;
	case EOP_I32_MUL_RI: mul(j, ip, false, true); return true;
	case EOP_I64_MUL: mul(j, ip, true, false); return true;
	case EOP_I64_MUL_RI: mul(j, ip, true, true); return true;
	case EOP_I32_DIV_S: divide(j, ip, false, true, false); return true;
	case EOP_I32_DIV_U: divide(j, ip, false, false, false); return true;
	case EOP_I32_REM_S: divide(j, ip, false, true, true); return true;
	case EOP_I32_REM_U: divide(j, ip, false, false, true); return true;
	case EOP_I64_DIV_S: divide(j, ip, true, true, false); return true;
	case EOP_I64_DIV_U: divide(j, ip, true, false, false); return true;
	case EOP_I64_REM_S: divide(j, ip, true, true, true); return true;
	case EOP_I64_REM_U: divide(j, ip, true, false, true); return true;
	case EOP_I32_CLZ:
	case EOP_I32_CTZ:
	case EOP_I32_POPCNT:
	case EOP_I64_CLZ:
	case EOP_I64_CTZ:
	case EOP_I64_POPCNT: {
		bool w = op == EOP_I64_CLZ || op == EOP_I64_CTZ ||
			 op == EOP_I64_POPCNT;
		bool pc = op == EOP_I32_POPCNT || op == EOP_I64_POPCNT;
		if (pc ? !has_popcnt : !has_lzcnt)
			return false;
		slot_m(j, 0xf3, w,
		       pc					? 0x0fb8
		       : op == EOP_I32_CLZ || op == EOP_I64_CLZ ? 0x0fbd
								: 0x0fbc,
		       RAX, A);
		st64(j, D, RAX);
		return true;
	}

	/* f32 / f64 */
	case EOP_F32_ADD:
		fbin(j, ip, false, 0x0f58);
		fput(j, D, false);
		return true;
	case EOP_F32_SUB:
		fbin(j, ip, false, 0x0f5c);
		fput(j, D, false);
		return true;
	case EOP_F32_MUL:
		fbin(j, ip, false, 0x0f59);
		fput(j, D, false);
		return true;
	case EOP_F32_DIV:
		fbin(j, ip, false, 0x0f5e);
		fput(j, D, false);
		return true;
	case EOP_F64_ADD:
		fbin(j, ip, true, 0x0f58);
		fput(j, D, true);
		return true;
	case EOP_F64_SUB:
		fbin(j, ip, true, 0x0f5c);
		fput(j, D, true);
		return true;
	case EOP_F64_MUL:
		fbin(j, ip, true, 0x0f59);
		fput(j, D, true);
		return true;
	case EOP_F64_DIV:
		fbin(j, ip, true, 0x0f5e);
		fput(j, D, true);
		return true;
	case EOP_F32_SQRT:
	case EOP_F64_SQRT: {
		bool dbl = op == EOP_F64_SQRT;
		slot_x(j, dbl ? 0xf2 : 0xf3, 0x0f51, 0, A);
		fput(j, D, dbl);
		return true;
	}
	case EOP_F32_CEIL:
	case EOP_F32_FLOOR:
	case EOP_F32_TRUNC:
	case EOP_F32_NEAREST:
	case EOP_F64_CEIL:
	case EOP_F64_FLOOR:
	case EOP_F64_TRUNC:
	case EOP_F64_NEAREST: {
		bool dbl = op >= EOP_F64_CEIL && op <= EOP_F64_NEAREST;
		unsigned mode = op == EOP_F32_CEIL || op == EOP_F64_CEIL     ? 2
				: op == EOP_F32_FLOOR || op == EOP_F64_FLOOR ? 1
				: op == EOP_F32_TRUNC || op == EOP_F64_TRUNC
				    ? 3
				    : 0;
		if (!has_sse41)
			return false;
		slot_x(j, 0x66, dbl ? 0x0f3a0b : 0x0f3a0a, 0, A);
		b1(j, 8 | mode);
		fput(j, D, dbl);
		return true;
	}
	case EOP_F32_ABS:
	case EOP_F32_NEG:
		ld32(j, RAX, A);
		op_r(j, 0, false, 0x81, op == EOP_F32_ABS ? 4 : 6, RAX);
		b4(j, op == EOP_F32_ABS ? 0x7fffffffu : 0x80000000u);
		st64(j, D, RAX);
		return true;
	case EOP_F64_ABS:
	case EOP_F64_NEG:
		ld64(j, RAX, A);
		op_r(j, 0, true, 0x0fba, op == EOP_F64_ABS ? 6 : 7, RAX);
		b1(j, 63);
		st64(j, D, RAX);
		return true;
	case EOP_F32_COPYSIGN:
		ld32(j, RAX, A);
		ld32(j, RCX, B);
		op_r(j, 0, false, 0x81, 4, RAX);
		b4(j, 0x7fffffffu);
		op_r(j, 0, false, 0x81, 4, RCX);
		b4(j, 0x80000000u);
		op_r(j, 0, false, 0x0b, RAX, RCX);
		st64(j, D, RAX);
		return true;
	case EOP_F64_COPYSIGN:
		ld64(j, RAX, A);
		ld64(j, RCX, B);
		op_r(j, 0, true, 0x0fba, 6, RAX); /* btr rax, 63 */
		b1(j, 63);
		op_r(j, 0, true, 0xc1, 5, RCX); /* shr rcx, 63 */
		b1(j, 63);
		op_r(j, 0, true, 0xc1, 4, RCX); /* shl rcx, 63 */
		b1(j, 63);
		op_r(j, 0, true, 0x0b, RAX, RCX);
		st64(j, D, RAX);
		return true;
	case EOP_F32_MIN: helper2(j, ip, (const void *)h_f32_min); return true;
	case EOP_F32_MAX: helper2(j, ip, (const void *)h_f32_max); return true;
	case EOP_F64_MIN: helper2(j, ip, (const void *)h_f64_min); return true;
	case EOP_F64_MAX: helper2(j, ip, (const void *)h_f64_max); return true;
	case EOP_F32_EQ: fcmp(j, ip, false, CC_E, false); return true;
	case EOP_F32_NE: fcmp(j, ip, false, CC_NE, false); return true;
	case EOP_F32_LT: fcmp(j, ip, false, CC_A, true); return true;
	case EOP_F32_GT: fcmp(j, ip, false, CC_A, false); return true;
	case EOP_F32_LE: fcmp(j, ip, false, CC_AE, true); return true;
	case EOP_F32_GE: fcmp(j, ip, false, CC_AE, false); return true;
	case EOP_F64_EQ: fcmp(j, ip, true, CC_E, false); return true;
	case EOP_F64_NE: fcmp(j, ip, true, CC_NE, false); return true;
	case EOP_F64_LT: fcmp(j, ip, true, CC_A, true); return true;
	case EOP_F64_GT: fcmp(j, ip, true, CC_A, false); return true;
	case EOP_F64_LE: fcmp(j, ip, true, CC_AE, true); return true;
	case EOP_F64_GE: fcmp(j, ip, true, CC_AE, false); return true;

	/* conversions */
	case EOP_I32_WRAP_I64:
		ld32(j, RAX, A);
		st64(j, D, RAX);
		return true;
	case EOP_I64_EXTEND_I32_S:
	case EOP_I64_EXTEND32_S:
		ld64(j, RAX, A);
		op_r(j, 0, true, 0x63, RAX, RAX); /* movsxd rax, eax */
		st64(j, D, RAX);
		return true;
	case EOP_I32_EXTEND8_S:
	case EOP_I32_EXTEND16_S:
	case EOP_I64_EXTEND8_S:
	case EOP_I64_EXTEND16_S:
		ld64(j, RAX, A);
		op_r(j, 0, op == EOP_I64_EXTEND8_S || op == EOP_I64_EXTEND16_S,
		     op == EOP_I32_EXTEND8_S || op == EOP_I64_EXTEND8_S
			 ? 0x0fbe
			 : 0x0fbf,
		     RAX, RAX);
		st64(j, D, RAX);
		return true;
	case EOP_F32_CONVERT_I32_S:
	case EOP_F64_CONVERT_I32_S:
	case EOP_F32_CONVERT_I64_S:
	case EOP_F64_CONVERT_I64_S: {
		bool dbl =
		    op == EOP_F64_CONVERT_I32_S || op == EOP_F64_CONVERT_I64_S;
		op_r(j, 0x66, false, 0x0fef, 0, 0); /* pxor xmm0, xmm0 */
		slot_m(j, dbl ? 0xf2 : 0xf3,
		       op == EOP_F32_CONVERT_I64_S ||
			   op == EOP_F64_CONVERT_I64_S,
		       0x0f2a, 0, A);
		fput(j, D, dbl);
		return true;
	}
	case EOP_F32_CONVERT_I32_U:
	case EOP_F64_CONVERT_I32_U: {
		bool dbl = op == EOP_F64_CONVERT_I32_U;
		ld32(j, RAX, A);
		op_r(j, 0x66, false, 0x0fef, 0, 0);
		op_r(j, dbl ? 0xf2 : 0xf3, true, 0x0f2a, 0, RAX);
		fput(j, D, dbl);
		return true;
	}
	case EOP_F32_CONVERT_I64_U:
		helper1(j, ip, (const void *)h_f32_convert_i64_u);
		return true;
	case EOP_F64_CONVERT_I64_U:
		helper1(j, ip, (const void *)h_f64_convert_i64_u);
		return true;
	case EOP_F32_DEMOTE_F64:
	case EOP_F64_PROMOTE_F32: {
		bool dbl = op == EOP_F64_PROMOTE_F32;
		op_r(j, 0x66, false, 0x0fef, 0, 0);
		slot_x(j, dbl ? 0xf3 : 0xf2, 0x0f5a, 0, A);
		fput(j, D, dbl);
		return true;
	}
#define TRUNC_CASE(name, FT, conv, lo_ok, hi_ok, R)                            \
	case EOP_##name:                                                       \
		helper_trap(j, ip, (const void *)h_##name);                    \
		return true;
		NUM_TRUNCS(TRUNC_CASE)
#undef TRUNC_CASE
	case EOP_I32_TRUNC_SAT_F32_S:
		helper1(j, ip, (const void *)h_i32_sat_f32_s);
		return true;
	case EOP_I32_TRUNC_SAT_F32_U:
		helper1(j, ip, (const void *)h_i32_sat_f32_u);
		return true;
	case EOP_I32_TRUNC_SAT_F64_S:
		helper1(j, ip, (const void *)h_i32_sat_f64_s);
		return true;
	case EOP_I32_TRUNC_SAT_F64_U:
		helper1(j, ip, (const void *)h_i32_sat_f64_u);
		return true;
	case EOP_I64_TRUNC_SAT_F32_S:
		helper1(j, ip, (const void *)h_i64_sat_f32_s);
		return true;
	case EOP_I64_TRUNC_SAT_F32_U:
		helper1(j, ip, (const void *)h_i64_sat_f32_u);
		return true;
	case EOP_I64_TRUNC_SAT_F64_S:
		helper1(j, ip, (const void *)h_i64_sat_f64_s);
		return true;
	case EOP_I64_TRUNC_SAT_F64_U:
		helper1(j, ip, (const void *)h_i64_sat_f64_u);
		return true;

	case EOP_REF_IS_NULL:
		test_slot(j, true, A);
		set_cc(j, D, CC_E);
		return true;
	case EOP_REF_FUNC:
		op_m(j, 0, true, 0x8b, RAX, IN, NOIDX,
		     (int32_t)offsetof(eng_instance, funcs));
		op_m(j, 0, true, 0x8b, RAX, RAX, NOIDX, sd(j, A));
		st64(j, D, RAX);
		return true;

	case EOP_MEMORY_SIZE:
		op_m(j, 0, true, 0x8b, RAX, IN, NOIDX,
		     (int32_t)offsetof(eng_instance, mems));
		op_m(j, 0, true, 0x8b, RAX, RAX, NOIDX, sd(j, A));
		op_m(j, 0, true, 0x8b, RAX, RAX, NOIDX,
		     (int32_t)offsetof(eng_memory, size));
		op_r(j, 0, true, 0xc1, 5, RAX); /* shr rax, 16 */
		b1(j, 16);
		st64(j, D, RAX);
		return true;
	case EOP_ATOMIC_FENCE:
		b1(j, 0x0f); /* mfence */
		b1(j, 0xae);
		b1(j, 0xf0);
		return true;
	case EOP_MEMORY_ATOMIC_NOTIFY:
	case EOP_MEMORY_ATOMIC_WAIT32:
	case EOP_MEMORY_ATOMIC_WAIT64:
	case EOP_MEMORY_FILL:
	case EOP_MEMORY_COPY:
	case EOP_MEMORY_INIT:
	case EOP_DATA_DROP:
	case EOP_TABLE_GET:
	case EOP_TABLE_SET:
	case EOP_TABLE_SIZE:
	case EOP_TABLE_GROW:
	case EOP_TABLE_FILL:
	case EOP_TABLE_COPY:
	case EOP_TABLE_INIT:
	case EOP_ELEM_DROP:
		/* (th, fp, ip, inst, op) to a C function on the frame */
		spill(j);
		mov_rr(j, true, RDI, TH);
		mov_rr(j, true, RSI, FP);
		mov_imm(j, RDX, (uintptr_t)ip);
		mov_rr(j, true, RCX, IN);
		mov_imm(j, R8, op);
		call_c(j, (const void *)jit_runtime);
		reload(j);
		return true;
	case EOP_MEMORY_GROW:
		spill(j);
		ld64_mem(j, RCX, A);
		mov_rr(j, true, RDI, TH);
		mov_rr(j, true, RSI, IN);
		mov_imm(j, RDX, B);
		call_c(j, (const void *)jit_grow);
		reload(j);
		st64(j, D, RAX);
		return true;
	default: break;
	}
	if (simd(j, ip, op))
		return true;
	if ((k = atomic_of(op)) >= 0) {
		atomic(j, ip, (unsigned)k >> 4, (unsigned)k & 15);
		return true;
	}
	if ((k = in_group(op, EOP_I32_LOAD, 14)) >= 0) {
		load(j, ip, (unsigned)k, 0);
		return true;
	}
	if ((k = in_group(op, EOP_MN_I32_LOAD, 14)) >= 0) {
		load(j, ip, (unsigned)k, 1);
		return true;
	}
	if ((k = in_group(op, EOP_AK_I32_LOAD, 14)) >= 0) {
		load(j, ip, (unsigned)k, 2);
		return true;
	}
	if ((k = in_group(op, EOP_I32_STORE, 9)) >= 0) {
		store(j, ip, (unsigned)k, 0);
		return true;
	}
	if ((k = in_group(op, EOP_MN_I32_STORE, 9)) >= 0) {
		store(j, ip, (unsigned)k, 1);
		return true;
	}
	if ((k = in_group(op, EOP_AK_I32_STORE, 9)) >= 0) {
		store(j, ip, (unsigned)k, 2);
		return true;
	}
	return false;
#undef BRC
#undef CMP2
#undef ALU2
#undef SHIFT2
}

/* The stubs after the body. */
static void emit_cold(jit *j)
{
	for (uint32_t i = 0; i < j->ncold; i++) {
		jcold *c = &j->cold[i];
		uint32_t start = (uint32_t)j->n;

		if (c->kind == COLD_POLL_JMP && c->resume) {
			/* A br_table entry: relative to the table. */
			patch4(j, c->at, start - c->resume);
		} else {
			here(j, c->at);
		}
		switch (c->kind) {
		case COLD_TRAP:
			mov_rr(j, true, RDI, TH);
			mov_imm(j, RSI, c->trap);
			mov_imm(j, RDX, (uintptr_t)c->ip);
			call_c(j, (const void *)jit_trap);
			break;
		case COLD_CSTACK:
			mov_rr(j, true, RDI, TH);
			mov_imm(j, RSI, (uintptr_t)c->ip);
			call_c(j, (const void *)jit_c_stack);
			break;
		case COLD_MISALIGNED:
			/* r11: the effective address, trap: the width */
			mov_rr(j, true, RDI, TH);
			mov_imm(j, RSI, (uintptr_t)c->ip);
			mov_rr(j, true, RDX, R11);
			mov_imm(j, RCX, c->trap);
			call_c(j, (const void *)jit_misaligned);
			break;
		case COLD_POLL:
		case COLD_POLL_JMP: {
			uint32_t skip = 0;
			if (c->kind == COLD_POLL_JMP) {
				op_m(j, 0, false, 0x83, 7, STOP, NOIDX, 0);
				b1(j, 0);
				skip = jcc32(j, CC_E);
			}
			b1(j, 0x50); /* push rax: the callee a call holds */
			op_r(j, 0, true, 0x83, 5, RSP);
			b1(j, 8);
			spill(j);
			mov_rr(j, true, RDI, TH);
			mov_imm(j, RSI, (uintptr_t)c->ip);
			mov_rr(j, true, RDX, IN);
			call_c(j, (const void *)jit_poll);
			reload(j);
			op_r(j, 0, true, 0x83, 0, RSP);
			b1(j, 8);
			b1(j, 0x58); /* pop rax */
			if (c->kind == COLD_POLL) {
				uint32_t at = jmp32(j);
				patch4(j, at, c->resume - (at + 4));
			} else {
				uint32_t at = jmp32(j);
				add_fix(j, at, at + 4, c->cell);
				add_fix(j, skip, skip + 4, c->cell);
			}
			break;
		}
		}
	}
}

/* One pass over fn's code at the end of j's buffer, the slots of
 * j->cslot in registers; false (the buffer as it was) when an instruction
 * has no template. */
static bool emit_fn(jit *j, const eng_fn *fn, uint32_t *entry)
{
	size_t start = j->n;
	uint32_t cur, next, nsites = j->nsites;

	j->nfix = j->ncold = 0;
	j->bad = false;
	j->label = wasm_malloc(fn->ncode * sizeof *j->label);
	if (!j->label)
		return false;
	for (uint32_t i = 0; i < fn->ncode; i++)
		j->label[i] = UINT32_MAX;
	prologue(j, fn);
	for (cur = 0; cur < fn->ncode && !j->bad; cur = next) {
		unsigned op = fn->ops[cur];
		for (next = cur + 1;
		     next < fn->ncode && fn->ops[next] == ENG_OP_CONT; next++)
			;
		j->label[cur] = (uint32_t)j->n;
		if (op == ENG_OP_CONT || !emit_op(j, op, cur))
			j->bad = true;
	}
	emit_cold(j);
	for (uint32_t i = 0; i < j->nfix && !j->bad; i++) {
		jfix *f = &j->fix[i];
		if (f->cell >= fn->ncode || j->label[f->cell] == UINT32_MAX)
			j->bad = true;
		else
			patch4(j, f->at, j->label[f->cell] - f->from);
	}
	wasm_free(j->label);
	j->label = NULL;
	if (j->bad) {
		j->n = start;
		j->nsites = nsites;
		return false;
	}
	*entry = (uint32_t)start;
	return true;
}

/* The slots to keep in registers: the most used, by the count of a
 * first pass (five at most, each used at least twice). */
static void choose_regs(jit *j)
{
	uint32_t n = j->fn->nslots;

	j->nc = 0;
	while (j->nc < 5) {
		uint32_t best = UINT32_MAX, most = 1;
		for (uint32_t s = 0; s < n; s++)
			if (j->uses[s] > most) {
				most = j->uses[s];
				best = s;
			}
		if (best == UINT32_MAX)
			break;
		j->cslot[j->nc++] = best;
		j->uses[best] = 0;
	}
}

/* Compile fn at the end of j's buffer; false (the buffer as it was)
 * when it cannot be. */
static bool compile_fn(jit *j, const eng_fn *fn, uint32_t *entry)
{
	size_t start = j->n;
	uint32_t nsites = j->nsites;
	bool ok;

	j->fn = fn;
	if (!fn->ops || fn->nhandlers || !fn->ncode)
		return false;
	/* The first pass only counts each slot's uses. */
	j->nc = 0;
	j->uses = wasm_calloc(fn->nslots ? fn->nslots : 1, sizeof *j->uses);
	if (!j->uses)
		return false;
	ok = emit_fn(j, fn, entry);
	j->n = start;
	j->nsites = nsites;
	if (ok)
		choose_regs(j);
	wasm_free(j->uses);
	j->uses = NULL;
	return ok && emit_fn(j, fn, entry);
}

static pthread_once_t want_once = PTHREAD_ONCE_INIT;
static bool want;
static _Atomic int forced = -1; /* eng_jit_enable's, -1: the environment's */

static void want_init(void)
{
	const char *e = getenv("HEISEN_ENGINE");
	unsigned a, b, c, d;

	want = !e || strcmp(e, "interp");
	if (__get_cpuid(1, &a, &b, &c, &d)) {
		has_popcnt = c & bit_POPCNT;
		has_sse41 = c & bit_SSE4_1;
		has_sse42 = c & bit_SSE4_2;
	}
	if (__get_cpuid(0x80000001, &a, &b, &c, &d))
		has_lzcnt = c & bit_LZCNT;
	/* tzcnt is BMI1; without it, tzcnt runs as bsf (wrong for 0). */
	if (__get_cpuid_count(7, 0, &a, &b, &c, &d))
		has_lzcnt = has_lzcnt && (b & bit_BMI);
	else
		has_lzcnt = false;
}

bool eng_jit_wanted(void)
{
	int f = atomic_load(&forced);

	pthread_once(&want_once, want_init);
	return f >= 0 ? f : want;
}

void eng_jit_enable(bool on) { atomic_store(&forced, on); }

static double seconds_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) +
	       (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Compile the n functions fns waiting for it into one new region and
 * publish their entries; cm->jit_lock held. Each leaves the waiting
 * state, compiled or counted as interpreted, and its ops are freed. */
static void compile_batch(eng_module *cm, eng_fn **fns, uint32_t n)
{
	jit j = {0};
	uint32_t *entry = wasm_calloc(n ? n : 1, sizeof *entry);
	bool *ok = wasm_calloc(n ? n : 1, sizeof *ok);
	eng_jit_region *r = NULL;
	struct timespec t0;
	void *code = MAP_FAILED;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	j.cm = cm;
	for (uint32_t i = 0; i < n && entry && ok; i++)
		ok[i] = compile_fn(&j, fns[i], &entry[i]);
	if (j.n && (r = wasm_calloc(1, sizeof *r)) &&
	    (code = mmap(NULL, j.n, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)) != MAP_FAILED) {
		memcpy(code, j.p, j.n);
		if (mprotect(code, j.n, PROT_READ | PROT_EXEC)) {
			munmap(code, j.n);
			code = MAP_FAILED;
		}
	}
	if (code != MAP_FAILED) {
		*r = (eng_jit_region){cm->jit_regions, code, j.n, j.sites,
				      j.nsites};
		j.sites = NULL;
		/* The fault handler may walk the list from any thread. */
		__atomic_store_n(&cm->jit_regions, r, __ATOMIC_RELEASE);
		cm->jit_size += j.n;
	} else {
		wasm_free(r);
	}
	for (uint32_t i = 0; i < n; i++) {
		bool done = code != MAP_FAILED && ok && ok[i];
		if (done)
			__atomic_store_n(&fns[i]->jit,
					 (uint8_t *)code + entry[i],
					 __ATOMIC_RELEASE);
		__atomic_store_n(&fns[i]->jit_pending, 0, __ATOMIC_RELEASE);
		wasm_free(fns[i]->ops);
		fns[i]->ops = NULL;
		cm->jit_waiting--;
		if (done)
			cm->jit_fns++;
		else
			cm->jit_interp++;
	}
	wasm_free(entry);
	wasm_free(ok);
	wasm_free(j.p);
	wasm_free(j.fix);
	wasm_free(j.cold);
	wasm_free(j.sites);
	cm->jit_seconds += seconds_since(&t0);
}

void eng_jit_prepare(eng_module *cm)
{
	const wasm_module *m = cm->m;

	cm->jit_on = pthread_mutex_init(&cm->jit_lock, NULL) == 0;
	for (uint32_t i = 0; i < m->nfuncs; i++) {
		eng_fn *fn = &cm->fns[i];
		/* Exception handling unwinds the interpreter's frames: a
		 * module that has it runs interpreted whole. */
		if (cm->jit_on && fn->ops && fn->ncode && !fn->nhandlers &&
		    !wasm_tag_count(m)) {
			fn->jit_pending = 1;
			cm->jit_waiting++;
			continue;
		}
		cm->jit_interp++;
		wasm_free(fn->ops);
		fn->ops = NULL;
	}
}

/* The most functions one first call compiles. */
#define JIT_BATCH 16

const void *eng_jit_lazy(eng_module *cm, const eng_fn *cfn)
{
	eng_fn *fn = cm->fns + (cfn - cm->fns), *batch[JIT_BATCH];
	uint32_t n = 0;

	pthread_mutex_lock(&cm->jit_lock);
	if (fn->jit_pending) {
		/* The functions it calls directly are likely to be called
		 * next: compiled with it, one mapping and one mprotect for
		 * all (a compile of its own each cost twice the time). */
		batch[n++] = fn;
		for (uint32_t c = 0; c < fn->ncode && n < JIT_BATCH; c++) {
			eng_fn *callee;
			bool dup = false;
			if (fn->ops[c] != EOP_CALL)
				continue;
			callee = (eng_fn *)fn->code[c + 2].ptr;
			for (uint32_t k = 0; k < n && !dup; k++)
				dup = batch[k] == callee;
			if (callee->jit_pending && !dup)
				batch[n++] = callee;
		}
		compile_batch(cm, batch, n);
	}
	pthread_mutex_unlock(&cm->jit_lock);
	return __atomic_load_n(&fn->jit, __ATOMIC_ACQUIRE);
}

void eng_jit_compile_all(eng_module *cm)
{
	eng_fn **fns;
	uint32_t n = 0;

	if (!cm->jit_on)
		return;
	pthread_mutex_lock(&cm->jit_lock);
	if ((fns = wasm_calloc(cm->m->nfuncs + 1, sizeof *fns))) {
		for (uint32_t i = 0; i < cm->m->nfuncs; i++)
			if (cm->fns[i].jit_pending)
				fns[n++] = &cm->fns[i];
		compile_batch(cm, fns, n);
		wasm_free(fns);
	}
	pthread_mutex_unlock(&cm->jit_lock);
}

void eng_jit_free(eng_module *cm)
{
	eng_jit_region *r = cm->jit_regions, *next;

	for (; r; r = next) {
		next = r->next;
		munmap(r->code, r->size);
		wasm_free(r->sites);
		wasm_free(r);
	}
	cm->jit_regions = NULL;
	if (cm->jit_on)
		pthread_mutex_destroy(&cm->jit_lock);
	cm->jit_on = false;
}

void eng_jit_fault(eng_thread *t, const void *uc)
{
	const eng_module *cm = t->cur_inst ? t->cur_inst->cm : NULL;
	const eng_jit_region *r;
	uintptr_t rip;

	if (!cm || !uc)
		return;
	rip = (uintptr_t)((const ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];
	for (r = __atomic_load_n(&cm->jit_regions, __ATOMIC_ACQUIRE); r;
	     r = r->next) {
		uintptr_t base = (uintptr_t)r->code;
		uint32_t lo = 0, hi = r->nsites, off;
		if (rip < base || rip - base >= r->size)
			continue;
		off = (uint32_t)(rip - base);
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (r->sites[mid].off < off)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < r->nsites && r->sites[lo].off == off)
			t->pc = r->sites[lo].ip;
		return;
	}
}

#else

bool eng_jit_wanted(void) { return false; }

void eng_jit_enable(bool on) { (void)on; }

void eng_jit_prepare(eng_module *cm)
{
	for (uint32_t i = 0; i < cm->m->nfuncs; i++) {
		wasm_free(cm->fns[i].ops);
		cm->fns[i].ops = NULL;
	}
}

const void *eng_jit_lazy(eng_module *cm, const eng_fn *fn)
{
	(void)cm;
	(void)fn;
	return NULL;
}

void eng_jit_compile_all(eng_module *cm) { (void)cm; }

void eng_jit_free(eng_module *cm) { (void)cm; }

void eng_jit_fault(eng_thread *t, const void *uc)
{
	(void)t;
	(void)uc;
}

void eng_jit_run(eng_thread *t, eng_instance *in, void *fp, const void *entry)
{
	(void)t;
	(void)in;
	(void)fp;
	(void)entry;
}

#endif
