/*
 * compile.c - translate a validated module into the engine's register
 * code (eng_compile), and map code back to module offsets for traps.
 *
 * How it works:
 *   One forward pass per body with the wasm_reader, simulating the
 *   operand stack. Each simulated value is one of
 *     TEMP   in its depth slot (nlocals + depth),
 *     LOCAL  still in local slot i (local.get emits nothing),
 *     CONST  a known constant (i32/i64/f32/f64.const, ref.null),
 *     ADDK   local i plus an i32 constant (i32.add/sub of a LOCAL or
 *            ADDK and a CONST emits nothing).
 *   An instruction reads LOCAL operands straight from the local's slot;
 *   CONST operands either become the immediate of an _RI variant (the
 *   second operand of the hot i32/i64 arithmetic, shifts, rotates and
 *   compares) or are materialised into their depth slot; ADDK operands
 *   are materialised by an I32_ADD_RI, except as the address of a
 *   load or store on the fast memory, which then becomes its _AK twin
 *   adding the constant itself (so does an address an I32_ADD_RI has just
 *   computed: the add is dropped). The fast memory (eng_module.fast_mem,
 *   the one the interpreter keeps the base of in a register) is the first
 *   defined memory, or memory 0 if all are imported: an instrumented
 *   module's own memory comes after the imported heisen.mask. The result
 *   goes to the depth slot of the first operand. A LOCAL or ADDK entry is
 *   materialised (computed into its depth slot) when a local.set/tee of
 *   its local would clobber it, and every such entry is materialised at
 *   block/loop/if entry (but see the mask check below) so that a pending
 *   reference never crosses a control-flow join. local.set right
 *   after the instruction that produced the value rewrites that
 *   instruction's destination instead of copying (peephole "patch"); so
 *   does a return of one value just computed (destination slot 0).
 *   A compare (or eqz) immediately followed by br_if/if is fused into one
 *   compare-and-branch; `i32.const K; i32.load8_u offset=O; if` (the
 *   probe's mask check) into one BR_MEM8_Z testing byte K+O of the
 *   memory, which jumps to the else or end like the BR_UNLESS of any if
 *   (so an if with an else is fine) and faults like the load would (its
 *   pc map entry is the load's); when that if's body is a few
 *   instructions that write no local and enter no block (the probe call,
 *   checked by reading ahead), pending LOCAL/ADDK entries below it are
 *   kept instead of materialised (they stay valid across its end), and a
 *   MOV right before it (the local.tee of the address) is folded in
 *   (MOV_BR_MEM8_Z); two MOVs in a row (no branch target between them)
 *   become one MOV2.
 *
 *   Known constants: the pass remembers which locals hold a known
 *   constant (the non-param locals start at zero; local.set of a CONST),
 *   forgetting them all where control flow joins (loop start, else,
 *   block/if end). A local.set of the value the local holds already
 *   emits nothing: clang's `i32.const 0 local.set` of a fresh local.
 *
 *   Blocks pass values through fixed slots: the results (or, for a loop,
 *   the params) of a block entered at height h live in the depth slots
 *   h, h+1...; a branch copies the values it carries there first. Calls
 *   need their arguments in consecutive depth slots (materialised); the
 *   callee's frame starts at the first argument, so the callee's params
 *   are those slots and its results come back in the same place. A return
 *   moves results to slots 0..n-1 of the frame.
 *
 *   Code after br/br_table/return/unreachable is skipped up to the end or
 *   else of its block (it cannot run).
 *
 *   v128 values take two slots (engine.h's slot form), so the simulated
 *   stack counts slots, not values: a v128 is two entries, the second
 *   marked hi, both TEMP or both LOCAL (local slots s and s+1), never
 *   CONST or ADDK. Locals are numbered by slot too (lslot maps a local
 *   index to its first slot), and block, call and return arities are
 *   slot counts. A SIMD instruction reads a v128 operand from its pair
 *   (vopnd moves a split pair into its depth slots first) and writes its
 *   result to the depth slots of its first operand.
 *
 *   Every Wasm instruction that emits code adds (cell, file offset) to the
 *   function's pc map, used only when a trap is reported.
 *
 * Limitations:
 *   Slot numbers and code size are 32-bit (WASM_LIMIT beyond 2^30 cells).
 *   No register allocation across blocks, no constant folding (beyond
 *   the constants an ADDK accumulates).
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "engine_int.h"
#include "jit.h"

enum { SV_TEMP, SV_LOCAL, SV_CONST, SV_ADDK };

typedef struct sv {
	uint8_t kind;
	uint8_t hi;    /* the second slot of a v128 */
	uint32_t slot; /* LOCAL, ADDK: the local's slot */
	uint64_t k;    /* CONST: the value bits; ADDK: the i32 addend */
} sv;

/* Entries that read a local when they are finally emitted. */
#define IS_REF(kind) ((kind) == SV_LOCAL || (kind) == SV_ADDK)

/* K_TRY: a try's body; K_CATCH: after its first catch or catch_all. */
enum { K_BLOCK, K_LOOP, K_IF, K_FUNC, K_TRY, K_CATCH };
#define NONE UINT32_MAX

typedef struct ctl {
	uint8_t kind;
	wasm_blocktype bt; /* the types that come back at else and end */
	uint32_t np, nr;   /* slots of the params and the results */
	uint32_t height;   /* depth below the params */
	uint32_t loop_pc;  /* loop: first cell of the body */
	uint32_t fixups;   /* list of branches to the end */
	uint32_t else_fix; /* if: the false branch, until else/end */
	uint32_t eh;	   /* handler in effect for code directly in this
			      block (ENG_NO_HANDLER: the caller) */
	uint32_t handler;  /* K_TRY, K_CATCH: the try's own row */
	uint32_t last_catch; /* K_CATCH: its latest catch, to chain */
} ctl;

typedef struct fixup {
	uint32_t instr; /* start of the branch instruction */
	uint32_t cell;  /* cell holding the offset */
	uint8_t half;   /* which 32-bit half */
	uint32_t next;
} fixup;

typedef struct cc {
	const wasm_module *m;
	eng_module *cm;
	const void *const *h;
	jmp_buf oom;
	eng_cell *code;
	uint32_t ncode, capcode;
	/* The opcode of each instruction's first cell, ENG_OP_CONT in its
	 * operand cells: what the compiler (jit.c) decodes. */
	uint16_t *ops;
	uint32_t capops;
	sv *stk;
	uint32_t depth, capstk, maxdepth;
	ctl *ctls;
	uint32_t nctl, capctl;
	fixup *fix;
	uint32_t nfix, capfix;
	eng_pcmap *pcm;
	uint32_t npcm, cappcm;
	uint32_t nlocals; /* slots of the locals, params included */
	uint32_t *lslot;  /* local index -> its first slot */
	uint32_t caplslot;
	bool *gwide;      /* per global: a v128 */
	uint32_t nrefs;   /* LOCAL and ADDK entries on the stack */
	/* Locals whose constant value is known here: local i holds
	 * known[i].val if known[i].gen == gen (gen++ forgets them all). */
	struct known {
		uint64_t val, gen;
	} *known;
	uint64_t gen;
	uint32_t capknown;
	int64_t patch;    /* cell of the last instruction's {d,..}, or -1 */
	uint32_t last_op, last_at;
	uint32_t kload;   /* cell of the CONST before a load8_u of a constant
			     address that is the last instruction, or NONE */
	uint32_t kmov;    /* with kload: the MOV just before the CONST (no
			     label between), or NONE */
	uint32_t label;   /* cell of the latest block end, else or loop start */
	eng_handler *hs;  /* exception handlers of the body */
	uint32_t nhs, caphs;
	eng_catch *cs;
	uint32_t ncs, capcs;
	uint32_t nkept;	  /* slots kept for rethrows, after the temps */
	bool jit;	  /* keep each function's ops for jit.c */
	uint32_t dead;    /* > 0: skipping unreachable code (nesting + 1) */
} cc;

/* ---- small helpers ---------------------------------------------------- */

static void *grow(cc *c, void *p, uint32_t *cap, uint32_t need, size_t sz)
{
	uint32_t n;
	void *q;

	if (need <= *cap)
		return p;
	n = *cap ? *cap : 16;
	while (n < need) {
		if (n > (1u << 30))
			longjmp(c->oom, 2);
		n *= 2;
	}
	q = wasm_realloc(p, (size_t)n * sz);
	if (!q)
		longjmp(c->oom, 1);
	*cap = n;
	return q;
}

#define TS(c, d) ((c)->nlocals + (d))

static void set_op(cc *c, uint32_t at, unsigned op)
{
	c->ops[at] = (uint16_t)op;
	if (c->h)
		c->code[at].h = c->h[op];
	else
		c->code[at].op = op;
}

static uint32_t emit(cc *c, unsigned op, unsigned n)
{
	uint32_t at = c->ncode;

	c->code = grow(c, c->code, &c->capcode, at + n, sizeof *c->code);
	c->ops = grow(c, c->ops, &c->capops, at + n, sizeof *c->ops);
	memset(&c->code[at], 0, n * sizeof *c->code);
	for (uint32_t i = 1; i < n; i++)
		c->ops[at + i] = ENG_OP_CONT;
	set_op(c, at, op);
	c->ncode += n;
	c->patch = -1;
	c->kload = NONE;
	c->last_op = op;
	c->last_at = at;
	return at;
}

static void set2(cc *c, uint32_t cell, uint32_t a, uint32_t b)
{
	c->code[cell].u32[0] = a;
	c->code[cell].u32[1] = b;
}

static void push(cc *c, uint8_t kind, uint32_t slot, uint64_t k)
{
	c->stk = grow(c, c->stk, &c->capstk, c->depth + 1, sizeof *c->stk);
	c->stk[c->depth].kind = kind;
	c->stk[c->depth].hi = 0;
	c->stk[c->depth].slot = slot;
	c->stk[c->depth].k = k;
	if (IS_REF(kind))
		c->nrefs++;
	c->depth++;
	if (c->depth > c->maxdepth)
		c->maxdepth = c->depth;
}

static uint32_t push_temp(cc *c)
{
	push(c, SV_TEMP, 0, 0);
	return TS(c, c->depth - 1);
}

/* Push a TEMP value of type t; returns its (first) slot. */
static uint32_t push_typed(cc *c, uint8_t t)
{
	uint32_t d = push_temp(c);
	if (t == WASM_V128) {
		push_temp(c);
		c->stk[c->depth - 1].hi = 1;
	}
	return d;
}

/* Slots the value on top takes. */
static uint32_t top_width(const cc *c)
{
	return c->stk[c->depth - 1].hi ? 2 : 1;
}

static void pop_n(cc *c, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		c->depth--;
		if (IS_REF(c->stk[c->depth].kind))
			c->nrefs--;
	}
}

/* Emit code putting the value of the entry at pos into slot dst (nothing
 * if it is already there). */
static void emit_value(cc *c, uint32_t pos, uint32_t dst)
{
	const sv *e = &c->stk[pos];
	uint32_t at, src;

	if (e->kind == SV_CONST) {
		at = emit(c, EOP_CONST, 3);
		set2(c, at + 1, dst, 0);
		c->code[at + 2].u64 = e->k;
	} else if (e->kind == SV_ADDK) {
		at = emit(c, EOP_I32_ADD_RI, 3);
		set2(c, at + 1, dst, e->slot);
		c->code[at + 2].u64 = e->k;
	} else {
		src = e->kind == SV_LOCAL ? e->slot : TS(c, pos);
		if (src == dst)
			return;
		/* Two moves in a row (not across a branch target) become one
		 * MOV2: the register shuffles at the end of loop bodies. */
		if (c->last_op == EOP_MOV && c->last_at + 2 == c->ncode &&
		    c->ncode != c->label) {
			at = c->last_at;
			c->code = grow(c, c->code, &c->capcode, at + 3,
				       sizeof *c->code);
			c->ops =
			    grow(c, c->ops, &c->capops, at + 3, sizeof *c->ops);
			c->ops[at + 2] = ENG_OP_CONT;
			set_op(c, at, EOP_MOV2);
			set2(c, at + 2, dst, src);
			c->ncode = at + 3;
			c->last_op = EOP_MOV2;
			return;
		}
		at = emit(c, EOP_MOV, 2);
		set2(c, at + 1, dst, src);
	}
}

/* Move the entry at pos into its depth slot (TEMP from now on). */
static void materialise(cc *c, uint32_t pos)
{
	sv *e = &c->stk[pos];

	if (e->kind == SV_TEMP)
		return;
	emit_value(c, pos, TS(c, pos));
	if (IS_REF(e->kind))
		c->nrefs--;
	e->kind = SV_TEMP;
}

/* Operand slot of the entry at pos (CONST and ADDK materialised). */
static uint32_t opnd(cc *c, uint32_t pos)
{
	if (c->stk[pos].kind == SV_CONST || c->stk[pos].kind == SV_ADDK)
		materialise(c, pos);
	return c->stk[pos].kind == SV_LOCAL ? c->stk[pos].slot : TS(c, pos);
}

/* Operand slot of the v128 whose first entry is at pos: its local's, or
 * its depth slots (a pair split by a partial materialise is moved there
 * whole). */
static uint32_t vopnd(cc *c, uint32_t pos)
{
	const sv *lo = &c->stk[pos], *hi = &c->stk[pos + 1];

	if (lo->kind == SV_LOCAL && hi->kind == SV_LOCAL &&
	    hi->slot == lo->slot + 1)
		return lo->slot;
	materialise(c, pos);
	materialise(c, pos + 1);
	return TS(c, pos);
}

/* Materialise every LOCAL/ADDK entry (of local `only`, or all if NONE)
 * below stack position `below`. */
static void flush_refs(cc *c, uint32_t only, uint32_t below)
{
	if (!c->nrefs)
		return;
	for (uint32_t i = 0; i < below && c->nrefs; i++)
		if (IS_REF(c->stk[i].kind) &&
		    (only == NONE || c->stk[i].slot == only))
			materialise(c, i);
}

static void pcmap_add(cc *c, size_t offset)
{
	if (c->npcm && c->pcm[c->npcm - 1].pc == c->ncode) {
		c->pcm[c->npcm - 1].offset = (uint32_t)offset;
		return;
	}
	c->pcm = grow(c, c->pcm, &c->cappcm, c->npcm + 1, sizeof *c->pcm);
	c->pcm[c->npcm].pc = c->ncode;
	c->pcm[c->npcm].offset = (uint32_t)offset;
	c->npcm++;
}

/* Drop the last instruction emitted, to fuse it into the one the current
 * Wasm instruction emits next (which keeps the current one's offset in
 * the pc map). */
static void unemit_last(cc *c)
{
	uint32_t off = c->pcm[c->npcm - 1].offset;

	c->ncode = c->last_at;
	while (c->npcm && c->pcm[c->npcm - 1].pc >= c->last_at)
		c->npcm--;
	pcmap_add(c, off);
}

static void add_fixup(cc *c, ctl *f, uint32_t instr, uint32_t cell,
		      uint8_t half)
{
	uint32_t i = c->nfix;
	c->fix = grow(c, c->fix, &c->capfix, i + 1, sizeof *c->fix);
	c->fix[i] = (fixup){instr, cell, half, f->fixups};
	c->nfix++;
	f->fixups = i;
}

static void patch_list(cc *c, uint32_t head, uint32_t target)
{
	for (uint32_t i = head; i != NONE; i = c->fix[i].next)
		c->code[c->fix[i].cell].i32[c->fix[i].half] =
			(int32_t)(target - c->fix[i].instr);
}

/* Param and result types of a block type (*one holds a BT_VAL's type). */
static void bt_types(const cc *c, const wasm_blocktype *bt, uint8_t *one,
		     const uint8_t **pt, uint32_t *np, const uint8_t **rt,
		     uint32_t *nr)
{
	*pt = *rt = one;
	*np = *nr = 0;
	if (bt->kind == WASM_BT_VAL) {
		*one = (uint8_t)bt->val;
		*nr = 1;
	} else if (bt->kind == WASM_BT_TYPE) {
		const wasm_functype *ft = &c->m->types[bt->val];
		*pt = ft->types;
		*np = ft->nparams;
		*rt = ft->types + ft->nparams;
		*nr = ft->nresults;
	}
}

/* Slots of a block type's params and results. */
static void blocktype(cc *c, const wasm_blocktype *bt, uint32_t *np,
		      uint32_t *nr)
{
	const uint8_t *pt, *rt;
	uint8_t one;
	uint32_t npv, nrv;

	bt_types(c, bt, &one, &pt, &npv, &rt, &nrv);
	*np = eng_slots(pt, npv);
	*nr = eng_slots(rt, nrv);
}

/* Values a branch to f carries. */
static uint32_t label_arity(const ctl *f)
{
	return f->kind == K_LOOP ? f->np : f->nr;
}

/* Whether the n values below stack position top are not all in the
 * depth slots from dst_depth already. */
static bool needs_copy_at(cc *c, uint32_t top, uint32_t n,
			  uint32_t dst_depth)
{
	for (uint32_t i = 0; i < n; i++) {
		uint32_t pos = top - n + i;
		if (c->stk[pos].kind != SV_TEMP || pos != dst_depth + i)
			return true;
	}
	return false;
}

static bool needs_copy(cc *c, uint32_t n, uint32_t dst_depth)
{
	return needs_copy_at(c, c->depth, n, dst_depth);
}

/* Copy the top n values to the depth slots from dst_depth (ascending is
 * safe: a TEMP source is never below its destination). */
static void copy_top(cc *c, uint32_t n, uint32_t dst_depth)
{
	for (uint32_t i = 0; i < n; i++)
		emit_value(c, c->depth - n + i, TS(c, dst_depth + i));
}

/* Move the top n values to slots 0..n-1 and return. */
static void emit_return(cc *c, uint32_t n)
{
	uint32_t base = c->depth - n;

	/* A local read by a LOCAL/ADDK source below its destination index
	 * could be overwritten by an earlier move: give it its depth slot
	 * first. */
	for (uint32_t j = 0; j < n; j++)
		if (IS_REF(c->stk[base + j].kind) && c->stk[base + j].slot < j)
			materialise(c, base + j);
	/* A single result just computed: let its instruction write slot 0
	 * (as local.set does; every instruction reads its operands before
	 * it writes its destination). */
	if (n == 1 && c->stk[base].kind == SV_TEMP && c->patch >= 0 &&
	    c->code[c->patch].u32[0] == TS(c, base)) {
		c->code[c->patch].u32[0] = 0;
		emit(c, EOP_RETURN, 1);
		return;
	}
	for (uint32_t j = 0; j < n; j++)
		emit_value(c, base + j, j);
	emit(c, EOP_RETURN, 1);
}

/* Unconditional branch to label depth l (values already on the stack). */
static void emit_br(cc *c, uint32_t l)
{
	ctl *f = &c->ctls[c->nctl - 1 - l];
	uint32_t n = label_arity(f), at;

	if (f->kind == K_FUNC) {
		emit_return(c, n);
		return;
	}
	copy_top(c, n, f->height);
	if (f->kind == K_LOOP) {
		at = emit(c, EOP_BR_POLL, 2);
		c->code[at + 1].i32[0] = (int32_t)(f->loop_pc - at);
	} else {
		at = emit(c, EOP_BR, 2);
		add_fixup(c, f, at, at + 1, 0);
	}
}

/* ---- compare fusion --------------------------------------------------- */

static bool is_i32_cmp(uint32_t op, bool *ri, uint32_t *k)
{
	if (op >= EOP_I32_EQ && op <= EOP_I32_GE_U) {
		*ri = false;
		*k = op - EOP_I32_EQ;
		return true;
	}
	if (op >= EOP_I32_EQ_RI && op <= EOP_I32_GE_U_RI) {
		*ri = true;
		*k = op - EOP_I32_EQ_RI;
		return true;
	}
	return false;
}

/* Inverse of compare k (order: eq ne lt_s lt_u gt_s gt_u le_s le_u ge_s
 * ge_u). */
static const uint8_t cmp_inverse[10] = {1, 0, 8, 9, 6, 7, 4, 5, 2, 3};

/* If the condition on top was produced by the last instruction and that
 * was an i32 compare or eqz, remove it and emit a branch that jumps when
 * (cond != 0) == when_true. Returns the branch instruction or NONE.
 * The compare-and-branch ops poll the stop flag when they jump
 * backwards, so they may close a loop. */
static uint32_t fuse_branch(cc *c, bool when_true, bool allow_eqz)
{
	uint32_t start = c->last_at, k, a, at;
	uint64_t b;
	bool ri;

	if (c->patch < 0 || c->stk[c->depth - 1].kind != SV_TEMP ||
	    c->code[c->patch].u32[0] != TS(c, c->depth - 1))
		return NONE;
	if (c->last_op == EOP_I32_EQZ) {
		/* BR_IF/BR_UNLESS do not poll: not for loops. */
		if (!allow_eqz)
			return NONE;
		a = c->code[start + 1].u32[1];
		unemit_last(c);
		at = emit(c, when_true ? EOP_BR_UNLESS : EOP_BR_IF, 2);
		c->code[at + 1].u32[0] = a;
		return at;
	}
	if (!is_i32_cmp(c->last_op, &ri, &k))
		return NONE;
	a = c->code[start + 1].u32[1];
	b = ri ? c->code[start + 2].u64 : c->code[start + 2].u32[0];
	unemit_last(c);
	if (!when_true)
		k = cmp_inverse[k];
	at = emit(c, EOP_BR_I32_EQ + k + (ri ? EOP_BR_CMP_RI_DELTA : 0), 3);
	c->code[at + 1].u32[0] = a;
	c->code[at + 1].u32[1] = (uint32_t)b;
	return at;
}

/* Offset field of a branch instruction made by fuse_branch or emitted
 * as BR_IF/BR_UNLESS. */
static void branch_field(cc *c, uint32_t at, uint32_t *cell, uint8_t *half)
{
	unsigned op = c->last_op;
	if (op == EOP_BR_IF || op == EOP_BR_UNLESS || op == EOP_BR_IF_POLL) {
		*cell = at + 1;
		*half = 1;
	} else {
		*cell = at + 2;
		*half = 0;
	}
}

/* ---- block entry ------------------------------------------------------ */

static void block_entry(cc *c, uint32_t np)
{
	flush_refs(c, NONE, c->depth);
	for (uint32_t i = c->depth - np; i < c->depth; i++)
		materialise(c, i);
}

static ctl *push_ctl(cc *c, uint8_t kind, const wasm_blocktype *bt,
		    uint32_t np, uint32_t nr)
{
	ctl *f;
	c->ctls = grow(c, c->ctls, &c->capctl, c->nctl + 1, sizeof *c->ctls);
	f = &c->ctls[c->nctl++];
	f->kind = kind;
	f->bt = *bt;
	f->np = np;
	f->nr = nr;
	f->height = c->depth - np;
	f->loop_pc = 0;
	f->fixups = NONE;
	f->else_fix = NONE;
	f->eh = c->nctl > 1 ? f[-1].eh : ENG_NO_HANDLER;
	f->handler = f->last_catch = NONE;
	return f;
}

/* The stack at a join: the block's height, then its params (at else)
 * or results (at end) in their depth slots. */
static void reset_stack(cc *c, const ctl *f, bool results)
{
	const uint8_t *pt, *rt, *t;
	uint8_t one;
	uint32_t np, nr, n;

	bt_types(c, &f->bt, &one, &pt, &np, &rt, &nr);
	t = results ? rt : pt;
	n = results ? nr : np;
	pop_n(c, c->depth - f->height);
	for (uint32_t i = 0; i < n; i++)
		push_typed(c, t[i]);
}

/* ---- the probe's mask check ----------------------------------------- */

/* Whether the body of the if whose `if` rd has just read is short
 * straight code that writes no local and enters no block (the probe
 * call): LOCAL/ADDK entries below the if then stay valid across its end
 * and need not be materialised. Only instructions that never materialise
 * an entry below their own operands are accepted. */
static bool if_body_keeps_locals(const wasm_reader *rd)
{
	wasm_reader r = *rd;
	wasm_instr in;
	wasm_err err;
	bool ok = false;

	r.labels = NULL, r.labels_cap = 0, r.types = NULL, r.types_cap = 0;
	for (int n = 0; n < 16 && r.pos < r.end; n++) {
		if (wasm_reader_next(&r, &in, &err))
			break;
		unsigned op = in.op;
		if (op == EOP_END) {
			ok = true;
			break;
		}
		if (op != EOP_LOCAL_GET && op != EOP_GLOBAL_GET &&
		    op != EOP_I32_CONST && op != EOP_I32_ADD &&
		    op != EOP_CALL && op != EOP_DROP && op != EOP_NOP)
			break;
	}
	wasm_reader_fini(&r);
	return ok;
}

/* The condition of an if just loaded by `i32.const K; i32.load8_u` (the
 * last instruction, c->kload its CONST): replace both by a BR_MEM8_Z that
 * jumps (to be patched) when byte K + offset is 0, after the block
 * entry's moves (only the params' if the body keeps the locals; rd has
 * just read the if). A MOV right before it is folded in (MOV_BR_MEM8_Z).
 * The pc map gives the branch the load's entry, so a fault there reports
 * the load as the trapping instruction. Sets *br and returns true, or
 * returns false if the pattern does not hold. */
static bool fuse_mask_check(cc *c, uint32_t np, const wasm_reader *rd,
			    uint32_t *br)
{
	uint32_t start = c->kload, ld = start + 3, mov = c->kmov, mem, at, off;
	uint64_t addr;

	if (c->last_at != ld || c->patch != (int64_t)ld + 1 ||
	    c->stk[c->depth - 1].kind != SV_TEMP ||
	    c->code[ld + 1].u32[0] != TS(c, c->depth - 1))
		return false;
	/* Effective address (u32)K + offset: below 2^33, inside the
	 * memory's reservation, so out of bounds faults as the load does. */
	addr = (uint64_t)(uint32_t)c->code[start + 2].u64 +
	       c->code[ld + 2].u32[0];
	mem = c->code[ld + 2].u32[1];
	pop_n(c, 1);
	c->ncode = start;
	while (c->npcm && c->pcm[c->npcm - 1].pc > start)
		c->npcm--;
	off = c->pcm[c->npcm - 1].offset;
	if (if_body_keeps_locals(rd))
		for (uint32_t i = c->depth - np; i < c->depth; i++)
			materialise(c, i);
	else
		block_entry(c, np);
	/* The MOV before it: the local.tee of the probe's address (c->kmov),
	 * or the block entry's last move (after any label). */
	if (c->ncode != start)
		mov = c->last_op == EOP_MOV && c->last_at + 2 == c->ncode
			      ? c->last_at
			      : NONE;
	if (mov != NONE) {
		uint32_t d = c->code[mov + 1].u32[0];
		uint32_t a = c->code[mov + 1].u32[1];
		c->ncode = mov;
		while (c->npcm && c->pcm[c->npcm - 1].pc >= mov)
			c->npcm--;
		pcmap_add(c, off);
		at = emit(c, EOP_MOV_BR_MEM8_Z, 4);
		set2(c, at + 3, d, a);
	} else {
		at = emit(c, EOP_BR_MEM8_Z, 3);
	}
	c->code[at + 1].u32[1] = mem;
	c->code[at + 2].u64 = addr;
	*br = at;
	return true;
}

/* ---- numeric instructions by signature -------------------------------- */

typedef struct opsig {
	uint8_t npop, npush;
	bool generic; /* unary or binary, no immediate, no memory */
} opsig;

static opsig sigs[WASM_OP_COUNT];
static pthread_once_t sigs_once = PTHREAD_ONCE_INIT;

static void sigs_init(void)
{
	for (int op = 0; op < WASM_OP_COUNT; op++) {
		const wasm_opinfo *oi = wasm_op_info((wasm_op)op);
		const char *s = oi->sig;
		uint8_t np = 0, nr = 0;
		if (!s)
			continue;
		while (*s && *s != '>')
			np++, s++;
		if (*s == '>')
			s++;
		while (*s)
			nr++, s++;
		sigs[op].npop = np;
		sigs[op].npush = nr;
		sigs[op].generic = oi->imm == WASM_IMM_NONE && nr == 1 &&
				   (np == 1 || np == 2) &&
				   !(oi->flags & (WASM_F_SIMD | WASM_F_LOAD |
						  WASM_F_STORE));
	}
}

/* The _RI variant of a binary op, or 0. */
static unsigned ri_variant(unsigned op)
{
	switch (op) {
#define RI(x) case EOP_##x: return EOP_##x##_RI;
	RI(I32_ADD) RI(I32_SUB) RI(I32_MUL) RI(I32_AND) RI(I32_OR)
	RI(I32_XOR) RI(I32_SHL) RI(I32_SHR_S) RI(I32_SHR_U) RI(I32_ROTL)
	RI(I32_ROTR) RI(I32_EQ)
	RI(I32_NE) RI(I32_LT_S) RI(I32_LT_U) RI(I32_GT_S) RI(I32_GT_U)
	RI(I32_LE_S) RI(I32_LE_U) RI(I32_GE_S) RI(I32_GE_U)
	RI(I64_ADD) RI(I64_SUB) RI(I64_MUL) RI(I64_AND) RI(I64_OR)
	RI(I64_XOR) RI(I64_SHL) RI(I64_SHR_S) RI(I64_SHR_U) RI(I64_ROTL)
	RI(I64_ROTR) RI(I64_EQ)
	RI(I64_NE) RI(I64_LT_S) RI(I64_LT_U) RI(I64_GT_S) RI(I64_GT_U)
	RI(I64_LE_S) RI(I64_LE_U) RI(I64_GE_S) RI(I64_GE_U)
#undef RI
	}
	return 0;
}

/* For `k OP x` with a constant first operand: the op giving the same
 * result as `x OP' k`, or 0. */
static unsigned swapped(unsigned op)
{
	switch (op) {
	case EOP_I32_ADD: case EOP_I32_MUL: case EOP_I32_AND:
	case EOP_I32_OR: case EOP_I32_XOR: case EOP_I32_EQ: case EOP_I32_NE:
	case EOP_I64_ADD: case EOP_I64_MUL: case EOP_I64_AND:
	case EOP_I64_OR: case EOP_I64_XOR: case EOP_I64_EQ: case EOP_I64_NE:
		return op;
	case EOP_I32_LT_S: return EOP_I32_GT_S;
	case EOP_I32_LT_U: return EOP_I32_GT_U;
	case EOP_I32_GT_S: return EOP_I32_LT_S;
	case EOP_I32_GT_U: return EOP_I32_LT_U;
	case EOP_I32_LE_S: return EOP_I32_GE_S;
	case EOP_I32_LE_U: return EOP_I32_GE_U;
	case EOP_I32_GE_S: return EOP_I32_LE_S;
	case EOP_I32_GE_U: return EOP_I32_LE_U;
	case EOP_I64_LT_S: return EOP_I64_GT_S;
	case EOP_I64_LT_U: return EOP_I64_GT_U;
	case EOP_I64_GT_S: return EOP_I64_LT_S;
	case EOP_I64_GT_U: return EOP_I64_LT_U;
	case EOP_I64_LE_S: return EOP_I64_GE_S;
	case EOP_I64_LE_U: return EOP_I64_GE_U;
	case EOP_I64_GE_S: return EOP_I64_LE_S;
	case EOP_I64_GE_U: return EOP_I64_LE_U;
	}
	return 0;
}

static void emit_generic(cc *c, unsigned op)
{
	const opsig *s = &sigs[op];
	uint32_t at, d;

	if (s->npop == 1) {
		uint32_t a = opnd(c, c->depth - 1);
		pop_n(c, 1);
		d = push_temp(c);
		at = emit(c, op, 2);
		set2(c, at + 1, d, a);
		c->patch = at + 1;
		return;
	}
	{
		sv *x = &c->stk[c->depth - 2], *y = &c->stk[c->depth - 1];
		unsigned ri = ri_variant(op), sw;
		uint32_t a, b;
		/* local + constant (also local - constant, and more constants
		 * added to that) stays pending as ADDK: a load or store takes
		 * it as its address for free. */
		if ((op == EOP_I32_ADD || op == EOP_I32_SUB) &&
		    IS_REF(x->kind) && y->kind == SV_CONST) {
			uint32_t k = (uint32_t)x->k, l = x->slot;
			k = op == EOP_I32_ADD ? k + (uint32_t)y->k
					      : k - (uint32_t)y->k;
			pop_n(c, 2);
			push(c, SV_ADDK, l, k);
			return;
		}
		if (op == EOP_I32_ADD && x->kind == SV_CONST &&
		    IS_REF(y->kind)) {
			uint32_t k = (uint32_t)y->k + (uint32_t)x->k;
			uint32_t l = y->slot;
			pop_n(c, 2);
			push(c, SV_ADDK, l, k);
			return;
		}
		if (ri && y->kind == SV_CONST && x->kind != SV_CONST) {
			uint64_t k = y->k;
			a = opnd(c, c->depth - 2);
			pop_n(c, 2);
			d = push_temp(c);
			at = emit(c, ri, 3);
			set2(c, at + 1, d, a);
			c->code[at + 2].u64 = k;
			c->patch = at + 1;
			return;
		}
		if (ri && x->kind == SV_CONST && y->kind != SV_CONST &&
		    (sw = swapped(op)) != 0) {
			uint64_t k = x->k;
			a = opnd(c, c->depth - 1);
			pop_n(c, 2);
			d = push_temp(c);
			at = emit(c, ri_variant(sw), 3);
			set2(c, at + 1, d, a);
			c->code[at + 2].u64 = k;
			c->patch = at + 1;
			return;
		}
		a = opnd(c, c->depth - 2);
		b = opnd(c, c->depth - 1);
		pop_n(c, 2);
		d = push_temp(c);
		at = emit(c, op, 3);
		set2(c, at + 1, d, a);
		c->code[at + 2].u32[0] = b;
		c->patch = at + 1;
	}
}

/* ---- memory ----------------------------------------------------------- */

/* The internal op of load/store op whose address is the entry at pos,
 * and its address slot (*a) and third field (*k: the memory index on
 * entry). On the fast memory an address x + k becomes the _AK twin, which
 * reads x and adds k itself: x + k pending as ADDK, or just computed by an
 * I32_ADD_RI into the address's depth slot (that add is dropped). */
static unsigned mem_op(cc *c, unsigned op, uint32_t pos, uint32_t *a,
		       uint32_t *k)
{
	const sv *e = &c->stk[pos];

	if (*k != c->cm->fast_mem) {
		*a = opnd(c, pos);
		return op + EOP_MN_DELTA;
	}
	if (e->kind == SV_ADDK) {
		*a = e->slot;
		*k = (uint32_t)e->k;
		return op + EOP_AK_DELTA;
	}
	if (e->kind == SV_TEMP && pos == c->depth - 1 && c->patch >= 0 &&
	    c->last_op == EOP_I32_ADD_RI &&
	    c->code[c->patch].u32[0] == TS(c, pos)) {
		*a = c->code[c->last_at + 1].u32[1];
		*k = (uint32_t)c->code[c->last_at + 2].u64;
		unemit_last(c);
		return op + EOP_AK_DELTA;
	}
	*a = opnd(c, pos);
	return op;
}

/* ---- SIMD ----------------------------------------------------------------- */

/* Emit a SIMD instruction (layouts in engine_int.h). v128 operands are
 * read with vopnd, scalars with opnd; the result goes to the depth slots
 * of the first operand. */
static void emit_simd(cc *c, const wasm_instr *in)
{
	const wasm_opinfo *oi = wasm_op_info(in->op);
	const char *sig = oi->sig, *res = strchr(sig, '>') + 1;
	unsigned op = in->op;
	uint32_t pos[3], o[3], n = (uint32_t)(res - 1 - sig), at, d = 0;
	uint32_t base = c->depth;

	/* Operand positions from the signature (the last on top), then
	 * their slots. */
	for (uint32_t k = n; k-- > 0;)
		pos[k] = base -= sig[k] == 'v' ? 2 : 1;
	for (uint32_t k = 0; k < n; k++)
		o[k] = sig[k] == 'v' ? vopnd(c, pos[k]) : opnd(c, pos[k]);
	pop_n(c, c->depth - base);
	if (*res)
		d = push_typed(c, *res == 'v' ? WASM_V128 : WASM_I64);

	if (op == EOP_V128_CONST) {
		at = emit(c, op, 4);
		memcpy(&c->code[at + 2], in->u.v128, 16);
	} else if (op == EOP_I8X16_SHUFFLE) {
		at = emit(c, op, 5);
		c->code[at + 2].u32[0] = o[1];
		memcpy(&c->code[at + 3], in->u.lanes, 16);
	} else if (oi->imm == WASM_IMM_MEMARG_LANE) {
		at = emit(c, op, 4);
		set2(c, at + 2, (uint32_t)in->u.mem.m.offset, in->u.mem.m.mem);
		if (oi->flags & WASM_F_LOAD) {
			set2(c, at + 3, o[1], in->u.mem.lane);
		} else {
			set2(c, at + 1, o[0], o[1]);
			set2(c, at + 3, in->u.mem.lane, 0);
			return;
		}
	} else if (oi->imm == WASM_IMM_MEMARG) {
		at = emit(c, op, 3);
		set2(c, at + 2, (uint32_t)in->u.mem.m.offset, in->u.mem.m.mem);
		if (op == EOP_V128_STORE) {
			set2(c, at + 1, o[0], o[1]);
			return;
		}
	} else if (oi->imm == WASM_IMM_LANE) {
		at = emit(c, op, 3);
		set2(c, at + 2, n == 2 ? o[1] : in->u.lanes[0],
		     n == 2 ? in->u.lanes[0] : 0);
	} else if (n == 1) {
		at = emit(c, op, 2);
	} else {
		at = emit(c, op, 3);
		set2(c, at + 2, o[1], n == 3 ? o[2] : 0);
	}
	set2(c, at + 1, d, n ? o[0] : 0);
	c->patch = at + 1;
}

/* ---- one function ----------------------------------------------------- */

/* local.set/tee of the v128 local at slots i, i+1. */
static void local_set2(cc *c, uint32_t i, bool tee)
{
	uint32_t lo = c->depth - 2;

	c->known[i].gen = c->known[i + 1].gen = 0;
	flush_refs(c, i, lo);
	flush_refs(c, i + 1, lo);
	/* Just computed: the instruction writes the local instead (it
	 * writes both slots of its destination). */
	if (c->stk[lo].kind == SV_TEMP && c->stk[lo + 1].kind == SV_TEMP &&
	    c->patch >= 0 && c->code[c->patch].u32[0] == TS(c, lo)) {
		c->code[c->patch].u32[0] = i;
	} else {
		uint32_t a = vopnd(c, lo);
		if (a != i) {
			emit_value(c, lo, i);
			emit_value(c, lo + 1, i + 1);
		}
	}
	pop_n(c, 2);
	if (tee) {
		push(c, SV_LOCAL, i, 0);
		push(c, SV_LOCAL, i + 1, 0);
		c->stk[c->depth - 1].hi = 1;
	}
}

static void local_set(cc *c, uint32_t i, bool tee)
{
	uint32_t top = c->depth - 1;
	const sv *v = &c->stk[top];
	struct known *kn = &c->known[i];

	if (v->kind == SV_CONST && kn->gen == c->gen && kn->val == v->k) {
		/* It holds that value already (locals start at zero: the
		 * `i32.const 0 local.set` clang emits). */
		pop_n(c, 1);
		if (tee)
			push(c, SV_LOCAL, i, 0);
		return;
	}
	*kn = (struct known){v->k, v->kind == SV_CONST ? c->gen : 0};
	flush_refs(c, i, top);
	if (c->stk[top].kind == SV_TEMP && c->patch >= 0 &&
	    c->code[c->patch].u32[0] == TS(c, top))
		c->code[c->patch].u32[0] = i;
	else
		emit_value(c, top, i);
	pop_n(c, 1);
	if (tee)
		push(c, SV_LOCAL, i, 0);
}

static void do_end(cc *c, bool reachable)
{
	ctl *f = &c->ctls[c->nctl - 1];

	/* Branches may join here (not at the end of a loop: they go to its
	 * start). */
	if (f->kind != K_LOOP || !reachable)
		c->gen++;
	if (f->kind == K_FUNC) {
		if (reachable)
			emit_return(c, f->nr);
		c->nctl--;
		return;
	}
	if (f->kind == K_TRY)
		c->hs[f->handler].end = c->ncode;
	if (reachable)
		copy_top(c, f->nr, f->height);
	if (f->else_fix != NONE)
		patch_list(c, f->else_fix, c->ncode);
	patch_list(c, f->fixups, c->ncode);
	c->label = c->ncode;
	c->patch = -1;
	reset_stack(c, f, true);
	c->nctl--;
}

static void do_else(cc *c, bool reachable)
{
	ctl *f = &c->ctls[c->nctl - 1];
	uint32_t at;

	c->gen++;
	if (reachable) {
		copy_top(c, f->nr, f->height);
		at = emit(c, EOP_BR, 2);
		add_fixup(c, f, at, at + 1, 0);
	}
	patch_list(c, f->else_fix, c->ncode);
	c->label = c->ncode;
	f->else_fix = NONE;
	c->patch = -1;
	reset_stack(c, f, false);
}

/* ---- exception handling ---------------------------------------------- */

/* catch x (tag = x) or catch_all (ENG_CATCH_ALL): the try body or the
 * catch before ends with a branch to the end; the new catch body starts
 * here with the tag's values in the try's depth slots. Control arrives
 * from a throw, so known constants are forgotten as at any join. */
static void do_catch(cc *c, bool reachable, uint32_t tag)
{
	ctl *f = &c->ctls[c->nctl - 1];
	eng_handler *h = &c->hs[f->handler];
	uint32_t at, k = c->ncs;

	if (f->kind == K_TRY)
		h->end = c->ncode;
	c->gen++;
	if (reachable) {
		copy_top(c, f->nr, f->height);
		at = emit(c, EOP_BR, 2);
		add_fixup(c, f, at, at + 1, 0);
	}
	c->label = c->ncode;
	c->patch = -1;
	c->kload = NONE;
	c->cs = grow(c, c->cs, &c->capcs, k + 1, sizeof *c->cs);
	c->cs[k] = (eng_catch){tag, c->ncode, ENG_NO_HANDLER};
	c->ncs++;
	if (f->last_catch == NONE)
		c->hs[f->handler].catches = k;
	else
		c->cs[f->last_catch].next = k;
	f->last_catch = k;
	pop_n(c, c->depth - f->height);
	if (tag != ENG_CATCH_ALL) {
		const wasm_functype *tt = wasm_tag_type(c->m, tag);
		for (uint32_t i = 0; i < tt->nparams; i++)
			push_typed(c, tt->types[i]);
	}
	f->kind = K_CATCH;
	f->eh = c->hs[f->handler].next;
}

/* delegate l: the try ends as a block does, and its row hands its
 * exceptions to the handler in effect at label l, counted from outside
 * the try (the function's label: the caller). */
static void do_delegate(cc *c, bool reachable, uint32_t l)
{
	uint32_t h = c->ctls[c->nctl - 1].handler;

	c->hs[h].end = c->ncode;
	c->hs[h].delegate = true;
	do_end(c, reachable);
	c->hs[h].next = c->ctls[c->nctl - 1 - l].eh;
}

/* The row of a try that opens here (the block entry done). */
static void open_try(cc *c, ctl *f)
{
	uint32_t i = c->nhs;

	c->hs = grow(c, c->hs, &c->caphs, i + 1, sizeof *c->hs);
	c->hs[i] = (eng_handler){c->ncode,
				 c->ncode,
				 ENG_NO_HANDLER,
				 f->eh,
				 c->nlocals + f->height,
				 ENG_NO_HANDLER,
				 false};
	c->nhs++;
	f->kind = K_TRY;
	f->handler = i;
	f->eh = i;
}

/* Emit a call: args are the top np entries. kind: EOP_CALL,
 * EOP_CALL_IMPORT or EOP_CALL_INDIRECT. */
static void emit_call(cc *c, const wasm_functype *ft, unsigned op,
		      uint64_t x, uint32_t y, uint32_t elem)
{
	uint32_t np = eng_slots(ft->types, ft->nparams), base = c->depth - np;
	uint32_t at;

	for (uint32_t i = base; i < c->depth; i++)
		materialise(c, i);
	if (op == EOP_CALL) {
		at = emit(c, op, 3);
		set2(c, at + 1, TS(c, base), 0);
		c->code[at + 2].u64 = x;
	} else if (op == EOP_CALL_IMPORT) {
		at = emit(c, op, 2);
		set2(c, at + 1, TS(c, base), (uint32_t)x);
	} else {
		at = emit(c, op, 3);
		set2(c, at + 1, TS(c, base), elem);
		set2(c, at + 2, (uint32_t)x, y);
	}
	pop_n(c, np);
	for (uint32_t i = 0; i < ft->nresults; i++)
		push_typed(c, ft->types[ft->nparams + i]);
}

static wasm_status compile_body(cc *c, uint32_t fi, eng_fn *out,
				wasm_err *err)
{
	const wasm_module *m = c->m;
	const wasm_func *f = &m->funcs[fi];
	const wasm_functype *ft = &m->types[f->type];
	wasm_reader rd;
	wasm_instr in;
	wasm_status st = WASM_OK;
	uint32_t nvals = (uint32_t)(ft->nparams + f->nlocals), slot = 0;
	uint32_t nps = eng_slots(ft->types, ft->nparams);
	uint32_t nrs = eng_slots(ft->types + ft->nparams, ft->nresults);
	wasm_blocktype fbt = {WASM_BT_TYPE, f->type};

	c->ncode = c->depth = c->maxdepth = c->nctl = c->nfix = c->npcm = 0;
	c->nhs = c->ncs = c->nkept = 0;
	c->nrefs = 0;
	c->label = 0;
	c->patch = -1;
	c->kload = NONE;
	c->dead = 0;
	/* Slots of the locals: the params', then each group's. */
	c->lslot = grow(c, c->lslot, &c->caplslot, nvals + 1,
			sizeof *c->lslot);
	for (uint32_t i = 0; i < ft->nparams; i++) {
		c->lslot[i] = slot;
		slot += eng_type_slots(ft->types[i]);
	}
	for (uint32_t g = 0, i = ft->nparams; g < f->ngroups; g++)
		for (uint32_t k = 0; k < f->groups[g].count; k++, i++) {
			c->lslot[i] = slot;
			slot += eng_type_slots(f->groups[g].type);
		}
	c->lslot[nvals] = slot;
	c->nlocals = slot;
	out->index = m->nfunc_imports + fi;
	out->type = f->type;
	out->nparams = nps;
	out->nresults = nrs;
	out->nlocals = c->nlocals;
	out->body_offset = f->code_start;
	/* Locals other than the params start at zero. */
	c->known = grow(c, c->known, &c->capknown, c->nlocals,
			sizeof *c->known);
	c->gen++;
	for (uint32_t i = 0; i < c->nlocals; i++)
		c->known[i] = (struct known){0, i < nps ? 0 : c->gen};

	wasm_reader_init(&rd, m->bytes, f->code_start, f->code_end);
	push_ctl(c, K_FUNC, &fbt, 0, nrs);
	while (c->nctl && rd.pos < rd.end) {
		const wasm_opinfo *oi;
		unsigned op;
		uint32_t at, d;
		if ((st = wasm_reader_next(&rd, &in, err)))
			goto done;
		op = in.op;
		oi = wasm_op_info(in.op);
		if (c->dead) {
			if (op == EOP_BLOCK || op == EOP_LOOP || op == EOP_IF ||
			    op == EOP_TRY)
				c->dead++;
			else if (op == EOP_END && --c->dead == 0)
				do_end(c, false);
			else if (op == EOP_ELSE && c->dead == 1) {
				c->dead = 0;
				do_else(c, false);
			} else if ((op == EOP_CATCH || op == EOP_CATCH_ALL) &&
				   c->dead == 1) {
				c->dead = 0;
				do_catch(c, false,
					 op == EOP_CATCH ? in.u.idx
							 : ENG_CATCH_ALL);
			} else if (op == EOP_DELEGATE && --c->dead == 0) {
				do_delegate(c, false, in.u.idx);
			}
			continue;
		}
		pcmap_add(c, in.offset);
		switch (op) {
		case EOP_UNREACHABLE:
			emit(c, EOP_TRAP_UNREACHABLE, 1);
			c->dead = 1;
			break;
		case EOP_NOP:
		case EOP_I32_REINTERPRET_F32:
		case EOP_I64_REINTERPRET_F64:
		case EOP_F32_REINTERPRET_I32:
		case EOP_F64_REINTERPRET_I64:
		case EOP_I64_EXTEND_I32_U:
			/* i32 slots are zero-extended and floats are kept
			 * as bits: these change nothing. */
			break;
		case EOP_BLOCK:
		case EOP_LOOP: {
			uint32_t np, nr;
			ctl *fr;
			blocktype(c, &in.u.block, &np, &nr);
			block_entry(c, np);
			if (op == EOP_LOOP) /* back-edges join here */
				c->gen++;
			fr = push_ctl(c, op == EOP_LOOP ? K_LOOP : K_BLOCK,
				      &in.u.block, np, nr);
			fr->loop_pc = c->label = c->ncode;
			c->patch = -1;
			break;
		}
		case EOP_IF: {
			uint32_t np, nr, br = NONE, cell = 0, cond;
			uint8_t half = 0;
			ctl *fr;
			blocktype(c, &in.u.block, &np, &nr);
			if (c->kload != NONE &&
			    fuse_mask_check(c, np, &rd, &br)) {
				cell = br + 1;
				goto if_ctl;
			}
			cond = opnd(c, c->depth - 1);
			{
				/* Fuse only when nothing has to be emitted
				 * between the compare and the branch. */
				bool clean = !c->nrefs;
				for (uint32_t i = c->depth - 1 - np;
				     i < c->depth - 1; i++)
					if (c->stk[i].kind != SV_TEMP)
						clean = false;
				br = clean ? fuse_branch(c, false, true)
					   : NONE;
			}
			pop_n(c, 1);
			if (br == NONE) {
				block_entry(c, np);
				br = emit(c, EOP_BR_UNLESS, 2);
				c->code[br + 1].u32[0] = cond;
			}
			branch_field(c, br, &cell, &half);
		if_ctl:
			fr = push_ctl(c, K_IF, &in.u.block, np, nr);
			{
				uint32_t i = c->nfix;
				c->fix = grow(c, c->fix, &c->capfix, i + 1,
					      sizeof *c->fix);
				c->fix[i] = (fixup){br, cell, half, NONE};
				c->nfix++;
				fr->else_fix = i;
			}
			c->patch = -1;
			break;
		}
		case EOP_TRY: {
			uint32_t np, nr;
			blocktype(c, &in.u.block, &np, &nr);
			block_entry(c, np);
			open_try(c, push_ctl(c, K_BLOCK, &in.u.block, np, nr));
			c->label = c->ncode;
			c->patch = -1;
			c->kload = NONE;
			break;
		}
		case EOP_CATCH: do_catch(c, true, in.u.idx); break;
		case EOP_CATCH_ALL: do_catch(c, true, ENG_CATCH_ALL); break;
		case EOP_DELEGATE: do_delegate(c, true, in.u.idx); break;
		case EOP_THROW: {
			const wasm_functype *tt = wasm_tag_type(m, in.u.idx);
			uint32_t np = eng_slots(tt->types, tt->nparams);
			uint32_t base = c->depth - np;
			for (uint32_t i = base; i < c->depth; i++)
				materialise(c, i);
			at = emit(c, EOP_THROW, 2);
			set2(c, at + 1, TS(c, base), in.u.idx);
			pop_n(c, np);
			c->dead = 1;
			break;
		}
		case EOP_RETHROW: {
			ctl *fr = &c->ctls[c->nctl - 1 - in.u.idx];
			eng_handler *h = &c->hs[fr->handler];
			/* Kept after the temps; made absolute at the end. */
			if (h->store == ENG_NO_HANDLER) {
				h->store = c->nkept;
				c->nkept += 1 + c->cm->max_tag_slots;
			}
			at = emit(c, EOP_RETHROW, 2);
			set2(c, at + 1, fr->handler, 0);
			c->dead = 1;
			break;
		}
		case EOP_ELSE:
			do_else(c, true);
			break;
		case EOP_END:
			do_end(c, true);
			break;
		case EOP_BR:
			emit_br(c, in.u.idx);
			c->dead = 1;
			break;
		case EOP_BR_IF: {
			ctl *fr = &c->ctls[c->nctl - 1 - in.u.idx];
			uint32_t n = label_arity(fr), cond, cell;
			uint8_t half;
			bool simple = fr->kind != K_FUNC &&
				      !needs_copy_at(c, c->depth - 1, n,
						     fr->height);
			if (simple && fr->kind != K_LOOP &&
			    (at = fuse_branch(c, true, true)) != NONE) {
				pop_n(c, 1);
				branch_field(c, at, &cell, &half);
				add_fixup(c, fr, at, cell, half);
				c->patch = -1;
				break;
			}
			if (simple && fr->kind == K_LOOP &&
			    (at = fuse_branch(c, true, false)) != NONE) {
				pop_n(c, 1);
				branch_field(c, at, &cell, &half);
				c->code[cell].i32[half] =
					(int32_t)(fr->loop_pc - at);
				c->patch = -1;
				break;
			}
			cond = opnd(c, c->depth - 1);
			pop_n(c, 1);
			if (simple) {
				at = emit(c, fr->kind == K_LOOP ? EOP_BR_IF_POLL
								: EOP_BR_IF,
					  2);
				c->code[at + 1].u32[0] = cond;
				if (fr->kind == K_LOOP)
					c->code[at + 1].i32[1] =
						(int32_t)(fr->loop_pc - at);
				else
					add_fixup(c, fr, at, at + 1, 1);
			} else {
				uint32_t skip = emit(c, EOP_BR_UNLESS, 2);
				c->code[skip + 1].u32[0] = cond;
				emit_br(c, in.u.idx);
				c->code[skip + 1].i32[1] =
					(int32_t)(c->ncode - skip);
			}
			c->patch = -1;
			break;
		}
		case EOP_BR_TABLE: {
			uint32_t cnt = in.u.br_table.count, idx, n, ncell;
			uint32_t *lab;
			idx = opnd(c, c->depth - 1);
			pop_n(c, 1);
			lab = wasm_malloc(((size_t)cnt + 1) * sizeof *lab);
			if (!lab)
				longjmp(c->oom, 1);
			if (cnt)
				memcpy(lab, in.u.br_table.labels,
				       cnt * sizeof *lab);
			lab[cnt] = in.u.br_table.def;
			n = label_arity(&c->ctls[c->nctl - 1 - lab[cnt]]);
			ncell = 2 + (cnt + 2) / 2;
			at = emit(c, EOP_BR_TABLE, ncell);
			set2(c, at + 1, idx, cnt);
			for (uint32_t k = 0; k <= cnt; k++) {
				ctl *fr = &c->ctls[c->nctl - 1 - lab[k]];
				uint32_t cell = at + 2 + k / 2;
				if (fr->kind == K_LOOP &&
				    !needs_copy(c, n, fr->height)) {
					c->code[cell].i32[k % 2] =
						(int32_t)(fr->loop_pc - at);
				} else if (fr->kind != K_FUNC &&
					   fr->kind != K_LOOP &&
					   !needs_copy(c, n, fr->height)) {
					add_fixup(c, fr, at, cell, k % 2);
				} else {
					c->code[cell].i32[k % 2] =
						(int32_t)(c->ncode - at);
					emit_br(c, lab[k]);
				}
			}
			wasm_free(lab);
			c->dead = 1;
			break;
		}
		case EOP_RETURN:
			emit_return(c, nrs);
			c->dead = 1;
			break;
		case EOP_CALL: {
			uint32_t x = in.u.idx;
			const wasm_functype *cft = wasm_func_type(m, x);
			if (x < m->nfunc_imports)
				emit_call(c, cft, EOP_CALL_IMPORT, x, 0, 0);
			else
				emit_call(c, cft, EOP_CALL,
					  (uint64_t)(uintptr_t)&c->cm->fns
						  [x - m->nfunc_imports],
					  0, 0);
			break;
		}
		case EOP_CALL_INDIRECT: {
			const wasm_functype *cft = &m->types[in.u.idx2.a];
			uint32_t elem = opnd(c, c->depth - 1);
			pop_n(c, 1);
			/* The element index must survive the argument
			 * moves: they only write depth slots below it. */
			emit_call(c, cft, EOP_CALL_INDIRECT,
				  c->cm->type_ids[in.u.idx2.a], in.u.idx2.b,
				  elem);
			break;
		}
		case EOP_DROP: pop_n(c, top_width(c)); break;
		case EOP_SELECT:
		case EOP_SELECT_T: {
			/* A v128 is selected as two slots. */
			uint32_t w = c->stk[c->depth - 2].hi ? 2 : 1;
			uint32_t cnd = opnd(c, c->depth - 1);
			uint32_t a, b;
			if (w == 2) {
				a = vopnd(c, c->depth - 5);
				b = vopnd(c, c->depth - 3);
			} else {
				a = opnd(c, c->depth - 3);
				b = opnd(c, c->depth - 2);
			}
			pop_n(c, 2 * w + 1);
			d = push_typed(c, w == 2 ? WASM_V128 : WASM_I64);
			for (uint32_t h = w; h-- > 0;) {
				uint32_t s3 = emit(c, EOP_SELECT3, 3);
				set2(c, s3 + 1, d + h, a + h);
				set2(c, s3 + 2, b + h, cnd);
				/* Only a one-slot select may be
				 * retargeted. */
				if (w == 1)
					c->patch = s3 + 1;
			}
			break;
		}
		case EOP_LOCAL_GET: {
			uint32_t i = c->lslot[in.u.idx];
			push(c, SV_LOCAL, i, 0);
			if (c->lslot[in.u.idx + 1] - i == 2) {
				push(c, SV_LOCAL, i + 1, 0);
				c->stk[c->depth - 1].hi = 1;
			}
			break;
		}
		case EOP_LOCAL_SET:
		case EOP_LOCAL_TEE: {
			uint32_t i = c->lslot[in.u.idx];
			if (c->lslot[in.u.idx + 1] - i == 2)
				local_set2(c, i, op == EOP_LOCAL_TEE);
			else
				local_set(c, i, op == EOP_LOCAL_TEE);
			break;
		}
		case EOP_GLOBAL_GET: {
			bool w = c->gwide[in.u.idx];
			d = push_typed(c, w ? WASM_V128 : WASM_I64);
			at = emit(c, w ? EOP_GLOBAL_GET2 : EOP_GLOBAL_GET, 2);
			set2(c, at + 1, d, in.u.idx);
			c->patch = at + 1;
			break;
		}
		case EOP_GLOBAL_SET: {
			bool w = c->gwide[in.u.idx];
			uint32_t a = w ? vopnd(c, c->depth - 2)
				       : opnd(c, c->depth - 1);
			unsigned gop = EOP_GLOBAL_SET;
			pop_n(c, w ? 2 : 1);
			if (w)
				gop = EOP_GLOBAL_SET2;
			else if (in.u.idx == c->cm->sp_global)
				gop = EOP_GLOBAL_SET_SP;
			at = emit(c, gop, 2);
			set2(c, at + 1, a, in.u.idx);
			break;
		}
		case EOP_I32_CONST:
			push(c, SV_CONST, 0, (uint32_t)in.u.i32);
			break;
		case EOP_I64_CONST:
			push(c, SV_CONST, 0, (uint64_t)in.u.i64);
			break;
		case EOP_F32_CONST: push(c, SV_CONST, 0, in.u.f32); break;
		case EOP_F64_CONST: push(c, SV_CONST, 0, in.u.f64); break;
		case EOP_REF_NULL: push(c, SV_CONST, 0, 0); break;
		case EOP_REF_FUNC:
			d = push_temp(c);
			at = emit(c, EOP_REF_FUNC, 2);
			set2(c, at + 1, d, in.u.idx);
			c->patch = at + 1;
			break;
		case EOP_REF_IS_NULL: {
			uint32_t a = opnd(c, c->depth - 1);
			pop_n(c, 1);
			d = push_temp(c);
			at = emit(c, EOP_REF_IS_NULL, 2);
			set2(c, at + 1, d, a);
			c->patch = at + 1;
			break;
		}
		case EOP_MEMORY_SIZE:
		case EOP_TABLE_SIZE:
			d = push_temp(c);
			at = emit(c, op, 2);
			set2(c, at + 1, d, in.u.idx);
			c->patch = at + 1;
			break;
		case EOP_MEMORY_GROW:
		case EOP_TABLE_GET: {
			uint32_t a = opnd(c, c->depth - 1);
			pop_n(c, 1);
			d = push_temp(c);
			at = emit(c, op, 3);
			set2(c, at + 1, d, a);
			c->code[at + 2].u32[0] = in.u.idx;
			c->patch = at + 1;
			break;
		}
		case EOP_TABLE_SET: {
			uint32_t a = opnd(c, c->depth - 2);
			uint32_t b = opnd(c, c->depth - 1);
			pop_n(c, 2);
			at = emit(c, op, 3);
			set2(c, at + 1, a, b);
			c->code[at + 2].u32[0] = in.u.idx;
			break;
		}
		case EOP_TABLE_GROW: {
			uint32_t a = opnd(c, c->depth - 2);
			uint32_t b = opnd(c, c->depth - 1);
			pop_n(c, 2);
			d = push_temp(c);
			at = emit(c, op, 3);
			set2(c, at + 1, d, a);
			set2(c, at + 2, b, in.u.idx);
			c->patch = at + 1;
			break;
		}
		case EOP_MEMORY_INIT:
		case EOP_MEMORY_COPY:
		case EOP_MEMORY_FILL:
		case EOP_TABLE_INIT:
		case EOP_TABLE_COPY:
		case EOP_TABLE_FILL: {
			uint32_t a = opnd(c, c->depth - 3);
			uint32_t b = opnd(c, c->depth - 2);
			uint32_t cc3 = opnd(c, c->depth - 1);
			pop_n(c, 3);
			at = emit(c, op, 4);
			set2(c, at + 1, a, b);
			c->code[at + 2].u32[0] = cc3;
			if (op == EOP_MEMORY_FILL || op == EOP_TABLE_FILL)
				set2(c, at + 3, in.u.idx, 0);
			else
				set2(c, at + 3, in.u.idx2.a, in.u.idx2.b);
			break;
		}
		case EOP_DATA_DROP:
		case EOP_ELEM_DROP:
			at = emit(c, op, 2);
			c->code[at + 1].u32[0] = in.u.idx;
			break;
		case EOP_ATOMIC_FENCE:
			emit(c, op, 1);
			break;
		default:
			if (oi->flags & WASM_F_SIMD) {
				emit_simd(c, &in);
			} else if (oi->flags & WASM_F_ATOMIC) {
				const opsig *s = &sigs[op];
				uint32_t o[3] = {0, 0, 0};
				for (uint32_t k = 0; k < s->npop; k++)
					o[k] = opnd(c, c->depth - s->npop + k);
				pop_n(c, s->npop);
				d = s->npush ? push_temp(c) : 0;
				at = emit(c, op, 4);
				set2(c, at + 1, d, o[0]);
				set2(c, at + 2, o[1], o[2]);
				set2(c, at + 3, (uint32_t)in.u.mem.m.offset,
				     in.u.mem.m.mem);
				if (s->npush)
					c->patch = at + 1;
			} else if (oi->flags & WASM_F_LOAD) {
				uint32_t a, k = in.u.mem.m.mem, k0 = c->ncode;
				bool kaddr = op == EOP_I32_LOAD8_U &&
					     c->stk[c->depth - 1].kind ==
						     SV_CONST;
				uint32_t kmov = c->last_op == EOP_MOV &&
							c->last_at + 2 == k0 &&
							k0 != c->label
							? c->last_at
							: NONE;
				unsigned eop = mem_op(c, op, c->depth - 1, &a,
						      &k);
				pop_n(c, 1);
				d = push_temp(c);
				at = emit(c, eop, 3);
				set2(c, at + 1, d, a);
				set2(c, at + 2, (uint32_t)in.u.mem.m.offset, k);
				c->patch = at + 1;
				/* The CONST that opnd emitted for the address
				 * (a candidate for BR_MEM8_Z). */
				if (kaddr && at == k0 + 3) {
					c->kload = k0;
					c->kmov = kmov;
				}
			} else if (oi->flags & WASM_F_STORE) {
				uint32_t a, k = in.u.mem.m.mem, v;
				unsigned eop = mem_op(c, op, c->depth - 2, &a,
						      &k);
				v = opnd(c, c->depth - 1);
				pop_n(c, 2);
				at = emit(c, eop, 3);
				set2(c, at + 1, a, v);
				set2(c, at + 2, (uint32_t)in.u.mem.m.offset, k);
			} else if (sigs[op].generic) {
				emit_generic(c, op);
			} else {
				st = wasm_err_set(err, WASM_LIMIT, in.offset,
						  "engine: cannot compile %s",
						  oi->name);
				goto done;
			}
		}
	}
	{
		uint64_t ns = (uint64_t)c->nlocals + c->maxdepth;
		if (ns < nrs)
			ns = nrs;
		for (uint32_t i = 0; i < c->nhs; i++)
			if (c->hs[i].store != ENG_NO_HANDLER)
				c->hs[i].store += (uint32_t)ns;
		ns += c->nkept;
		if (ns > UINT32_MAX / 2) {
			st = wasm_err_set(err, WASM_LIMIT, f->code_start,
					  "engine: frame of %" PRIu64
					  " slots is too large",
					  ns);
			goto done;
		}
		out->nslots = (uint32_t)ns;
	}
	out->code = wasm_malloc(c->ncode * sizeof *out->code);
	out->pcmap = wasm_malloc(c->npcm * sizeof *out->pcmap);
	/* Kept only until jit.c has compiled the function (eng_jit_prepare). */
	if (c->jit && out->code &&
	    (out->ops =
		 wasm_malloc((c->ncode ? c->ncode : 1) * sizeof *out->ops)))
		memcpy(out->ops, c->ops, c->ncode * sizeof *out->ops);
	if (!out->code || !out->pcmap) {
		st = wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				  "out of memory compiling function %u",
				  out->index);
		goto done;
	}
	if (c->ncode)
		memcpy(out->code, c->code, c->ncode * sizeof *out->code);
	if (c->npcm)
		memcpy(out->pcmap, c->pcm, c->npcm * sizeof *out->pcmap);
	out->ncode = c->ncode;
	out->npcmap = c->npcm;
	if (c->nhs) {
		out->handlers = wasm_malloc(c->nhs * sizeof *out->handlers);
		out->catches =
		    wasm_malloc((c->ncs ? c->ncs : 1) * sizeof *out->catches);
		if (!out->handlers || !out->catches) {
			st = wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
					  "out of memory compiling function "
					  "%u",
					  out->index);
			goto done;
		}
		memcpy(out->handlers, c->hs, c->nhs * sizeof *out->handlers);
		if (c->ncs)
			memcpy(out->catches, c->cs,
			       c->ncs * sizeof *out->catches);
		out->nhandlers = c->nhs;
		out->ncatches = c->ncs;
	}
	/* Branch offsets were relative; the code moved as a whole. */
done:
	wasm_reader_fini(&rd);
	return st;
}

/* ---- canonical function types ----------------------------------------- */

/* Process-wide registry: equal types get equal ids, so call_indirect
 * compares one integer. Entries are never removed (a few bytes per
 * distinct type a process ever sees). */
typedef struct tentry {
	uint64_t hash;
	uint32_t np, nr, id;
	uint8_t *types;
} tentry;

static pthread_mutex_t treg_lock = PTHREAD_MUTEX_INITIALIZER;
static tentry *treg;
static uint32_t treg_n, treg_cap; /* open addressing, cap a power of 2 */

static uint64_t type_hash(const wasm_functype *ft)
{
	uint64_t h = 1469598103934665603ull ^ ft->nparams;
	uint32_t n = ft->nparams + ft->nresults;
	h = (h ^ ft->nresults) * 1099511628211ull;
	for (uint32_t i = 0; i < n; i++)
		h = (h ^ ft->types[i]) * 1099511628211ull;
	return h | 1;
}

static bool type_eq(const tentry *e, const wasm_functype *ft)
{
	return e->np == ft->nparams && e->nr == ft->nresults &&
	       !memcmp(e->types, ft->types, e->np + e->nr);
}

uint32_t eng_type_intern(const wasm_functype *ft)
{
	uint64_t h = type_hash(ft);
	uint32_t id = 0;

	pthread_mutex_lock(&treg_lock);
	if ((treg_n + 1) * 2 > treg_cap) {
		uint32_t ncap = treg_cap ? treg_cap * 2 : 64;
		tentry *nt = wasm_calloc(ncap, sizeof *nt);
		if (!nt)
			goto done;
		for (uint32_t i = 0; i < treg_cap; i++) {
			if (!treg[i].hash)
				continue;
			uint32_t j = (uint32_t)treg[i].hash & (ncap - 1);
			while (nt[j].hash)
				j = (j + 1) & (ncap - 1);
			nt[j] = treg[i];
		}
		wasm_free(treg);
		treg = nt;
		treg_cap = ncap;
	}
	for (uint32_t j = (uint32_t)h & (treg_cap - 1);;
	     j = (j + 1) & (treg_cap - 1)) {
		tentry *e = &treg[j];
		if (!e->hash) {
			uint32_t n = ft->nparams + ft->nresults;
			e->types = wasm_malloc(n ? n : 1);
			if (!e->types)
				goto done;
			memcpy(e->types, ft->types, n);
			e->np = ft->nparams;
			e->nr = ft->nresults;
			e->hash = h;
			e->id = ++treg_n;
			id = e->id;
			break;
		}
		if (e->hash == h && type_eq(e, ft)) {
			id = e->id;
			break;
		}
	}
done:
	pthread_mutex_unlock(&treg_lock);
	return id;
}

/* ---- the module ------------------------------------------------------- */

wasm_status eng_compile(wasm_module *m, eng_module **out, wasm_err *err)
{
	eng_module *cm;
	cc c;
	volatile wasm_status st = WASM_OK;
	volatile uint32_t fi = 0;
	int jr;

	*out = NULL;
	pthread_once(&sigs_once, sigs_init);
	cm = wasm_calloc(1, sizeof *cm);
	if (!cm) {
		wasm_module_free(m);
		return wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				    "out of memory");
	}
	cm->m = m;
	cm->fast_mem = m->nmems ? m->nmem_imports : 0;
	cm->type_ids = wasm_calloc(m->ntypes ? m->ntypes : 1,
				   sizeof *cm->type_ids);
	cm->fns = wasm_calloc(m->nfuncs ? m->nfuncs : 1, sizeof *cm->fns);
	if (!cm->type_ids || !cm->fns)
		goto nomem;
	for (uint32_t i = 0; i < m->ntypes; i++)
		if (!(cm->type_ids[i] = eng_type_intern(&m->types[i])))
			goto nomem;
	cm->sp_global = NONE;
	for (uint32_t i = 0; i < m->ncustoms; i++)
		if (m->customs[i].name.len == sizeof ENG_C_CALLS - 1 &&
		    !memcmp(m->customs[i].name.p, ENG_C_CALLS,
			    sizeof ENG_C_CALLS - 1))
			cm->c_calls = true;
	for (uint32_t i = 0; i < wasm_global_count(m); i++) {
		const wasm_str *nm = wasm_global_name(m, i);
		const wasm_globaltype *gt = wasm_global_type(m, i);
		if (nm && nm->len == 15 &&
		    !memcmp(nm->p, "__stack_pointer", 15) &&
		    gt->type == WASM_I32 && gt->mut)
			cm->sp_global = i;
	}
	for (uint32_t i = 0; i < wasm_tag_count(m); i++) {
		const wasm_functype *tt = wasm_tag_type(m, i);
		uint32_t n = eng_slots(tt->types, tt->nparams);
		if (n > cm->max_tag_slots)
			cm->max_tag_slots = n;
	}
	memset(&c, 0, sizeof c);
	c.m = m;
	c.cm = cm;
	c.h = eng_interp_handlers();
	c.jit = eng_jit_wanted();
	c.gwide = wasm_calloc(wasm_global_count(m) + 1, sizeof *c.gwide);
	if (!c.gwide)
		goto nomem;
	for (uint32_t i = 0; i < wasm_global_count(m); i++)
		c.gwide[i] = wasm_global_type(m, i)->type == WASM_V128;
	if ((jr = setjmp(c.oom)) != 0) {
		if (jr == 2)
			st = wasm_err_set(err, WASM_LIMIT,
					  m->funcs[fi].code_start,
					  "function %u is too large for the "
					  "engine",
					  m->nfunc_imports + fi);
		else
			st = wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
					  "out of memory compiling function "
					  "%u",
					  m->nfunc_imports + fi);
		goto fail;
	}
	for (; fi < m->nfuncs; fi++) {
		err->func = m->nfunc_imports + fi;
		if ((st = compile_body(&c, fi, &cm->fns[fi], err)))
			goto fail;
	}
	err->func = WASM_NO_FUNC;
	if (c.jit)
		eng_jit_prepare(cm);
fail:
	wasm_free(c.ops);
	wasm_free(c.code);
	wasm_free(c.stk);
	wasm_free(c.ctls);
	wasm_free(c.fix);
	wasm_free(c.pcm);
	wasm_free(c.known);
	wasm_free(c.lslot);
	wasm_free(c.gwide);
	wasm_free(c.hs);
	wasm_free(c.cs);
	if (st) {
		eng_module_free(cm);
		return st;
	}
	*out = cm;
	return WASM_OK;
nomem:
	eng_module_free(cm);
	return wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET, "out of memory");
}

const wasm_module *eng_module_wasm(const eng_module *cm)
{
	return cm->m;
}

bool eng_module_c_calls(const eng_module *cm) { return cm->c_calls; }

void eng_module_exec_stats(const eng_module *cm, eng_exec_stats *out)
{
	memset(out, 0, sizeof *out);
	out->jit = cm->jit_on;
	/* Other threads may be compiling: the counts under their lock,
	 * which is no part of the module's value. */
	if (cm->jit_on)
		pthread_mutex_lock(&((eng_module *)cm)->jit_lock);
	out->compiled = cm->jit_fns;
	out->interpreted = out->jit ? cm->jit_interp : cm->m->nfuncs;
	out->uncalled = cm->jit_waiting;
	out->code_bytes = cm->jit_size;
	out->compile_s = cm->jit_seconds;
	if (cm->jit_on)
		pthread_mutex_unlock(&((eng_module *)cm)->jit_lock);
	for (uint32_t i = 0; i < cm->m->nfuncs; i++)
		out->wasm_bytes +=
		    cm->m->funcs[i].code_end - cm->m->funcs[i].code_start;
}

void eng_module_free(eng_module *cm)
{
	if (!cm)
		return;
	if (cm->fns)
		for (uint32_t i = 0; i < cm->m->nfuncs; i++) {
			wasm_free(cm->fns[i].code);
			wasm_free(cm->fns[i].pcmap);
			wasm_free(cm->fns[i].handlers);
			wasm_free(cm->fns[i].catches);
			wasm_free(cm->fns[i].ops);
		}
	eng_jit_free(cm);
	wasm_free(cm->fns);
	wasm_free(cm->type_ids);
	wasm_module_free(cm->m);
	wasm_free(cm);
}

/* ---- code -> module offsets ------------------------------------------- */

const eng_fn *eng_fn_of_pc(const eng_module *cm, const eng_cell *pc)
{
	if (!cm || !pc)
		return NULL;
	for (uint32_t i = 0; i < cm->m->nfuncs; i++) {
		const eng_fn *fn = &cm->fns[i];
		if (fn->code && pc >= fn->code && pc < fn->code + fn->ncode)
			return fn;
	}
	return NULL;
}

const eng_cell *eng_exn_land(eng_thread *t, const eng_instance *inst,
			     const eng_fn *fn, const eng_cell *at, eng_val *fp,
			     bool *too_big)
{
	uint32_t pc = (uint32_t)(at - fn->code), h = ENG_NO_HANDLER;
	uint32_t n = t->exn_tag->nslots;

	*too_big = false;
	for (uint32_t i = fn->nhandlers; i-- > 0;)
		if (fn->handlers[i].start <= pc && pc < fn->handlers[i].end) {
			h = i;
			break;
		}
	while (h != ENG_NO_HANDLER) {
		const eng_handler *hd = &fn->handlers[h];
		for (uint32_t k = hd->delegate ? ENG_NO_HANDLER : hd->catches;
		     k != ENG_NO_HANDLER; k = fn->catches[k].next) {
			const eng_catch *ct = &fn->catches[k];
			if (ct->tag != ENG_CATCH_ALL &&
			    inst->tags[ct->tag] != t->exn_tag)
				continue;
			if (hd->store != ENG_NO_HANDLER) {
				if (n > inst->cm->max_tag_slots) {
					*too_big = true;
					return NULL;
				}
				fp[hd->store] = (uintptr_t)t->exn_tag;
				memcpy(fp + hd->store + 1, t->exn_vals,
				       n * sizeof *fp);
			}
			if (ct->tag != ENG_CATCH_ALL)
				memcpy(fp + hd->slot, t->exn_vals,
				       n * sizeof *fp);
			return fn->code + ct->pc;
		}
		h = hd->next;
	}
	return NULL;
}

static size_t pc_offset(const eng_fn *fn, const eng_cell *pc)
{
	uint32_t at = (uint32_t)(pc - fn->code), lo = 0, hi = fn->npcmap;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (fn->pcmap[mid].pc <= at)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? fn->pcmap[lo - 1].offset : fn->body_offset;
}

/* The frames of thread t from pc in inst, with depth calls below it, at
 * most max into out: the count. With more, *more says whether a frame
 * was left out for want of room; without, the walk stops at max. */
static uint32_t walk_frames(const eng_thread *t, const eng_cell *pc,
			    const eng_instance *inst, uint32_t d,
			    eng_where *out, uint32_t max, bool *more)
{
	uint32_t n = 0;

	if (more)
		*more = false;
	while (pc && inst && (n < max || more)) {
		const eng_fn *fn = eng_fn_of_pc(inst->cm, pc);
		if (!fn)
			break;
		if (n == max) {
			*more = true;
			break;
		}
		out[n++] = (eng_where){fn->index, (uint32_t)pc_offset(fn, pc)};
		/* frames[d - 1] belongs to this frame's function: where it
		 * returns to in its caller, or NULL where the host entered. */
		if (!d--)
			break;
		pc = t->frames[d].ret_ip;
		inst = t->frames[d].inst;
		/* The call, not the instruction after it. */
		if (pc)
			pc--;
	}
	return n;
}

uint32_t eng_thread_backtrace(const eng_thread *t, eng_where *out, uint32_t max)
{
	if (t->in_wasm)
		return 0;
	return walk_frames(t, t->pc, t->cur_inst, t->depth, out, max, NULL);
}

void eng_note_stop(eng_thread *t, const eng_cell *pc, const eng_instance *inst,
		   uint32_t depth)
{
	eng_proc *p = t->proc;
	eng_stop_stack s = {.tid = t->id};

	if (t->stop_noted)
		return;
	t->stop_noted = true;
	s.n =
	    walk_frames(t, pc, inst, depth, s.f, ENG_STOP_FRAMES, &s.truncated);
	pthread_mutex_lock(&p->lock);
	if (p->nstops == p->cap_stops && p->cap_stops < ENG_STOP_THREADS) {
		uint32_t cap = p->cap_stops ? 2 * p->cap_stops : 4;
		eng_stop_stack *v = wasm_realloc(p->stops, cap * sizeof *v);
		if (v) {
			p->stops = v;
			p->cap_stops = cap;
		}
	}
	if (p->nstops < p->cap_stops)
		p->stops[p->nstops++] = s;
	pthread_mutex_unlock(&p->lock);
}

uint32_t eng_proc_stop_stacks(eng_proc *p, const eng_stop_stack **out)
{
	*out = p->stops;
	return p->nstops;
}

bool eng_thread_callers_changed(const eng_thread *t, const void **ips,
				uint32_t *n, uint32_t max)
{
	uint32_t i = 0, d = t->in_wasm ? 0 : t->depth;
	bool changed = false;

	for (; i < max && d-- && t->frames[d].ret_ip; i++)
		if (i >= *n || ips[i] != t->frames[d].ret_ip) {
			ips[i] = t->frames[d].ret_ip;
			changed = true;
		}
	changed |= i != *n;
	*n = i;
	return changed;
}

void eng_trap_c_stack(eng_trap *trap, const eng_thread *t, const eng_module *cm,
		      const eng_cell *pc)
{
	char what[96];
	size_t n;

	snprintf(what, sizeof what,
		 "stack overflow in thread %u (stack %u KiB)", t->id,
		 (t->sp_hi - t->sp_lo) / 1024);
	eng_trap_at(trap, ENG_TRAP_STACK, cm, pc, what);
	n = strlen(trap->msg);
	snprintf(
	    trap->msg + n, sizeof trap->msg - n, "; raise it with %s",
	    t->id ? "pthread_attr_setstacksize or __heisen_default_stack_size"
		  : "heisen cc -Wl,-z,stack-size=BYTES");
}

/* Append to buf (cap bytes, *n used), never past its end. */
static void put(char *buf, size_t cap, size_t *n, const char *s)
{
	size_t len = strlen(s);

	if (*n + 1 >= cap)
		return;
	if (len > cap - 1 - *n)
		len = cap - 1 - *n;
	memcpy(buf + *n, s, len);
	*n += len;
	buf[*n] = '\0';
}

/* "(i32, i64) -> (i32)" appended to buf. */
static void put_type(const wasm_functype *t, char *buf, size_t cap, size_t *n)
{
	put(buf, cap, n, "(");
	for (uint32_t i = 0; i < t->nparams + t->nresults; i++) {
		if (i == t->nparams)
			put(buf, cap, n, ") -> (");
		else if (i)
			put(buf, cap, n, ", ");
		put(buf, cap, n, wasm_type_name(t->types[i]));
	}
	put(buf, cap, n, t->nresults ? ")" : ") -> ()");
}

/* The type of inst's module whose canonical id is id (NULL if none). */
static const wasm_functype *type_of_id(const eng_instance *inst, uint32_t id)
{
	const wasm_module *m = inst->cm->m;

	for (uint32_t k = 0; k < m->ntypes; k++)
		if (inst->cm->type_ids[k] == id)
			return &m->types[k];
	return NULL;
}

void eng_indirect_detail(const eng_instance *inst, const eng_func *cf,
			 uint32_t want, char *buf, size_t cap)
{
	const wasm_functype *wt = type_of_id(inst, want);
	const wasm_str *nm = NULL;
	char name[96];
	size_t n = 0;

	if (cf->inst && cf->fn)
		nm = wasm_func_name(cf->inst->cm->m, cf->fn->index);
	if (nm)
		snprintf(name, sizeof name, "%.*s", (int)nm->len, nm->p);
	else
		snprintf(name, sizeof name, "%s", cf->name ? cf->name : "?");
	buf[0] = '\0';
	put(buf, cap, &n, "indirect call type mismatch: '");
	put(buf, cap, &n, name);
	put(buf, cap, &n, "' ");
	put_type(cf->type, buf, cap, &n);
	if (wt) {
		put(buf, cap, &n, " called through ");
		put_type(wt, buf, cap, &n);
	}
}

bool eng_indirect_adapt(const eng_instance *inst, const eng_func *cf,
			uint32_t want, uint32_t *nargs)
{
	const wasm_functype *wt = type_of_id(inst, want), *ct = cf->type;
	uint32_t shared;

	if (!wt || ct->nresults < wt->nresults)
		return false;
	shared = wt->nparams < ct->nparams ? wt->nparams : ct->nparams;
	for (uint32_t i = 0; i < shared; i++)
		if (wt->types[i] != ct->types[i])
			return false;
	/* The extra parameters start as zero slots: a number or a vector
	 * of zeros, never a reference the engine would follow. */
	for (uint32_t i = shared; i < ct->nparams; i++)
		if (ct->types[i] == WASM_FUNCREF ||
		    ct->types[i] == WASM_EXTERNREF)
			return false;
	for (uint32_t i = 0; i < wt->nresults; i++)
		if (wt->types[wt->nparams + i] != ct->types[ct->nparams + i])
			return false;
	*nargs = eng_slots(wt->types, wt->nparams);
	return true;
}

void eng_trap_at(eng_trap *trap, eng_trap_kind k, const eng_module *cm,
		 const eng_cell *pc, const char *detail)
{
	const eng_fn *fn = eng_fn_of_pc(cm, pc);
	const char *what = detail ? detail : eng_trap_name(k);

	trap->kind = k;
	trap->exit_code = 0;
	if (!fn) {
		trap->func = WASM_NO_FUNC;
		trap->offset = WASM_NO_OFFSET;
		snprintf(trap->msg, sizeof trap->msg, "%s", what);
		return;
	}
	trap->func = fn->index;
	trap->offset = pc_offset(fn, pc);
	{
		const wasm_str *nm = wasm_func_name(cm->m, fn->index);
		if (nm)
			snprintf(trap->msg, sizeof trap->msg,
				 "%s in function %u '%.*s' at offset 0x%zx",
				 what, fn->index, (int)nm->len, nm->p,
				 trap->offset);
		else
			snprintf(trap->msg, sizeof trap->msg,
				 "%s in function %u at offset 0x%zx", what,
				 fn->index, trap->offset);
	}
}
