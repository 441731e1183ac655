/*
 * dwarf.c - the bounds-checked DWARF reader of dwarf.h.
 */
#include "rewriter/dwarf.h"

#include <stdlib.h>
#include <string.h>

void rw_dc_fail(rw_dcur *c, size_t at, const char *why)
{
	if (!c->bad) {
		c->bad = true;
		c->at = at;
		c->why = why;
	}
	c->pos = c->end;
}

bool rw_dc_need(rw_dcur *c, size_t n)
{
	if (c->bad)
		return false;
	if (n > c->end - c->pos) {
		rw_dc_fail(c, c->pos, "unexpected end of data");
		return false;
	}
	return true;
}

uint64_t rw_dc_uint(rw_dcur *c, size_t n) /* little-endian, n <= 8 */
{
	uint64_t v = 0;
	/* n comes from the data (a unit's address size is a byte). */
	if (n > 8 && !c->bad)
		rw_dc_fail(c, c->pos, "address or offset wider than 8 bytes");
	if (!rw_dc_need(c, n))
		return 0;
	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)c->p[c->pos + i] << (8 * i);
	c->pos += n;
	return v;
}

uint8_t rw_dc_u8(rw_dcur *c) { return (uint8_t)rw_dc_uint(c, 1); }

/* LEB128, up to 10 bytes; higher bits of an over-long value are dropped
 * (DWARF allows padding; the value is what we can hold). */
static uint64_t dc_leb(rw_dcur *c, bool sign)
{
	uint64_t v = 0;
	unsigned shift = 0;
	size_t start = c->pos;
	uint8_t b;
	do {
		if (c->bad)
			return 0;
		if (c->pos >= c->end) {
			rw_dc_fail(c, start, "unterminated LEB128");
			return 0;
		}
		b = c->p[c->pos++];
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (shift > 70) {
			rw_dc_fail(c, start, "LEB128 too long");
			return 0;
		}
	} while (b & 0x80);
	if (sign && shift < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << shift;
	return v;
}

uint64_t rw_dc_uleb(rw_dcur *c) { return dc_leb(c, false); }
int64_t rw_dc_sleb(rw_dcur *c) { return (int64_t)dc_leb(c, true); }

void rw_dc_skip(rw_dcur *c, uint64_t n)
{
	if (n > SIZE_MAX || !rw_dc_need(c, (size_t)n))
		rw_dc_fail(c, c->pos, "length out of bounds");
	else
		c->pos += (size_t)n;
}

/* A NUL-terminated string inside the cursor's range. */
const char *rw_dc_str(rw_dcur *c)
{
	const uint8_t *s, *z;
	if (c->bad)
		return NULL;
	s = c->p + c->pos;
	z = memchr(s, 0, c->end - c->pos);
	if (!z) {
		rw_dc_fail(c, c->pos, "unterminated string");
		return NULL;
	}
	c->pos += (size_t)(z - s) + 1;
	return (const char *)s;
}

/* A string at offset `off` of a string section (.debug_str or
 * .debug_line_str); NULL if out of range or unterminated. */
static const char *sec_str(const uint8_t *sec, size_t len, uint64_t off)
{
	if (!sec || off >= len)
		return NULL;
	if (!memchr(sec + off, 0, len - (size_t)off))
		return NULL;
	return (const char *)sec + off;
}

/* Attribute form values (DWARF 5 table 7.6; the v2..v4 ones are the
 * same numbers). */
enum {
	F_ADDR = 0x01,
	F_BLOCK2 = 0x03,
	F_BLOCK4 = 0x04,
	F_DATA2 = 0x05,
	F_DATA4 = 0x06,
	F_DATA8 = 0x07,
	F_STRING = 0x08,
	F_BLOCK = 0x09,
	F_BLOCK1 = 0x0a,
	F_DATA1 = 0x0b,
	F_FLAG = 0x0c,
	F_SDATA = 0x0d,
	F_STRP = 0x0e,
	F_UDATA = 0x0f,
	F_REF_ADDR = 0x10,
	F_REF1 = 0x11,
	F_REF2 = 0x12,
	F_REF4 = 0x13,
	F_REF8 = 0x14,
	F_REF_UDATA = 0x15,
	F_INDIRECT = 0x16,
	F_SEC_OFFSET = 0x17,
	F_EXPRLOC = 0x18,
	F_FLAG_PRESENT = 0x19,
	F_STRX = 0x1a,
	F_ADDRX = 0x1b,
	F_REF_SUP4 = 0x1c,
	F_STRP_SUP = 0x1d,
	F_DATA16 = 0x1e,
	F_LINE_STRP = 0x1f,
	F_REF_SIG8 = 0x20,
	F_IMPLICIT_CONST = 0x21,
	F_LOCLISTX = 0x22,
	F_RNGLISTX = 0x23,
	F_REF_SUP8 = 0x24,
	F_STRX1 = 0x25,
	F_STRX2 = 0x26,
	F_STRX3 = 0x27,
	F_STRX4 = 0x28,
	F_ADDRX1 = 0x29,
	F_ADDRX2 = 0x2a,
	F_ADDRX3 = 0x2b,
	F_ADDRX4 = 0x2c,
};

/* A block of n bytes at the cursor: its bytes and length into v. */
static void block(rw_dcur *c, uint64_t n, rw_dw_val *v)
{
	const uint8_t *p = c->p + c->pos;

	rw_dc_skip(c, n);
	if (!c->bad) {
		v->u = n;
		v->block = p;
	}
}

bool rw_dw_form_is_addr(uint64_t form)
{
	return form == F_ADDR || form == F_ADDRX ||
	       (form >= F_ADDRX1 && form <= F_ADDRX4);
}

static bool form_is_strx(uint64_t form)
{
	return form == F_STRX || (form >= F_STRX1 && form <= F_STRX4);
}

/* Entry idx (of size n bytes) of a table at base in section sec, as DWARF
 * 5's str_offsets and addr tables lay them out; false when outside. */
static bool table_entry(const uint8_t *sec, size_t len, uint64_t base,
			uint64_t idx, unsigned n, uint64_t *out)
{
	rw_dcur c = {.p = sec, .end = len};

	if (!sec || base >= len || idx > (len - base) / n)
		return false;
	c.pos = (size_t)(base + idx * n);
	*out = rw_dc_uint(&c, n);
	return !c.bad;
}

/* An address by its index in .debug_addr (unit u); false if unreadable. */
static bool addrx(const rw_dsecs *s, const rw_dw_unit *u, uint64_t idx,
		  uint64_t *out)
{
	return u->addr_base && u->addrsz && u->addrsz <= 8 &&
	       table_entry(s->addr, s->addr_len, u->addr_base, idx, u->addrsz,
			   out);
}

void rw_dw_form(rw_dcur *c, uint64_t form, unsigned offsz, unsigned addrsz,
		unsigned version, const rw_dsecs *s, rw_dw_val *v)
{
	size_t at = c->pos;
	memset(v, 0, sizeof *v);
	switch (form) {
	case F_ADDR: v->u = rw_dc_uint(c, addrsz); break;
	case F_DATA1:
	case F_REF1:
	case F_FLAG:
	case F_STRX1:
	case F_ADDRX1: v->u = rw_dc_uint(c, 1); break;
	case F_DATA2:
	case F_REF2:
	case F_STRX2:
	case F_ADDRX2: v->u = rw_dc_uint(c, 2); break;
	case F_STRX3:
	case F_ADDRX3: v->u = rw_dc_uint(c, 3); break;
	case F_DATA4:
	case F_REF4:
	case F_REF_SUP4:
	case F_STRX4:
	case F_ADDRX4: v->u = rw_dc_uint(c, 4); break;
	case F_DATA8:
	case F_REF8:
	case F_REF_SIG8:
	case F_REF_SUP8: v->u = rw_dc_uint(c, 8); break;
	case F_DATA16: rw_dc_skip(c, 16); break; /* MD5: not needed */
	case F_SDATA: v->u = (uint64_t)rw_dc_sleb(c); break;
	case F_UDATA:
	case F_REF_UDATA:
	case F_STRX:
	case F_ADDRX:
	case F_LOCLISTX:
	case F_RNGLISTX: v->u = rw_dc_uleb(c); break;
	case F_STRING: v->str = rw_dc_str(c); break;
	case F_STRP:
		v->u = rw_dc_uint(c, offsz);
		v->str = sec_str(s->str, s->str_len, v->u);
		break;
	case F_LINE_STRP:
		v->u = rw_dc_uint(c, offsz);
		v->str = sec_str(s->line_str, s->line_str_len, v->u);
		break;
	case F_REF_ADDR:
		v->u = rw_dc_uint(c, version <= 2 ? addrsz : offsz);
		break;
	case F_SEC_OFFSET:
	case F_STRP_SUP: v->u = rw_dc_uint(c, offsz); break;
	case F_BLOCK1: block(c, rw_dc_uint(c, 1), v); break;
	case F_BLOCK2: block(c, rw_dc_uint(c, 2), v); break;
	case F_BLOCK4: block(c, rw_dc_uint(c, 4), v); break;
	case F_BLOCK:
	case F_EXPRLOC: block(c, rw_dc_uleb(c), v); break;
	case F_FLAG_PRESENT: v->u = 1; break;
	case F_IMPLICIT_CONST: break; /* the value is in the abbreviation */
	default: rw_dc_fail(c, at, "unsupported attribute form"); break;
	}
}

uint64_t rw_dw_unit_length(rw_dcur *c, unsigned *offsz)
{
	size_t at = c->pos;
	uint64_t len = rw_dc_uint(c, 4);
	*offsz = 4;
	if (len == 0xffffffff) {
		len = rw_dc_uint(c, 8);
		*offsz = 8;
	} else if (len >= 0xfffffff0) {
		rw_dc_fail(c, at, "reserved unit length");
	}
	return len;
}

void rw_dw_unit_header(rw_dcur *c, rw_dw_unit *u)
{
	u->str_offsets_base = u->addr_base = u->rnglists_base = 0;
	u->version = (unsigned)rw_dc_uint(c, 2);
	u->type = 1;
	if (u->version >= 5) {
		u->type = rw_dc_u8(c);
		u->addrsz = rw_dc_u8(c);
		u->abbrev_off = rw_dc_uint(c, u->offsz);
	} else {
		u->abbrev_off = rw_dc_uint(c, u->offsz);
		u->addrsz = rw_dc_u8(c);
	}
}

bool rw_dw_attr(rw_dcur *a, rw_dcur *c, const rw_dw_unit *u, const rw_dsecs *s,
		uint64_t *attr, uint64_t *form, rw_dw_val *v)
{
	int depth = 0;

	*attr = rw_dc_uleb(a);
	*form = rw_dc_uleb(a);
	memset(v, 0, sizeof *v);
	if (a->bad || c->bad || (!*attr && !*form))
		return false;
	if (*form == RW_DW_FORM_IMPLICIT_CONST) {
		v->u = (uint64_t)rw_dc_sleb(a);
		return !a->bad;
	}
	/* indirect: the form is in the DIE; bounded so that a chain of
	 * indirects cannot run long. */
	while (*form == RW_DW_FORM_INDIRECT && depth++ < 4)
		*form = rw_dc_uleb(c);
	rw_dw_form(c, *form, u->offsz, u->addrsz, u->version, s, v);
	if (c->bad)
		return false;
	if (form_is_strx(*form)) {
		uint64_t off;
		v->index = true;
		if (u->str_offsets_base &&
		    table_entry(s->str_offsets, s->str_offsets_len,
				u->str_offsets_base, v->u, u->offsz, &off)) {
			v->str = sec_str(s->str, s->str_len, off);
			v->index = false;
		}
	} else if (rw_dw_form_is_addr(*form) && *form != F_ADDR) {
		v->index = !addrx(s, u, v->u, &v->u);
	}
	return true;
}

bool rw_dw_abbrev_find(const rw_dsecs *s, uint64_t off, uint64_t code,
		       rw_dcur *a, uint64_t *tag, bool *children)
{
	*a = (rw_dcur){.p = s->abbrev, .end = s->abbrev_len};
	if (off >= s->abbrev_len)
		return false;
	a->pos = (size_t)off;
	while (!a->bad && a->pos < a->end) {
		uint64_t c = rw_dc_uleb(a), attr, form, t;
		bool ch;
		if (c == 0)
			return false; /* end of this unit's table */
		t = rw_dc_uleb(a);
		ch = rw_dc_u8(a) != 0;
		if (c == code) {
			if (tag)
				*tag = t;
			if (children)
				*children = ch;
			return !a->bad;
		}
		do {
			attr = rw_dc_uleb(a);
			form = rw_dc_uleb(a);
			if (form == F_IMPLICIT_CONST)
				rw_dc_sleb(a);
		} while (!a->bad && (attr || form));
	}
	return false;
}

static int abbrev_cmp(const void *a, const void *b)
{
	const rw_dw_abbrev *x = a, *y = b;
	return x->code < y->code ? -1 : x->code > y->code;
}

bool rw_dw_abbrevs_read(const rw_dsecs *s, uint64_t off, rw_dw_abbrevs *out,
			rw_dcur *c)
{
	rw_dcur a = {.p = s->abbrev, .end = s->abbrev_len};

	out->n = 0;
	if (off >= s->abbrev_len) {
		rw_dc_fail(c, c->pos, "abbreviation table out of bounds");
		return true;
	}
	a.pos = (size_t)off;
	while (!a.bad && a.pos < a.end) {
		rw_dw_abbrev ab = {.code = rw_dc_uleb(&a)};
		uint64_t attr, form;
		if (!ab.code)
			break;
		ab.tag = rw_dc_uleb(&a);
		ab.children = rw_dc_u8(&a) != 0;
		ab.specs = a.pos;
		do {
			attr = rw_dc_uleb(&a);
			form = rw_dc_uleb(&a);
			if (form == RW_DW_FORM_IMPLICIT_CONST)
				rw_dc_sleb(&a);
		} while (!a.bad && (attr || form));
		if (out->n == out->cap) {
			size_t cap = out->cap ? 2 * out->cap : 64;
			rw_dw_abbrev *v = wasm_realloc(out->v, cap * sizeof *v);
			if (!v)
				return false;
			out->v = v;
			out->cap = cap;
		}
		out->v[out->n++] = ab;
	}
	if (a.bad)
		rw_dc_fail(c, c->pos, "malformed abbreviation table");
	else if (out->n)
		qsort(out->v, out->n, sizeof *out->v, abbrev_cmp);
	return true;
}

const rw_dw_abbrev *rw_dw_abbrevs_get(const rw_dw_abbrevs *t, uint64_t code)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->v[mid].code < code)
			lo = mid + 1;
		else if (t->v[mid].code > code)
			hi = mid;
		else
			return &t->v[mid];
	}
	return NULL;
}

uint64_t rw_dw_ref(uint64_t form, uint64_t val, uint64_t unit)
{
	switch (form) {
	case F_REF1:
	case F_REF2:
	case F_REF4:
	case F_REF8:
	case F_REF_UDATA: return unit + val;
	case F_REF_ADDR: return val;
	}
	return 0;
}

/* DWARF 5 range list entries (table 7.30). */
enum {
	RLE_END = 0,
	RLE_BASE_ADDRESSX,
	RLE_STARTX_ENDX,
	RLE_STARTX_LENGTH,
	RLE_OFFSET_PAIR,
	RLE_BASE_ADDRESS,
	RLE_START_END,
	RLE_START_LENGTH,
};

/* A DWARF 5 list at offset off of .debug_rnglists. */
static bool rnglist(const rw_dsecs *s, const rw_dw_unit *u, uint64_t off,
		    uint64_t base, bool (*fn)(void *, uint64_t, uint64_t),
		    void *ctx)
{
	rw_dcur c = {.p = s->rnglists, .end = s->rnglists_len};

	if (!s->rnglists || off >= s->rnglists_len)
		return false;
	c.pos = (size_t)off;
	for (unsigned n = 0; n < RW_DW_MAX_RANGES; n++) {
		uint64_t lo = 0, hi = 0, a, b;
		bool ok = true;
		switch (rw_dc_u8(&c)) {
		case RLE_END: return !c.bad;
		case RLE_BASE_ADDRESSX:
			ok = addrx(s, u, rw_dc_uleb(&c), &base);
			break;
		case RLE_STARTX_ENDX:
			a = rw_dc_uleb(&c);
			b = rw_dc_uleb(&c);
			ok = addrx(s, u, a, &lo) && addrx(s, u, b, &hi);
			break;
		case RLE_STARTX_LENGTH:
			a = rw_dc_uleb(&c);
			ok = addrx(s, u, a, &lo);
			hi = lo + rw_dc_uleb(&c);
			break;
		case RLE_OFFSET_PAIR:
			lo = base + rw_dc_uleb(&c);
			hi = base + rw_dc_uleb(&c);
			break;
		case RLE_BASE_ADDRESS: base = rw_dc_uint(&c, u->addrsz); break;
		case RLE_START_END:
			lo = rw_dc_uint(&c, u->addrsz);
			hi = rw_dc_uint(&c, u->addrsz);
			break;
		case RLE_START_LENGTH:
			lo = rw_dc_uint(&c, u->addrsz);
			hi = lo + rw_dc_uleb(&c);
			break;
		default: return false;
		}
		if (c.bad || !ok)
			return false;
		if (lo < hi && !fn(ctx, lo, hi))
			return false;
	}
	return false;
}

bool rw_dw_ranges(const rw_dsecs *s, const rw_dw_unit *u, uint64_t form,
		  uint64_t val, uint64_t base,
		  bool (*fn)(void *ctx, uint64_t lo, uint64_t hi), void *ctx)
{
	rw_dcur c = {.p = s->ranges, .end = s->ranges_len};
	uint64_t max;

	if (u->addrsz == 0 || u->addrsz > 8)
		return false;
	if (u->version >= 5) {
		uint64_t off = val;
		if (form == F_RNGLISTX &&
		    (!u->rnglists_base ||
		     !table_entry(s->rnglists, s->rnglists_len,
				  u->rnglists_base, val, u->offsz, &off) ||
		     (off += u->rnglists_base) < u->rnglists_base))
			return false;
		return rnglist(s, u, off, base, fn, ctx);
	}
	/* DWARF 2..4: pairs of addresses, (0, 0) ends the list, a pair
	 * whose first is the largest address sets the base. */
	if (!s->ranges || val >= s->ranges_len)
		return false;
	max = u->addrsz == 8 ? UINT64_MAX : (1ull << (8 * u->addrsz)) - 1;
	c.pos = (size_t)val;
	for (unsigned n = 0; n < RW_DW_MAX_RANGES; n++) {
		uint64_t a = rw_dc_uint(&c, u->addrsz);
		uint64_t b = rw_dc_uint(&c, u->addrsz);
		if (c.bad)
			return false;
		if (!a && !b)
			return true;
		if (a == max)
			base = b;
		else if (a < b && !fn(ctx, base + a, base + b))
			return false;
	}
	return false;
}

static const wasm_custom *find_custom(const wasm_module *m, const char *name,
				      size_t *len)
{
	size_t n = strlen(name);
	for (uint32_t i = 0; i < m->ncustoms; i++) {
		const wasm_custom *cs = &m->customs[i];
		if (cs->name.len == n && !memcmp(cs->name.p, name, n)) {
			*len = cs->len;
			return cs;
		}
	}
	*len = 0;
	return NULL;
}

const uint8_t *rw_custom_bytes(const wasm_module *m, const char *name,
			       size_t *len)
{
	const wasm_custom *cs = find_custom(m, name, len);
	return cs ? m->bytes + cs->start : NULL;
}

void rw_dw_sections(const wasm_module *m, rw_dsecs *ds)
{
	ds->line = rw_custom_bytes(m, ".debug_line", &ds->line_len);
	ds->line_str = rw_custom_bytes(m, ".debug_line_str", &ds->line_str_len);
	ds->str = rw_custom_bytes(m, ".debug_str", &ds->str_len);
	ds->info = rw_custom_bytes(m, ".debug_info", &ds->info_len);
	ds->abbrev = rw_custom_bytes(m, ".debug_abbrev", &ds->abbrev_len);
	ds->str_offsets =
	    rw_custom_bytes(m, ".debug_str_offsets", &ds->str_offsets_len);
	ds->addr = rw_custom_bytes(m, ".debug_addr", &ds->addr_len);
	ds->ranges = rw_custom_bytes(m, ".debug_ranges", &ds->ranges_len);
	ds->rnglists = rw_custom_bytes(m, ".debug_rnglists", &ds->rnglists_len);
}

wasm_status rw_dw_units(const rw_dsecs *s, rw_dcur *c, rw_dw_unit_fn unit_fn,
			void *ctx)
{
	rw_dw_abbrevs ab = {0};
	wasm_status st = WASM_OK;

	*c = (rw_dcur){.p = s->info, .end = s->info_len};
	while (s->info && c->pos < s->info_len && !c->bad) {
		uint64_t unit = c->pos, len;
		rw_dw_unit u = {0};
		size_t next;
		c->end = s->info_len;
		len = rw_dw_unit_length(c, &u.offsz);
		if (c->bad)
			break;
		if (len > c->end - c->pos) {
			rw_dc_fail(c, (size_t)unit,
				   "unit longer than the section");
			break;
		}
		next = c->pos + (size_t)len;
		c->end = next;
		rw_dw_unit_header(c, &u);
		if (!c->bad && u.version >= 2 && u.version <= 5 &&
		    u.addrsz <= 8 && (u.type == 1 || u.type == 3)) {
			if (!rw_dw_abbrevs_read(s, u.abbrev_off, &ab, c)) {
				st = WASM_NOMEM;
				break;
			}
			if (!c->bad && !unit_fn(ctx, c, &u, unit, &ab))
				break;
		}
		if (!c->bad)
			c->pos = next;
	}
	wasm_free(ab.v);
	return st;
}

const void *rw_dw_die_find(const void *v, size_t n, size_t size, uint64_t off)
{
	size_t lo = 0, hi = n;

	while (off && lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const unsigned char *r = (const unsigned char *)v + mid * size;
		uint64_t at;
		memcpy(&at, r, sizeof at);
		if (at < off)
			lo = mid + 1;
		else if (at > off)
			hi = mid;
		else
			return r;
	}
	return NULL;
}

bool rw_dw_die_next(rw_dcur *c, const rw_dw_abbrevs *ab, int *depth,
		    uint64_t *off, const rw_dw_abbrev **a)
{
	while (!c->bad && c->pos < c->end) {
		uint64_t code;
		*off = c->pos;
		if (!(code = rw_dc_uleb(c))) {
			if (*depth > 0)
				--*depth;
			continue;
		}
		if (!(*a = rw_dw_abbrevs_get(ab, code))) {
			rw_dc_fail(c, (size_t)*off,
				   "DIE with an unknown abbreviation");
			return false;
		}
		return true;
	}
	return false;
}
