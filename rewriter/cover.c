/*
 * cover.c - reads a later store of the same stretch makes redundant for a
 * happens-before check (cover.h): one walk of each function's original
 * body over an abstract operand stack.
 */
#include "rewriter/cover.h"
#include "rewriter/scan.h"

#include <string.h>

/* Abstract values deeper than this, and loads waiting for their store
 * beyond this, are forgotten: the common stretch is a few instructions
 * of one expression. */
#define MAX_STACK   256u
#define MAX_PENDING 32u

/* A value: base 0 is "a constant", any other base one value computed in
 * this walk (a fresh one each time the walk cannot tell values apart);
 * add is an i32 constant added to it (mod 2^32). */
typedef struct val {
	uint32_t base, add;
} val;

/* A local's value, valid while epoch is the walk's: every barrier and
 * every function starts a new epoch, so no local is cleared by hand. */
typedef struct local_val {
	val v;
	uint32_t epoch;
} local_val;

/* A plain load site not yet covered, in this stretch. */
typedef struct pending {
	uint32_t site;
	uint32_t mem;
	val addr;
	uint64_t offset;
	uint8_t width;
} pending;

struct rw_cover {
	rw_scan scan;
	/* Operands each opcode pops and pushes, from its signature; 0xff for
	 * those the walk treats as barriers (no signature: control, calls,
	 * tables; and every atomic). */
	uint8_t pops[WASM_OP_COUNT], pushes[WASM_OP_COUNT];
	val stack[MAX_STACK];
	uint32_t sp;
	pending pend[MAX_PENDING];
	uint32_t npend;
	local_val *locals;
	size_t nlocals_cap;
	uint32_t fresh, epoch;
	bool full;
	uint32_t first; /* site id of this function's first site */
};

#define BARRIER 0xffu

rw_cover *rw_cover_new(void)
{
	rw_cover *c = wasm_calloc(1, sizeof *c);

	if (!c)
		return NULL;
	rw_scan_init(&c->scan);
	for (int op = 0; op < WASM_OP_COUNT; op++) {
		const wasm_opinfo *oi = wasm_op_info((wasm_op)op);
		const char *s = oi->sig, *gt;
		if (!s ||
		    (oi->flags & (WASM_F_CTRL | WASM_F_CALL | WASM_F_ATOMIC |
				  WASM_F_SYNC)) ||
		    !(gt = strchr(s, '>'))) {
			c->pops[op] = c->pushes[op] = BARRIER;
			continue;
		}
		c->pops[op] = (uint8_t)(gt - s);
		c->pushes[op] = (uint8_t)strlen(gt + 1);
	}
	return c;
}

void rw_cover_free(rw_cover *c)
{
	if (!c)
		return;
	wasm_free(c->locals);
	wasm_free(c);
}

/* A new value. Ids restart per function (no value outlives one); a body
 * with more values than ids (billions) would make two of them equal, so
 * the walk is then full: it marks nothing more. */
static val fresh(rw_cover *c)
{
	if (c->fresh == UINT32_MAX)
		c->full = true;
	else
		c->fresh++;
	return (val){c->fresh, 0};
}

/* Nothing before this point is known any more: the stack's values, the
 * locals' and the loads waiting. */
static void barrier(rw_cover *c)
{
	c->sp = 0;
	c->npend = 0;
	if (++c->epoch == UINT32_MAX) {
		memset(c->locals, 0, c->nlocals_cap * sizeof *c->locals);
		c->epoch = 1;
	}
}

/* Below the values pushed since the last barrier is what the walk never
 * saw: a fresh value each. */
static val pop(rw_cover *c) { return c->sp ? c->stack[--c->sp] : fresh(c); }

static void push(rw_cover *c, val v)
{
	if (c->sp == MAX_STACK) {
		barrier(c);
		return;
	}
	c->stack[c->sp++] = v;
}

/* The address operand of an access popping n operands (it is the first). */
static val address(rw_cover *c, uint32_t n)
{
	return c->sp >= n ? c->stack[c->sp - n] : fresh(c);
}

static val local_get(rw_cover *c, uint32_t idx)
{
	local_val *l = &c->locals[idx];

	if (l->epoch != c->epoch) {
		l->v = fresh(c);
		l->epoch = c->epoch;
	}
	return l->v;
}

static void local_set(rw_cover *c, uint32_t idx, val v)
{
	c->locals[idx] = (local_val){v, c->epoch};
}

static val add(rw_cover *c, val a, val b, bool sub)
{
	if (b.base == 0)
		return (val){a.base, sub ? a.add - b.add : a.add + b.add};
	if (a.base == 0 && !sub)
		return (val){b.base, a.add + b.add};
	return fresh(c);
}

/* A plain store, site w, of width bytes at addr + offset: the first
 * waiting load whose bytes it includes is covered (a store checks one
 * read of its own; the others wait for another store). */
static void store(rw_cover *c, rw_site *sites, uint32_t w, uint32_t mem,
		  val addr, uint64_t offset, uint8_t width)
{
	if (c->full)
		return;
	for (uint32_t i = 0; i < c->npend; i++) {
		const pending *p = &c->pend[i];
		if (p->mem == mem && p->addr.base == addr.base &&
		    p->addr.add == addr.add && p->offset >= offset &&
		    p->offset + p->width <= offset + width) {
			rw_site *r = &sites[p->site];
			r->covered = true;
			r->cover_at = (uint8_t)(p->offset - offset);
			r->covered_by = c->first + w;
			c->pend[i] = c->pend[--c->npend];
			return;
		}
	}
}

static void load(rw_cover *c, uint32_t site, uint32_t mem, val addr,
		 uint64_t offset, uint8_t width)
{
	if (c->npend == MAX_PENDING)
		return;
	c->pend[c->npend++] = (pending){site, mem, addr, offset, width};
}

void rw_cover_func(rw_cover *c, const wasm_module *m, uint32_t defined,
		   rw_site *sites, uint32_t first, uint32_t nsites)
{
	const wasm_func *f = &m->funcs[defined];
	size_t nlocals = (size_t)m->types[f->type].nparams + f->nlocals;
	const uint8_t *p = m->bytes + f->code_start;
	const uint8_t *end = m->bytes + f->code_end;
	uint32_t next = 0;
	wasm_instr in = {0};

	if (!c || !nsites)
		return;
	if (nlocals > c->nlocals_cap) {
		local_val *l = wasm_malloc(nlocals * sizeof *l);
		if (!l)
			return;
		wasm_free(c->locals);
		c->locals = l;
		c->nlocals_cap = nlocals;
		/* Epochs start above a new array's. */
		memset(l, 0, nlocals * sizeof *l);
		c->epoch = 0;
	}
	barrier(c);
	c->fresh = 0;
	c->full = false;
	c->first = first;
	while (p < end && !c->full) {
		if (!rw_scan_next(&c->scan, m->bytes, &p, end, &in)) {
			barrier(c);
			continue;
		}
		const wasm_opinfo *oi = wasm_op_info(in.op);
		uint32_t site = UINT32_MAX;

		while (next < nsites && sites[next].offset < in.offset)
			next++;
		if (next < nsites && sites[next].offset == in.offset)
			site = next;
		switch (in.op) {
		case WASM_OP_LOCAL_GET:
			if (in.u.idx >= nlocals)
				return;
			push(c, local_get(c, in.u.idx));
			continue;
		case WASM_OP_LOCAL_SET:
		case WASM_OP_LOCAL_TEE: {
			val v = pop(c);
			if (in.u.idx >= nlocals)
				return;
			local_set(c, in.u.idx, v);
			if (in.op == WASM_OP_LOCAL_TEE)
				push(c, v);
			continue;
		}
		case WASM_OP_GLOBAL_GET: push(c, fresh(c)); continue;
		case WASM_OP_GLOBAL_SET:
		case WASM_OP_DROP: pop(c); continue;
		case WASM_OP_SELECT:
		case WASM_OP_SELECT_T:
			pop(c);
			pop(c);
			pop(c);
			push(c, fresh(c));
			continue;
		case WASM_OP_I32_CONST:
			push(c, (val){0, (uint32_t)in.u.i32});
			continue;
		case WASM_OP_I32_ADD:
		case WASM_OP_I32_SUB: {
			val b = pop(c), a = pop(c);
			push(c, add(c, a, b, in.op == WASM_OP_I32_SUB));
			continue;
		}
		default: break;
		}
		if (c->pops[in.op] == BARRIER) {
			barrier(c);
			continue;
		}
		if (oi->flags & (WASM_F_LOAD | WASM_F_STORE)) {
			val a = address(c, c->pops[in.op]);
			uint32_t mem = in.u.mem.m.mem;
			uint64_t off = in.u.mem.m.offset;
			if ((oi->flags & WASM_F_STORE) && oi->width &&
			    site != UINT32_MAX)
				store(c, sites, site, mem, a, off, oi->width);
			else if (site != UINT32_MAX &&
				 sites[site].kind == RW_READ && oi->width)
				load(c, site, mem, a, off, oi->width);
		}
		for (uint32_t k = 0; k < c->pops[in.op]; k++)
			pop(c);
		for (uint32_t k = 0; k < c->pushes[in.op]; k++)
			push(c, fresh(c));
	}
}
