/*
 * validate.c - type-check a decoded module (wasm_validate).
 *
 * How it works:
 *   First the module-level rules, in section order: import and function
 *   type indices, table and memory limits, global initialisers, exports,
 *   the start function, element and data segments. Constant expressions
 *   are checked as they come and every `ref.func` they (and exports and
 *   element segments) name goes into a bitset of "declared" functions,
 *   which is what lets a body say `ref.func x`.
 *
 *   Then each body, in one forward pass, with the algorithm of the spec's
 *   validation appendix: a stack of value types and a stack of control
 *   frames. A frame remembers the value-stack height at its entry and
 *   whether the rest of it is unreachable; popping at that height in an
 *   unreachable frame yields UNK, which matches any type (the polymorphic
 *   stack after br, br_table, return and unreachable). The height and the
 *   flag of the innermost frame are cached in the state so that the common
 *   pop is one compare and one load.
 *
 *   The ~480 instructions with a signature in opcodes.def are typed from a
 *   table of pop/push codes parsed once (pthread_once) from those strings;
 *   the control, variable, reference and table instructions are typed by
 *   hand in one switch. Both stacks, the local-type array and the reader
 *   live in one state reused across bodies: a body allocates nothing
 *   unless it is deeper or has more locals than any before it.
 *
 *   The spec decodes a whole module before validating it, so a malformed
 *   body anywhere outranks a typing error. The one pass finds a typing
 *   error before it has read the bodies after it; on that (rare) path the
 *   rest is re-read for nesting only (prefer_malformed), so the verdict
 *   is the spec's without a second pass on valid modules.
 *
 * Limitations:
 *   Reports the first error only. Errors in items without their own
 *   offset (an element's function index) point at the entry holding them.
 *   Functions with more than 50,000,000 locals (params included) are
 *   refused with WASM_LIMIT: it bounds the memory and time a tiny body
 *   can ask of any later consumer (the engine's frames among them).
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "wasm.h"

/* A type that is not a value type: what an unreachable frame pops. */
#define UNK 0x00
/* Above this many locals, types are found by binary search over the
 * declaration runs instead of a byte per local. */
#define FLAT_LOCALS 65536u
#define MAX_LOCALS  50000000u

/* ---- the per-opcode table ------------------------------------------- */

typedef struct opsig {
	uint8_t npop, npush;
	uint8_t pop[3]; /* operand types, bottom first */
	uint8_t push;	/* result type when npush == 1 */
	uint8_t imm;	/* wasm_imm, copied here to spare a lookup */
	uint8_t align;	/* log2 of the access width */
	uint8_t lanes;	/* bound of a lane immediate, 0 if none */
	bool typed;	/* signature usable; otherwise typed by hand */
	bool atomic;	/* alignment must equal the natural one */
} opsig;

static opsig sigtab[WASM_OP_COUNT];
static pthread_once_t sigtab_once = PTHREAD_ONCE_INIT;

static uint8_t sig_type(char c)
{
	switch (c) {
	case 'i': return WASM_I32;
	case 'l': return WASM_I64;
	case 'f': return WASM_F32;
	case 'd': return WASM_F64;
	case 'v': return WASM_V128;
	default: return UNK;
	}
}

static uint8_t lane_count(const char *name)
{
	static const struct {
		const char *prefix;
		uint8_t lanes;
	} shapes[] = {
	    {"i8x16.", 16}, {"i16x8.", 8}, {"i32x4.", 4},
	    {"f32x4.", 4},  {"i64x2.", 2}, {"f64x2.", 2},
	};
	for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
		if (!strncmp(name, shapes[i].prefix, 6))
			return shapes[i].lanes;
	return 0;
}

static void sigtab_init(void)
{
	for (int op = 0; op < WASM_OP_COUNT; op++) {
		const wasm_opinfo *oi = wasm_op_info((wasm_op)op);
		opsig *s = &sigtab[op];
		const char *p = oi->sig;
		bool ok = p != NULL;

		s->imm = oi->imm;
		s->atomic = (oi->flags & WASM_F_ATOMIC) && oi->width;
		for (unsigned w = oi->width; w > 1; w >>= 1)
			s->align++;
		if (oi->imm == WASM_IMM_LANE)
			s->lanes = lane_count(oi->name);
		else if (oi->imm == WASM_IMM_MEMARG_LANE && oi->width)
			s->lanes = (uint8_t)(16 / oi->width);
		else if (oi->imm == WASM_IMM_SHUFFLE)
			s->lanes = 32;
		for (; ok && *p && *p != '>'; p++) {
			if (s->npop == sizeof s->pop || !sig_type(*p))
				ok = false;
			else
				s->pop[s->npop++] = sig_type(*p);
		}
		if (ok && *p == '>')
			for (p++; ok && *p; p++) {
				if (s->npush == 1 || !sig_type(*p))
					ok = false;
				else
					s->push = sig_type(*p), s->npush++;
			}
		/* A row this table cannot express falls to the switch,
		 * which reports it instead of mistyping it. */
		s->typed = ok;
	}
}

/* ---- state ----------------------------------------------------------- */

/* K_TRY: a try's body; K_CATCH, K_CATCH_ALL: after its catch or
 * catch_all (legacy exception handling). */
enum { K_BLOCK, K_LOOP, K_IF, K_ELSE, K_FUNC, K_TRY, K_CATCH, K_CATCH_ALL };

typedef struct frame {
	const uint8_t *params, *results;
	uint32_t nparams, nresults;
	size_t height; /* value-stack height at entry */
	uint8_t kind;
	bool unreachable;
} frame;

typedef struct lrun {
	uint32_t end; /* one past the last local of the run */
	uint8_t type;
} lrun;

typedef struct vstate {
	const wasm_module *m;
	wasm_features features;
	wasm_err *err;
	const char *section;
	uint32_t func;
	wasm_reader r;

	/* Index spaces, imports first. */
	uint32_t nfuncs, ntables, nmems, nglobals, ntags;
	uint32_t *func_type; /* type index of each function */
	uint8_t *table_elem; /* element type of each table */
	wasm_globaltype *globals;
	uint8_t *declared; /* bitset: functions ref.func may name */

	/* Body state. height/unreachable mirror the innermost frame. */
	uint8_t *vals;
	size_t nvals, vals_cap;
	size_t height;
	bool unreachable;
	frame *ctl;
	uint32_t nctl, ctl_cap;
	uint32_t nlocals;
	uint8_t *locals; /* one type per local, if nlocals <= FLAT_LOCALS */
	uint32_t locals_cap;
	lrun *runs; /* otherwise runs of equal type */
	uint32_t nruns, runs_cap;
} vstate;

/* Identity table so a one-type block can point at its type. */
static const uint8_t type_byte[256] = {
    [WASM_I32] = WASM_I32,
    [WASM_I64] = WASM_I64,
    [WASM_F32] = WASM_F32,
    [WASM_F64] = WASM_F64,
    [WASM_V128] = WASM_V128,
    [WASM_FUNCREF] = WASM_FUNCREF,
    [WASM_EXTERNREF] = WASM_EXTERNREF,
};

static inline bool is_ref(int t)
{
	return t == WASM_FUNCREF || t == WASM_EXTERNREF;
}

static inline bool is_valtype(int t)
{
	return (t >= WASM_V128 && t <= WASM_I32) || is_ref(t);
}

/* ---- errors ---------------------------------------------------------- */

__attribute__((format(printf, 4, 5), cold, noinline)) static wasm_status
fail(vstate *v, wasm_status st, size_t off, const char *fmt, ...)
{
	char msg[sizeof v->err->msg];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	v->err->section = v->section;
	v->err->func = v->func;
	return wasm_err_set(v->err, st, off, "%s", msg);
}

static wasm_status nomem(vstate *v)
{
	return fail(v, WASM_NOMEM, WASM_NO_OFFSET, "out of memory");
}

static const char *tname(int t)
{
	return t == UNK ? "a value" : wasm_type_name((uint8_t)t);
}

/* "[i32 f64]", cut short to fit. */
static const char *fmt_types(char *buf, size_t cap, const uint8_t *t,
			     uint32_t n)
{
	size_t len = 0;

	len += (size_t)snprintf(buf, cap, "[");
	for (uint32_t i = 0; i < n && len < cap; i++)
		len += (size_t)snprintf(buf + len, cap - len, "%s%s",
					i ? " " : "", wasm_type_name(t[i]));
	if (len < cap)
		snprintf(buf + len, cap - len, "]");
	return buf;
}

static const char *frame_name(uint8_t kind)
{
	static const char *const names[] = {"block", "loop",	 "if",
					    "else",  "function", "try",
					    "catch", "catch_all"};
	return names[kind];
}

static const char *op_name(wasm_op op) { return wasm_op_info(op)->name; }

/* got == -1: the stack had nothing left in a reachable frame. */
__attribute__((cold, noinline)) static int
mismatch(vstate *v, const wasm_instr *in, int want, int got)
{
	char what[64];

	if (in->op == WASM_OP_END || in->op == WASM_OP_ELSE)
		snprintf(what, sizeof what, "end of %s",
			 frame_name(v->ctl[v->nctl - 1].kind));
	else
		snprintf(what, sizeof what, "%s", op_name(in->op));
	fail(v, WASM_INVALID, in->offset,
	     "type mismatch: %s expects %s, got %s", what, tname(want),
	     got < 0 ? "nothing" : tname(got));
	return -1;
}

/* ---- the value stack ------------------------------------------------- */

static bool grow_vals(vstate *v, size_t extra)
{
	size_t cap = v->vals_cap ? v->vals_cap : 256;
	uint8_t *p;

	while (cap - v->nvals < extra)
		cap *= 2;
	p = wasm_realloc(v->vals, cap);
	if (!p)
		return false;
	v->vals = p;
	v->vals_cap = cap;
	return true;
}

static inline bool push(vstate *v, uint8_t t)
{
	if (__builtin_expect(v->nvals == v->vals_cap, 0) && !grow_vals(v, 1))
		return false;
	v->vals[v->nvals++] = t;
	return true;
}

static bool push_n(vstate *v, const uint8_t *t, uint32_t n)
{
	if (!n)
		return true;
	if (v->vals_cap - v->nvals < n && !grow_vals(v, n))
		return false;
	memcpy(v->vals + v->nvals, t, n);
	v->nvals += n;
	return true;
}

/* Pop a value of type want (UNK: any). Returns the type popped (UNK in
 * an unreachable frame), or -1 with the error set. */
static inline int pop(vstate *v, const wasm_instr *in, int want)
{
	if (__builtin_expect(v->nvals > v->height, 1)) {
		int t = v->vals[--v->nvals];
		if (__builtin_expect(t == want, 1) || t == UNK || want == UNK)
			return t;
		return mismatch(v, in, want, t);
	}
	if (v->unreachable)
		return UNK;
	return mismatch(v, in, want, -1);
}

static bool pop_n(vstate *v, const wasm_instr *in, const uint8_t *t, uint32_t n)
{
	while (n--)
		if (pop(v, in, t[n]) < 0)
			return false;
	return true;
}

/* Check the top n values against t without popping (br_table targets). */
static bool peek_n(vstate *v, const wasm_instr *in, const uint8_t *t,
		   uint32_t n)
{
	size_t avail = v->nvals - v->height;

	for (uint32_t i = 0; i < n; i++) {
		int want = t[n - 1 - i], got;
		if (i >= avail) {
			if (v->unreachable)
				return true;
			return mismatch(v, in, want, -1), false;
		}
		got = v->vals[v->nvals - 1 - i];
		if (got != want && got != UNK)
			return mismatch(v, in, want, got), false;
	}
	return true;
}

static void set_unreachable(vstate *v)
{
	v->nvals = v->height;
	v->unreachable = true;
	v->ctl[v->nctl - 1].unreachable = true;
}

static bool push_ctrl(vstate *v, uint8_t kind, const uint8_t *params,
		      uint32_t np, const uint8_t *results, uint32_t nr)
{
	frame *f;

	if (v->nctl == v->ctl_cap) {
		uint32_t cap = v->ctl_cap ? v->ctl_cap * 2 : 64;
		frame *p = wasm_realloc(v->ctl, (size_t)cap * sizeof *p);
		if (!p)
			return false;
		v->ctl = p;
		v->ctl_cap = cap;
	}
	f = &v->ctl[v->nctl++];
	f->params = params;
	f->nparams = np;
	f->results = results;
	f->nresults = nr;
	f->height = v->nvals;
	f->kind = kind;
	f->unreachable = false;
	v->height = v->nvals;
	v->unreachable = false;
	return push_n(v, params, np);
}

/* The checks of the spec's pop_ctrl, leaving the frame in place. */
static bool close_frame(vstate *v, const wasm_instr *in)
{
	frame *f = &v->ctl[v->nctl - 1];
	char a[96], b[96];

	if (!pop_n(v, in, f->results, f->nresults))
		return false;
	if (v->nvals != f->height) {
		fail(v, WASM_INVALID, in->offset,
		     "type mismatch: end of %s leaves %zu extra value%s on "
		     "the stack (its results are %s)",
		     frame_name(f->kind), v->nvals - f->height,
		     v->nvals - f->height == 1 ? "" : "s",
		     fmt_types(a, sizeof a, f->results, f->nresults));
		return false;
	}
	if (f->kind == K_IF && in->op == WASM_OP_END &&
	    (f->nparams != f->nresults ||
	     (f->nparams && memcmp(f->params, f->results, f->nparams)))) {
		fail(v, WASM_INVALID, in->offset,
		     "type mismatch: if without else must have equal params "
		     "and results, has %s -> %s",
		     fmt_types(a, sizeof a, f->params, f->nparams),
		     fmt_types(b, sizeof b, f->results, f->nresults));
		return false;
	}
	return true;
}

static void pop_ctrl(vstate *v)
{
	const frame *f;

	v->nctl--;
	if (v->nctl) {
		f = &v->ctl[v->nctl - 1];
		v->height = f->height;
		v->unreachable = f->unreachable;
	}
}

static inline const frame *label(vstate *v, const wasm_instr *in,
				 uint32_t depth)
{
	if (depth >= v->nctl) {
		fail(v, WASM_INVALID, in->offset,
		     "unknown label %u (%u enclosing block%s)", depth, v->nctl,
		     v->nctl == 1 ? "" : "s");
		return NULL;
	}
	return &v->ctl[v->nctl - 1 - depth];
}

static inline void label_types(const frame *f, const uint8_t **t, uint32_t *n)
{
	if (f->kind == K_LOOP) {
		*t = f->params;
		*n = f->nparams;
	} else {
		*t = f->results;
		*n = f->nresults;
	}
}

/* ---- locals ---------------------------------------------------------- */

static wasm_status setup_locals(vstate *v, const wasm_func *f,
				const wasm_functype *ft)
{
	uint64_t total = (uint64_t)ft->nparams + f->nlocals;

	if (total > MAX_LOCALS)
		return fail(v, WASM_LIMIT, f->code_start,
			    "function has %llu locals; heisen supports at "
			    "most %u",
			    (unsigned long long)total, MAX_LOCALS);
	v->nlocals = (uint32_t)total;
	if (total <= FLAT_LOCALS) {
		size_t n = ft->nparams;
		if (v->locals_cap < total) {
			uint8_t *p = wasm_realloc(v->locals, FLAT_LOCALS);
			if (!p)
				return nomem(v);
			v->locals = p;
			v->locals_cap = FLAT_LOCALS;
		}
		if (ft->nparams)
			memcpy(v->locals, ft->types, ft->nparams);
		/* Empty groups are legal and may come before any local
		 * exists, when v->locals is still NULL. */
		for (uint32_t g = 0; g < f->ngroups; g++) {
			if (!f->groups[g].count)
				continue;
			memset(v->locals + n, f->groups[g].type,
			       f->groups[g].count);
			n += f->groups[g].count;
		}
		return WASM_OK;
	}
	if (v->runs_cap < ft->nparams + f->ngroups) {
		uint32_t cap = ft->nparams + f->ngroups;
		lrun *p = wasm_realloc(v->runs, (size_t)cap * sizeof *p);
		if (!p)
			return nomem(v);
		v->runs = p;
		v->runs_cap = cap;
	}
	v->nruns = 0;
	for (uint32_t i = 0; i < ft->nparams; i++)
		v->runs[v->nruns++] = (lrun){i + 1, ft->types[i]};
	total = ft->nparams;
	for (uint32_t g = 0; g < f->ngroups; g++) {
		if (!f->groups[g].count)
			continue;
		total += f->groups[g].count;
		v->runs[v->nruns++] =
		    (lrun){(uint32_t)total, f->groups[g].type};
	}
	return WASM_OK;
}

/* Type of local x, or -1 with the error set. */
static inline int local_type(vstate *v, const wasm_instr *in, uint32_t x)
{
	uint32_t lo = 0, hi;

	if (x >= v->nlocals) {
		fail(v, WASM_INVALID, in->offset,
		     "unknown local %u (function has %u local%s)", x,
		     v->nlocals, v->nlocals == 1 ? "" : "s");
		return -1;
	}
	if (v->nlocals <= FLAT_LOCALS)
		return v->locals[x];
	hi = v->nruns - 1;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (v->runs[mid].end > x)
			hi = mid;
		else
			lo = mid + 1;
	}
	return v->runs[lo].type;
}

/* ---- index checks shared by bodies and the module -------------------- */

static bool check_table(vstate *v, size_t off, uint32_t x)
{
	if (x < v->ntables)
		return true;
	fail(v, WASM_INVALID, off, "unknown table %u (module has %u)", x,
	     v->ntables);
	return false;
}

static bool check_mem(vstate *v, size_t off, uint32_t x)
{
	if (x < v->nmems)
		return true;
	fail(v, WASM_INVALID, off, "unknown memory %u (module has %u)", x,
	     v->nmems);
	return false;
}

/* Without multi-memory the last n immediates of a memory instruction are
 * reserved zero bytes, each a single byte: the byte before them is the
 * end of the opcode or of a LEB128, so it has no continuation bit. */
static bool check_zero_bytes(vstate *v, const wasm_instr *in, unsigned n)
{
	const uint8_t *b = v->m->bytes;
	size_t end = v->r.pos;

	if (v->features.multi_memory)
		return true;
	for (unsigned i = 1; i <= n; i++)
		if (b[end - i] != 0)
			goto bad;
	if (!(b[end - n - 1] & 0x80))
		return true;
bad:
	fail(v, WASM_MALFORMED, in->offset,
	     "zero byte expected: %s takes a reserved 0x00 byte without "
	     "multi-memory",
	     op_name(in->op));
	return false;
}

static bool check_func(vstate *v, size_t off, uint32_t x)
{
	if (x < v->nfuncs)
		return true;
	fail(v, WASM_INVALID, off, "unknown function %u (module has %u)", x,
	     v->nfuncs);
	return false;
}

static bool check_elem(vstate *v, size_t off, uint32_t x)
{
	if (x < v->m->nelems)
		return true;
	fail(v, WASM_INVALID, off, "unknown elem segment %u (module has %u)", x,
	     v->m->nelems);
	return false;
}

/* data.drop and memory.init: an unknown index is invalid whatever the
 * sections; a known one still needs the datacount section, whose absence
 * the spec calls malformed (it lets a one-pass decoder check the index). */
static bool check_data(vstate *v, size_t off, uint32_t x)
{
	if (x >= v->m->ndatas) {
		fail(v, WASM_INVALID, off,
		     "unknown data segment %u (module has %u)", x,
		     v->m->ndatas);
		return false;
	}
	if (!v->m->has_datacount) {
		fail(v, WASM_MALFORMED, off,
		     "data count section required: data segment %u is "
		     "used by an instruction",
		     x);
		return false;
	}
	return true;
}

static inline void declare(vstate *v, uint32_t x)
{
	if (x < v->nfuncs)
		v->declared[x >> 3] |= (uint8_t)(1u << (x & 7));
}

static inline bool is_declared(const vstate *v, uint32_t x)
{
	return v->declared[x >> 3] & (1u << (x & 7));
}

/* ---- function bodies ------------------------------------------------- */

/* The immediates of a signature-typed instruction. */
static bool check_imm(vstate *v, const opsig *s, const wasm_instr *in)
{
	const wasm_module *m = v->m;

	switch ((wasm_imm)s->imm) {
	case WASM_IMM_MEMARG_LANE:
		if (in->u.mem.lane >= s->lanes) {
			fail(v, WASM_INVALID, in->offset,
			     "invalid lane index %u of %s (%u lanes)",
			     in->u.mem.lane, op_name(in->op), s->lanes);
			return false;
		}
		/* fall through */
	case WASM_IMM_MEMARG:
		if (!check_mem(v, in->offset, in->u.mem.m.mem))
			return false;
		if (s->atomic && in->u.mem.m.align != s->align) {
			fail(v, WASM_INVALID, in->offset,
			     "alignment 2^%u of %s must equal its natural "
			     "alignment 2^%u",
			     in->u.mem.m.align, op_name(in->op), s->align);
			return false;
		}
		if (in->u.mem.m.align > s->align) {
			fail(v, WASM_INVALID, in->offset,
			     "alignment 2^%u exceeds natural alignment 2^%u "
			     "of %s",
			     in->u.mem.m.align, s->align, op_name(in->op));
			return false;
		}
		return true;
	case WASM_IMM_LANE:
		if (in->u.lanes[0] >= s->lanes) {
			fail(v, WASM_INVALID, in->offset,
			     "invalid lane index %u of %s (%u lanes)",
			     in->u.lanes[0], op_name(in->op), s->lanes);
			return false;
		}
		return true;
	case WASM_IMM_SHUFFLE:
		for (int i = 0; i < 16; i++)
			if (in->u.lanes[i] >= 32) {
				fail(v, WASM_INVALID, in->offset,
				     "invalid lane index %u in i8x16.shuffle "
				     "(lanes are 0..31)",
				     in->u.lanes[i]);
				return false;
			}
		return true;
	case WASM_IMM_MEM:
		return check_zero_bytes(v, in, 1) &&
		       check_mem(v, in->offset, in->u.idx);
	case WASM_IMM_TABLE: return check_table(v, in->offset, in->u.idx);
	case WASM_IMM_MEMORY_COPY:
		return check_zero_bytes(v, in, 2) &&
		       check_mem(v, in->offset, in->u.idx2.a) &&
		       check_mem(v, in->offset, in->u.idx2.b);
	case WASM_IMM_MEMORY_INIT:
		return check_zero_bytes(v, in, 1) &&
		       check_mem(v, in->offset, in->u.idx2.b) &&
		       check_data(v, in->offset, in->u.idx2.a);
	case WASM_IMM_DATA: return check_data(v, in->offset, in->u.idx);
	case WASM_IMM_ELEM: return check_elem(v, in->offset, in->u.idx);
	case WASM_IMM_TABLE_INIT: {
		uint32_t e = in->u.idx2.a, t = in->u.idx2.b;
		if (!check_elem(v, in->offset, e) ||
		    !check_table(v, in->offset, t))
			return false;
		if (m->elems[e].type != v->table_elem[t]) {
			fail(v, WASM_INVALID, in->offset,
			     "type mismatch: table.init of elem segment %u "
			     "(%s) into table %u (%s)",
			     e, wasm_type_name(m->elems[e].type), t,
			     wasm_type_name(v->table_elem[t]));
			return false;
		}
		return true;
	}
	case WASM_IMM_TABLE_COPY: {
		uint32_t d = in->u.idx2.a, s2 = in->u.idx2.b;
		if (!check_table(v, in->offset, d) ||
		    !check_table(v, in->offset, s2))
			return false;
		if (v->table_elem[d] != v->table_elem[s2]) {
			fail(v, WASM_INVALID, in->offset,
			     "type mismatch: table.copy from table %u (%s) "
			     "to table %u (%s)",
			     s2, wasm_type_name(v->table_elem[s2]), d,
			     wasm_type_name(v->table_elem[d]));
			return false;
		}
		return true;
	}
	default: return true;
	}
}

static bool block_type(vstate *v, const wasm_instr *in, const uint8_t **p,
		       uint32_t *np, const uint8_t **r, uint32_t *nr)
{
	const wasm_blocktype *bt = &in->u.block;

	switch (bt->kind) {
	case WASM_BT_EMPTY:
		*p = *r = NULL;
		*np = *nr = 0;
		return true;
	case WASM_BT_VAL:
		if (bt->val > 0xFF || !is_valtype((int)bt->val)) {
			fail(v, WASM_MALFORMED, in->offset,
			     "malformed block type 0x%02x", bt->val);
			return false;
		}
		*p = NULL;
		*np = 0;
		*r = &type_byte[bt->val];
		*nr = 1;
		return true;
	case WASM_BT_TYPE: {
		const wasm_functype *ft;
		if (bt->val >= v->m->ntypes) {
			fail(v, WASM_INVALID, in->offset,
			     "unknown type %u in block type (module has %u)",
			     bt->val, v->m->ntypes);
			return false;
		}
		ft = &v->m->types[bt->val];
		*p = ft->types;
		*np = ft->nparams;
		*r = ft->types + ft->nparams;
		*nr = ft->nresults;
		return true;
	}
	}
	return false;
}

#define POP(t)                                                                 \
	do {                                                                   \
		if (pop(v, &in, (t)) < 0)                                      \
			return v->err->status;                                 \
	} while (0)
#define PUSH(t)                                                                \
	do {                                                                   \
		if (!push(v, (t)))                                             \
			return nomem(v);                                       \
	} while (0)
#define CHECK(x)                                                               \
	do {                                                                   \
		if (!(x))                                                      \
			return v->err->status;                                 \
	} while (0)

/* The type of the tag an instruction names, or NULL with the error. */
static const wasm_functype *tag_type(vstate *v, const wasm_instr *in)
{
	if (in->u.idx >= v->ntags) {
		fail(v, WASM_INVALID, in->offset,
		     "unknown tag %u in %s (module has %u)", in->u.idx,
		     op_name(in->op), v->ntags);
		return NULL;
	}
	return wasm_tag_type(v->m, in->u.idx);
}

static wasm_status check_body(vstate *v, uint32_t i)
{
	const wasm_module *m = v->m;
	const wasm_func *f = &m->funcs[i];
	const wasm_functype *ft = &m->types[f->type];
	wasm_reader *r = &v->r;
	wasm_instr in;
	wasm_status st;

	v->section = "code";
	v->func = m->nfunc_imports + i;
	if ((st = setup_locals(v, f, ft)))
		return st;
	v->nvals = 0;
	v->nctl = 0;
	if (!push_ctrl(v, K_FUNC, NULL, 0, ft->types + ft->nparams,
		       ft->nresults))
		return nomem(v);
	r->pos = f->code_start;
	r->end = f->code_end;

	while (v->nctl) {
		const opsig *s;
		if (__builtin_expect(r->pos >= r->end, 0))
			return fail(v, WASM_MALFORMED, f->code_end,
				    "unexpected end of function body: %u "
				    "block%s still open (END opcode expected)",
				    v->nctl, v->nctl == 1 ? "" : "s");
		if ((st = wasm_reader_next(r, &in, v->err))) {
			v->err->section = v->section;
			v->err->func = v->func;
			return st;
		}
		s = &sigtab[in.op];
		switch (in.op) {
		case WASM_OP_UNREACHABLE: set_unreachable(v); break;
		case WASM_OP_BLOCK:
		case WASM_OP_LOOP:
		case WASM_OP_IF: {
			const uint8_t *p, *res;
			uint32_t np, nr;
			CHECK(block_type(v, &in, &p, &np, &res, &nr));
			if (in.op == WASM_OP_IF)
				POP(WASM_I32);
			CHECK(pop_n(v, &in, p, np));
			if (!push_ctrl(v,
				       in.op == WASM_OP_BLOCK  ? K_BLOCK
				       : in.op == WASM_OP_LOOP ? K_LOOP
							       : K_IF,
				       p, np, res, nr))
				return nomem(v);
			break;
		}
		case WASM_OP_TRY: {
			const uint8_t *p, *res;
			uint32_t np, nr;
			CHECK(block_type(v, &in, &p, &np, &res, &nr));
			CHECK(pop_n(v, &in, p, np));
			if (!push_ctrl(v, K_TRY, p, np, res, nr))
				return nomem(v);
			break;
		}
		case WASM_OP_CATCH:
		case WASM_OP_CATCH_ALL: {
			frame *fr = &v->ctl[v->nctl - 1];
			const wasm_functype *tt = NULL;
			if (fr->kind != K_TRY && fr->kind != K_CATCH)
				return fail(v, WASM_INVALID, in.offset,
					    "%s without a matching try "
					    "(innermost is a %s)",
					    op_name(in.op),
					    frame_name(fr->kind));
			if (in.op == WASM_OP_CATCH)
				CHECK(tt = tag_type(v, &in));
			CHECK(close_frame(v, &in));
			fr->kind =
			    in.op == WASM_OP_CATCH ? K_CATCH : K_CATCH_ALL;
			fr->unreachable = false;
			v->unreachable = false;
			if (tt && !push_n(v, tt->types, tt->nparams))
				return nomem(v);
			break;
		}
		case WASM_OP_DELEGATE: {
			frame fr = v->ctl[v->nctl - 1];
			if (fr.kind != K_TRY)
				return fail(v, WASM_INVALID, in.offset,
					    "delegate without a matching try "
					    "(innermost is a %s)",
					    frame_name(fr.kind));
			CHECK(close_frame(v, &in));
			pop_ctrl(v);
			/* The label counts from outside the try; the
			 * function's own label is allowed (to the caller). */
			CHECK(label(v, &in, in.u.idx));
			if (!push_n(v, fr.results, fr.nresults))
				return nomem(v);
			break;
		}
		case WASM_OP_THROW: {
			const wasm_functype *tt;
			CHECK(tt = tag_type(v, &in));
			CHECK(pop_n(v, &in, tt->types, tt->nparams));
			set_unreachable(v);
			break;
		}
		case WASM_OP_RETHROW: {
			const frame *fr = label(v, &in, in.u.idx);
			CHECK(fr);
			if (fr->kind != K_CATCH && fr->kind != K_CATCH_ALL)
				return fail(v, WASM_INVALID, in.offset,
					    "invalid rethrow label %u: a %s, "
					    "not a catch",
					    in.u.idx, frame_name(fr->kind));
			set_unreachable(v);
			break;
		}
		case WASM_OP_ELSE: {
			frame *fr = &v->ctl[v->nctl - 1];
			if (fr->kind != K_IF)
				return fail(v, WASM_MALFORMED, in.offset,
					    "else without a matching if "
					    "(innermost is a %s)",
					    frame_name(fr->kind));
			CHECK(close_frame(v, &in));
			fr->kind = K_ELSE;
			fr->unreachable = false;
			v->unreachable = false;
			if (!push_n(v, fr->params, fr->nparams))
				return nomem(v);
			break;
		}
		case WASM_OP_END: {
			frame fr;
			CHECK(close_frame(v, &in));
			fr = v->ctl[v->nctl - 1];
			pop_ctrl(v);
			if (v->nctl && !push_n(v, fr.results, fr.nresults))
				return nomem(v);
			break;
		}
		case WASM_OP_BR: {
			const frame *fr = label(v, &in, in.u.idx);
			const uint8_t *t;
			uint32_t n;
			CHECK(fr);
			label_types(fr, &t, &n);
			CHECK(pop_n(v, &in, t, n));
			set_unreachable(v);
			break;
		}
		case WASM_OP_BR_IF: {
			const frame *fr = label(v, &in, in.u.idx);
			const uint8_t *t;
			uint32_t n;
			CHECK(fr);
			POP(WASM_I32);
			label_types(fr, &t, &n);
			CHECK(pop_n(v, &in, t, n));
			if (!push_n(v, t, n))
				return nomem(v);
			break;
		}
		case WASM_OP_BR_TABLE: {
			const frame *def = label(v, &in, in.u.br_table.def);
			const uint8_t *dt;
			uint32_t dn;
			CHECK(def);
			POP(WASM_I32);
			label_types(def, &dt, &dn);
			for (uint32_t k = 0; k < in.u.br_table.count; k++) {
				uint32_t depth = in.u.br_table.labels[k];
				const frame *fr = label(v, &in, depth);
				const uint8_t *t;
				uint32_t n;
				CHECK(fr);
				label_types(fr, &t, &n);
				if (n != dn)
					return fail(
					    v, WASM_INVALID, in.offset,
					    "type mismatch: br_table "
					    "target %u takes %u value%s, "
					    "the default %u takes %u",
					    depth, n, n == 1 ? "" : "s",
					    in.u.br_table.def, dn);
				CHECK(peek_n(v, &in, t, n));
			}
			CHECK(pop_n(v, &in, dt, dn));
			set_unreachable(v);
			break;
		}
		case WASM_OP_RETURN: {
			const frame *fr = &v->ctl[0];
			CHECK(pop_n(v, &in, fr->results, fr->nresults));
			set_unreachable(v);
			break;
		}
		case WASM_OP_CALL:
		case WASM_OP_CALL_INDIRECT: {
			const wasm_functype *ct;
			if (in.op == WASM_OP_CALL) {
				CHECK(check_func(v, in.offset, in.u.idx));
				ct = &m->types[v->func_type[in.u.idx]];
			} else {
				uint32_t ty = in.u.idx2.a, tb = in.u.idx2.b;
				CHECK(check_table(v, in.offset, tb));
				if (v->table_elem[tb] != WASM_FUNCREF)
					return fail(
					    v, WASM_INVALID, in.offset,
					    "type mismatch: call_indirect "
					    "needs a funcref table, table "
					    "%u holds %s",
					    tb,
					    wasm_type_name(v->table_elem[tb]));
				if (ty >= m->ntypes)
					return fail(v, WASM_INVALID, in.offset,
						    "unknown type %u (module "
						    "has %u)",
						    ty, m->ntypes);
				ct = &m->types[ty];
				POP(WASM_I32);
			}
			CHECK(pop_n(v, &in, ct->types, ct->nparams));
			if (!push_n(v, ct->types + ct->nparams, ct->nresults))
				return nomem(v);
			break;
		}
		case WASM_OP_DROP: POP(UNK); break;
		case WASM_OP_SELECT: {
			int t1, t2;
			POP(WASM_I32);
			if ((t1 = pop(v, &in, UNK)) < 0 ||
			    (t2 = pop(v, &in, UNK)) < 0)
				return v->err->status;
			if (is_ref(t1) || is_ref(t2))
				return fail(v, WASM_INVALID, in.offset,
					    "type mismatch: select without "
					    "a type needs numeric or vector "
					    "operands, got %s",
					    tname(is_ref(t1) ? t1 : t2));
			if (t1 != t2 && t1 != UNK && t2 != UNK)
				return fail(v, WASM_INVALID, in.offset,
					    "type mismatch: select operands "
					    "differ: %s and %s",
					    tname(t2), tname(t1));
			PUSH((uint8_t)(t1 == UNK ? t2 : t1));
			break;
		}
		case WASM_OP_SELECT_T: {
			uint8_t t;
			if (in.u.select.count != 1)
				return fail(v, WASM_INVALID, in.offset,
					    "invalid result arity: typed "
					    "select takes exactly one type, "
					    "has %u",
					    in.u.select.count);
			t = in.u.select.types[0];
			POP(WASM_I32);
			POP(t);
			POP(t);
			PUSH(t);
			break;
		}
		case WASM_OP_LOCAL_GET: {
			int t = local_type(v, &in, in.u.idx);
			CHECK(t >= 0);
			PUSH((uint8_t)t);
			break;
		}
		case WASM_OP_LOCAL_SET: {
			int t = local_type(v, &in, in.u.idx);
			CHECK(t >= 0);
			POP(t);
			break;
		}
		case WASM_OP_LOCAL_TEE: {
			int t = local_type(v, &in, in.u.idx);
			CHECK(t >= 0);
			POP(t);
			PUSH((uint8_t)t);
			break;
		}
		case WASM_OP_GLOBAL_GET:
		case WASM_OP_GLOBAL_SET: {
			uint32_t x = in.u.idx;
			if (x >= v->nglobals)
				return fail(v, WASM_INVALID, in.offset,
					    "unknown global %u (module has "
					    "%u)",
					    x, v->nglobals);
			if (in.op == WASM_OP_GLOBAL_GET) {
				PUSH(v->globals[x].type);
				break;
			}
			if (!v->globals[x].mut)
				return fail(v, WASM_INVALID, in.offset,
					    "global %u is immutable: "
					    "global.set needs a mutable "
					    "global",
					    x);
			POP(v->globals[x].type);
			break;
		}
		case WASM_OP_TABLE_GET:
		case WASM_OP_TABLE_SET:
		case WASM_OP_TABLE_GROW:
		case WASM_OP_TABLE_FILL: {
			uint8_t et;
			CHECK(check_table(v, in.offset, in.u.idx));
			et = v->table_elem[in.u.idx];
			switch (in.op) {
			case WASM_OP_TABLE_GET:
				POP(WASM_I32);
				PUSH(et);
				break;
			case WASM_OP_TABLE_SET:
				POP(et);
				POP(WASM_I32);
				break;
			case WASM_OP_TABLE_GROW:
				POP(WASM_I32);
				POP(et);
				PUSH(WASM_I32);
				break;
			default:
				POP(WASM_I32);
				POP(et);
				POP(WASM_I32);
				break;
			}
			break;
		}
		case WASM_OP_REF_NULL:
			if (!is_ref(in.u.reftype))
				return fail(v, WASM_MALFORMED, in.offset,
					    "malformed reference type 0x%02x",
					    in.u.reftype);
			PUSH(in.u.reftype);
			break;
		case WASM_OP_REF_IS_NULL: {
			int t = pop(v, &in, UNK);
			CHECK(t >= 0);
			if (t != UNK && !is_ref(t))
				return fail(v, WASM_INVALID, in.offset,
					    "type mismatch: ref.is_null "
					    "expects a reference, got %s",
					    tname(t));
			PUSH(WASM_I32);
			break;
		}
		case WASM_OP_REF_FUNC:
			CHECK(check_func(v, in.offset, in.u.idx));
			if (!is_declared(v, in.u.idx))
				return fail(v, WASM_INVALID, in.offset,
					    "undeclared function reference: "
					    "ref.func %u needs the function "
					    "in an element segment, export or "
					    "global initialiser",
					    in.u.idx);
			PUSH(WASM_FUNCREF);
			break;
		default:
			if (__builtin_expect(!s->typed, 0))
				return fail(v, WASM_INVALID, in.offset,
					    "internal error: no typing rule "
					    "for %s",
					    op_name(in.op));
			if (s->imm != WASM_IMM_NONE)
				CHECK(check_imm(v, s, &in));
			for (int k = s->npop; k-- > 0;)
				POP(s->pop[k]);
			if (s->npush)
				PUSH(s->push);
			break;
		}
	}
	if (r->pos != r->end)
		return fail(v, WASM_MALFORMED, r->pos,
			    "END opcode expected: %zu %s the function's "
			    "final end",
			    r->end - r->pos,
			    r->end - r->pos == 1 ? "byte follows"
						 : "bytes follow");
	return WASM_OK;
}

/* ---- module level ---------------------------------------------------- */

/* A constant expression yielding one value of type want. ref.func
 * operands become declared. */
static wasm_status check_const(vstate *v, const wasm_expr *e, uint8_t want,
			       const char *what)
{
	wasm_reader *r = &v->r;
	wasm_instr in;
	wasm_status st;
	uint32_t n = 0;
	int top = -1;

	r->pos = e->start;
	r->end = e->end;
	for (;;) {
		int t;
		if (r->pos >= r->end)
			return fail(v, WASM_MALFORMED, e->end,
				    "unexpected end of %s (END opcode "
				    "expected)",
				    what);
		if ((st = wasm_reader_next(r, &in, v->err))) {
			v->err->section = v->section;
			return st;
		}
		if (in.op == WASM_OP_END)
			break;
		switch (in.op) {
		case WASM_OP_GLOBAL_GET: {
			uint32_t x = in.u.idx;
			if (x >= v->m->nglobal_imports)
				return fail(v, WASM_INVALID, in.offset,
					    "unknown global %u in %s: "
					    "constant expressions may only "
					    "read imported globals (module "
					    "imports %u)",
					    x, what, v->m->nglobal_imports);
			if (v->globals[x].mut)
				return fail(v, WASM_INVALID, in.offset,
					    "constant expression required: "
					    "%s reads mutable global %u",
					    what, x);
			t = v->globals[x].type;
			break;
		}
		case WASM_OP_REF_FUNC:
			if (!check_func(v, in.offset, in.u.idx))
				return v->err->status;
			declare(v, in.u.idx);
			t = WASM_FUNCREF;
			break;
		case WASM_OP_REF_NULL: t = in.u.reftype; break;
		default:
			if (!(wasm_op_info(in.op)->flags & WASM_F_CONST) ||
			    !sigtab[in.op].typed || !sigtab[in.op].npush)
				return fail(v, WASM_INVALID, in.offset,
					    "constant expression required: "
					    "%s is not allowed in %s",
					    op_name(in.op), what);
			t = sigtab[in.op].push;
			break;
		}
		n++;
		top = t;
	}
	if (r->pos != r->end)
		return fail(v, WASM_MALFORMED, r->pos,
			    "%s has bytes after its end", what);
	if (n != 1 || top != want) {
		char got[32];
		if (n == 0)
			snprintf(got, sizeof got, "nothing");
		else if (n > 1)
			snprintf(got, sizeof got, "%u values", n);
		else
			snprintf(got, sizeof got, "%s", tname(top));
		return fail(v, WASM_INVALID, e->start,
			    "type mismatch: %s expects %s, got %s", what,
			    tname(want), got);
	}
	return WASM_OK;
}

static wasm_status check_limits(vstate *v, const wasm_limits *l, bool memory,
				uint32_t idx)
{
	const char *kind = memory ? "memory" : "table";

	if (memory && l->min > 65536)
		return fail(v, WASM_INVALID, l->at,
			    "memory size must be at most 65536 pages (4GiB): "
			    "memory %u has minimum %u",
			    idx, l->min);
	if (memory && l->has_max && l->max > 65536)
		return fail(v, WASM_INVALID, l->at,
			    "memory size must be at most 65536 pages (4GiB): "
			    "memory %u has maximum %u",
			    idx, l->max);
	if (l->has_max && l->min > l->max)
		return fail(v, WASM_INVALID, l->at,
			    "size minimum must not be greater than maximum: "
			    "%s %u has %u > %u",
			    kind, idx, l->min, l->max);
	if (l->shared && !memory)
		return fail(v, WASM_INVALID, l->at, "table %u cannot be shared",
			    idx);
	if (l->shared && !l->has_max)
		return fail(v, WASM_INVALID, l->at,
			    "shared memory must have maximum: memory %u has "
			    "none",
			    idx);
	return WASM_OK;
}

static uint32_t name_hash(const wasm_str *s)
{
	uint32_t h = 2166136261u;

	for (uint32_t i = 0; i < s->len; i++)
		h = (h ^ (uint8_t)s->p[i]) * 16777619u;
	return h;
}

static wasm_status check_exports(vstate *v)
{
	const wasm_module *m = v->m;
	size_t cap = 16;
	uint32_t *slot;
	wasm_status st = WASM_OK;

	v->section = "export";
	while (cap < (size_t)m->nexports * 2)
		cap *= 2;
	if (!(slot = wasm_calloc(cap, sizeof *slot)))
		return nomem(v);
	for (uint32_t i = 0; i < m->nexports && !st; i++) {
		const wasm_export *ex = &m->exports[i];
		uint32_t bound = ex->kind == WASM_EXTERN_FUNC	  ? v->nfuncs
				 : ex->kind == WASM_EXTERN_TABLE  ? v->ntables
				 : ex->kind == WASM_EXTERN_MEMORY ? v->nmems
				 : ex->kind == WASM_EXTERN_TAG	  ? v->ntags
								  : v->nglobals;
		size_t h;
		if (ex->index >= bound) {
			st = fail(v, WASM_INVALID, ex->at,
				  "unknown %s %u in export \"%.*s\" (module "
				  "has %u)",
				  wasm_extern_name(ex->kind), ex->index,
				  (int)(ex->name.len > 64 ? 64 : ex->name.len),
				  ex->name.p, bound);
			break;
		}
		if (ex->kind == WASM_EXTERN_FUNC)
			declare(v, ex->index);
		for (h = name_hash(&ex->name) & (cap - 1); slot[h];
		     h = (h + 1) & (cap - 1)) {
			const wasm_str *o = &m->exports[slot[h] - 1].name;
			if (o->len == ex->name.len &&
			    !memcmp(o->p, ex->name.p, o->len)) {
				st = fail(v, WASM_INVALID, ex->at,
					  "duplicate export name \"%.*s\" "
					  "(exports %u and %u)",
					  (int)(o->len > 64 ? 64 : o->len),
					  o->p, slot[h] - 1, i);
				break;
			}
		}
		slot[h] = i + 1;
	}
	wasm_free(slot);
	return st;
}

static wasm_status check_elems(vstate *v)
{
	const wasm_module *m = v->m;
	char what[64];
	wasm_status st;

	v->section = "elem";
	for (uint32_t i = 0; i < m->nelems; i++) {
		const wasm_elem *e = &m->elems[i];
		if (e->mode == WASM_SEG_ACTIVE) {
			if (!check_table(v, e->offset.start, e->table))
				return v->err->status;
			snprintf(what, sizeof what, "offset of elem segment %u",
				 i);
			if ((st = check_const(v, &e->offset, WASM_I32, what)))
				return st;
			if (e->type != v->table_elem[e->table])
				return fail(
				    v, WASM_INVALID, e->offset.start,
				    "type mismatch: elem segment %u "
				    "of %s in table %u of %s",
				    i, wasm_type_name(e->type), e->table,
				    wasm_type_name(v->table_elem[e->table]));
		}
		if (e->exprs) {
			snprintf(what, sizeof what, "element of segment %u", i);
			for (uint32_t k = 0; k < e->count; k++)
				if ((st = check_const(v, &e->exprs[k], e->type,
						      what)))
					return st;
		} else {
			for (uint32_t k = 0; k < e->count; k++) {
				if (!check_func(v, e->at, e->funcs[k]))
					return v->err->status;
				declare(v, e->funcs[k]);
			}
		}
	}
	return WASM_OK;
}

/* A tag's type: known, and with no results (an exception carries its
 * params; nothing comes back). */
static wasm_status check_tagtype(vstate *v, size_t at, uint32_t t)
{
	if (t >= v->m->ntypes)
		return fail(v, WASM_INVALID, at,
			    "unknown type %u of a tag (module has %u types)", t,
			    v->m->ntypes);
	if (v->m->types[t].nresults)
		return fail(v, WASM_INVALID, at,
			    "non-empty tag result type: a tag's type %u must "
			    "have no results",
			    t);
	return WASM_OK;
}

static wasm_status check_module(vstate *v)
{
	const wasm_module *m = v->m;
	char what[64];
	wasm_status st;
	uint32_t fi = 0, ti = 0, mi = 0, gi = 0;

	v->nfuncs = m->nfunc_imports + m->nfuncs;
	v->ntables = m->ntable_imports + m->ntables;
	v->nmems = m->nmem_imports + m->nmems;
	v->nglobals = m->nglobal_imports + m->nglobals;
	v->ntags = m->ntag_imports + m->ntags;
	if (v->nmems > 1 && !v->features.multi_memory) {
		const wasm_limits *second = wasm_mem_limits(m, 1);
		v->section = m->nmem_imports > 1 ? "import" : "memory";
		return fail(v, WASM_INVALID, second->at,
			    "multiple memories: %u memories need the "
			    "multi-memory feature",
			    v->nmems);
	}
	v->func_type = wasm_malloc((size_t)v->nfuncs * sizeof *v->func_type);
	v->table_elem = wasm_malloc(v->ntables);
	v->globals = wasm_malloc((size_t)v->nglobals * sizeof *v->globals);
	v->declared = wasm_calloc((size_t)v->nfuncs / 8 + 1, 1);
	if (!v->func_type || !v->table_elem || !v->globals || !v->declared)
		return nomem(v);

	v->section = "import";
	for (uint32_t i = 0; i < m->nimports; i++) {
		const wasm_import *im = &m->imports[i];
		switch (im->kind) {
		case WASM_EXTERN_FUNC:
			if (im->u.func_type >= m->ntypes)
				return fail(v, WASM_INVALID, im->at,
					    "unknown type %u of imported "
					    "function %u (module has %u "
					    "types)",
					    im->u.func_type, fi, m->ntypes);
			v->func_type[fi++] = im->u.func_type;
			break;
		case WASM_EXTERN_TABLE:
			if ((st = check_limits(v, &im->u.table.lim, false, ti)))
				return st;
			v->table_elem[ti++] = im->u.table.elem;
			break;
		case WASM_EXTERN_MEMORY:
			if ((st = check_limits(v, &im->u.memory, true, mi++)))
				return st;
			break;
		case WASM_EXTERN_GLOBAL: v->globals[gi++] = im->u.global; break;
		case WASM_EXTERN_TAG:
			if ((st = check_tagtype(v, im->at, im->u.tag_type)))
				return st;
			break;
		}
	}

	v->section = "function";
	for (uint32_t i = 0; i < m->nfuncs; i++) {
		if (m->funcs[i].type >= m->ntypes)
			return fail(v, WASM_INVALID, m->funcs[i].body_start,
				    "unknown type %u of function %u (module "
				    "has %u types)",
				    m->funcs[i].type, fi, m->ntypes);
		v->func_type[fi++] = m->funcs[i].type;
	}

	v->section = "table";
	for (uint32_t i = 0; i < m->ntables; i++) {
		if ((st = check_limits(v, &m->tables[i].lim, false, ti)))
			return st;
		v->table_elem[ti++] = m->tables[i].elem;
	}

	v->section = "memory";
	for (uint32_t i = 0; i < m->nmems; i++)
		if ((st = check_limits(v, &m->mems[i], true, mi++)))
			return st;

	v->section = "tag";
	for (uint32_t i = 0; i < m->ntags; i++)
		if ((st = check_tagtype(v, m->section_start[WASM_SECTION_TAG],
					m->tags[i])))
			return st;

	/* Initialisers see imported globals only, so the defined ones can
	 * be filled in as they are checked. */
	v->section = "global";
	for (uint32_t i = 0; i < m->nglobals; i++) {
		snprintf(what, sizeof what, "initialiser of global %u", gi);
		if ((st = check_const(v, &m->globals[i].init,
				      m->globals[i].type.type, what)))
			return st;
		v->globals[gi++] = m->globals[i].type;
	}

	if ((st = check_exports(v)))
		return st;

	v->section = "start";
	if (m->has_start) {
		const wasm_functype *ft;
		if (!check_func(v, m->start_at, m->start))
			return v->err->status;
		ft = &m->types[v->func_type[m->start]];
		if (ft->nparams || ft->nresults) {
			char a[96], b[96];
			return fail(
			    v, WASM_INVALID, m->start_at,
			    "start function %u must have type [] -> "
			    "[], has %s -> %s",
			    m->start,
			    fmt_types(a, sizeof a, ft->types, ft->nparams),
			    fmt_types(b, sizeof b, ft->types + ft->nparams,
				      ft->nresults));
		}
	}

	if ((st = check_elems(v)))
		return st;

	/* wasm_decode already checked the data count against the data. */
	v->section = "data";
	for (uint32_t i = 0; i < m->ndatas; i++) {
		const wasm_data *d = &m->datas[i];
		if (d->mode != WASM_SEG_ACTIVE)
			continue;
		if (!check_mem(v, d->offset.start, d->mem))
			return v->err->status;
		snprintf(what, sizeof what, "offset of data segment %u", i);
		if ((st = check_const(v, &d->offset, WASM_I32, what)))
			return st;
	}
	return WASM_OK;
}

/* Is body i, from byte pos on, malformed? Decoding precedes validation
 * in the spec, so a malformed body anywhere outranks a typing error found
 * earlier; this re-reads, on the error path only, what the one pass did
 * not reach. Tracks only nesting (the kind stack reuses v->vals). */
static bool body_malformed(vstate *v, uint32_t i, size_t pos, wasm_err *e)
{
	const wasm_module *m = v->m;
	const wasm_func *f = &m->funcs[i];
	wasm_reader *r = &v->r;
	wasm_instr in;
	v->section = "code";
	v->func = m->nfunc_imports + i;
	v->err = e;
	v->nvals = 0;
	if (!push(v, K_FUNC))
		return false;
	r->pos = pos;
	r->end = f->code_end;
	while (v->nvals) {
		if (r->pos >= r->end) {
			fail(v, WASM_MALFORMED, f->code_end,
			     "unexpected end of function body: %zu block%s "
			     "still open (END opcode expected)",
			     v->nvals, v->nvals == 1 ? "" : "s");
			return true;
		}
		if (wasm_reader_next(r, &in, e)) {
			e->section = v->section;
			e->func = v->func;
			return e->status == WASM_MALFORMED;
		}
		switch (in.op) {
		case WASM_OP_BLOCK:
		case WASM_OP_LOOP:
		case WASM_OP_IF:
		case WASM_OP_TRY:
			if (!push(v, in.op == WASM_OP_IF ? K_IF : K_BLOCK))
				return false;
			break;
		case WASM_OP_DELEGATE: v->nvals--; break;
		case WASM_OP_ELSE:
			if (v->vals[v->nvals - 1] != K_IF) {
				fail(v, WASM_MALFORMED, in.offset,
				     "else without a matching if");
				return true;
			}
			v->vals[v->nvals - 1] = K_ELSE;
			break;
		case WASM_OP_END: v->nvals--; break;
		case WASM_OP_MEMORY_INIT:
		case WASM_OP_DATA_DROP:
			/* As check_data: only an instruction that is
			 * otherwise valid lacks just the datacount. */
			if (!m->has_datacount &&
			    (in.op == WASM_OP_DATA_DROP
				 ? in.u.idx < m->ndatas
				 : in.u.idx2.a < m->ndatas &&
				       in.u.idx2.b < v->nmems)) {
				fail(v, WASM_MALFORMED, in.offset,
				     "data count section required");
				return true;
			}
			break;
		default: break;
		}
	}
	if (r->pos != r->end) {
		fail(v, WASM_MALFORMED, r->pos,
		     "END opcode expected: %zu %s the function's final end",
		     r->end - r->pos,
		     r->end - r->pos == 1 ? "byte follows" : "bytes follow");
		return true;
	}
	return false;
}

/* After a typing error in body `from` (nfuncs: outside bodies), look for
 * a malformed body and report that instead. */
static void prefer_malformed(vstate *v, uint32_t from)
{
	wasm_err *keep = v->err, e;
	uint32_t start = from < v->m->nfuncs ? from : 0;

	for (uint32_t i = start; i < v->m->nfuncs; i++) {
		wasm_err_clear(&e);
		if (body_malformed(v, i, v->m->funcs[i].code_start, &e)) {
			*keep = e;
			break;
		}
	}
	v->err = keep;
}

wasm_status wasm_validate(const wasm_module *m, wasm_err *err)
{
	static const wasm_features all = {.multi_memory = true};
	return wasm_validate_with(m, &all, err);
}

wasm_status wasm_validate_with(const wasm_module *m, const wasm_features *f,
			       wasm_err *err)
{
	vstate v;
	wasm_status st;
	uint32_t failed;

	pthread_once(&sigtab_once, sigtab_init);
	wasm_err_clear(err);
	memset(&v, 0, sizeof v);
	v.m = m;
	v.features = *f;
	v.err = err;
	v.func = WASM_NO_FUNC;
	wasm_reader_init(&v.r, m->bytes, 0, 0);

	st = check_module(&v);
	failed = m->nfuncs;
	for (uint32_t i = 0; !st && i < m->nfuncs; i++)
		if ((st = check_body(&v, i)))
			failed = i;
	if (st == WASM_INVALID || st == WASM_LIMIT) {
		prefer_malformed(&v, failed);
		st = err->status;
	}

	wasm_reader_fini(&v.r);
	wasm_free(v.func_type);
	wasm_free(v.table_elem);
	wasm_free(v.globals);
	wasm_free(v.declared);
	wasm_free(v.vals);
	wasm_free(v.ctl);
	wasm_free(v.locals);
	wasm_free(v.runs);
	return st;
}
