/*
 * inline.c - the inlined-frame table of inline.h.
 *
 * How it works: .debug_info is walked DIE by DIE, unit by unit (each
 * unit's abbreviations indexed once; its DIE read twice, first for the
 * bases its strx/addrx forms need, then for its line table and base
 * address). Every DW_TAG_subprogram is kept with what names it
 * (name, linkage name, abstract origin, specification); every
 * DW_TAG_inlined_subroutine becomes a record (its call position, its
 * origin, the record of the nearest inlined subroutine around it) and
 * one range per code range. Once all units are read, each record's name
 * is resolved through the kept subprograms (sorted by offset, as the
 * walk met them), following at most MAX_HOPS references; the
 * subprograms are then dropped. Ranges are sorted by start, each with
 * the furthest end of any range at or before it, so a lookup walks back
 * only over ranges that may still cover the offset, and takes the
 * deepest record covering it: its parents are the rest of the chain.
 *
 * Robustness: every read goes through rw_dcur; a reference that leads
 * nowhere, a loop of references, a nesting deeper than MAX_DEPTH or a
 * broken range list only loses names or ranges. The number of ranges is
 * capped (a range list can be referenced by any number of DIEs).
 */
#include "rewriter/inline.h"

#include "rewriter/dwarf.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH  64
#define MAX_HOPS   8
#define MAX_RANGES (1u << 20)
#define NONE	   UINT32_MAX

enum {
	TAG_COMPILE_UNIT = 0x11,
	TAG_PARTIAL_UNIT = 0x3c,
	TAG_INLINED = 0x1d,
	TAG_SUBPROGRAM = 0x2e,
};

enum {
	AT_NAME = 0x03,
	AT_STMT_LIST = 0x10,
	AT_LOW_PC = 0x11,
	AT_HIGH_PC = 0x12,
	AT_ABSTRACT_ORIGIN = 0x31,
	AT_SPECIFICATION = 0x47,
	AT_RANGES = 0x55,
	AT_CALL_COLUMN = 0x57,
	AT_CALL_FILE = 0x58,
	AT_CALL_LINE = 0x59,
	AT_LINKAGE_NAME = 0x6e,
	AT_MIPS_LINKAGE_NAME = 0x2007, /* what DWARF 2..3 producers wrote */
};

/* An inlined subroutine. */
typedef struct inrec {
	uint64_t origin;       /* section offset of its abstract origin, 0 */
	const char *name;      /* its own name when it has one, then the
				  origin's once resolved */
	const char *call_file; /* into the srcmap */
	uint32_t call_line, call_column;
	uint32_t parent;  /* record of the inlined subroutine around it */
	uint32_t depth;	  /* inlined subroutines around it */
	uint64_t sub;	  /* section offset of the subprogram around it */
	const char *func; /* that subprogram's name, once resolved */
} inrec;

/* One code range of a record, in file offsets. */
typedef struct inrange {
	uint64_t lo, hi;
	uint64_t reach; /* furthest hi of this and every earlier range */
	uint32_t rec;
} inrange;

struct rw_inline {
	inrec *rec;
	size_t nrec, reccap;
	inrange *rng; /* sorted by lo */
	size_t nrng, rngcap;
};

/* A subprogram, for names. */
typedef struct sub {
	uint64_t off, origin, spec;
	const char *name, *linkage;
} sub;
_Static_assert(offsetof(sub, off) == 0, "rw_dw_die_find reads off first");

typedef struct subs {
	sub *v;
	size_t n, cap;
} subs;

/* What one DIE says that we use. */
typedef struct dieattrs {
	const char *name, *linkage;
	uint64_t origin, spec;
	uint64_t low, high, ranges, ranges_form, stmt_list;
	uint64_t call_file, call_line, call_column;
	bool has_low, has_high, high_is_addr, has_ranges, has_stmt;
	bool has_call_file;
} dieattrs;

/* The build's state across units. */
typedef struct build {
	const rw_dsecs *s;
	const rw_srcmap *files;
	rw_inline *t;
	subs subs;
	uint64_t code_start; /* file offset of the code section's payload */
	uint32_t cur;	     /* the record whose ranges are being added */
	wasm_status st;	     /* WASM_NOMEM / WASM_LIMIT from a callback */
} build;

static void read_die(rw_dcur *c, const rw_dsecs *s, const rw_dw_abbrev *ab,
		     const rw_dw_unit *u, uint64_t unit, dieattrs *d)
{
	rw_dcur a = {.p = s->abbrev, .pos = ab->specs, .end = s->abbrev_len};
	uint64_t attr, form;
	rw_dw_val v;

	memset(d, 0, sizeof *d);
	while (rw_dw_attr(&a, c, u, s, &attr, &form, &v)) {
		/* An index we could not resolve is no value. */
		bool known = !v.index;
		switch (attr) {
		case AT_NAME: d->name = v.str; break;
		case AT_LINKAGE_NAME:
		case AT_MIPS_LINKAGE_NAME: d->linkage = v.str; break;
		case AT_ABSTRACT_ORIGIN:
			d->origin = rw_dw_ref(form, v.u, unit);
			break;
		case AT_SPECIFICATION:
			d->spec = rw_dw_ref(form, v.u, unit);
			break;
		case AT_LOW_PC:
			d->low = v.u;
			d->has_low = known;
			break;
		case AT_HIGH_PC:
			d->high = v.u;
			d->has_high = known;
			d->high_is_addr = rw_dw_form_is_addr(form);
			break;
		case AT_RANGES:
			d->ranges = v.u;
			d->ranges_form = form;
			d->has_ranges = true;
			break;
		case AT_STMT_LIST:
			d->stmt_list = v.u;
			d->has_stmt = true;
			break;
		case AT_CALL_FILE:
			d->call_file = v.u;
			d->has_call_file = true;
			break;
		case AT_CALL_LINE: d->call_line = v.u; break;
		case AT_CALL_COLUMN: d->call_column = v.u; break;
		}
	}
	if (a.bad)
		rw_dc_fail(c, c->pos, "malformed abbreviation");
}

/* Record range [lo, hi) of DWARF addresses for b->cur. */
static bool add_range(void *ctx, uint64_t lo, uint64_t hi)
{
	build *b = ctx;
	rw_inline *t = b->t;

	/* 0 is the code section's function count, never code; wasm-ld
	 * moves discarded code to its tombstones. */
	if (lo == 0 || lo >= 0xfffffff0 || hi <= lo || hi > UINT32_MAX)
		return true;
	if (t->nrng == MAX_RANGES) {
		b->st = WASM_LIMIT;
		return false;
	}
	if (t->nrng == t->rngcap) {
		size_t cap = t->rngcap ? 2 * t->rngcap : 64;
		inrange *v = wasm_realloc(t->rng, cap * sizeof *v);
		if (!v) {
			b->st = WASM_NOMEM;
			return false;
		}
		t->rng = v;
		t->rngcap = cap;
	}
	t->rng[t->nrng++] =
	    (inrange){b->code_start + lo, b->code_start + hi, 0, b->cur};
	return true;
}

static bool add_sub(subs *t, uint64_t off, const dieattrs *d)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		sub *v = wasm_realloc(t->v, cap * sizeof *v);
		if (!v)
			return false;
		t->v = v;
		t->cap = cap;
	}
	t->v[t->n++] = (sub){off, d->origin, d->spec, d->name, d->linkage};
	return true;
}

/* What encloses a DIE: the nearest inlined subroutine's record and
 * subprogram's offset. */
typedef struct around {
	uint32_t rec;
	uint64_t sub;
} around;

/* A record for the inlined subroutine d (in unit u, whose line table is
 * at stmt, has_stmt), inside `in`; its ranges. False when the build must
 * stop (b->st says why). */
static bool add_inlined(build *b, const rw_dw_unit *u, const dieattrs *d,
			uint64_t stmt, bool has_stmt, uint64_t base, around in)
{
	rw_inline *t = b->t;
	inrec *r;

	if (t->nrec == NONE) {
		b->st = WASM_LIMIT;
		return false;
	}
	if (t->nrec == t->reccap) {
		size_t cap = t->reccap ? 2 * t->reccap : 64;
		inrec *v = wasm_realloc(t->rec, cap * sizeof *v);
		if (!v) {
			b->st = WASM_NOMEM;
			return false;
		}
		t->rec = v;
		t->reccap = cap;
	}
	r = &t->rec[t->nrec];
	memset(r, 0, sizeof *r);
	r->origin = d->origin;
	r->name = d->linkage ? d->linkage : d->name;
	if (has_stmt && d->has_call_file)
		r->call_file = rw_srcmap_file(b->files, stmt, d->call_file);
	r->call_line = d->call_line <= UINT32_MAX ? (uint32_t)d->call_line : 0;
	r->call_column =
	    d->call_column <= UINT32_MAX ? (uint32_t)d->call_column : 0;
	r->parent = in.rec;
	r->depth = in.rec == NONE ? 0 : t->rec[in.rec].depth + 1;
	r->sub = in.sub;
	b->cur = (uint32_t)t->nrec++;
	if (d->has_low && d->has_high)
		return add_range(b, d->low,
				 d->high_is_addr ? d->high : d->low + d->high);
	/* A list that cannot be read only costs this record its ranges. */
	if (d->has_ranges)
		rw_dw_ranges(b->s, u, d->ranges_form, d->ranges, base,
			     add_range, b);
	return b->st == WASM_OK;
}

/* The unit DIE at c: its bases into u, then its line table and base
 * address. */
static void unit_die(rw_dcur *c, const rw_dsecs *s, const rw_dw_abbrev *ab,
		     rw_dw_unit *u, uint64_t unit, dieattrs *d)
{
	rw_dcur a = {.p = s->abbrev, .pos = ab->specs, .end = s->abbrev_len};
	size_t at = c->pos;
	uint64_t attr, form;
	rw_dw_val v;

	/* Empty also when the unit DIE is cut short: the caller reads it. */
	memset(d, 0, sizeof *d);
	while (rw_dw_attr(&a, c, u, s, &attr, &form, &v)) {
		if (attr == RW_DW_AT_STR_OFFSETS_BASE)
			u->str_offsets_base = v.u;
		else if (attr == RW_DW_AT_ADDR_BASE)
			u->addr_base = v.u;
		else if (attr == RW_DW_AT_RNGLISTS_BASE)
			u->rnglists_base = v.u;
	}
	if (c->bad)
		return;
	c->pos = at;
	read_die(c, s, ab, u, unit, d);
}

/* The DIEs of the unit at c, up to c->end (rw_dw_unit_fn). False when
 * the build must stop (b->st); a damaged unit fails c. */
static bool read_unit(void *ctx, rw_dcur *c, const rw_dw_unit *hdr,
		      uint64_t unit, const rw_dw_abbrevs *ab)
{
	build *b = ctx;
	const rw_dsecs *s = b->s;
	rw_dw_unit u = *hdr;	   /* the unit DIE sets its DWARF 5 bases */
	around parents[MAX_DEPTH]; /* what encloses the DIEs of each depth */
	int depth = 0;
	uint64_t stmt = 0, base = 0, off;
	bool has_stmt = false, first = true;
	const rw_dw_abbrev *a;

	while (rw_dw_die_next(c, ab, &depth, &off, &a)) {
		around enclosing, mine;
		dieattrs d;
		enclosing = depth > 0 && depth <= MAX_DEPTH ? parents[depth - 1]
							    : (around){NONE, 0};
		mine = enclosing;
		if (first && (a->tag == TAG_COMPILE_UNIT ||
			      a->tag == TAG_PARTIAL_UNIT)) {
			unit_die(c, s, a, &u, unit, &d);
			stmt = d.stmt_list;
			has_stmt = d.has_stmt;
			base = d.has_low ? d.low : 0;
		} else {
			read_die(c, s, a, &u, unit, &d);
		}
		first = false;
		if (c->bad)
			break;
		if (a->tag == TAG_SUBPROGRAM) {
			/* An out-of-line body starts a new chain. */
			mine = (around){NONE, off};
			if (!add_sub(&b->subs, off, &d)) {
				b->st = WASM_NOMEM;
				return false;
			}
		} else if (a->tag == TAG_INLINED) {
			/* Deeper than we track: its parent is unknown. */
			if (depth > MAX_DEPTH)
				enclosing = (around){NONE, 0};
			if (!add_inlined(b, &u, &d, stmt, has_stmt, base,
					 enclosing))
				return false;
			mine.rec = b->cur;
		}
		if (a->children) {
			if (depth < MAX_DEPTH)
				parents[depth] = mine;
			depth++;
		}
	}
	return true;
}

static const sub *sub_at(const subs *t, uint64_t off)
{
	return rw_dw_die_find(t->v, t->n, sizeof *t->v, off);
}

/* The name of the subprogram at off: its linkage name anywhere along its
 * origin and specification references first (what the name section
 * says of an out-of-line copy), else its plain name. */
static const char *sub_name(const subs *t, uint64_t off, bool linkage, int hops)
{
	const sub *d = sub_at(t, off);
	const char *n;

	if (!d || hops > MAX_HOPS)
		return NULL;
	if ((n = linkage ? d->linkage : d->name))
		return n;
	if ((n = sub_name(t, d->origin, linkage, hops + 1)))
		return n;
	return sub_name(t, d->spec, linkage, hops + 1);
}

static int range_cmp(const void *a, const void *b)
{
	const inrange *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->rec < y->rec ? -1 : x->rec > y->rec;
}

static wasm_status read_info(build *b, wasm_err *err)
{
	rw_dcur c;

	if (rw_dw_units(b->s, &c, read_unit, b))
		b->st = WASM_NOMEM;
	err->section = NULL;
	err->func = WASM_NO_FUNC;
	if (b->st == WASM_NOMEM)
		return wasm_err_set(err, b->st, WASM_NO_OFFSET,
				    "out of memory");
	if (b->st == WASM_LIMIT)
		return wasm_err_set(err, b->st, WASM_NO_OFFSET,
				    "more than %u inlined code ranges in "
				    ".debug_info: inlined frames are left "
				    "out",
				    MAX_RANGES);
	if (c.bad) {
		err->section = ".debug_info";
		return wasm_err_set(err, WASM_MALFORMED, c.at,
				    "malformed .debug_info: %s (inlined "
				    "frames are left out)",
				    c.why);
	}
	return WASM_OK;
}

wasm_status rw_inline_new(const wasm_module *m, const rw_srcmap *files,
			  rw_inline **out, wasm_err *err)
{
	rw_dsecs s;
	build b = {.s = &s, .files = files};
	wasm_status st;
	uint64_t reach = 0;

	*out = NULL;
	if (!(b.t = wasm_calloc(1, sizeof *b.t)))
		return wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				    "out of memory");
	rw_dw_sections(m, &s);
	if (!m->section_present[10] || !s.info) {
		*out = b.t;
		return WASM_OK;
	}
	b.code_start = m->section_start[10];
	if ((st = read_info(&b, err))) {
		wasm_free(b.subs.v);
		rw_inline_free(b.t);
		return st;
	}
	for (size_t i = 0; i < b.t->nrec; i++) {
		inrec *r = &b.t->rec[i];
		if (!r->name)
			r->name = sub_name(&b.subs, r->origin, true, 0);
		if (!r->name)
			r->name = sub_name(&b.subs, r->origin, false, 0);
		r->func = sub_name(&b.subs, r->sub, true, 0);
		if (!r->func)
			r->func = sub_name(&b.subs, r->sub, false, 0);
	}
	wasm_free(b.subs.v);
	if (b.t->nrng)
		qsort(b.t->rng, b.t->nrng, sizeof *b.t->rng, range_cmp);
	for (size_t i = 0; i < b.t->nrng; i++) {
		if (b.t->rng[i].hi > reach)
			reach = b.t->rng[i].hi;
		b.t->rng[i].reach = reach;
	}
	*out = b.t;
	return WASM_OK;
}

void rw_inline_free(rw_inline *t)
{
	if (!t)
		return;
	wasm_free(t->rec);
	wasm_free(t->rng);
	wasm_free(t);
}

uint32_t rw_inline_lookup(const rw_inline *t, size_t offset, rw_inframe *out,
			  uint32_t cap, const char **func)
{
	size_t lo = 0, hi;
	uint32_t best = NONE, n = 0;

	if (func)
		*func = NULL;
	if (!t || !t->nrng)
		return 0;
	/* The first range starting past offset; those before may cover it. */
	hi = t->nrng;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->rng[mid].lo <= offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0 && t->rng[i].reach > offset;) {
		const inrange *r = &t->rng[i];
		if (offset < r->hi &&
		    (best == NONE || t->rec[r->rec].depth > t->rec[best].depth))
			best = r->rec;
	}
	/* Parents come before their children: the walk ends. */
	for (uint32_t k = best; k != NONE && n < cap && n < RW_INLINE_MAX;
	     k = t->rec[k].parent) {
		const inrec *r = &t->rec[k];
		out[n++] = (rw_inframe){r->name, r->call_file, r->call_line,
					r->call_column};
		if (func)
			*func = r->func;
	}
	return n;
}
