/*
 * genmod.c - write a large, valid, deterministic Wasm module for the
 * validation benchmark.
 *
 *   genmod OUT.wasm [MB]     (MB defaults to 24; MB means MiB here)
 *
 * How it works: function bodies are generated as structured random
 * programs whose typing is tracked while they are written, so the output
 * is valid by construction. Expressions are trees (depth-limited) of the
 * four number types: constants, locals, globals, arithmetic, comparisons,
 * conversions, plain and atomic loads, RMW, cmpxchg, wait/notify, select,
 * calls, call_indirect and value-producing blocks/ifs. Statements set
 * locals and globals, store (plainly and atomically), fence, call, and
 * nest blocks, loops, ifs, br_if, early br/return and br_table switches.
 * Bodies are generated until the code section reaches the requested size;
 * only then are the other sections written, since the function count is
 * known only at that point (calls go to lower indices for the same reason,
 * which also gives a realistic call DAG).
 *
 * The bytes are written directly (own LEB128 writer) so that the benchmark
 * does not depend on heisen's encoder, which it would otherwise measure.
 * The RNG is xoshiro256** with a fixed seed: the same arguments give the
 * same file on every machine.
 *
 * Limitations: the module validates (wasm-validate --enable-threads) but
 * is not meant to run: loops need not terminate and divisions may trap.
 * Only one memory (imported, shared) so the reference validator needs no
 * multi-memory flag; no SIMD or reference-typed locals.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- output buffer and LEB128 ---- */

typedef struct buf {
	uint8_t *p;
	size_t len, cap;
} buf;

static void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n);

	if (!q) {
		fprintf(stderr, "genmod: out of memory (%zu bytes)\n", n);
		exit(3);
	}
	return q;
}

static void put_n(buf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;

		while (cap < b->len + n)
			cap *= 2;
		b->p = xrealloc(b->p, cap);
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void put(buf *b, uint8_t v)
{
	put_n(b, &v, 1);
}

static void put_u32(buf *b, uint32_t v)
{
	do {
		uint8_t c = v & 0x7f;

		v >>= 7;
		put(b, c | (v ? 0x80 : 0));
	} while (v);
}

static void put_s64(buf *b, int64_t v)
{
	for (;;) {
		uint8_t c = v & 0x7f;

		v >>= 7; /* arithmetic shift: gcc and clang guarantee it */
		if ((v == 0 && !(c & 0x40)) || (v == -1 && (c & 0x40))) {
			put(b, c);
			return;
		}
		put(b, c | 0x80);
	}
}

static void put_str(buf *b, const char *s)
{
	put_u32(b, (uint32_t)strlen(s));
	put_n(b, s, strlen(s));
}

/* Append a section: id, payload size, payload. */
static void put_section(buf *out, uint8_t id, const buf *payload)
{
	put(out, id);
	put_u32(out, (uint32_t)payload->len);
	put_n(out, payload->p, payload->len);
}

/* ---- xoshiro256**, seeded through splitmix64 ---- */

static uint64_t rng[4];

static uint64_t rotl64(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t rng_next(void)
{
	uint64_t r = rotl64(rng[1] * 5, 7) * 9, t = rng[1] << 17;

	rng[2] ^= rng[0];
	rng[3] ^= rng[1];
	rng[1] ^= rng[2];
	rng[0] ^= rng[3];
	rng[2] ^= t;
	rng[3] = rotl64(rng[3], 45);
	return r;
}

static void rng_seed(uint64_t s)
{
	for (int i = 0; i < 4; i++) {
		uint64_t z = (s += 0x9e3779b97f4a7c15u);

		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
		rng[i] = z ^ (z >> 31);
	}
}

/* Uniform in [0, n), n > 0 (multiply-shift: bias below 2^-32). */
static uint32_t below(uint32_t n)
{
	return (uint32_t)(((rng_next() >> 32) * (uint64_t)n) >> 32);
}

static bool chance(unsigned pct)
{
	return below(100) < pct;
}

/* ---- module shape ---- */

enum { V = 0x40, I32 = 0x7F, I64 = 0x7E, F32 = 0x7D, F64 = 0x7C };

/* Index 0..3 of a number type, for per-type tables. */
static int tix(uint8_t t)
{
	return t == I32 ? 0 : t == I64 ? 1 : t == F32 ? 2 : 3;
}

static const uint8_t numtypes[4] = { I32, I64, F32, F64 };

/* The type section. Single results only: multi-value is covered by the
 * fuzz corpus and would complicate expression typing for little gain. */
typedef struct sig {
	uint8_t np;
	uint8_t p[4];
	uint8_t r; /* V: no result */
} sig;

static const sig sigs[] = {
	{ 0, { 0 }, V },
	{ 1, { I32 }, I32 },
	{ 2, { I32, I32 }, I32 },
	{ 2, { I64, I64 }, I64 },
	{ 2, { F32, F32 }, F32 },
	{ 2, { F64, F64 }, F64 },
	{ 4, { I32, I64, F32, F64 }, F64 },
	{ 1, { I32 }, V }, /* also the imported env.log */
	{ 3, { I32, I32, I32 }, I64 },
	{ 2, { F64, I32 }, F32 },
};
#define NSIGS (sizeof sigs / sizeof sigs[0])
#define LOG_SIG 7u

/* Globals: index 0 is the imported immutable env.base (i32); the rest are
 * defined here. */
static const struct {
	uint8_t type;
	bool mut;
} globals[] = {
	{ I32, false }, /* env.base, imported */
	{ I32, true },	/* a stack pointer */
	{ I64, true },	{ F32, true }, { F64, true },
	{ I32, false }, { I64, false }, { F64, false },
};
#define NGLOBALS (sizeof globals / sizeof globals[0])

/* Defined functions generated so far: their signature, and per result
 * type the absolute indices callable from later functions. */
typedef struct funcs {
	uint8_t *sig; /* per defined function */
	uint32_t n, cap;
	uint32_t *by_result[5]; /* 0..3 by tix, 4 = no result */
	uint32_t nby[5], capby[5];
} funcs;

static void funcs_add_callee(funcs *f, int slot, uint32_t idx)
{
	if (f->nby[slot] == f->capby[slot]) {
		f->capby[slot] = f->capby[slot] ? 2 * f->capby[slot] : 64;
		f->by_result[slot] = xrealloc(
			f->by_result[slot], f->capby[slot] * sizeof(uint32_t));
	}
	f->by_result[slot][f->nby[slot]++] = idx;
}

static int result_slot(uint8_t r)
{
	return r == V ? 4 : tix(r);
}

/* ---- the function being generated ---- */

#define MAX_LOCALS 64
#define MAX_LABELS 64
#define MAX_EXPR_DEPTH 4
#define MAX_STMT_DEPTH 4
#define VALUE_BLOCK_LABELS 6 /* open value blocks only below this nesting */

typedef struct gen {
	buf *b;
	funcs *fs;
	const sig *sig;
	uint32_t nlocals; /* params + declared */
	uint32_t local_by_type[4][MAX_LOCALS];
	uint32_t nlocal_by_type[4];
	/* Enclosing labels, innermost last: the type a branch carries (V
	 * for none). Branches only target V labels. */
	uint8_t labels[MAX_LABELS];
	uint32_t nlabels;
} gen;

static void emit_expr(gen *g, uint8_t t, int depth);
static void emit_stmts(gen *g, int depth, unsigned n);

static void push_label(gen *g, uint8_t carries)
{
	g->labels[g->nlabels++] = carries;
}

/* A random label depth whose branch carries nothing, or -1. */
static int void_label(gen *g)
{
	uint32_t tries = 4;

	while (tries--) {
		uint32_t d = below(g->nlabels);

		if (g->labels[g->nlabels - 1 - d] == V)
			return (int)d;
	}
	return -1;
}

static void emit_const(gen *g, uint8_t t)
{
	switch (t) {
	case I32:
		put(g->b, 0x41);
		put_s64(g->b, chance(80) ? (int32_t)below(256) - 16
					  : (int32_t)(uint32_t)rng_next());
		break;
	case I64:
		put(g->b, 0x42);
		put_s64(g->b, chance(80) ? (int64_t)below(4096)
					  : (int64_t)rng_next());
		break;
	case F32: {
		float f = (float)below(100000) / 64.0f;

		put(g->b, 0x43);
		put_n(g->b, &f, 4); /* little-endian hosts only, as is Wasm */
		break;
	}
	default: {
		double d = (double)below(1000000) / 128.0;

		put(g->b, 0x44);
		put_n(g->b, &d, 8);
		break;
	}
	}
}

static void emit_local(gen *g, uint8_t op, uint8_t t)
{
	int k = tix(t);

	put(g->b, op);
	put_u32(g->b, g->local_by_type[k][below(g->nlocal_by_type[k])]);
}

static bool has_local(gen *g, uint8_t t)
{
	return g->nlocal_by_type[tix(t)] > 0;
}

/* A random global of type t (mutable only if want_mut), or -1. */
static int pick_global(uint8_t t, bool want_mut)
{
	int n = 0, pick = -1;

	for (unsigned i = 0; i < NGLOBALS; i++)
		if (globals[i].type == t && (!want_mut || globals[i].mut))
			if (below((uint32_t)++n) == 0) /* reservoir sample */
				pick = (int)i;
	return pick;
}

static void emit_leaf(gen *g, uint8_t t)
{
	uint32_t r = below(10);
	int gl;

	if (r < 6 && has_local(g, t)) {
		emit_local(g, 0x20, t);
	} else if (r < 7 && (gl = pick_global(t, false)) >= 0) {
		put(g->b, 0x23);
		put_u32(g->b, (uint32_t)gl);
	} else {
		emit_const(g, t);
	}
}

/* memarg: natural alignment (log2) mostly, as compilers emit; atomics
 * must use exactly the natural alignment. */
static void emit_memarg(gen *g, uint32_t natural, bool atomic)
{
	uint32_t align = atomic || chance(85) ? natural : below(natural + 1);

	put_u32(g->b, align);
	put_u32(g->b, chance(50) ? 0 : below(512) << natural);
}

/* An i32 address: base local, constant, base+constant, the stack
 * pointer, or a computed and masked expression. */
static void emit_addr(gen *g, int depth)
{
	switch (below(5)) {
	case 0:
		if (has_local(g, I32)) {
			emit_local(g, 0x20, I32);
			return;
		}
		/* fall through */
	case 1:
		put(g->b, 0x41);
		put_s64(g->b, (int32_t)below(65536));
		return;
	case 2:
		emit_leaf(g, I32);
		put(g->b, 0x41);
		put_s64(g->b, (int32_t)below(1024) * 4);
		put(g->b, 0x6A); /* i32.add */
		return;
	case 3:
		put(g->b, 0x23);
		put_u32(g->b, 1); /* the stack pointer global */
		return;
	default:
		emit_expr(g, I32, depth - 1);
		put(g->b, 0x41);
		put_s64(g->b, 0xfff8);
		put(g->b, 0x71); /* i32.and */
		return;
	}
}

/* Memory access tables: opcode (after 0xFE for atomics) and log2 width. */
typedef struct memop {
	uint8_t op, natural;
} memop;

static const memop loads[4][7] = {
	{ { 0x28, 2 }, { 0x2C, 0 }, { 0x2D, 0 }, { 0x2E, 1 }, { 0x2F, 1 } },
	{ { 0x29, 3 }, { 0x30, 0 }, { 0x31, 0 }, { 0x32, 1 }, { 0x33, 1 },
	  { 0x34, 2 }, { 0x35, 2 } },
	{ { 0x2A, 2 } },
	{ { 0x2B, 3 } },
};
static const uint8_t nloads[4] = { 5, 7, 1, 1 };

static const memop stores[4][4] = {
	{ { 0x36, 2 }, { 0x3A, 0 }, { 0x3B, 1 } },
	{ { 0x37, 3 }, { 0x3C, 0 }, { 0x3D, 1 }, { 0x3E, 2 } },
	{ { 0x38, 2 } },
	{ { 0x39, 3 } },
};
static const uint8_t nstores[4] = { 3, 4, 1, 1 };

/* Atomic loads, stores and RMW variants for i32 (0) and i64 (1). The RMW
 * opcode is base + variant, variant ordered i32, i64, i32_8, i32_16,
 * i64_8, i64_16, i64_32 in every group. */
static const memop atomic_loads[2][4] = {
	{ { 0x10, 2 }, { 0x12, 0 }, { 0x13, 1 } },
	{ { 0x11, 3 }, { 0x14, 0 }, { 0x15, 1 }, { 0x16, 2 } },
};
static const memop atomic_stores[2][4] = {
	{ { 0x17, 2 }, { 0x19, 0 }, { 0x1A, 1 } },
	{ { 0x18, 3 }, { 0x1B, 0 }, { 0x1C, 1 }, { 0x1D, 2 } },
};
static const uint8_t natomic[2] = { 3, 4 };
static const memop rmw_variant[2][4] = {
	{ { 0, 2 }, { 2, 0 }, { 3, 1 } },
	{ { 1, 3 }, { 4, 0 }, { 5, 1 }, { 6, 2 } },
};
static const uint8_t rmw_base[] = { 0x1E, 0x25, 0x2C, 0x33, 0x3A, 0x41 };
#define CMPXCHG_BASE 0x48

/* Conversions: result type, operand type, prefix (0 or 0xFC), opcode. */
static const struct conv {
	uint8_t to, from, pfx, op;
} convs[] = {
	{ I32, I64, 0, 0xA7 },	  { I32, F32, 0, 0xA8 },    { I32, F32, 0, 0xA9 },
	{ I32, F64, 0, 0xAA },	  { I32, F64, 0, 0xAB },    { I32, F32, 0, 0xBC },
	{ I32, F32, 0xFC, 0 },	  { I32, F32, 0xFC, 1 },    { I32, F64, 0xFC, 2 },
	{ I32, F64, 0xFC, 3 },	  { I64, I32, 0, 0xAC },    { I64, I32, 0, 0xAD },
	{ I64, F32, 0, 0xAE },	  { I64, F32, 0, 0xAF },    { I64, F64, 0, 0xB0 },
	{ I64, F64, 0, 0xB1 },	  { I64, F64, 0, 0xBD },    { I64, F32, 0xFC, 4 },
	{ I64, F32, 0xFC, 5 },	  { I64, F64, 0xFC, 6 },    { I64, F64, 0xFC, 7 },
	{ F32, I32, 0, 0xB2 },	  { F32, I32, 0, 0xB3 },    { F32, I64, 0, 0xB4 },
	{ F32, I64, 0, 0xB5 },	  { F32, F64, 0, 0xB6 },    { F32, I32, 0, 0xBE },
	{ F64, I32, 0, 0xB7 },	  { F64, I32, 0, 0xB8 },    { F64, I64, 0, 0xB9 },
	{ F64, I64, 0, 0xBA },	  { F64, F32, 0, 0xBB },    { F64, I64, 0, 0xBF },
};
#define NCONVS (sizeof convs / sizeof convs[0])

/* Binary and unary arithmetic: first opcode and count per type; unary
 * sign-extension ops separately. */
static const uint8_t binop_first[4] = { 0x6A, 0x7C, 0x92, 0xA0 };
static const uint8_t binop_count[4] = { 15, 15, 7, 7 };
static const uint8_t unop_first[4] = { 0x67, 0x79, 0x8B, 0x99 };
static const uint8_t unop_count[4] = { 3, 3, 7, 7 };
static const uint8_t extend_first[2] = { 0xC0, 0xC2 };
static const uint8_t extend_count[2] = { 2, 3 };
/* Comparisons to i32: first binary compare and count; eqz for ints. */
static const uint8_t cmp_first[4] = { 0x46, 0x51, 0x5B, 0x61 };
static const uint8_t cmp_count[4] = { 10, 10, 6, 6 };
static const uint8_t eqz_op[2] = { 0x45, 0x50 };

static void emit_call_returning(gen *g, uint8_t r, int depth)
{
	int slot = result_slot(r);
	uint32_t callee;
	const sig *s;

	callee = g->fs->by_result[slot][below(g->fs->nby[slot])];
	s = callee == 0 ? &sigs[LOG_SIG] : &sigs[g->fs->sig[callee - 1]];
	for (unsigned i = 0; i < s->np; i++)
		emit_expr(g, s->p[i], depth - 1);
	put(g->b, 0x10);
	put_u32(g->b, callee);
}

static bool can_call(gen *g, uint8_t r)
{
	return g->fs->nby[result_slot(r)] > 0;
}

static void emit_call_indirect(gen *g, uint8_t r, int depth)
{
	uint32_t ti;

	do
		ti = below(NSIGS);
	while (sigs[ti].r != r);
	for (unsigned i = 0; i < sigs[ti].np; i++)
		emit_expr(g, sigs[ti].p[i], depth - 1);
	/* a table slot: in range for every function count we generate */
	put(g->b, 0x41);
	put_s64(g->b, (int32_t)below(g->fs->n + 1));
	put(g->b, 0x11);
	put_u32(g->b, ti);
	put(g->b, 0x00);
}

/* Operands for an atomic RMW or cmpxchg (cmpxchg has two values), then
 * the instruction. k: 0 for i32, 1 for i64. */
static void emit_rmw(gen *g, int k, bool cmpxchg, int depth)
{
	const memop *v = &rmw_variant[k][below(natomic[k])];
	uint8_t t = numtypes[k];

	emit_addr(g, depth);
	emit_expr(g, t, depth - 1);
	if (cmpxchg)
		emit_expr(g, t, depth - 1);
	put(g->b, 0xFE);
	put_u32(g->b, (cmpxchg ? CMPXCHG_BASE
			       : rmw_base[below(sizeof rmw_base)]) + v->op);
	emit_memarg(g, v->natural, true);
}

/* A block or if/else producing one value of type t. Its statements get
 * no nested control (depth 0), and value blocks are only opened while few
 * labels are open (see emit_expr): statements restart the expression
 * depth, so without both limits the expected size would not be bounded. */
static void emit_value_block(gen *g, uint8_t t, int depth)
{
	if (chance(50)) {
		put(g->b, 0x02);
		put(g->b, t);
		push_label(g, t);
		emit_stmts(g, 0, below(3));
		emit_expr(g, t, depth - 1);
	} else {
		emit_expr(g, I32, depth - 1);
		put(g->b, 0x04);
		put(g->b, t);
		push_label(g, t);
		emit_stmts(g, 0, below(2));
		emit_expr(g, t, depth - 1);
		put(g->b, 0x05);
		emit_stmts(g, 0, below(2));
		emit_expr(g, t, depth - 1);
	}
	g->nlabels--;
	put(g->b, 0x0B);
}

/* Emit code that leaves exactly one value of type t. */
static void emit_expr(gen *g, uint8_t t, int depth)
{
	int k = tix(t);

	if (depth <= 0 || chance(20)) {
		emit_leaf(g, t);
		return;
	}
	switch (below(16)) {
	case 0:
	case 1:
	case 2:
	case 3: /* arithmetic dominates real code */
		emit_expr(g, t, depth - 1);
		emit_expr(g, t, depth - 1);
		put(g->b, binop_first[k] + below(binop_count[k]));
		return;
	case 4:
		emit_expr(g, t, depth - 1);
		if (k < 2 && chance(40))
			put(g->b, extend_first[k] + below(extend_count[k]));
		else
			put(g->b, unop_first[k] + below(unop_count[k]));
		return;
	case 5: { /* conversion from another type */
		const struct conv *c;

		do
			c = &convs[below(NCONVS)];
		while (c->to != t);
		emit_expr(g, c->from, depth - 1);
		put(g->b, c->pfx ? c->pfx : c->op);
		if (c->pfx)
			put_u32(g->b, c->op);
		return;
	}
	case 6:
	case 7: { /* plain load */
		const memop *m = &loads[k][below(nloads[k])];

		emit_addr(g, depth);
		put(g->b, m->op);
		emit_memarg(g, m->natural, false);
		return;
	}
	case 8:
		if (t == I32) { /* comparison of any type */
			uint8_t ct = numtypes[below(4)];
			int ck = tix(ct);

			emit_expr(g, ct, depth - 1);
			if (ck < 2 && chance(25)) {
				put(g->b, eqz_op[ck]);
				return;
			}
			emit_expr(g, ct, depth - 1);
			put(g->b, cmp_first[ck] + below(cmp_count[ck]));
			return;
		}
		/* fall through */
	case 9:
		if (k < 2) { /* atomic load, RMW or cmpxchg */
			uint32_t r = below(4);

			if (r == 0) {
				const memop *m =
					&atomic_loads[k][below(natomic[k])];

				emit_addr(g, depth);
				put(g->b, 0xFE);
				put_u32(g->b, m->op);
				emit_memarg(g, m->natural, true);
			} else {
				emit_rmw(g, k, r == 3, depth);
			}
			return;
		}
		/* fall through */
	case 10:
		emit_expr(g, t, depth - 1);
		emit_expr(g, t, depth - 1);
		emit_expr(g, I32, depth - 1);
		put(g->b, 0x1B); /* select */
		return;
	case 11:
		if (has_local(g, t)) {
			emit_expr(g, t, depth - 1);
			emit_local(g, 0x22, t); /* local.tee */
			return;
		}
		/* fall through */
	case 12:
		if (can_call(g, t) && chance(80)) {
			emit_call_returning(g, t, depth);
			return;
		}
		emit_call_indirect(g, t, depth);
		return;
	case 13:
		if (g->nlabels < VALUE_BLOCK_LABELS) {
			emit_value_block(g, t, depth);
			return;
		}
		/* fall through */
	case 14:
		if (t == I32 && chance(30)) { /* wait/notify/memory.size */
			switch (below(4)) {
			case 0:
				emit_addr(g, depth);
				emit_expr(g, I32, depth - 1);
				put(g->b, 0xFE);
				put_u32(g->b, 0x00); /* memory.atomic.notify */
				emit_memarg(g, 2, true);
				return;
			case 1:
				emit_addr(g, depth);
				emit_expr(g, I32, depth - 1);
				emit_expr(g, I64, depth - 1);
				put(g->b, 0xFE);
				put_u32(g->b, 0x01); /* memory.atomic.wait32 */
				emit_memarg(g, 2, true);
				return;
			case 2:
				emit_addr(g, depth);
				emit_expr(g, I64, depth - 1);
				emit_expr(g, I64, depth - 1);
				put(g->b, 0xFE);
				put_u32(g->b, 0x02); /* memory.atomic.wait64 */
				emit_memarg(g, 3, true);
				return;
			default:
				put(g->b, 0x3F); /* memory.size */
				put(g->b, 0x00);
				return;
			}
		}
		/* fall through */
	default:
		emit_leaf(g, t);
		return;
	}
}

/* ---- statements: net stack effect zero ---- */

static void emit_block_stmt(gen *g, int depth)
{
	put(g->b, 0x02);
	put(g->b, V);
	push_label(g, V);
	emit_stmts(g, depth - 1, 1 + below(4));
	if (chance(50)) { /* a conditional exit, as from `if (x) break;` */
		emit_expr(g, I32, 2);
		put(g->b, 0x0D);
		put_u32(g->b, 0);
		emit_stmts(g, depth - 1, below(3));
	}
	g->nlabels--;
	put(g->b, 0x0B);
}

/* A counted loop: body, then decrement a counter and br_if back. */
static void emit_loop_stmt(gen *g, int depth)
{
	put(g->b, 0x03);
	put(g->b, V);
	push_label(g, V);
	emit_stmts(g, depth - 1, 1 + below(4));
	if (has_local(g, I32)) {
		uint32_t i = g->local_by_type[0][below(g->nlocal_by_type[0])];

		put(g->b, 0x20);
		put_u32(g->b, i);
		put(g->b, 0x41);
		put_s64(g->b, 1);
		put(g->b, 0x6B); /* i32.sub */
		put(g->b, 0x22);
		put_u32(g->b, i);
	} else {
		emit_expr(g, I32, 2);
	}
	put(g->b, 0x0D);
	put_u32(g->b, 0);
	g->nlabels--;
	put(g->b, 0x0B);
}

static void emit_if_stmt(gen *g, int depth)
{
	emit_expr(g, I32, 3);
	put(g->b, 0x04);
	put(g->b, V);
	push_label(g, V);
	emit_stmts(g, depth - 1, 1 + below(3));
	if (chance(20)) { /* an early exit ends the then-arm */
		int d = void_label(g);

		if (chance(50) || d < 0) {
			if (g->sig->r != V)
				emit_expr(g, g->sig->r, 2);
			put(g->b, 0x0F); /* return */
		} else {
			put(g->b, 0x0C); /* br */
			put_u32(g->b, (uint32_t)d);
		}
	}
	if (chance(40)) {
		put(g->b, 0x05);
		emit_stmts(g, depth - 1, 1 + below(3));
	}
	g->nlabels--;
	put(g->b, 0x0B);
}

/* A switch: exit block around k case blocks; the innermost holds the
 * br_table, each case's code follows its block's end and breaks out. */
static void emit_switch_stmt(gen *g, int depth)
{
	uint32_t k = 2 + below(6), n = below(12);

	if (g->nlabels + k + 1 >= MAX_LABELS)
		return;
	put(g->b, 0x02);
	put(g->b, V);
	push_label(g, V);
	for (uint32_t i = 0; i < k; i++) {
		put(g->b, 0x02);
		put(g->b, V);
		push_label(g, V);
	}
	emit_expr(g, I32, 2);
	put(g->b, 0x0E);
	put_u32(g->b, n);
	for (uint32_t i = 0; i < n; i++)
		put_u32(g->b, below(k + 1));
	put_u32(g->b, k); /* default: out of the whole switch */
	for (uint32_t i = 0; i < k; i++) {
		put(g->b, 0x0B);
		g->nlabels--;
		emit_stmts(g, depth - 1, 1 + below(2));
		if (i + 1 < k) {
			put(g->b, 0x0C);
			put_u32(g->b, k - 1 - i);
		}
	}
	g->nlabels--;
	put(g->b, 0x0B);
}

static void emit_stmt(gen *g, int depth)
{
	uint32_t r = below(depth > 0 ? 20 : 12);
	int k, gl, d;

	switch (r) {
	case 0:
	case 1:
	case 2: /* local.set */
		k = (int)below(4);
		if (!has_local(g, numtypes[k]))
			k = 0;
		if (!has_local(g, numtypes[k]))
			break;
		emit_expr(g, numtypes[k], MAX_EXPR_DEPTH);
		emit_local(g, 0x21, numtypes[k]);
		return;
	case 3: /* global.set */
		k = (int)below(4);
		gl = pick_global(numtypes[k], true);
		emit_expr(g, numtypes[k], MAX_EXPR_DEPTH - 1);
		put(g->b, 0x24);
		put_u32(g->b, (uint32_t)gl);
		return;
	case 4:
	case 5: { /* plain store */
		const memop *m;

		k = (int)below(4);
		m = &stores[k][below(nstores[k])];
		emit_addr(g, MAX_EXPR_DEPTH - 1);
		emit_expr(g, numtypes[k], MAX_EXPR_DEPTH - 1);
		put(g->b, m->op);
		emit_memarg(g, m->natural, false);
		return;
	}
	case 6: { /* atomic store */
		const memop *m;

		k = (int)below(2);
		m = &atomic_stores[k][below(natomic[k])];
		emit_addr(g, MAX_EXPR_DEPTH - 1);
		emit_expr(g, numtypes[k], MAX_EXPR_DEPTH - 1);
		put(g->b, 0xFE);
		put_u32(g->b, m->op);
		emit_memarg(g, m->natural, true);
		return;
	}
	case 7: /* atomic RMW whose old value is unused */
		emit_rmw(g, (int)below(2), chance(25), MAX_EXPR_DEPTH - 1);
		put(g->b, 0x1A);
		return;
	case 8:
		if (chance(30)) {
			put(g->b, 0xFE);
			put_u32(g->b, 0x03); /* atomic.fence */
			put(g->b, 0x00);
			return;
		}
		/* fall through */
	case 9: /* a call for its effect */
		if (chance(80)) {
			uint8_t rt = chance(50) ? V : numtypes[below(4)];

			if (can_call(g, rt)) {
				emit_call_returning(g, rt, MAX_EXPR_DEPTH);
				if (rt != V)
					put(g->b, 0x1A); /* drop */
			} else {
				emit_call_indirect(g, V, 2);
			}
		} else {
			emit_call_indirect(g, V, 2);
		}
		return;
	case 10: /* br_if to an enclosing label */
		d = void_label(g);
		if (d < 0)
			break;
		emit_expr(g, I32, 3);
		put(g->b, 0x0D);
		put_u32(g->b, (uint32_t)d);
		return;
	case 11: /* an expression statement */
		emit_expr(g, numtypes[below(4)], MAX_EXPR_DEPTH);
		put(g->b, 0x1A);
		return;
	case 12:
	case 13:
	case 14:
		emit_if_stmt(g, depth);
		return;
	case 15:
	case 16:
		emit_loop_stmt(g, depth);
		return;
	case 17:
	case 18:
		emit_block_stmt(g, depth);
		return;
	default:
		emit_switch_stmt(g, depth);
		return;
	}
	put(g->b, 0x01); /* nop: nothing fitted */
}

static void emit_stmts(gen *g, int depth, unsigned n)
{
	if (g->nlabels + 2 >= MAX_LABELS)
		depth = 0;
	while (n--)
		emit_stmt(g, depth);
}

/* One function body (without its size prefix), about `target` bytes. */
static void gen_body(buf *body, funcs *fs, uint8_t si, size_t target)
{
	gen g = { .b = body, .fs = fs, .sig = &sigs[si] };
	uint32_t ngroups = 1 + below(6);

	for (unsigned i = 0; i < g.sig->np; i++) {
		int k = tix(g.sig->p[i]);

		g.local_by_type[k][g.nlocal_by_type[k]++] = g.nlocals++;
	}
	put_u32(body, ngroups);
	for (uint32_t i = 0; i < ngroups; i++) {
		uint8_t t = numtypes[below(4)];
		uint32_t count = 1 + below(8);
		int k = tix(t);

		put_u32(body, count);
		put(body, t);
		for (uint32_t j = 0; j < count; j++) {
			if (g.nlocal_by_type[k] < MAX_LOCALS)
				g.local_by_type[k][g.nlocal_by_type[k]++] =
					g.nlocals;
			g.nlocals++;
		}
	}
	push_label(&g, g.sig->r); /* the function body's own label */
	while (body->len < target)
		emit_stmt(&g, MAX_STMT_DEPTH);
	if (g.sig->r != V)
		emit_expr(&g, g.sig->r, MAX_EXPR_DEPTH);
	put(body, 0x0B);
}

int main(int argc, char **argv)
{
	const char *path;
	unsigned long mb = 24;
	size_t want;
	funcs fs = { 0 };
	buf code = { 0 }, body = { 0 }, sec = { 0 }, out = { 0 };
	FILE *f;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: genmod OUT.wasm [MB]\n");
		return 2;
	}
	path = argv[1];
	if (argc == 3) {
		char *end;

		errno = 0;
		mb = strtoul(argv[2], &end, 10);
		if (errno || *end || mb == 0 || mb > 1024) {
			fprintf(stderr, "genmod: MB must be 1..1024: %s\n",
				argv[2]);
			return 2;
		}
	}
	want = (size_t)mb << 20;
	rng_seed(0x6865697365ull); /* "heise": fixed for reproducibility */

	/* The imported env.log is callable from the start. */
	funcs_add_callee(&fs, 4, 0);

	/* Code first: bodies until the code section alone is big enough. */
	while (code.len < want) {
		/* sizes log-uniform between ~64 B and ~16 KiB, as in real
		 * modules: many small helpers, a few large functions */
		size_t target = (size_t)64 << below(9);
		uint8_t si = (uint8_t)below(NSIGS);
		uint32_t idx = fs.n + 1; /* absolute: after the import */

		target += below((uint32_t)target);
		body.len = 0;
		gen_body(&body, &fs, si, target);
		put_u32(&code, (uint32_t)body.len);
		put_n(&code, body.p, body.len);
		if (fs.n == fs.cap) {
			fs.cap = fs.cap ? 2 * fs.cap : 1024;
			fs.sig = xrealloc(fs.sig, fs.cap);
		}
		fs.sig[fs.n++] = si;
		funcs_add_callee(&fs, result_slot(sigs[si].r), idx);
	}

	put_n(&out, "\0asm\1\0\0\0", 8);

	/* type */
	put_u32(&sec, NSIGS);
	for (unsigned i = 0; i < NSIGS; i++) {
		put(&sec, 0x60);
		put_u32(&sec, sigs[i].np);
		put_n(&sec, sigs[i].p, sigs[i].np);
		put_u32(&sec, sigs[i].r == V ? 0 : 1);
		if (sigs[i].r != V)
			put(&sec, sigs[i].r);
	}
	put_section(&out, 1, &sec);

	/* import: the wasi-threads shape, a shared env.memory */
	sec.len = 0;
	put_u32(&sec, 3);
	put_str(&sec, "env");
	put_str(&sec, "log");
	put(&sec, 0x00);
	put_u32(&sec, LOG_SIG);
	put_str(&sec, "env");
	put_str(&sec, "memory");
	put(&sec, 0x02);
	put(&sec, 0x03); /* shared, with maximum */
	put_u32(&sec, 2);
	put_u32(&sec, 16384);
	put_str(&sec, "env");
	put_str(&sec, "base");
	put(&sec, 0x03);
	put(&sec, I32);
	put(&sec, 0x00);
	put_section(&out, 2, &sec);

	/* function */
	sec.len = 0;
	put_u32(&sec, fs.n);
	for (uint32_t i = 0; i < fs.n; i++)
		put_u32(&sec, fs.sig[i]);
	put_section(&out, 3, &sec);

	/* table: one slot per function, plus one so that slot index
	 * fs.n (used by call_indirect) exists too */
	sec.len = 0;
	put_u32(&sec, 1);
	put(&sec, 0x70);
	put(&sec, 0x01);
	put_u32(&sec, fs.n + 1);
	put_u32(&sec, fs.n + 1);
	put_section(&out, 4, &sec);

	/* global: the defined ones (index 0 is imported) */
	sec.len = 0;
	put_u32(&sec, NGLOBALS - 1);
	for (unsigned i = 1; i < NGLOBALS; i++) {
		put(&sec, globals[i].type);
		put(&sec, globals[i].mut);
		if (i == 1) { /* the stack pointer starts at env.base */
			put(&sec, 0x23);
			put_u32(&sec, 0);
		} else {
			gen cg = { .b = &sec };

			emit_const(&cg, globals[i].type);
		}
		put(&sec, 0x0B);
	}
	put_section(&out, 6, &sec);

	/* export */
	sec.len = 0;
	put_u32(&sec, 2);
	put_str(&sec, "_start");
	put(&sec, 0x00);
	put_u32(&sec, 1);
	put_str(&sec, "sp");
	put(&sec, 0x03);
	put_u32(&sec, 1);
	put_section(&out, 7, &sec);

	/* element: every defined function, from slot 0 */
	sec.len = 0;
	put_u32(&sec, 1);
	put(&sec, 0x00);
	put(&sec, 0x41);
	put_s64(&sec, 0);
	put(&sec, 0x0B);
	put_u32(&sec, fs.n);
	for (uint32_t i = 0; i < fs.n; i++)
		put_u32(&sec, i + 1);
	put_section(&out, 9, &sec);

	/* code */
	sec.len = 0;
	put_u32(&sec, fs.n);
	put_n(&sec, code.p, code.len);
	put_section(&out, 10, &sec);

	/* data: a few active segments at env.base-relative offsets */
	sec.len = 0;
	put_u32(&sec, 4);
	for (int i = 0; i < 4; i++) {
		uint32_t len = 16 + below(256);

		put(&sec, 0x00);
		put(&sec, 0x23);
		put_u32(&sec, 0);
		put(&sec, 0x0B);
		put_u32(&sec, len);
		for (uint32_t j = 0; j < len; j++)
			put(&sec, (uint8_t)rng_next());
	}
	put_section(&out, 11, &sec);

	f = fopen(path, "wb");
	if (!f || fwrite(out.p, 1, out.len, f) != out.len || fclose(f)) {
		fprintf(stderr, "genmod: %s: %s\n", path, strerror(errno));
		return 3;
	}
	printf("genmod: %s: %zu bytes, %u functions\n", path, out.len, fs.n);
	free(out.p);
	free(sec.p);
	free(body.p);
	free(code.p);
	free(fs.sig);
	for (int i = 0; i < 5; i++)
		free(fs.by_result[i]);
	return 0;
}
