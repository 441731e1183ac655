/*
 * decode.c - the binary format: opcode tables, the instruction reader and
 * the module decoder.
 *
 * How it works: a cursor walks the file with bounds-checked reads; every
 * LEB128 is checked for length and for unused bits, and every count is
 * checked against the bytes left before anything is allocated for it (each
 * item takes at least one byte), so a hostile count can never make us
 * allocate more than the file could justify. Sections are read in one pass;
 * instruction streams are only delimited here and read later by the
 * validator through wasm_reader, which is the single instruction decoder.
 *
 * Limitations: memory indices are read as LEB128 u32 (multi-memory), so the
 * core suite's "zero byte expected" cases written as padded zeros are
 * accepted (tests/spec/exceptions.txt lists them). memory64 and the GC
 * proposal's types are out of scope and rejected as malformed.
 */
#include "wasm.h"

#include <stdlib.h>
#include <string.h>

const wasm_opinfo wasm_opinfo_table[WASM_OP_COUNT] = {
#define OP(id, pfx, code, name, imm, sig, width, flags, syn)                   \
	{pfx, code, WASM_IMM_##imm, width, flags, name, sig, syn},
#include "opcodes.def"
#undef OP
};

/* Opcode lookup: slot (0 = one byte, 1..3 = 0xFC..0xFE) * 256 + code ->
 * wasm_op + 1; 0 means no such opcode. */
#define OP_SLOT(pfx) ((pfx) == 0 ? 0 : (pfx)-0xFB)
static const uint16_t opmap[4 * 256] = {
#define OP(id, pfx, code, name, imm, sig, width, flags, syn)                   \
	[OP_SLOT(pfx) * 256 + (code)] = WASM_OP_##id + 1,
#include "opcodes.def"
#undef OP
};

_Static_assert(WASM_OP_COUNT == 510, "opcodes.def row count changed: "
				     "update this check and the consumers");

const char *wasm_type_name(uint8_t t)
{
	switch (t) {
	case WASM_I32: return "i32";
	case WASM_I64: return "i64";
	case WASM_F32: return "f32";
	case WASM_F64: return "f64";
	case WASM_V128: return "v128";
	case WASM_FUNCREF: return "funcref";
	case WASM_EXTERNREF: return "externref";
	}
	return "?";
}

const char *wasm_extern_name(wasm_extern k)
{
	static const char *const names[] = {"func", "table", "memory", "global",
					    "tag"};
	return (unsigned)k < 5 ? names[k] : "?";
}

const char *wasm_section_name(uint8_t id)
{
	static const char *const names[] = {
	    "custom", "type",	"import",    "function", "table",
	    "memory", "global", "export",    "start",	 "element",
	    "code",   "data",	"datacount", "tag"};
	return id < WASM_NSECTIONS ? names[id] : "unknown";
}

static bool is_valtype(uint8_t b)
{
	return (b >= WASM_V128 && b <= WASM_I32) || b == WASM_FUNCREF ||
	       b == WASM_EXTERNREF;
}

static bool is_reftype(uint8_t b)
{
	return b == WASM_FUNCREF || b == WASM_EXTERNREF;
}

/* ---- bounds-checked cursor ------------------------------------------ */

typedef struct cur {
	const uint8_t *base;
	size_t pos, end;
	wasm_err *err;
} cur;

static wasm_status truncated(cur *c)
{
	return wasm_err_set(c->err, WASM_MALFORMED, c->pos,
			    "unexpected end: the %s is cut short",
			    c->err->section ? "section" : "module");
}

/* Readers set their output even on failure: callers test the status, but
 * the compiler cannot see that and would warn of uninitialised reads. */
static wasm_status rd_byte(cur *c, uint8_t *v)
{
	*v = 0;
	if (c->pos >= c->end)
		return truncated(c);
	*v = c->base[c->pos++];
	return WASM_OK;
}

/* Unsigned LEB128 of at most `bits` bits (32 or 64). */
static wasm_status rd_uleb(cur *c, unsigned bits, uint64_t *v)
{
	uint64_t r = 0;
	unsigned shift = 0;
	size_t start = c->pos;
	unsigned maxlen = (bits + 6) / 7;

	*v = 0;
	for (unsigned i = 0;; i++) {
		uint8_t b;
		if (c->pos >= c->end)
			return truncated(c);
		b = c->base[c->pos++];
		if (i == maxlen - 1) {
			if (b & 0x80)
				return wasm_err_set(
				    c->err, WASM_MALFORMED, start,
				    "integer representation too long "
				    "(LEB128 over %u bytes)",
				    maxlen);
			if ((b >> (bits - shift)) != 0)
				return wasm_err_set(
				    c->err, WASM_MALFORMED, start,
				    "integer too large: LEB128 has bits "
				    "set beyond %u",
				    bits);
		}
		r |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	*v = r;
	return WASM_OK;
}

static wasm_status rd_u32(cur *c, uint32_t *v)
{
	uint64_t x;
	wasm_status st = rd_uleb(c, 32, &x);
	*v = (uint32_t)x;
	return st;
}

/* Signed LEB128 of at most `bits` bits (32, 33 or 64). */
static wasm_status rd_sleb(cur *c, unsigned bits, int64_t *v)
{
	uint64_t r = 0;
	unsigned shift = 0;
	size_t start = c->pos;
	unsigned maxlen = (bits + 6) / 7;
	uint8_t b;

	*v = 0;
	for (unsigned i = 0;; i++) {
		if (c->pos >= c->end)
			return truncated(c);
		b = c->base[c->pos++];
		if (i == maxlen - 1) {
			/* The final byte's bits above the value's width must
			 * all copy its sign bit. */
			unsigned used = bits - shift; /* 1..7 value bits */
			int sign = (b >> (used - 1)) & 1;
			uint8_t rest = (uint8_t)((b & 0x7f) >> used);
			uint8_t want =
			    sign ? (uint8_t)(0x7f >> used) : (uint8_t)0;
			if (b & 0x80)
				return wasm_err_set(
				    c->err, WASM_MALFORMED, start,
				    "integer representation too long "
				    "(LEB128 over %u bytes)",
				    maxlen);
			if (rest != want)
				return wasm_err_set(
				    c->err, WASM_MALFORMED, start,
				    "integer too large: signed LEB128 "
				    "does not fit %u bits",
				    bits);
		}
		r |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	if (shift < 64 && (b & 0x40))
		r |= ~(uint64_t)0 << shift;
	*v = (int64_t)r;
	return WASM_OK;
}

static wasm_status rd_bytes(cur *c, size_t n, size_t *start)
{
	*start = c->pos;
	if (n > c->end - c->pos)
		return wasm_err_set(c->err, WASM_MALFORMED, c->pos,
				    "unexpected end: %zu bytes declared, %zu "
				    "left (length out of bounds)",
				    n, c->end - c->pos);
	*start = c->pos;
	c->pos += n;
	return WASM_OK;
}

/* A vector count, checked against the bytes left: each element takes at
 * least min_size bytes, so a larger count cannot be honest. */
static wasm_status rd_count(cur *c, size_t min_size, uint32_t *n)
{
	size_t at = c->pos;
	wasm_status st = rd_u32(c, n);
	if (st)
		return st;
	if (min_size && *n > (c->end - c->pos) / min_size)
		return wasm_err_set(c->err, WASM_MALFORMED, at,
				    "unexpected end: count %u is larger than "
				    "the %zu bytes left could hold",
				    *n, c->end - c->pos);
	return WASM_OK;
}

static bool utf8_ok(const uint8_t *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		uint8_t b = s[i];
		uint32_t cp;
		size_t k;
		if (b < 0x80) {
			i++;
			continue;
		}
		if (b >= 0xC2 && b <= 0xDF) {
			k = 1;
			cp = b & 0x1f;
		} else if (b >= 0xE0 && b <= 0xEF) {
			k = 2;
			cp = b & 0x0f;
		} else if (b >= 0xF0 && b <= 0xF4) {
			k = 3;
			cp = b & 0x07;
		} else {
			return false;
		}
		if (n - i <= k)
			return false;
		for (size_t j = 1; j <= k; j++) {
			if ((s[i + j] & 0xC0) != 0x80)
				return false;
			cp = (cp << 6) | (s[i + j] & 0x3f);
		}
		if ((k == 2 && cp < 0x800) || (k == 3 && cp < 0x10000) ||
		    cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
			return false;
		i += k + 1;
	}
	return true;
}

static wasm_status rd_name(cur *c, wasm_str *s)
{
	uint32_t n;
	size_t start;
	wasm_status st;

	if ((st = rd_u32(c, &n)) || (st = rd_bytes(c, n, &start)))
		return st;
	if (!utf8_ok(c->base + start, n))
		return wasm_err_set(c->err, WASM_MALFORMED, start,
				    "malformed UTF-8 encoding in a name");
	s->p = (const char *)c->base + start;
	s->len = n;
	return WASM_OK;
}

static wasm_status rd_valtype(cur *c, uint8_t *t)
{
	size_t at = c->pos;
	wasm_status st = rd_byte(c, t);
	if (st)
		return st;
	if (!is_valtype(*t))
		return wasm_err_set(c->err, WASM_MALFORMED, at,
				    "malformed value type 0x%02x", *t);
	return WASM_OK;
}

static wasm_status rd_reftype(cur *c, uint8_t *t)
{
	size_t at = c->pos;
	wasm_status st = rd_byte(c, t);
	if (st)
		return st;
	if (!is_reftype(*t))
		return wasm_err_set(c->err, WASM_MALFORMED, at,
				    "malformed reference type 0x%02x", *t);
	return WASM_OK;
}

/* ---- instruction reader --------------------------------------------- */

void wasm_reader_init(wasm_reader *r, const uint8_t *base, size_t pos,
		      size_t end)
{
	memset(r, 0, sizeof *r);
	r->base = base;
	r->pos = pos;
	r->end = end;
}

void wasm_reader_fini(wasm_reader *r)
{
	wasm_free(r->labels);
	wasm_free(r->types);
	r->labels = NULL;
	r->types = NULL;
	r->labels_cap = r->types_cap = 0;
}

static wasm_status rd_memarg(cur *c, wasm_memarg *m)
{
	uint32_t align, off;
	wasm_status st;

	if ((st = rd_u32(c, &align)))
		return st;
	m->mem = 0;
	/* Multi-memory: bit 6 of the alignment field says a memory index
	 * follows. */
	if (align & 0x40) {
		align &= ~0x40u;
		if ((st = rd_u32(c, &m->mem)))
			return st;
	}
	m->align = align;
	if ((st = rd_u32(c, &off)))
		return st;
	m->offset = off;
	return WASM_OK;
}

wasm_status wasm_reader_next(wasm_reader *r, wasm_instr *in, wasm_err *err)
{
	cur c = {r->base, r->pos, r->end, err};
	size_t at = c.pos;
	unsigned slot = 0;
	uint32_t code;
	uint8_t b;
	uint16_t op1;
	wasm_status st;
	const wasm_opinfo *oi;

	if ((st = rd_byte(&c, &b)))
		return st;
	code = b;
	if (b >= 0xFC && b <= 0xFE) {
		slot = b - 0xFB;
		if ((st = rd_u32(&c, &code)))
			return st;
	}
	op1 = code < 256 ? opmap[slot * 256 + code] : 0;
	if (!op1) {
		if (slot)
			return wasm_err_set(err, WASM_MALFORMED, at,
					    "illegal opcode 0x%02x 0x%x", b,
					    code);
		return wasm_err_set(err, WASM_MALFORMED, at,
				    "illegal opcode 0x%02x", b);
	}
	in->op = (wasm_op)(op1 - 1);
	in->offset = at;
	oi = &wasm_opinfo_table[in->op];

	switch ((wasm_imm)oi->imm) {
	case WASM_IMM_NONE: break;
	case WASM_IMM_BLOCK: {
		int64_t v;
		if (c.pos >= c.end)
			return truncated(&c);
		b = c.base[c.pos];
		if (b == 0x40) {
			c.pos++;
			in->u.block.kind = WASM_BT_EMPTY;
			in->u.block.val = 0;
		} else if (is_valtype(b)) {
			c.pos++;
			in->u.block.kind = WASM_BT_VAL;
			in->u.block.val = b;
		} else {
			size_t bt = c.pos;
			if ((st = rd_sleb(&c, 33, &v)))
				return st;
			if (v < 0 || v > UINT32_MAX)
				return wasm_err_set(err, WASM_MALFORMED, bt,
						    "malformed block type");
			in->u.block.kind = WASM_BT_TYPE;
			in->u.block.val = (uint32_t)v;
		}
		break;
	}
	case WASM_IMM_LABEL:
	case WASM_IMM_FUNC:
	case WASM_IMM_LOCAL:
	case WASM_IMM_GLOBAL:
	case WASM_IMM_TABLE:
	case WASM_IMM_MEM:
	case WASM_IMM_DATA:
	case WASM_IMM_ELEM:
	case WASM_IMM_TAG:
		if ((st = rd_u32(&c, &in->u.idx)))
			return st;
		break;
	case WASM_IMM_CALL_INDIRECT:
	case WASM_IMM_MEMORY_INIT:
	case WASM_IMM_MEMORY_COPY:
	case WASM_IMM_TABLE_INIT:
	case WASM_IMM_TABLE_COPY:
		if ((st = rd_u32(&c, &in->u.idx2.a)) ||
		    (st = rd_u32(&c, &in->u.idx2.b)))
			return st;
		break;
	case WASM_IMM_BR_TABLE: {
		uint32_t n;
		if ((st = rd_count(&c, 1, &n)))
			return st;
		if (n > r->labels_cap) {
			uint32_t cap = n < 16 ? 16 : n;
			uint32_t *p =
			    wasm_realloc(r->labels, (size_t)cap * sizeof *p);
			if (!p)
				return wasm_err_set(err, WASM_NOMEM, at,
						    "out of memory");
			r->labels = p;
			r->labels_cap = cap;
		}
		for (uint32_t i = 0; i < n; i++)
			if ((st = rd_u32(&c, &r->labels[i])))
				return st;
		if ((st = rd_u32(&c, &in->u.br_table.def)))
			return st;
		in->u.br_table.count = n;
		in->u.br_table.labels = r->labels;
		break;
	}
	case WASM_IMM_SELECT_T: {
		uint32_t n;
		if ((st = rd_count(&c, 1, &n)))
			return st;
		if (n > r->types_cap) {
			uint8_t *p = wasm_realloc(r->types, n);
			if (!p)
				return wasm_err_set(err, WASM_NOMEM, at,
						    "out of memory");
			r->types = p;
			r->types_cap = n;
		}
		for (uint32_t i = 0; i < n; i++)
			if ((st = rd_valtype(&c, &r->types[i])))
				return st;
		in->u.select.count = n;
		in->u.select.types = r->types;
		break;
	}
	case WASM_IMM_MEMARG:
		if ((st = rd_memarg(&c, &in->u.mem.m)))
			return st;
		in->u.mem.lane = 0;
		break;
	case WASM_IMM_MEMARG_LANE:
		if ((st = rd_memarg(&c, &in->u.mem.m)) ||
		    (st = rd_byte(&c, &in->u.mem.lane)))
			return st;
		break;
	case WASM_IMM_I32: {
		int64_t v;
		if ((st = rd_sleb(&c, 32, &v)))
			return st;
		in->u.i32 = (int32_t)v;
		break;
	}
	case WASM_IMM_I64:
		if ((st = rd_sleb(&c, 64, &in->u.i64)))
			return st;
		break;
	case WASM_IMM_F32: {
		size_t s;
		if ((st = rd_bytes(&c, 4, &s)))
			return st;
		memcpy(&in->u.f32, c.base + s, 4); /* little-endian host */
		break;
	}
	case WASM_IMM_F64: {
		size_t s;
		if ((st = rd_bytes(&c, 8, &s)))
			return st;
		memcpy(&in->u.f64, c.base + s, 8);
		break;
	}
	case WASM_IMM_V128:
	case WASM_IMM_SHUFFLE: {
		size_t s;
		if ((st = rd_bytes(&c, 16, &s)))
			return st;
		memcpy(in->u.v128, c.base + s, 16);
		break;
	}
	case WASM_IMM_LANE:
		if ((st = rd_byte(&c, &in->u.lanes[0])))
			return st;
		break;
	case WASM_IMM_REFTYPE:
		if ((st = rd_reftype(&c, &in->u.reftype)))
			return st;
		break;
	case WASM_IMM_FENCE: {
		size_t fb = c.pos;
		if ((st = rd_byte(&c, &b)))
			return st;
		if (b != 0)
			return wasm_err_set(err, WASM_MALFORMED, fb,
					    "zero byte expected after "
					    "atomic.fence");
		break;
	}
	}
	r->pos = c.pos;
	return WASM_OK;
}

/* ---- module sections ------------------------------------------------- */

/* Order of the known sections: datacount (12) goes before code (10), the
 * tag section (13) between memory (5) and global (6). */
static const uint8_t section_rank[WASM_NSECTIONS] = {0, 1, 2,  3,  4,  5,  7,
						     8, 9, 10, 12, 13, 11, 6};

typedef struct dec {
	cur c;
	wasm_module *m;
	wasm_err *err;
} dec;

#define NEW_ARRAY(ptr, n)                                                      \
	(((ptr) = wasm_calloc((n) ? (n) : 1, sizeof *(ptr))) != NULL           \
	     ? WASM_OK                                                         \
	     : wasm_err_set(d->err, WASM_NOMEM, d->c.pos, "out of memory"))

static wasm_status rd_limits(dec *d, bool memory, wasm_limits *l)
{
	cur *c = &d->c;
	size_t at = c->pos;
	uint8_t flags;
	wasm_status st;

	l->at = at;
	if ((st = rd_byte(c, &flags)))
		return st;
	if (flags > (memory ? 3 : 1))
		return wasm_err_set(d->err, WASM_MALFORMED, at,
				    "malformed limits flags 0x%02x (%s)", flags,
				    memory ? "expected 0..3"
					   : "tables take 0 or 1");
	l->has_max = flags & 1;
	l->shared = flags & 2;
	if ((st = rd_u32(c, &l->min)))
		return st;
	l->max = 0;
	if (l->has_max && (st = rd_u32(c, &l->max)))
		return st;
	return WASM_OK;
}

static wasm_status rd_tabletype(dec *d, wasm_tabletype *t)
{
	wasm_status st = rd_reftype(&d->c, &t->elem);
	return st ? st : rd_limits(d, false, &t->lim);
}

static wasm_status rd_globaltype(dec *d, wasm_globaltype *g)
{
	uint8_t mut;
	size_t at;
	wasm_status st = rd_valtype(&d->c, &g->type);

	if (st)
		return st;
	at = d->c.pos;
	if ((st = rd_byte(&d->c, &mut)))
		return st;
	if (mut > 1)
		return wasm_err_set(d->err, WASM_MALFORMED, at,
				    "malformed mutability 0x%02x", mut);
	g->mut = mut;
	return WASM_OK;
}

/* A constant expression runs to its first `end`: constant instructions
 * never nest, and anything else is rejected by the validator. */
static wasm_status rd_expr(dec *d, wasm_expr *e)
{
	wasm_reader r;
	wasm_instr in;
	wasm_status st = WASM_OK;

	wasm_reader_init(&r, d->c.base, d->c.pos, d->c.end);
	e->start = d->c.pos;
	for (;;) {
		if (r.pos >= r.end) {
			st = wasm_err_set(d->err, WASM_MALFORMED, r.pos,
					  "unexpected end of a constant "
					  "expression (END opcode expected)");
			break;
		}
		if ((st = wasm_reader_next(&r, &in, d->err)))
			break;
		if (in.op == WASM_OP_END)
			break;
	}
	wasm_reader_fini(&r);
	d->c.pos = r.pos;
	e->end = r.pos;
	return st;
}

static wasm_status sec_type(dec *d)
{
	wasm_module *m = d->m;
	wasm_status st;

	if ((st = rd_count(&d->c, 3, &m->ntypes)) ||
	    (st = NEW_ARRAY(m->types, m->ntypes)))
		return st;
	for (uint32_t i = 0; i < m->ntypes; i++) {
		wasm_functype *ft = &m->types[i];
		size_t at = d->c.pos;
		uint32_t np, nr;
		uint8_t form;
		if ((st = rd_byte(&d->c, &form)))
			return st;
		if (form != 0x60)
			return wasm_err_set(d->err, WASM_MALFORMED, at,
					    "malformed function type form "
					    "0x%02x (expected 0x60)",
					    form);
		if ((st = rd_count(&d->c, 1, &np)))
			return st;
		/* Params are read before the result count is known:
		 * reserve for them now and grow once. */
		if ((st = NEW_ARRAY(ft->types, np)))
			return st;
		for (uint32_t k = 0; k < np; k++)
			if ((st = rd_valtype(&d->c, &ft->types[k])))
				return st;
		ft->nparams = np;
		if ((st = rd_count(&d->c, 1, &nr)))
			return st;
		if (nr) {
			uint8_t *p = wasm_realloc(ft->types, (size_t)np + nr);
			if (!p)
				return wasm_err_set(d->err, WASM_NOMEM, at,
						    "out of memory");
			ft->types = p;
		}
		for (uint32_t k = 0; k < nr; k++)
			if ((st = rd_valtype(&d->c, &ft->types[np + k])))
				return st;
		ft->nresults = nr;
	}
	return WASM_OK;
}

/* A tag type: the attribute (0, an exception) and a type index. */
static wasm_status rd_tagtype(dec *d, uint32_t *type)
{
	size_t at = d->c.pos;
	uint8_t attr;
	wasm_status st;

	if ((st = rd_byte(&d->c, &attr)))
		return st;
	if (attr != 0)
		return wasm_err_set(d->err, WASM_MALFORMED, at,
				    "malformed tag attribute 0x%02x (0 is the "
				    "only one, an exception)",
				    attr);
	return rd_u32(&d->c, type);
}

static wasm_status sec_import(dec *d)
{
	wasm_module *m = d->m;
	wasm_status st;

	if ((st = rd_count(&d->c, 4, &m->nimports)) ||
	    (st = NEW_ARRAY(m->imports, m->nimports)))
		return st;
	for (uint32_t i = 0; i < m->nimports; i++) {
		wasm_import *im = &m->imports[i];
		size_t at;
		uint8_t kind;
		im->at = d->c.pos;
		if ((st = rd_name(&d->c, &im->module)) ||
		    (st = rd_name(&d->c, &im->name)))
			return st;
		at = d->c.pos;
		if ((st = rd_byte(&d->c, &kind)))
			return st;
		switch (kind) {
		case WASM_EXTERN_FUNC:
			st = rd_u32(&d->c, &im->u.func_type);
			m->nfunc_imports++;
			break;
		case WASM_EXTERN_TABLE:
			st = rd_tabletype(d, &im->u.table);
			m->ntable_imports++;
			break;
		case WASM_EXTERN_MEMORY:
			st = rd_limits(d, true, &im->u.memory);
			m->nmem_imports++;
			break;
		case WASM_EXTERN_GLOBAL:
			st = rd_globaltype(d, &im->u.global);
			m->nglobal_imports++;
			break;
		case WASM_EXTERN_TAG:
			st = rd_tagtype(d, &im->u.tag_type);
			m->ntag_imports++;
			break;
		default:
			return wasm_err_set(d->err, WASM_MALFORMED, at,
					    "malformed import kind 0x%02x",
					    kind);
		}
		if (st)
			return st;
		im->kind = (wasm_extern)kind;
	}
	return WASM_OK;
}

static wasm_status sec_function(dec *d)
{
	wasm_module *m = d->m;
	wasm_status st;

	if ((st = rd_count(&d->c, 1, &m->nfuncs)) ||
	    (st = NEW_ARRAY(m->funcs, m->nfuncs)))
		return st;
	for (uint32_t i = 0; i < m->nfuncs; i++)
		if ((st = rd_u32(&d->c, &m->funcs[i].type)))
			return st;
	return WASM_OK;
}

static wasm_status sec_table(dec *d)
{
	wasm_module *m = d->m;
	wasm_status st;

	if ((st = rd_count(&d->c, 3, &m->ntables)) ||
	    (st = NEW_ARRAY(m->tables, m->ntables)))
		return st;
	for (uint32_t i = 0; i < m->ntables; i++)
		if ((st = rd_tabletype(d, &m->tables[i])))
			return st;
	return WASM_OK;
}

static wasm_status sec_memory(dec *d)
{
	wasm_module *m = d->m;
	wasm_status st;

	if ((st = rd_count(&d->c, 2, &m->nmems)) ||
	    (st = NEW_ARRAY(m->mems, m->nmems)))
		return st;
	for (uint32_t i = 0; i < m->nmems; i++)
		if ((st = rd_limits(d, true, &m->mems[i])))
			return st;
	return WASM_OK;
}

static wasm_status sec_tag(dec *d)
{
	wasm_module *m = d->m;
	wasm_status st;

	if ((st = rd_count(&d->c, 2, &m->ntags)) ||
	    (st = NEW_ARRAY(m->tags, m->ntags)))
		return st;
	for (uint32_t i = 0; i < m->ntags; i++)
		if ((st = rd_tagtype(d, &m->tags[i])))
			return st;
	return WASM_OK;
}

static wasm_status sec_global(dec *d)
{
	wasm_module *m = d->m;
	wasm_status st;

	if ((st = rd_count(&d->c, 3, &m->nglobals)) ||
	    (st = NEW_ARRAY(m->globals, m->nglobals)))
		return st;
	for (uint32_t i = 0; i < m->nglobals; i++)
		if ((st = rd_globaltype(d, &m->globals[i].type)) ||
		    (st = rd_expr(d, &m->globals[i].init)))
			return st;
	return WASM_OK;
}

static wasm_status sec_export(dec *d)
{
	wasm_module *m = d->m;
	wasm_status st;

	if ((st = rd_count(&d->c, 3, &m->nexports)) ||
	    (st = NEW_ARRAY(m->exports, m->nexports)))
		return st;
	for (uint32_t i = 0; i < m->nexports; i++) {
		wasm_export *ex = &m->exports[i];
		size_t at;
		uint8_t kind;
		ex->at = d->c.pos;
		if ((st = rd_name(&d->c, &ex->name)))
			return st;
		at = d->c.pos;
		if ((st = rd_byte(&d->c, &kind)))
			return st;
		if (kind > WASM_EXTERN_TAG)
			return wasm_err_set(d->err, WASM_MALFORMED, at,
					    "malformed export kind 0x%02x",
					    kind);
		ex->kind = (wasm_extern)kind;
		if ((st = rd_u32(&d->c, &ex->index)))
			return st;
	}
	return WASM_OK;
}

static wasm_status sec_start(dec *d)
{
	d->m->has_start = true;
	d->m->start_at = d->c.pos;
	return rd_u32(&d->c, &d->m->start);
}

static wasm_status sec_element(dec *d)
{
	wasm_module *m = d->m;
	wasm_status st;

	if ((st = rd_count(&d->c, 1, &m->nelems)) ||
	    (st = NEW_ARRAY(m->elems, m->nelems)))
		return st;
	for (uint32_t i = 0; i < m->nelems; i++) {
		wasm_elem *e = &m->elems[i];
		size_t at = d->c.pos;
		uint32_t flags;
		e->at = at;
		if ((st = rd_u32(&d->c, &flags)))
			return st;
		if (flags > 7)
			return wasm_err_set(d->err, WASM_MALFORMED, at,
					    "malformed element segment flags "
					    "%u (expected 0..7)",
					    flags);
		e->flags = (uint8_t)flags;
		/* Bit 0: passive or declarative; bit 1: explicit table
		 * (active) or declarative; bit 2: expressions. */
		e->mode = !(flags & 1)	? WASM_SEG_ACTIVE
			  : (flags & 2) ? WASM_SEG_DECLARATIVE
					: WASM_SEG_PASSIVE;
		e->type = WASM_FUNCREF;
		e->table = 0;
		if (e->mode == WASM_SEG_ACTIVE) {
			if ((flags & 2) && (st = rd_u32(&d->c, &e->table)))
				return st;
			if ((st = rd_expr(d, &e->offset)))
				return st;
		}
		if (flags & 3) {
			if (flags & 4) {
				if ((st = rd_reftype(&d->c, &e->type)))
					return st;
			} else {
				uint8_t kind;
				size_t kat = d->c.pos;
				if ((st = rd_byte(&d->c, &kind)))
					return st;
				if (kind != 0)
					return wasm_err_set(
					    d->err, WASM_MALFORMED, kat,
					    "malformed element kind "
					    "0x%02x (expected 0x00)",
					    kind);
			}
		}
		if ((st = rd_count(&d->c, 1, &e->count)))
			return st;
		if (flags & 4) {
			if ((st = NEW_ARRAY(e->exprs, e->count)))
				return st;
			for (uint32_t k = 0; k < e->count; k++)
				if ((st = rd_expr(d, &e->exprs[k])))
					return st;
		} else {
			if ((st = NEW_ARRAY(e->funcs, e->count)))
				return st;
			for (uint32_t k = 0; k < e->count; k++)
				if ((st = rd_u32(&d->c, &e->funcs[k])))
					return st;
		}
	}
	return WASM_OK;
}

static wasm_status sec_datacount(dec *d)
{
	d->m->has_datacount = true;
	return rd_u32(&d->c, &d->m->datacount);
}

/* Upper bound on locals per function, as in the spec: 2^32 - 1. */
#define MAX_LOCALS UINT32_MAX

static wasm_status sec_code(dec *d)
{
	wasm_module *m = d->m;
	size_t at = d->c.pos;
	uint32_t n;
	wasm_status st;

	if ((st = rd_count(&d->c, 1, &n)))
		return st;
	if (n != m->nfuncs)
		return wasm_err_set(d->err, WASM_MALFORMED, at,
				    "function and code section have "
				    "inconsistent lengths (%u functions, %u "
				    "bodies)",
				    m->nfuncs, n);
	for (uint32_t i = 0; i < n; i++) {
		wasm_func *f = &m->funcs[i];
		uint32_t size, ng;
		size_t body, fend;
		cur saved;
		d->err->func = m->nfunc_imports + i;
		f->body_start = d->c.pos;
		if ((st = rd_u32(&d->c, &size)) ||
		    (st = rd_bytes(&d->c, size, &body)))
			return st;
		fend = body + size;
		/* Read the locals inside the body's bounds only. */
		saved = d->c;
		d->c.pos = body;
		d->c.end = fend;
		if ((st = rd_count(&d->c, 2, &ng)) ||
		    (st = NEW_ARRAY(f->groups, ng)))
			return st;
		f->ngroups = ng;
		for (uint32_t k = 0; k < ng; k++) {
			size_t gat = d->c.pos;
			if ((st = rd_u32(&d->c, &f->groups[k].count)) ||
			    (st = rd_valtype(&d->c, &f->groups[k].type)))
				return st;
			f->nlocals += f->groups[k].count;
			if (f->nlocals > MAX_LOCALS)
				return wasm_err_set(d->err, WASM_MALFORMED, gat,
						    "too many locals (over "
						    "2^32-1 in one function)");
		}
		f->code_start = d->c.pos;
		f->code_end = fend;
		d->c = saved;
	}
	d->err->func = WASM_NO_FUNC;
	return WASM_OK;
}

static wasm_status sec_data(dec *d)
{
	wasm_module *m = d->m;
	wasm_status st;

	if ((st = rd_count(&d->c, 1, &m->ndatas)) ||
	    (st = NEW_ARRAY(m->datas, m->ndatas)))
		return st;
	for (uint32_t i = 0; i < m->ndatas; i++) {
		wasm_data *ds = &m->datas[i];
		size_t at = d->c.pos;
		uint32_t flags;
		if ((st = rd_u32(&d->c, &flags)))
			return st;
		if (flags > 2)
			return wasm_err_set(d->err, WASM_MALFORMED, at,
					    "malformed data segment flags %u "
					    "(expected 0..2)",
					    flags);
		ds->flags = (uint8_t)flags;
		ds->mode = flags == 1 ? WASM_SEG_PASSIVE : WASM_SEG_ACTIVE;
		if (flags == 2 && (st = rd_u32(&d->c, &ds->mem)))
			return st;
		if (flags != 1 && (st = rd_expr(d, &ds->offset)))
			return st;
		if ((st = rd_u32(&d->c, &ds->len)) ||
		    (st = rd_bytes(&d->c, ds->len, &ds->start)))
			return st;
	}
	return WASM_OK;
}

/* ---- the name section: parsed leniently ----------------------------- */

static int name_cmp(const void *a, const void *b)
{
	uint32_t x = ((const wasm_name *)a)->index;
	uint32_t y = ((const wasm_name *)b)->index;
	return x < y ? -1 : x > y;
}

static bool rd_namemap(cur *c, uint32_t *count, wasm_name **out)
{
	uint32_t n;

	if (rd_count(c, 2, &n))
		return false;
	*out = wasm_calloc(n ? n : 1, sizeof **out);
	if (!*out)
		return false;
	*count = n;
	for (uint32_t i = 0; i < n; i++)
		if (rd_u32(c, &(*out)[i].index) || rd_name(c, &(*out)[i].name))
			return false;
	qsort(*out, n, sizeof **out, name_cmp);
	return true;
}

static void names_free(wasm_names *n)
{
	wasm_free(n->funcs);
	wasm_free(n->globals);
	for (uint32_t i = 0; i < n->nlocal_funcs; i++)
		wasm_free(n->locals[i].locals);
	wasm_free(n->locals);
	memset(n, 0, sizeof *n);
}

/* Errors in the name section never make the module malformed (the spec
 * says custom sections are not validated): we keep what we understood. */
static void parse_names(wasm_module *m, size_t start, size_t end)
{
	wasm_err scratch;
	cur c = {m->bytes, start, end, &scratch};
	wasm_names *nm = &m->names;
	bool ok = true;

	wasm_err_clear(&scratch);
	while (ok && c.pos < c.end) {
		uint8_t id;
		uint32_t size;
		size_t body = 0;
		cur sub;
		if (rd_byte(&c, &id) || rd_u32(&c, &size) ||
		    rd_bytes(&c, size, &body)) {
			ok = false;
			break;
		}
		sub = (cur){m->bytes, body, body + size, &scratch};
		if (id == 0 && !nm->module.p) {
			ok = !rd_name(&sub, &nm->module);
		} else if (id == 1 && !nm->funcs) {
			ok = rd_namemap(&sub, &nm->nfuncs, &nm->funcs);
		} else if (id == 7 && !nm->globals) {
			ok = rd_namemap(&sub, &nm->nglobals, &nm->globals);
		} else if (id == 2 && !nm->locals) {
			uint32_t n;
			if (rd_count(&sub, 2, &n))
				ok = false;
			else
				nm->locals =
				    wasm_calloc(n ? n : 1, sizeof *nm->locals);
			if (!nm->locals) {
				ok = false;
				break;
			}
			for (uint32_t i = 0; ok && i < n; i++) {
				struct wasm_local_names *ln = &nm->locals[i];
				ok = !rd_u32(&sub, &ln->func) &&
				     rd_namemap(&sub, &ln->count, &ln->locals);
				nm->nlocal_funcs = i + 1;
			}
		}
	}
	if (!ok) {
		names_free(nm);
		return;
	}
	nm->present = nm->module.p || nm->funcs || nm->locals || nm->globals;
}

/* ---- the module ------------------------------------------------------ */

static wasm_status (*const section_reader[WASM_NSECTIONS])(dec *) = {
    [1] = sec_type,   [2] = sec_import, [3] = sec_function,
    [4] = sec_table,  [5] = sec_memory, [6] = sec_global,
    [7] = sec_export, [8] = sec_start,	[9] = sec_element,
    [10] = sec_code,  [11] = sec_data,	[12] = sec_datacount,
    [13] = sec_tag,
};

static wasm_status decode_sections(dec *d)
{
	wasm_module *m = d->m;
	cur *c = &d->c;
	uint8_t last = 0; /* id of the last known section read */
	size_t name_start = 0, name_end = 0;
	wasm_status st;

	if (c->end < 4 || memcmp(c->base, "\0asm", 4) != 0)
		return wasm_err_set(d->err, WASM_MALFORMED, 0,
				    c->end < 4 ? "unexpected end: too short "
						 "for a Wasm module"
					       : "magic header not detected: "
						 "not a WebAssembly binary");
	if (c->end < 8)
		return wasm_err_set(d->err, WASM_MALFORMED, 4,
				    "unexpected end: no version field");
	if (memcmp(c->base + 4, "\1\0\0\0", 4) != 0)
		return wasm_err_set(d->err, WASM_MALFORMED, 4,
				    "unknown binary version 0x%02x%02x%02x%02x"
				    " (expected 1)",
				    c->base[7], c->base[6], c->base[5],
				    c->base[4]);
	c->pos = 8;
	while (c->pos < c->end) {
		size_t at = c->pos, body = 0, file_end = c->end;
		uint32_t size;
		uint8_t id;
		d->err->section = NULL;
		if ((st = rd_byte(c, &id)))
			return st;
		if (id >= WASM_NSECTIONS)
			return wasm_err_set(d->err, WASM_MALFORMED, at,
					    "malformed section id %u", id);
		d->err->section = wasm_section_name(id);
		if ((st = rd_u32(c, &size)) || (st = rd_bytes(c, size, &body)))
			return st;
		if (id != 0) {
			if (m->section_present[id])
				return wasm_err_set(d->err, WASM_MALFORMED, at,
						    "duplicate %s section",
						    wasm_section_name(id));
			if (last && section_rank[id] <= section_rank[last])
				return wasm_err_set(
				    d->err, WASM_MALFORMED, at,
				    "unexpected content after last "
				    "section: %s section after %s section",
				    wasm_section_name(id),
				    wasm_section_name(last));
			m->section_present[id] = true;
			m->section_size[id] = size;
			m->section_start[id] = body;
		}
		c->pos = body;
		c->end = body + size;
		if (id == 0) {
			wasm_custom cs;
			wasm_custom *p;
			if ((st = rd_name(c, &cs.name)))
				return st;
			cs.start = c->pos;
			cs.len = (uint32_t)(c->end - c->pos);
			cs.after = last;
			p = wasm_realloc(m->customs,
					 (m->ncustoms + 1) * sizeof *p);
			if (!p)
				return wasm_err_set(d->err, WASM_NOMEM, at,
						    "out of memory");
			m->customs = p;
			m->customs[m->ncustoms++] = cs;
			if (cs.name.len == 4 && !memcmp(cs.name.p, "name", 4) &&
			    !name_start) {
				name_start = cs.start;
				name_end = c->end;
			}
			c->pos = c->end;
		} else {
			if ((st = section_reader[id](d)))
				return st;
			if (c->pos != c->end)
				return wasm_err_set(
				    d->err, WASM_MALFORMED, c->pos,
				    "section size mismatch: %s section "
				    "declares %u bytes, its content ends "
				    "%zu bytes early",
				    wasm_section_name(id), size,
				    c->end - c->pos);
			last = id;
		}
		c->end = file_end;
	}
	d->err->section = NULL;
	if (m->nfuncs && !m->section_present[10])
		return wasm_err_set(d->err, WASM_MALFORMED, c->pos,
				    "function and code section have "
				    "inconsistent lengths (%u functions, no "
				    "code section)",
				    m->nfuncs);
	if (m->has_datacount && m->datacount != m->ndatas)
		return wasm_err_set(d->err, WASM_MALFORMED, c->pos,
				    "data count and data section have "
				    "inconsistent lengths (%u declared, %u "
				    "segments)",
				    m->datacount, m->ndatas);
	if (name_start)
		parse_names(m, name_start, name_end);
	return WASM_OK;
}

wasm_status wasm_decode(const uint8_t *bytes, size_t len, wasm_module **out,
			wasm_err *err)
{
	dec d;
	wasm_status st;
	wasm_module *m;

	*out = NULL;
	wasm_err_clear(err);
	m = wasm_calloc(1, sizeof *m);
	if (!m)
		return wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				    "out of memory");
	m->bytes = wasm_malloc(len);
	if (!m->bytes) {
		wasm_free(m);
		return wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				    "out of memory copying %zu bytes", len);
	}
	if (len)
		memcpy(m->bytes, bytes, len);
	m->size = len;
	d.c = (cur){m->bytes, 0, len, err};
	d.m = m;
	d.err = err;
	st = decode_sections(&d);
	if (st) {
		wasm_module_free(m);
		return st;
	}
	err->section = NULL;
	err->func = WASM_NO_FUNC;
	*out = m;
	return WASM_OK;
}

void wasm_module_free(wasm_module *m)
{
	if (!m)
		return;
	for (uint32_t i = 0; m->types && i < m->ntypes; i++)
		wasm_free(m->types[i].types);
	wasm_free(m->types);
	wasm_free(m->imports);
	for (uint32_t i = 0; m->funcs && i < m->nfuncs; i++)
		wasm_free(m->funcs[i].groups);
	wasm_free(m->funcs);
	wasm_free(m->tables);
	wasm_free(m->mems);
	wasm_free(m->globals);
	wasm_free(m->tags);
	wasm_free(m->exports);
	for (uint32_t i = 0; m->elems && i < m->nelems; i++) {
		wasm_free(m->elems[i].funcs);
		wasm_free(m->elems[i].exprs);
	}
	wasm_free(m->elems);
	wasm_free(m->datas);
	wasm_free(m->customs);
	names_free(&m->names);
	wasm_free(m->bytes);
	wasm_free(m);
}

/* ---- index spaces ---------------------------------------------------- */

uint32_t wasm_func_count(const wasm_module *m)
{
	return m->nfunc_imports + m->nfuncs;
}

uint32_t wasm_table_count(const wasm_module *m)
{
	return m->ntable_imports + m->ntables;
}

uint32_t wasm_mem_count(const wasm_module *m)
{
	return m->nmem_imports + m->nmems;
}

uint32_t wasm_global_count(const wasm_module *m)
{
	return m->nglobal_imports + m->nglobals;
}

uint32_t wasm_tag_count(const wasm_module *m)
{
	return m->ntag_imports + m->ntags;
}

/* The k-th import of a kind; imports are few, a scan is fine. */
static const wasm_import *nth_import(const wasm_module *m, wasm_extern kind,
				     uint32_t k)
{
	for (uint32_t i = 0; i < m->nimports; i++)
		if (m->imports[i].kind == kind && k-- == 0)
			return &m->imports[i];
	return NULL;
}

const wasm_functype *wasm_func_type(const wasm_module *m, uint32_t idx)
{
	uint32_t t;

	if (idx < m->nfunc_imports) {
		t = nth_import(m, WASM_EXTERN_FUNC, idx)->u.func_type;
	} else if (idx - m->nfunc_imports < m->nfuncs) {
		t = m->funcs[idx - m->nfunc_imports].type;
	} else {
		return NULL;
	}
	return t < m->ntypes ? &m->types[t] : NULL;
}

const wasm_functype *wasm_tag_type(const wasm_module *m, uint32_t idx)
{
	uint32_t t;

	if (idx < m->ntag_imports)
		t = nth_import(m, WASM_EXTERN_TAG, idx)->u.tag_type;
	else if (idx - m->ntag_imports < m->ntags)
		t = m->tags[idx - m->ntag_imports];
	else
		return NULL;
	return t < m->ntypes ? &m->types[t] : NULL;
}

const wasm_limits *wasm_mem_limits(const wasm_module *m, uint32_t idx)
{
	if (idx < m->nmem_imports)
		return &nth_import(m, WASM_EXTERN_MEMORY, idx)->u.memory;
	if (idx - m->nmem_imports < m->nmems)
		return &m->mems[idx - m->nmem_imports];
	return NULL;
}

const wasm_globaltype *wasm_global_type(const wasm_module *m, uint32_t idx)
{
	if (idx < m->nglobal_imports)
		return &nth_import(m, WASM_EXTERN_GLOBAL, idx)->u.global;
	if (idx - m->nglobal_imports < m->nglobals)
		return &m->globals[idx - m->nglobal_imports].type;
	return NULL;
}

/* The name of index idx in a sorted name map, or NULL. */
static const wasm_str *map_name(const wasm_name *map, uint32_t n, uint32_t idx)
{
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (map[mid].index < idx)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < n && map[lo].index == idx)
		return &map[lo].name;
	return NULL;
}

const wasm_str *wasm_func_name(const wasm_module *m, uint32_t idx)
{
	return map_name(m->names.funcs, m->names.nfuncs, idx);
}

const wasm_str *wasm_global_name(const wasm_module *m, uint32_t idx)
{
	return map_name(m->names.globals, m->names.nglobals, idx);
}
