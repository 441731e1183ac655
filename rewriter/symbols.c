/*
 * symbols.c - the address table of symbols.h.
 *
 * How it works: .debug_info is walked DIE by DIE, every unit in turn,
 * with each unit's abbreviations indexed once. Only the DIEs a size or a
 * name can come from are kept (variables, types, array subranges), in
 * section order, which is also offset order, so a DW_AT_type reference
 * is a binary search. Sizes are then resolved per variable, following
 * at most MAX_TYPE_DEPTH references (a cyclic or absurdly deep chain is
 * "unknown"). Variables and segments end up in two arrays sorted by
 * base address; each entry also keeps the furthest end of any entry at
 * or before it, so a lookup walks back only over entries that could
 * still cover the address.
 *
 * Robustness: every read is bounds-checked by rw_dcur; a DIE tree
 * deeper than MAX_DEPTH loses track of parents (arrays there get no
 * size), never memory.
 */
#include "rewriter/symbols.h"

#include "rewriter/dwarf.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH      64
#define MAX_TYPE_DEPTH 16

enum {
	TAG_ARRAY = 0x01,
	TAG_CLASS = 0x02,
	TAG_ENUM = 0x04,
	TAG_POINTER = 0x0f,
	TAG_REFERENCE = 0x10,
	TAG_STRUCT = 0x13,
	TAG_TYPEDEF = 0x16,
	TAG_UNION = 0x17,
	TAG_SUBRANGE = 0x21,
	TAG_BASE = 0x24,
	TAG_CONST = 0x26,
	TAG_VARIABLE = 0x34,
	TAG_VOLATILE = 0x35,
	TAG_RESTRICT = 0x37,
	TAG_RVALUE_REF = 0x42,
	TAG_ATOMIC = 0x47,
};

enum {
	AT_LOCATION = 0x02,
	AT_NAME = 0x03,
	AT_BYTE_SIZE = 0x0b,
	AT_LOWER_BOUND = 0x22,
	AT_UPPER_BOUND = 0x2f,
	AT_COUNT = 0x37,
	AT_SPECIFICATION = 0x47,
	AT_TYPE = 0x49,
};

#define OP_ADDR	 0x03
#define OP_PIECE 0x93

/* One piece of an object: [base, base + size) holds bytes [off, off +
 * size) of an object of `whole` bytes (a variable the optimiser split
 * into pieces, DW_OP_piece, has one entry per piece). */
typedef struct entry {
	uint32_t base, size, off, whole;
	uint64_t reach; /* furthest end of this and every earlier entry */
	char *name;
} entry;

typedef struct table {
	entry *v;
	size_t n, cap;
} table;

struct rw_symbols {
	table vars, segs;
	bool has_stack;
	uint32_t stack_lo, stack_hi; /* the main stack: [lo, hi) */
	bool has_heap;
	uint32_t heap_base;
};

/* ---- tables ------------------------------------------------------------ */

static bool table_add(table *t, uint32_t base, uint32_t size, uint32_t off,
		      uint32_t whole, const char *name, size_t len)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		entry *v = wasm_realloc(t->v, cap * sizeof *v);
		if (!v)
			return false;
		t->v = v;
		t->cap = cap;
	}
	if (!(t->v[t->n].name = wasm_strndup(name, len)))
		return false;
	t->v[t->n].base = base;
	t->v[t->n].size = size;
	t->v[t->n].off = off;
	t->v[t->n].whole = whole;
	t->n++;
	return true;
}

static int entry_cmp(const void *a, const void *b)
{
	const entry *x = a, *y = b;

	if (x->base != y->base)
		return x->base < y->base ? -1 : 1;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1; /* the larger first */
	return strcmp(x->name, y->name);
}

/* Sort, drop repeats (a variable described by two units), set reach. */
static void table_finish(table *t)
{
	size_t k = 0;
	uint64_t reach = 0;

	if (!t->n)
		return;
	qsort(t->v, t->n, sizeof *t->v, entry_cmp);
	for (size_t i = 0; i < t->n; i++) {
		entry *e = &t->v[i];
		uint64_t end = (uint64_t)e->base + (e->size ? e->size : 1);
		if (k && t->v[k - 1].base == e->base &&
		    !strcmp(t->v[k - 1].name, e->name)) {
			wasm_free(e->name);
			continue;
		}
		if (end > reach)
			reach = end;
		t->v[k] = *e;
		t->v[k++].reach = reach;
	}
	t->n = k;
}

/* The last entry covering addr, or NULL. */
static const entry *table_find(const table *t, uint32_t addr)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->v[mid].base <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0 && t->v[i].reach > addr;) {
		const entry *e = &t->v[i];
		if (addr - e->base < (e->size ? e->size : 1))
			return e;
	}
	return NULL;
}

static void table_free(table *t)
{
	for (size_t i = 0; i < t->n; i++)
		wasm_free(t->v[i].name);
	wasm_free(t->v);
}

/* ---- .debug_info --------------------------------------------------------- */

/* A kept DIE. Offsets are section offsets; 0 = none (no DIE sits at 0:
 * a unit header comes first). */
typedef struct die {
	uint64_t off, parent, type, spec;
	uint64_t size, count, upper, lower;
	const char *name;
	const uint8_t *loc; /* DW_AT_location's expression, into the module */
	uint64_t loc_len;
	uint16_t tag;
	uint8_t addrsz;
	bool has_size, has_count, has_upper;
} die;
_Static_assert(offsetof(die, off) == 0, "rw_dw_die_find reads off first");

typedef struct dies {
	die *v;
	size_t n, cap;
} dies;

static bool kept_tag(uint64_t tag)
{
	switch (tag) {
	case TAG_ARRAY:
	case TAG_CLASS:
	case TAG_ENUM:
	case TAG_POINTER:
	case TAG_REFERENCE:
	case TAG_STRUCT:
	case TAG_TYPEDEF:
	case TAG_UNION:
	case TAG_SUBRANGE:
	case TAG_BASE:
	case TAG_CONST:
	case TAG_VARIABLE:
	case TAG_VOLATILE:
	case TAG_RESTRICT:
	case TAG_RVALUE_REF:
	case TAG_ATOMIC: return true;
	}
	return false;
}

/* Read the attributes of one DIE (abbreviation ab) at cursor c into d. */
static void read_attrs(rw_dcur *c, const rw_dsecs *s, const rw_dw_abbrev *ab,
		       const rw_dw_unit *u, uint64_t unit, die *d)
{
	rw_dcur a = {.p = s->abbrev, .pos = ab->specs, .end = s->abbrev_len};
	uint64_t attr, form;
	rw_dw_val v;

	while (rw_dw_attr(&a, c, u, s, &attr, &form, &v)) {
		bool is_const;
		/* A size or bound can also be a reference or an expression
		 * (a variable-length array): unknown to us. */
		is_const = !v.block && !v.str && !rw_dw_ref(form, 1, 0);
		switch (attr) {
		case AT_NAME: d->name = v.str; break;
		case AT_TYPE: d->type = rw_dw_ref(form, v.u, unit); break;
		case AT_SPECIFICATION:
			d->spec = rw_dw_ref(form, v.u, unit);
			break;
		case AT_BYTE_SIZE:
			d->size = v.u;
			d->has_size = is_const;
			break;
		case AT_COUNT:
			d->count = v.u;
			d->has_count = is_const;
			break;
		case AT_UPPER_BOUND:
			d->upper = v.u;
			d->has_upper = is_const;
			break;
		case AT_LOWER_BOUND: d->lower = v.u; break;
		case AT_LOCATION:
			/* A location list (not a block) moves: not ours. */
			d->loc = v.block;
			d->loc_len = v.block ? v.u : 0;
			break;
		}
	}
	if (a.bad)
		rw_dc_fail(c, c->pos, "malformed abbreviation");
}

static bool dies_push(dies *t, const die *d)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 256;
		die *v = wasm_realloc(t->v, cap * sizeof *v);
		if (!v)
			return false;
		t->v = v;
		t->cap = cap;
	}
	t->v[t->n++] = *d;
	return true;
}

/* What read_unit keeps: every kept DIE of .debug_info. */
typedef struct walk {
	const rw_dsecs *s;
	dies *out;
	bool nomem;
} walk;

/* Every kept DIE of the unit at c, up to c->end (rw_dw_unit_fn). */
static bool read_unit(void *ctx, rw_dcur *c, const rw_dw_unit *u, uint64_t unit,
		      const rw_dw_abbrevs *ab)
{
	walk *w = ctx;
	uint64_t parents[MAX_DEPTH], off;
	const rw_dw_abbrev *a;
	int depth = 0;

	while (rw_dw_die_next(c, ab, &depth, &off, &a)) {
		die d = {.off = off, .addrsz = (uint8_t)u->addrsz};
		read_attrs(c, w->s, a, u, unit, &d);
		d.tag = (uint16_t)a->tag;
		d.parent =
		    depth > 0 && depth <= MAX_DEPTH ? parents[depth - 1] : 0;
		if (!c->bad && kept_tag(a->tag) && !dies_push(w->out, &d)) {
			w->nomem = true;
			return false;
		}
		if (a->children) {
			if (depth < MAX_DEPTH)
				parents[depth] = off;
			depth++;
		}
	}
	return true;
}

static const die *die_at(const dies *t, uint64_t off)
{
	return rw_dw_die_find(t->v, t->n, sizeof *t->v, off);
}

/* Bytes of the type at off; 0 when unknown. */
static uint64_t type_size(const dies *t, uint64_t off, int depth)
{
	const die *d = die_at(t, off);
	uint64_t n, elems = 1;

	if (!d || depth > MAX_TYPE_DEPTH)
		return 0;
	if (d->has_size)
		return d->size;
	switch (d->tag) {
	case TAG_TYPEDEF:
	case TAG_CONST:
	case TAG_VOLATILE:
	case TAG_RESTRICT:
	case TAG_ATOMIC: return type_size(t, d->type, depth + 1);
	case TAG_POINTER:
	case TAG_REFERENCE:
	case TAG_RVALUE_REF: return d->addrsz;
	case TAG_ARRAY:
		/* Its subranges are the kept DIEs right after it. */
		for (const die *r = d + 1;
		     r < t->v + t->n && r->parent == d->off; r++) {
			if (r->tag != TAG_SUBRANGE)
				continue;
			if (r->has_count)
				n = r->count;
			else if (r->has_upper && r->upper >= r->lower)
				n = r->upper - r->lower + 1;
			else
				return 0; /* a flexible array member */
			if (n && elems > UINT32_MAX / n)
				return 0;
			elems *= n;
		}
		n = type_size(t, d->type, depth + 1);
		return n && elems <= UINT32_MAX / n ? n * elems : 0;
	}
	return 0;
}

/* The pieces of a fixed-address location: DW_OP_addr ADDR alone, or
 * (DW_OP_addr ADDR)? DW_OP_piece N repeated (a piece without an address
 * was optimised away). Anything else has no fixed address: nothing is
 * added. Sets *nomem when out of memory. */
static void add_pieces(const die *d, const char *name, uint32_t whole,
		       table *vars, bool *nomem)
{
	rw_dcur c = {.p = d->loc, .end = (size_t)d->loc_len};
	uint64_t off = 0, addr = 0;
	bool have = false, any = false;
	size_t len = strlen(name);

	while (!c.bad && c.pos < c.end) {
		uint8_t op = rw_dc_u8(&c);
		if (op == OP_ADDR && !have) {
			addr = rw_dc_uint(&c, d->addrsz);
			have = true;
			continue;
		}
		if (op != OP_PIECE)
			return;
		uint64_t n = rw_dc_uleb(&c);
		/* 0 and ~0 are the tombstones of discarded data. */
		if (have && addr && addr < UINT32_MAX && n &&
		    n <= UINT32_MAX - addr && off < UINT32_MAX) {
			if (!table_add(vars, (uint32_t)addr, (uint32_t)n,
				       (uint32_t)off, whole, name, len)) {
				*nomem = true;
				return;
			}
			any = true;
		}
		off += n;
		have = false;
	}
	/* Otherwise pieces were added, or a piece list ends without one. */
	if (c.bad || !have || any || !addr || addr >= UINT32_MAX)
		return;
	if (whole > UINT32_MAX - addr)
		whole = 0;
	if (!table_add(vars, (uint32_t)addr, whole, 0, whole, name, len))
		*nomem = true;
}

static bool add_variables(const dies *t, table *vars)
{
	bool nomem = false;

	for (size_t i = 0; i < t->n && !nomem; i++) {
		const die *d = &t->v[i], *spec;
		const char *name = d->name;
		uint64_t type = d->type, size;
		if (d->tag != TAG_VARIABLE || !d->loc)
			continue;
		if ((spec = die_at(t, d->spec))) {
			if (!name)
				name = spec->name;
			if (!type)
				type = spec->type;
		}
		if (!name)
			continue;
		size = type_size(t, type, 0);
		add_pieces(d, name, size <= UINT32_MAX ? (uint32_t)size : 0,
			   vars, &nomem);
	}
	return !nomem;
}

static wasm_status read_info(const wasm_module *m, table *vars, wasm_err *err)
{
	rw_dsecs s;
	rw_dcur c;
	dies t = {0};
	walk w = {&s, &t, false};
	wasm_status st = WASM_OK;

	rw_dw_sections(m, &s);
	if (!s.info)
		return WASM_OK;
	if (rw_dw_units(&s, &c, read_unit, &w) || w.nomem) {
		st = WASM_NOMEM;
		goto done;
	}
	if (c.bad) {
		err->section = ".debug_info";
		err->func = WASM_NO_FUNC;
		st = wasm_err_set(err, WASM_MALFORMED, c.at,
				  "malformed .debug_info: %s", c.why);
		goto done;
	}
	if (!add_variables(&t, vars))
		st = WASM_NOMEM;
done:
	wasm_free(t.v);
	return st;
}

/* ---- names, segments, the stack ----------------------------------------- */

/* Name of index idx in subsection `id` of the name section (7 globals, 9
 * data segments): pointer into the module and length, or NULL. */
static const char *name_of(const wasm_module *m, uint8_t id, uint32_t idx,
			   size_t *len)
{
	size_t n;
	const uint8_t *p = rw_custom_bytes(m, "name", &n);
	rw_dcur c = {.p = p, .end = n};

	while (p && !c.bad && c.pos < c.end) {
		uint8_t sub = rw_dc_u8(&c);
		uint64_t size = rw_dc_uleb(&c), count;
		size_t next = c.pos + (size_t)size;
		if (c.bad || size > c.end - c.pos)
			return NULL;
		if (sub != id) {
			c.pos = next;
			continue;
		}
		c.end = next;
		count = rw_dc_uleb(&c);
		for (uint64_t i = 0; i < count && !c.bad; i++) {
			uint64_t k = rw_dc_uleb(&c), l = rw_dc_uleb(&c);
			size_t at = c.pos;
			rw_dc_skip(&c, l);
			if (!c.bad && k == idx) {
				*len = (size_t)l;
				return (const char *)p + at;
			}
		}
		return NULL;
	}
	return NULL;
}

/* The value of a constant expression that is one i32.const. */
static bool const_i32(const wasm_module *m, const wasm_expr *e, uint32_t *out)
{
	wasm_reader r;
	wasm_instr in;
	wasm_err err;
	bool ok;

	wasm_reader_init(&r, m->bytes, e->start, e->end);
	ok = r.pos < r.end && !wasm_reader_next(&r, &in, &err) &&
	     in.op == WASM_OP_I32_CONST;
	wasm_reader_fini(&r);
	if (ok)
		*out = (uint32_t)in.u.i32;
	return ok;
}

static bool add_segment(const wasm_module *m, table *segs, uint32_t idx,
			uint32_t base, uint32_t len)
{
	size_t n;
	const char *name = name_of(m, 9, idx, &n);

	if (!name || !len || len > UINT32_MAX - base)
		return true; /* unnamed: nothing to call it */
	return table_add(segs, base, len, 0, len, name, n);
}

/* A value of the start function's operand stack, as far as a straight
 * scan can follow it. */
typedef struct kval {
	bool known;
	uint32_t v;
} kval;

#define KSTACK 32

typedef struct kstack {
	kval v[KSTACK];
	int n;
} kstack;

static kval kpop(kstack *k) { return k->n ? k->v[--k->n] : (kval){0}; }

static void kpush(kstack *k, kval v)
{
	/* Deeper than anything memory.init needs: forget the bottom. */
	if (k->n == KSTACK) {
		memmove(k->v, k->v + 1, (KSTACK - 1) * sizeof *k->v);
		k->n--;
	}
	k->v[k->n++] = v;
}

/* The stack effect of an instruction whose values we do not follow:
 * its signature's operands popped, unknown results pushed. */
static void keffect(kstack *k, const wasm_module *m, const wasm_instr *in)
{
	const char *sig = wasm_op_info(in->op)->sig;
	const wasm_functype *ft = NULL;
	uint32_t pop = 0, push = 0;

	if (sig) {
		const char *gt = strchr(sig, '>'); /* "" for nop */
		pop = gt ? (uint32_t)(gt - sig) : 0;
		push = gt ? (uint32_t)strlen(gt + 1) : 0;
	} else {
		switch (in->op) {
		case WASM_OP_IF:
		case WASM_OP_BR_IF:
		case WASM_OP_BR_TABLE:
		case WASM_OP_DROP:
		case WASM_OP_GLOBAL_SET: pop = 1; break;
		case WASM_OP_GLOBAL_GET: push = 1; break;
		case WASM_OP_SELECT:
		case WASM_OP_SELECT_T:
			pop = 3;
			push = 1;
			break;
		case WASM_OP_CALL: ft = wasm_func_type(m, in->u.idx); break;
		case WASM_OP_CALL_INDIRECT:
			pop = 1;
			if (in->u.idx2.a < m->ntypes)
				ft = &m->types[in->u.idx2.a];
			break;
		case WASM_OP_BLOCK:
		case WASM_OP_LOOP:
		case WASM_OP_ELSE:
		case WASM_OP_END:
		case WASM_OP_BR: break;
		default: k->n = 0; return;
		}
		if (ft) {
			pop += ft->nparams;
			push = ft->nresults;
		}
	}
	for (uint32_t i = 0; i < pop; i++)
		kpop(k);
	for (uint32_t i = 0; i < push && i < KSTACK; i++)
		kpush(k, (kval){0});
}

/* Passive segments: the memory.init (and .bss's memory.fill) calls of
 * the start function with constant operands. Constants are followed
 * through the operand stack and locals, every other value is unknown,
 * and branches are read as straight code: enough for wasm-ld's
 * __wasm_init_memory and for the probes the rewriter puts in front of
 * its calls (operands stashed in locals, restored after the probe). */
static bool scan_start(const wasm_module *m, table *segs, uint32_t *data_lo,
		       uint32_t *data_end)
{
	const wasm_func *f;
	const wasm_functype *ft;
	wasm_reader r;
	wasm_instr in;
	wasm_err err;
	kstack k = {.n = 0};
	kval *loc;
	uint64_t nloc;
	bool ok = true;

	if (!m->has_start || m->start < m->nfunc_imports ||
	    m->start - m->nfunc_imports >= m->nfuncs)
		return true;
	f = &m->funcs[m->start - m->nfunc_imports];
	ft = wasm_func_type(m, m->start);
	nloc = f->nlocals + (ft ? ft->nparams : 0);
	if (nloc > 4096)
		nloc = 4096;
	if (!(loc = wasm_calloc(nloc ? nloc : 1, sizeof *loc)))
		return false;
	wasm_reader_init(&r, m->bytes, f->code_start, f->code_end);
	while (ok && r.pos < r.end && !wasm_reader_next(&r, &in, &err)) {
		kval d, v, n;
		switch (in.op) {
		case WASM_OP_I32_CONST:
			kpush(&k, (kval){true, (uint32_t)in.u.i32});
			break;
		case WASM_OP_LOCAL_GET:
			kpush(&k, in.u.idx < nloc ? loc[in.u.idx] : (kval){0});
			break;
		case WASM_OP_LOCAL_SET:
		case WASM_OP_LOCAL_TEE:
			v = kpop(&k);
			if (in.u.idx < nloc)
				loc[in.u.idx] = v;
			if (in.op == WASM_OP_LOCAL_TEE)
				kpush(&k, v);
			break;
		case WASM_OP_MEMORY_INIT:
		case WASM_OP_MEMORY_FILL:
			n = kpop(&k); /* length */
			v = kpop(&k); /* source, or the byte to fill with */
			d = kpop(&k); /* destination */
			if (!d.known || !n.known || !n.v ||
			    n.v > UINT32_MAX - d.v)
				break;
			if (d.v + n.v > *data_end)
				*data_end = d.v + n.v;
			if (d.v < *data_lo)
				*data_lo = d.v;
			if (in.op == WASM_OP_MEMORY_INIT)
				ok =
				    add_segment(m, segs, in.u.idx2.a, d.v, n.v);
			else if (v.known && !v.v)
				/* wasm-ld zeroes its .bss so for a shared
				 * memory, where it cannot be a segment. */
				ok = table_add(segs, d.v, n.v, 0, n.v, ".bss",
					       4);
			break;
		default: keffect(&k, m, &in); break;
		}
	}
	wasm_reader_fini(&r);
	wasm_free(loc);
	return ok;
}

/* The initial value of __stack_pointer: the global of that name, else
 * wasm-ld's global 0 when it is a defined mutable i32. */
static bool stack_pointer(const wasm_module *m, uint32_t *out)
{
	uint32_t nglobals = wasm_global_count(m), idx = UINT32_MAX;
	const wasm_global *g;

	for (uint32_t i = 0; i < nglobals; i++) {
		size_t n;
		const char *name = name_of(m, 7, i, &n);
		if (name && n == 15 && !memcmp(name, "__stack_pointer", 15)) {
			idx = i;
			break;
		}
	}
	if (idx == UINT32_MAX)
		idx = 0;
	if (idx < m->nglobal_imports || idx - m->nglobal_imports >= m->nglobals)
		return false;
	g = &m->globals[idx - m->nglobal_imports];
	return g->type.mut && g->type.type == WASM_I32 &&
	       const_i32(m, &g->init, out);
}

/* The program's memory: the first one that is not heisen.mask, which an
 * instrumented module imports in front of a memory it defines. */
static uint32_t program_memory(const wasm_module *m)
{
	uint32_t mem = 0;

	for (uint32_t i = 0; i < m->nimports; i++) {
		const wasm_import *imp = &m->imports[i];
		if (imp->kind != WASM_EXTERN_MEMORY)
			continue;
		if (imp->module.len != 6 ||
		    memcmp(imp->module.p, "heisen", 6) || imp->name.len != 4 ||
		    memcmp(imp->name.p, "mask", 4))
			return mem;
		mem++;
	}
	return mem;
}

static bool read_layout(const wasm_module *m, rw_symbols *s)
{
	uint32_t end = 0, lo = UINT32_MAX, sp, mem = program_memory(m);

	for (uint32_t i = 0; i < m->ndatas; i++) {
		const wasm_data *d = &m->datas[i];
		uint32_t base;
		if (d->mode != WASM_SEG_ACTIVE || d->mem != mem ||
		    !const_i32(m, &d->offset, &base) || !d->len ||
		    d->len > UINT32_MAX - base)
			continue;
		if (base + d->len > end)
			end = base + d->len;
		if (base < lo)
			lo = base;
		if (!add_segment(m, &s->segs, i, base, d->len))
			return false;
	}
	if (!scan_start(m, &s->segs, &lo, &end))
		return false;
	s->has_heap = true;
	s->heap_base = end;
	if (!stack_pointer(m, &sp))
		return true;
	s->has_stack = true;
	if (sp > end) {
		/* wasm-ld's default: data, then the stack, then the heap. */
		s->stack_lo = end;
		s->stack_hi = sp;
		s->heap_base = sp;
	} else if (sp <= lo) {
		s->stack_lo = 0; /* --stack-first */
		s->stack_hi = sp;
	} else {
		s->has_stack = false; /* a layout we do not know */
	}
	return true;
}

/* ---- public ----------------------------------------------------------------
 */

wasm_status rw_symbols_new(const wasm_module *m, rw_symbols **out,
			   wasm_err *err)
{
	rw_symbols *s = wasm_calloc(1, sizeof *s);
	wasm_status st;

	*out = NULL;
	if (!s)
		return wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				    "out of memory for the symbol table");
	if ((st = read_info(m, &s->vars, err)))
		goto fail;
	if (!read_layout(m, s)) {
		st = WASM_NOMEM;
		goto fail;
	}
	table_finish(&s->vars);
	table_finish(&s->segs);
	*out = s;
	return WASM_OK;
fail:
	rw_symbols_free(s);
	if (st == WASM_NOMEM)
		wasm_err_set(err, st, WASM_NO_OFFSET,
			     "out of memory for the symbol table");
	return st;
}

void rw_symbols_free(rw_symbols *s)
{
	if (!s)
		return;
	table_free(&s->vars);
	table_free(&s->segs);
	wasm_free(s);
}

bool rw_symbols_lookup(const rw_symbols *s, uint32_t addr, rw_symbol *out)
{
	const entry *e;

	memset(out, 0, sizeof *out);
	if (!s)
		return false;
	if ((e = table_find(&s->vars, addr)))
		out->region = RW_REGION_GLOBAL;
	else if ((e = table_find(&s->segs, addr)))
		out->region = RW_REGION_SEGMENT;
	if (e) {
		out->name = e->name;
		out->offset = addr - e->base + e->off;
		out->size = e->whole;
		return true;
	}
	if (s->has_stack && addr >= s->stack_lo && addr < s->stack_hi) {
		out->region = RW_REGION_STACK;
		out->offset = addr - s->stack_lo;
		out->size = s->stack_hi - s->stack_lo;
		return true;
	}
	if (s->has_heap && addr >= s->heap_base) {
		out->region = RW_REGION_HEAP;
		out->offset = addr - s->heap_base;
		return true;
	}
	return false;
}

uint32_t rw_symbols_count(const rw_symbols *s)
{
	return s ? (uint32_t)s->vars.n : 0;
}
