/*
 * dwarf.h - bounds-checked reading of a module's DWARF sections, for the
 * line table (srcmap.c), the symbol table (symbols.c) and the inlined
 * frames (inline.c). Internal to rewriter/: other folders use srcmap.h,
 * symbols.h and inline.h.
 *
 * A cursor (rw_dcur) reads one section between pos and end. `bad` is
 * sticky: after the first overrun every read returns 0 (NULL for
 * strings) and pos sits at end, so callers check once after a group of
 * reads; `at` and `why` say where and what went wrong first. Nothing
 * here allocates; strings and blocks point into the module's bytes.
 */
#ifndef HEISEN_REWRITER_DWARF_H
#define HEISEN_REWRITER_DWARF_H

#include "core/wasm.h"

typedef struct rw_dcur {
	const uint8_t *p; /* section start */
	size_t pos, end;  /* end: the current limit (unit or section) */
	bool bad;
	size_t at;
	const char *why;
} rw_dcur;

void rw_dc_fail(rw_dcur *c, size_t at, const char *why);
/* Whether n more bytes are there (fails the cursor if not). */
bool rw_dc_need(rw_dcur *c, size_t n);
uint64_t rw_dc_uint(rw_dcur *c, size_t n); /* little-endian; n > 8 fails c */
uint8_t rw_dc_u8(rw_dcur *c);
/* LEB128 of up to 10 bytes; bits beyond 64 are dropped. */
uint64_t rw_dc_uleb(rw_dcur *c);
int64_t rw_dc_sleb(rw_dcur *c);
void rw_dc_skip(rw_dcur *c, uint64_t n);
/* A NUL-terminated string inside the cursor's range. */
const char *rw_dc_str(rw_dcur *c);

/* The DWARF sections of a module (NULL and 0 when absent). */
typedef struct rw_dsecs {
	const uint8_t *line, *line_str, *str, *info, *abbrev;
	size_t line_len, line_str_len, str_len, info_len, abbrev_len;
	/* DWARF 5's indirections (strx, addrx, rnglistx) and both
	 * versions' range lists. */
	const uint8_t *str_offsets, *addr, *ranges, *rnglists;
	size_t str_offsets_len, addr_len, ranges_len, rnglists_len;
} rw_dsecs;

/* The payload of custom section `name` (its first one), or NULL. */
const uint8_t *rw_custom_bytes(const wasm_module *m, const char *name,
			       size_t *len);
void rw_dw_sections(const wasm_module *m, rw_dsecs *out);

/* Attribute forms the callers name (DWARF 5 table 7.6; v2..v4 use the
 * same numbers). */
enum {
	RW_DW_FORM_INDIRECT = 0x16,
	RW_DW_FORM_IMPLICIT_CONST = 0x21,
};

/* One attribute value: an integer (a block's length for block forms),
 * a string (NULL when it lives where we cannot reach it), or a block's
 * bytes. index: a DWARF 5 strx/addrx whose unit base is not known (yet),
 * u is then the index, not the string's or address's. */
typedef struct rw_dw_val {
	uint64_t u;
	const char *str;
	const uint8_t *block;
	bool index;
} rw_dw_val;

/* Whether form is of the address class (DW_AT_high_pc is an address in
 * such a form, an offset from DW_AT_low_pc in a constant one). */
bool rw_dw_form_is_addr(uint64_t form);

/* Read one attribute value of `form`. offsz is 4 or 8 (DWARF32/64),
 * addrsz the unit's address size, version the unit's DWARF version
 * (DW_FORM_ref_addr changed size in v3). Unknown forms fail the cursor:
 * their size cannot be known. */
void rw_dw_form(rw_dcur *c, uint64_t form, unsigned offsz, unsigned addrsz,
		unsigned version, const rw_dsecs *s, rw_dw_val *v);

/* A unit's initial length: sets *offsz to 4 or 8; returns the length, or
 * fails the cursor for the reserved values 0xfffffff0..0xfffffffe. */
uint64_t rw_dw_unit_length(rw_dcur *c, unsigned *offsz);

/* A unit's header fields after its initial length (offsz: 4 or 8, from
 * rw_dw_unit_length). type is DW_UT_compile (1) before DWARF 5. The
 * bases come from the unit's DIE (DW_AT_str_offsets_base, addr_base,
 * rnglists_base; 0: none, as no base can be 0 after a section's
 * header): rw_dw_unit_header clears them, a caller that reads the unit
 * DIE sets them so that rw_dw_attr resolves strx and addrx forms. */
typedef struct rw_dw_unit {
	unsigned offsz, version, type, addrsz;
	uint64_t abbrev_off;
	uint64_t str_offsets_base, addr_base, rnglists_base;
} rw_dw_unit;
void rw_dw_unit_header(rw_dcur *c, rw_dw_unit *u);

/* Attributes of the unit DIE that set rw_dw_unit's bases. */
enum {
	RW_DW_AT_STR_OFFSETS_BASE = 0x72,
	RW_DW_AT_ADDR_BASE = 0x73,
	RW_DW_AT_RNGLISTS_BASE = 0x74,
};

/* The next attribute of a DIE: its name and form from the abbreviation's
 * specs at a, its value from the DIE at c (an implicit constant's from
 * a; an indirect form resolved; strx and addrx through the unit's bases
 * when it has them, else v->index). False at the end of the specs, or
 * when either cursor has failed. */
bool rw_dw_attr(rw_dcur *a, rw_dcur *c, const rw_dw_unit *u, const rw_dsecs *s,
		uint64_t *attr, uint64_t *form, rw_dw_val *v);

/* Find abbreviation `code` in the table at `off` of .debug_abbrev: leaves
 * *a positioned at its attribute specs, with its tag and children flag
 * in *tag and *children (either may be NULL). */
bool rw_dw_abbrev_find(const rw_dsecs *s, uint64_t off, uint64_t code,
		       rw_dcur *a, uint64_t *tag, bool *children);

/* A unit's abbreviations indexed for DIE walks: each code's tag,
 * children flag and the offset of its attribute specs. */
typedef struct rw_dw_abbrev {
	uint64_t code, tag;
	size_t specs; /* offset of its attribute specs in .debug_abbrev */
	bool children;
} rw_dw_abbrev;

typedef struct rw_dw_abbrevs {
	rw_dw_abbrev *v;
	size_t n, cap;
} rw_dw_abbrevs;

/* Index the table at off into out (its storage reused; the caller frees
 * out->v with wasm_free). False only when out of memory; a damaged
 * table fails c (the unit's cursor) at its position. */
bool rw_dw_abbrevs_read(const rw_dsecs *s, uint64_t off, rw_dw_abbrevs *out,
			rw_dcur *c);
/* Abbreviation `code` of t, or NULL. O(log n). */
const rw_dw_abbrev *rw_dw_abbrevs_get(const rw_dw_abbrevs *t, uint64_t code);

/* Walk the compile and partial units of .debug_info (DWARF 2..5; type
 * and other units are skipped: their types are reached by signature,
 * which nobody here follows). For each, unit_fn gets c positioned at
 * the unit's first DIE with c->end at the unit's end, the unit's header
 * u, its offset `unit` and its abbreviations ab. A damaged unit fails c
 * and ends the walk (c->bad, c->at, c->why: the caller's message).
 * unit_fn returns false to stop. Returns WASM_NOMEM when the
 * abbreviations could not be stored, else WASM_OK (also after a stop or
 * a failure: c and the caller's own state tell). */
typedef bool (*rw_dw_unit_fn)(void *ctx, rw_dcur *c, const rw_dw_unit *u,
			      uint64_t unit, const rw_dw_abbrevs *ab);
wasm_status rw_dw_units(const rw_dsecs *s, rw_dcur *c, rw_dw_unit_fn unit_fn,
			void *ctx);

/* The next DIE of a unit walk at c: its offset and abbreviation, with
 * *depth lowered by the null entries that end children lists before it
 * (the caller raises it after a DIE that has children). False at the
 * unit's end, or when c failed (an unknown abbreviation fails it). */
bool rw_dw_die_next(rw_dcur *c, const rw_dw_abbrevs *ab, int *depth,
		    uint64_t *off, const rw_dw_abbrev **a);

/* Records kept per DIE by a walk's caller, each starting with its DIE's
 * offset (a uint64_t), in v[0..n) sorted by it, size bytes apart: the one
 * at offset off, or NULL (also for off 0, no reference). */
const void *rw_dw_die_find(const void *v, size_t n, size_t size, uint64_t off);

/* A reference attribute's target as a section offset (unit: the offset
 * of the unit's header); 0 for a form we cannot follow (a signature, a
 * supplementary file) or a non-reference. */
uint64_t rw_dw_ref(uint64_t form, uint64_t val, uint64_t unit);

/* The code ranges of a DW_AT_ranges attribute (form and value as read)
 * of unit u, whose base address is base (the unit DIE's DW_AT_low_pc):
 * DWARF 2..4 .debug_ranges lists, DWARF 5 .debug_rnglists ones (by
 * offset, or by rnglistx through u->rnglists_base). fn is called with
 * each non-empty [lo, hi) and may stop the walk by returning false.
 * Returns false when the list cannot be read (out of bounds, an unknown
 * entry, more than RW_DW_MAX_RANGES entries) or fn stopped it. */
#define RW_DW_MAX_RANGES 4096
bool rw_dw_ranges(const rw_dsecs *s, const rw_dw_unit *u, uint64_t form,
		  uint64_t val, uint64_t base,
		  bool (*fn)(void *ctx, uint64_t lo, uint64_t hi), void *ctx);

#endif
